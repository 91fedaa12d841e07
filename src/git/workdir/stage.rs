//! Staging exactly the paths asked for: index entries for them, every
//! other entry kept.

use std::collections::BTreeSet;

use anyhow::{Context as _, Result};

use super::Snapshot;
use crate::git::diff::FileChange;
use crate::git::objects::{bstr, EntryKind};
use crate::git::repo::Repo;

impl Repo {
    /// Writes index entries for exactly `changes` (removing deleted paths),
    /// with the stat data `observed` recorded when the files were hashed, so
    /// `git status` agrees without re-reading them. Other entries are kept.
    pub fn stage(&self, changes: &[FileChange], observed: &Snapshot) -> Result<()> {
        use gix::index::entry::{Flags, Mode, Stage};
        let mut index: gix::index::File = (*self.fresh_index()?).clone();
        // Entries to drop: every stage of a changed path, a file that a new
        // path's directory replaces (`a` for `a/b`), and whatever lived under
        // a path that is now a file (`a/b` for `a`).
        let mut drop: BTreeSet<usize> = BTreeSet::new();
        for change in changes {
            if let Some(range) = index.entry_range(bstr(&change.path)) {
                drop.extend(range);
            }
            if change.new.is_some() {
                let mut parent = change.path.as_str();
                while let Some((p, _)) = parent.rsplit_once('/') {
                    if let Some(range) = index.entry_range(bstr(p)) {
                        drop.extend(range);
                    }
                    parent = p;
                }
                if let Some(range) = index.prefixed_entries_range(bstr(&format!("{}/", change.path))) {
                    drop.extend(range);
                }
            }
        }
        if !drop.is_empty() {
            index.remove_entries(|i, _, _| drop.contains(&i));
        }
        let mut pushed = false;
        for change in changes {
            let Some((id, kind)) = change.new else { continue };
            let mode = match kind {
                EntryKind::Blob => Mode::FILE,
                EntryKind::Executable => Mode::FILE_EXECUTABLE,
                EntryKind::Link => Mode::SYMLINK,
                EntryKind::Commit => Mode::COMMIT,
                EntryKind::Tree => continue,
            };
            let stat = observed.stats.get(&change.path).copied().unwrap_or_default();
            index.dangerously_push_entry(stat, id, Flags::empty(), mode, bstr(&change.path));
            pushed = true;
        }
        if pushed {
            index.sort_entries();
        }
        debug_assert!(index
            .entries()
            .windows(2)
            .all(|w| w[0].path(&index) <= w[1].path(&index) || w[0].stage() != Stage::Unconflicted));
        // The tree cache would still claim the old trees (gix does not recompute it).
        index.remove_tree();
        index.remove_resolve_undo();
        index
            .write(gix::index::write::Options::default())
            .context("cannot write the index")?;
        Ok(())
    }
}
