//! Merges: decided in memory by gix (the tree and its conflicts are git's
//! own), then applied to the working tree through git; and the three-way
//! merge of one text.

use anyhow::{bail, Context as _, Result};
use gix::bstr::ByteSlice;

use super::repo::{Oid, Repo};

/// How merging a branch would go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergePlan {
    /// The `--no-ff` merge commit, written but not yet pointed at.
    Clean(Oid),
    /// The paths that conflict; nothing was changed.
    Conflicts(Vec<String>),
}

impl Repo {
    /// Decides in memory how merging `theirs` into `ours` goes; a clean merge
    /// gets its `--no-ff` merge commit written (parents: ours, theirs).
    pub fn plan_merge(&self, ours: Oid, theirs: Oid, their_label: &str, message: &str) -> Result<MergePlan> {
        let options: gix::merge::commit::Options = self
            .inner
            .tree_merge_options()
            .context("cannot read the merge options")?
            .into();
        let labels = gix::merge::blob::builtin_driver::text::Labels {
            ancestor: None,
            current: Some("HEAD".into()),
            other: Some(their_label.as_bytes().as_bstr()),
        };
        let mut outcome = self
            .inner
            .merge_commits(ours, theirs, labels, options)
            .with_context(|| format!("cannot merge {theirs} into {ours}"))?;
        let how = gix::merge::tree::TreatAsUnresolved::git();
        if outcome.tree_merge.has_unresolved_conflicts(how) {
            let mut paths: Vec<String> = outcome
                .tree_merge
                .conflicts
                .iter()
                .filter(|c| c.is_unresolved(how))
                .flat_map(|c| {
                    [
                        c.ours.location().to_str_lossy().into_owned(),
                        c.theirs.location().to_str_lossy().into_owned(),
                    ]
                })
                .collect();
            paths.sort();
            paths.dedup();
            return Ok(MergePlan::Conflicts(paths));
        }
        let tree = outcome
            .tree_merge
            .tree
            .write()
            .context("cannot write the merged tree")?
            .detach();
        Ok(MergePlan::Clean(self.write_commit(tree, &[ours, theirs], message)?))
    }

    /// Moves the working tree, index and HEAD from `old` to the commit
    /// `merge`. gix cannot yet update a working tree from one tree to another
    /// without risking untracked files, so git does it: `read-tree -m -u`
    /// refuses before writing anything when an untracked file or a local
    /// change is in the way (that refusal is returned as `Err(message)`), and
    /// `update-ref` moves HEAD only if it still is `old`.
    pub fn apply_merge(&self, old: Oid, merge: Oid, reflog: &str) -> Result<std::result::Result<(), String>> {
        if let Err(refused) = self.checkout_merge(old, merge)? {
            return Ok(Err(refused));
        }
        self.commit_merge(old, merge, reflog)?;
        Ok(Ok(()))
    }

    /// The first half of [`Repo::apply_merge`]: the working tree and index
    /// move from `old` to `merge` (or git refuses, changing nothing).
    pub fn checkout_merge(&self, old: Oid, merge: Oid) -> Result<std::result::Result<(), String>> {
        let (old_hex, merge_hex) = (old.to_string(), merge.to_string());
        // git: gix 0.90 has no two-way checkout that refuses to overwrite an
        // untracked file or a local change (see `apply_merge`).
        let out = self.git(&["read-tree", "-m", "-u", &old_hex, &merge_hex])?;
        if !out.status.success() {
            return Ok(Err(String::from_utf8_lossy(&out.stderr).trim().to_owned()));
        }
        Ok(Ok(()))
    }

    /// The second half of [`Repo::apply_merge`]: HEAD moves from `old` to
    /// `merge` if it still is `old`; if not, the index and working tree are
    /// put back to `old` and it fails.
    pub fn commit_merge(&self, old: Oid, merge: Oid, reflog: &str) -> Result<()> {
        let (old_hex, merge_hex) = (old.to_string(), merge.to_string());
        // gix could move HEAD here (`advance_head`); git does it as the second
        // half of its own fast-forward (DESIGN §14), after the `read-tree` above
        // took and released the index lock, with git's reflog lines.
        let out = self.git(&["update-ref", "-m", reflog, "HEAD", &merge_hex, &old_hex])?;
        if !out.status.success() {
            // HEAD moved meanwhile: put the index and working tree back.
            let why = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            let back = self.git(&["read-tree", "-m", "-u", &merge_hex, &old_hex])?;
            let undone = match back.status.success() {
                true => "nothing was changed".to_owned(),
                false => format!(
                    "the index and working tree could not be put back: {}",
                    String::from_utf8_lossy(&back.stderr).trim()
                ),
            };
            bail!("cannot move HEAD to the merge ({why}); {undone}");
        }
        Ok(())
    }

    /// `ours` with the changes from `base` to `theirs` applied (a three-way
    /// text merge, git's algorithm, in memory); `None` when they conflict or a
    /// side is binary.
    pub fn merge_text(base: &[u8], ours: &[u8], theirs: &[u8]) -> Option<Vec<u8>> {
        if [base, ours, theirs].iter().any(|b| b.contains(&0)) {
            return None;
        }
        use gix::merge::blob::builtin_driver::{self, text};
        let mut out = Vec::new();
        let mut input = gix::diff::blob::InternedInput::new(&[][..], &[]);
        let labels = text::Labels {
            ancestor: None,
            current: None,
            other: None,
        };
        match builtin_driver::text(
            &mut out,
            &mut input,
            labels,
            ours,
            base,
            theirs,
            text::Options::default(),
        ) {
            gix::merge::blob::Resolution::Complete => Some(out),
            _ => None,
        }
    }
}
