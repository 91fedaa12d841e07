//! Linked worktrees and branches for parallel sessions (DESIGN §7), merges
//! decided in memory and applied through git, and the size of a change.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

use anyhow::{anyhow, bail, Result};
use gix::bstr::ByteSlice;

use super::repo::{EntryKind, Expect, Oid, Repo};
use super::worktree::{status_paths, StatusPath};

/// A linked worktree as git has it registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkedWorktree {
    pub path: PathBuf,
    /// The branch checked out there (`refs/heads/…`), if any.
    pub branch: Option<String>,
}

/// How merging a branch would go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergePlan {
    /// The `--no-ff` merge commit, written but not yet pointed at.
    Clean(Oid),
    /// The paths that conflict; nothing was changed.
    Conflicts(Vec<String>),
}

/// Tracked and untracked changes in the working tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dirt {
    /// Staged or unstaged changes to tracked files.
    pub tracked: Vec<String>,
    pub untracked: Vec<String>,
}

impl Repo {
    /// Creates the local branch `name` (`refs/heads/…`) at `commit`; it must not exist.
    pub fn create_branch(&self, name: &str, commit: Oid) -> Result<()> {
        self.update_ref(name, commit, Expect::Absent, "branch: Created by git ultraplan")
    }

    /// Adds a linked worktree at `path` with `branch` checked out (gix: no
    /// hooks run, files checked out in-process).
    pub fn add_worktree(&self, path: &Path, branch: &str) -> Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| anyhow!("cannot create '{}': {e}", parent.display()))?;
        }
        let name: gix::refs::FullName = branch
            .try_into()
            .map_err(|e| anyhow!("invalid branch name '{branch}': {e}"))?;
        let interrupt = AtomicBool::new(false);
        self.inner
            .add_worktree(
                path,
                gix::worktree::add::Head::Attached(name),
                gix::progress::Discard,
                &interrupt,
            )
            .map_err(|e| anyhow!("cannot add a worktree at '{}': {e}", path.display()))?;
        Ok(())
    }

    /// Every linked worktree (not the main one).
    pub fn linked_worktrees(&self) -> Result<Vec<LinkedWorktree>> {
        let mut out = Vec::new();
        for proxy in self
            .inner
            .worktrees()
            .map_err(|e| anyhow!("cannot list worktrees: {e}"))?
        {
            let Ok(path) = proxy.base() else { continue };
            let head = std::fs::read_to_string(proxy.git_dir().join("HEAD")).unwrap_or_default();
            let branch = head.trim().strip_prefix("ref: ").map(str::to_owned);
            out.push(LinkedWorktree { path, branch });
        }
        Ok(out)
    }

    /// Removes the linked worktree at `path`, changes and locks included; a
    /// registration whose directory is gone is pruned.
    pub fn remove_worktree(&self, path: &Path) -> Result<()> {
        let removed =
            self.inner
                .remove_worktree(path, gix::worktree::remove::Force::OverrideLock, gix::progress::Discard);
        if let Err(e) = removed {
            // gix refuses what it cannot resolve; git's own command is the fallback.
            let out = self.git(&["worktree", "remove", "--force", "--force"], Some(path))?;
            if !out.status.success() && path.exists() {
                bail!("cannot remove the worktree '{}': {e}", path.display());
            }
        }
        Ok(())
    }

    /// `git worktree prune`: forget registrations whose directories are gone
    /// (gix has no prune).
    pub fn prune_worktrees(&self) -> Result<()> {
        let _ = self.git(&["worktree", "prune"], None)?;
        Ok(())
    }

    /// Runs the `git` binary against this repository.
    pub(crate) fn git(&self, args: &[&str], extra: Option<&Path>) -> Result<std::process::Output> {
        let git = which::which("git").map_err(|_| anyhow!("git is not on PATH"))?;
        let mut cmd = Command::new(git);
        cmd.arg("--git-dir").arg(self.git_dir());
        if let Ok(workdir) = self.workdir() {
            cmd.arg("--work-tree").arg(workdir).current_dir(workdir);
        }
        cmd.args(args);
        if let Some(extra) = extra {
            cmd.arg(extra);
        }
        cmd.env_remove("GIT_INDEX_FILE");
        cmd.output()
            .map_err(|e| anyhow!("cannot run git {}: {e}", args.join(" ")))
    }

    /// Decides in memory how merging `theirs` into `ours` goes; a clean merge
    /// gets its `--no-ff` merge commit written (parents: ours, theirs).
    pub fn plan_merge(&self, ours: Oid, theirs: Oid, their_label: &str, message: &str) -> Result<MergePlan> {
        let options: gix::merge::commit::Options = self
            .inner
            .tree_merge_options()
            .map_err(|e| anyhow!("cannot read the merge options: {e}"))?
            .into();
        let labels = gix::merge::blob::builtin_driver::text::Labels {
            ancestor: None,
            current: Some("HEAD".into()),
            other: Some(their_label.as_bytes().as_bstr()),
        };
        let mut outcome = self
            .inner
            .merge_commits(ours, theirs, labels, options)
            .map_err(|e| anyhow!("cannot merge {theirs} into {ours}: {e}"))?;
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
            .map_err(|e| anyhow!("cannot write the merged tree: {e}"))?
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
        let out = self.git(&["read-tree", "-m", "-u", &old_hex, &merge_hex], None)?;
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
        let out = self.git(&["update-ref", "-m", reflog, "HEAD", &merge_hex, &old_hex], None)?;
        if !out.status.success() {
            // HEAD moved meanwhile: put the index and working tree back.
            let why = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            let back = self.git(&["read-tree", "-m", "-u", &merge_hex, &old_hex], None)?;
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

    /// Files and lines changed from tree `old` to tree `new` (lines added plus
    /// removed; binary files count no lines).
    pub fn diff_stat(&self, old: Oid, new: Oid) -> Result<(usize, usize)> {
        let changes = self.changes(old, new)?;
        let mut lines = 0;
        for change in &changes {
            let before = self.text_at(old, &change.path)?;
            let after = match change.new {
                Some((id, EntryKind::Blob | EntryKind::Executable)) => text(self.read_blob(id)?),
                _ => None,
            };
            let (a, b) = (before.unwrap_or_default(), after.unwrap_or_default());
            let diff = similar::TextDiff::from_lines(&a, &b);
            lines += diff
                .iter_all_changes()
                .filter(|c| c.tag() != similar::ChangeTag::Equal)
                .count();
        }
        Ok((changes.len(), lines))
    }

    fn text_at(&self, tree: Oid, path: &str) -> Result<Option<String>> {
        Ok(match self.tree_entry(tree, path)? {
            Some((id, EntryKind::Blob | EntryKind::Executable)) => text(self.read_blob(id)?),
            _ => None,
        })
    }

    /// What `git status` would list: tracked changes (staged or not) and
    /// untracked files.
    pub fn dirt(&self) -> Result<Dirt> {
        let mut dirt = Dirt::default();
        for item in self.status_iter(gix::submodule::config::Ignore::Dirty)? {
            for path in status_paths(item.map_err(|e| anyhow!("cannot read the status: {e}"))?) {
                match path {
                    StatusPath::Tracked(p) => dirt.tracked.push(p),
                    StatusPath::Untracked(p) => dirt.untracked.push(p),
                }
            }
        }
        dirt.tracked.sort();
        dirt.tracked.dedup();
        dirt.untracked.sort();
        Ok(dirt)
    }
}

fn text(bytes: Vec<u8>) -> Option<String> {
    (!bytes.contains(&0)).then(|| String::from_utf8_lossy(&bytes).into_owned())
}
