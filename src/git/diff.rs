//! The one tree diff, by file: what changed from one tree to another, with
//! rename and copy detection when asked; and what is built from a diff (a
//! tree or commit with the changes applied, a tree with files rewritten, the
//! size of a change).

mod changes;

use anyhow::{anyhow, Context as _, Result};
use gix::bstr::ByteSlice;

use super::objects::{entry_edit, removals_first, Entry, EntryKind, TreeEdit};
use super::repo::{with_sources, Oid, Repo};

/// One difference between two trees, by file (never by directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delta {
    Added {
        path: String,
        new: Entry,
    },
    Deleted {
        path: String,
        old: Entry,
    },
    /// Same path, different contents or kind.
    Modified {
        path: String,
        old: Entry,
        new: Entry,
    },
    /// `from` became `to` (a rename: `from` is gone), or `to` was made from
    /// `from` (a copy: `from` stays).
    Renamed {
        from: String,
        to: String,
        old: Entry,
        new: Entry,
        copy: bool,
    },
}

impl Delta {
    /// The path the change is known by: the new path, or the deleted one.
    pub fn path(&self) -> &str {
        match self {
            Delta::Added { path, .. } | Delta::Deleted { path, .. } | Delta::Modified { path, .. } => path,
            Delta::Renamed { to, .. } => to,
        }
    }

    pub fn old(&self) -> Option<Entry> {
        match self {
            Delta::Added { .. } => None,
            Delta::Deleted { old, .. } | Delta::Modified { old, .. } | Delta::Renamed { old, .. } => Some(*old),
        }
    }

    pub fn new_entry(&self) -> Option<Entry> {
        match self {
            Delta::Deleted { .. } => None,
            Delta::Added { new, .. } | Delta::Modified { new, .. } | Delta::Renamed { new, .. } => Some(*new),
        }
    }
}

/// One path that differs between two trees: its new entry, or `None` when deleted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub new: Option<(Oid, EntryKind)>,
}

/// How rename and copy detection runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renames {
    Off,
    /// Renames, and copies from modified files (`git diff -M -C`).
    On,
}

impl Repo {
    /// The file-level differences from tree `old` to tree `new`, sorted by
    /// path. With [`Renames::On`], deletions and additions of similar files
    /// (50%, as git's default) become renames, and additions similar to a
    /// modified file become copies.
    pub fn tree_deltas(&self, old: Oid, new: Oid, renames: Renames) -> Result<Vec<Delta>> {
        if old == new {
            return Ok(Vec::new());
        }
        let old_tree = self
            .inner
            .find_tree(old)
            .with_context(|| format!("cannot read tree {old}"))?;
        let new_tree = self
            .inner
            .find_tree(new)
            .with_context(|| format!("cannot read tree {new}"))?;
        fn iter<'a>(tree: &'a gix::Tree<'_>) -> gix::objs::TreeRefIter<'a> {
            gix::objs::TreeRefIter::from_bytes(&tree.data, tree.id.kind())
        }
        let mut state = gix::diff::tree::State::default();
        // The plain diff first: without an addition there is nothing a
        // rename or copy could have made, and it needs no blob pipeline
        // (whose attribute stack maps the whole index on each creation).
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(
            iter(&old_tree),
            iter(&new_tree),
            &mut state,
            &self.inner.objects,
            &mut recorder,
        )
        .map_err(|e| anyhow!("cannot compare trees {old} and {new}: {}", with_sources(&e)))?;
        use gix::diff::tree::recorder::Change as R;
        let added = recorder
            .records
            .iter()
            .any(|c| matches!(c, R::Addition { entry_mode, .. } if !entry_mode.is_tree()));
        let mut out = Vec::new();
        if renames == Renames::Off || !added {
            for change in recorder.records {
                let change = match change {
                    R::Addition {
                        entry_mode, oid, path, ..
                    } => changes::Change::Addition {
                        path,
                        mode: entry_mode,
                        id: oid,
                    },
                    R::Deletion {
                        entry_mode, oid, path, ..
                    } => changes::Change::Deletion {
                        path,
                        mode: entry_mode,
                        id: oid,
                    },
                    R::Modification {
                        previous_entry_mode,
                        previous_oid,
                        entry_mode,
                        oid,
                        path,
                    } => changes::Change::Modification {
                        path,
                        previous_mode: previous_entry_mode,
                        previous_id: previous_oid,
                        mode: entry_mode,
                        id: oid,
                    },
                };
                changes::push_delta(&mut out, change);
            }
        } else {
            let mut options = gix::diff::Options::default();
            options.track_path();
            options.track_rewrites(Some(gix::diff::Rewrites {
                copies: Some(gix::diff::rewrites::Copies::default()),
                percentage: Some(0.5),
                limit: 1000,
                track_empty: false,
            }));
            let mut cache = self.diff_cache.take();
            if cache.is_none() {
                cache = Some(
                    self.inner
                        .diff_resource_cache_for_tree_diff()
                        .context("cannot prepare to compare trees")?,
                );
            }
            let mut platform = cache.expect("made above");
            let result = gix::diff::tree_with_rewrites(
                iter(&old_tree),
                iter(&new_tree),
                &mut platform,
                &mut state,
                &self.inner.objects,
                |change| -> gix::Result<_> {
                    changes::push_detached(&mut out, change.into_owned());
                    Ok(std::ops::ControlFlow::Continue(()))
                },
                options.into(),
            );
            platform.clear_resource_cache_keep_allocation();
            self.diff_cache.set(Some(platform));
            result.map_err(|e| anyhow!("cannot compare trees {old} and {new}: {}", with_sources(&e)))?;
            // gix (0.90) reports a copy from a file the diff also modifies
            // as the copy alone, and the source's own modification is lost:
            // it is put back from the plain diff.
            let seen: std::collections::HashSet<String> = out.iter().map(|d| d.path().to_owned()).collect();
            for change in recorder.records {
                if let R::Modification {
                    previous_entry_mode,
                    previous_oid,
                    entry_mode,
                    oid,
                    path,
                } = change
                {
                    if !seen.contains(path.to_str_lossy().as_ref()) {
                        changes::push_delta(
                            &mut out,
                            changes::Change::Modification {
                                path,
                                previous_mode: previous_entry_mode,
                                previous_id: previous_oid,
                                mode: entry_mode,
                                id: oid,
                            },
                        );
                    }
                }
            }
        }
        out.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(out)
    }

    /// The paths that differ from tree `old` to tree `new` (no rename
    /// detection), each with its new entry (`None` when deleted): the files
    /// of [`Repo::tree_deltas`] without their old entries.
    pub fn changes(&self, old: Oid, new: Oid) -> Result<Vec<FileChange>> {
        let mut out: Vec<FileChange> = self
            .tree_deltas(old, new, Renames::Off)?
            .into_iter()
            .map(|delta| match delta {
                Delta::Deleted { path, .. } => FileChange { path, new: None },
                Delta::Added { path, new } | Delta::Modified { path, new, .. } => FileChange {
                    path,
                    new: Some((new.id, new.kind)),
                },
                Delta::Renamed { to, new, .. } => FileChange {
                    path: to,
                    new: Some((new.id, new.kind)),
                },
            })
            .collect();
        out.dedup_by(|a, b| a.path == b.path);
        Ok(out)
    }

    /// Builds a commit on `parent` whose tree is the parent's with `changes`
    /// applied; no reference moves.
    pub fn commit_changes(&self, parent: Option<Oid>, changes: &[FileChange], message: &str) -> Result<Oid> {
        let base = self.tree_of(parent)?;
        let tree = self.tree_with(base, changes)?;
        let parents: Vec<Oid> = parent.into_iter().collect();
        self.write_commit(tree, &parents, message)
    }

    /// `base` with `changes` applied (deletions first: a file may become a
    /// directory).
    pub fn tree_with(&self, base: Oid, changes: &[FileChange]) -> Result<Oid> {
        let mut edits: Vec<TreeEdit> = changes.iter().filter_map(tree_edit).collect();
        if edits.is_empty() {
            return Ok(base);
        }
        removals_first(&mut edits);
        self.edit_tree(Some(base), &edits)
    }

    /// `tree` with every file that differs from `base` passed through
    /// `rewrite` (which returns `None` to keep a file as it is); binary files
    /// are kept. Such a file whose path `leave_out` says no is removed
    /// instead (its path is returned). Used to store snapshots without the
    /// secrets they may hold, in their contents or their names.
    pub fn rewrite_tree(
        &self,
        base: Oid,
        tree: Oid,
        rewrite: impl Fn(&str) -> Option<String>,
        leave_out: impl Fn(&str) -> bool,
    ) -> Result<(Oid, Vec<String>)> {
        let mut edits = Vec::new();
        let mut left_out = Vec::new();
        for change in self.changes(base, tree)? {
            // Files only: a link or a submodule has no bytes to keep aside.
            let file = matches!(change.new, Some((_, EntryKind::Blob | EntryKind::Executable)));
            if file && leave_out(&change.path) {
                left_out.push(change.path.clone());
                edits.push(TreeEdit::Remove { path: change.path });
                continue;
            }
            let Some((id, kind @ (EntryKind::Blob | EntryKind::Executable))) = change.new else {
                continue;
            };
            let data = self.read_blob(id)?;
            let Ok(text) = std::str::from_utf8(&data) else { continue };
            if let Some(new) = rewrite(text) {
                edits.push(TreeEdit::Blob {
                    path: change.path,
                    id: self.write_blob(new)?,
                    executable: kind == EntryKind::Executable,
                });
            }
        }
        if edits.is_empty() {
            return Ok((tree, left_out));
        }
        removals_first(&mut edits);
        Ok((self.edit_tree(Some(tree), &edits)?, left_out))
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
}

/// The tree edit that makes `change` of a file (none for a directory or a
/// submodule: a worktree change never writes those).
pub(crate) fn tree_edit(change: &FileChange) -> Option<TreeEdit> {
    match change.new {
        Some((_, EntryKind::Tree | EntryKind::Commit)) => None,
        new => Some(entry_edit(change.path.clone(), new)),
    }
}

fn text(bytes: Vec<u8>) -> Option<String> {
    (!bytes.contains(&0)).then(|| String::from_utf8_lossy(&bytes).into_owned())
}
