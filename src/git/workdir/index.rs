//! The index as a tree, and back.
//!
//! A step's snapshot records what was staged (DESIGN §6.2) as a tree of the
//! index's entries, so a restore can put the index back exactly: `git diff
//! --cached` as before, a partially staged file with its staged and unstaged
//! versions. Trees hold no index flags: an entry restored unchanged keeps its
//! stat data and flags; one whose content or mode the step changed gets its
//! recorded content with zeroed stat data (git then compares contents), and
//! an intent-to-add entry (`git add -N`), which a tree cannot hold, is left
//! out of the tree as `git write-tree` leaves it out.

use anyhow::{bail, Context as _, Result};
use gix::bstr::ByteSlice;

use crate::git::objects::{bstr, entry_edit, removals_first, EntryKind, TreeEdit};
use crate::git::repo::{Oid, Repo};

impl Repo {
    /// The index as it is on disk now. gix's shared copy is refreshed only
    /// when the file's modification time grows, and the kernel's file times
    /// move in steps of milliseconds: an index written twice within one step
    /// (this program stages, restores and carries the index within a few
    /// milliseconds) would be read stale. Every read that leads to a write,
    /// and every comparison with what was just written, reads it here.
    ///
    /// The file's trailer is its checksum: when it is the shared copy's, that
    /// copy is current and is used as it is, without parsing the file again.
    pub(crate) fn fresh_index(&self) -> Result<gix::worktree::IndexPersistedOrInMemory> {
        use gix::worktree::IndexPersistedOrInMemory as Index;
        let shared = self.inner.index_or_empty().context("cannot read the index")?;
        if let (Some(sum), Some(trailer)) = (shared.checksum(), self.index_trailer()) {
            if sum == trailer {
                return Ok(Index::Persisted(shared));
            }
        }
        match self.inner.open_index() {
            Ok(index) => Ok(Index::InMemory(index)),
            Err(_) if !self.inner.index_path().exists() => Ok(Index::InMemory(gix::index::File::from_state(
                gix::index::State::new(self.inner.object_hash()),
                self.inner.index_path(),
            ))),
            Err(e) => Err(e).context("cannot read the index"),
        }
    }

    /// What checking HEAD out anew takes on a filesystem of `block`-byte
    /// blocks, estimated from this working tree's index (its entries' sizes
    /// as last seen, each rounded up to whole blocks, plus one block per
    /// directory and the index itself): bytes, and files and directories.
    pub fn checkout_footprint(&self, block: u64) -> Result<(u64, u64)> {
        let index = self.fresh_index()?;
        let round = |n: u64| n.div_ceil(block.max(1)) * block.max(1);
        let mut bytes = round(std::fs::metadata(self.inner.index_path()).map_or(0, |m| m.len()));
        let mut dirs = std::collections::HashSet::new();
        for entry in index.entries() {
            bytes += round(u64::from(entry.stat.size));
            let path = entry.path(&index);
            let mut at = path.as_bytes();
            while let Some(slash) = at.rfind_byte(b'/') {
                at = &at[..slash];
                if !dirs.insert(at.to_vec()) {
                    break;
                }
            }
        }
        bytes += dirs.len() as u64 * round(1);
        Ok((bytes, (index.entries().len() + dirs.len()) as u64))
    }

    /// The checksum at the end of the index file (`None` when unreadable or
    /// written without one, as `index.skipHash` does).
    pub(super) fn index_trailer(&self) -> Option<Oid> {
        use std::io::{Read, Seek, SeekFrom};
        let len = self.inner.object_hash().len_in_bytes();
        let mut file = std::fs::File::open(self.inner.index_path()).ok()?;
        file.seek(SeekFrom::End(-(len as i64))).ok()?;
        let mut buf = vec![0u8; len];
        file.read_exact(&mut buf).ok()?;
        let id = Oid::from_bytes_or_panic(&buf);
        (!id.is_null()).then_some(id)
    }

    /// The tree the index holds now (what `git write-tree` writes), or `None`
    /// when it has unmerged entries. The index file's checksum identifies
    /// its content: asked again for the same index (and HEAD), the tree is
    /// not computed again.
    pub fn index_tree(&self) -> Result<Option<Oid>> {
        use gix::index::entry::Stage;
        let index = self.fresh_index()?;
        if index.entries().iter().any(|e| e.stage() != Stage::Unconflicted) {
            return Ok(None);
        }
        let head_tree = self.tree_of(self.head()?.commit)?;
        let checksum = index.checksum();
        if let (Some(sum), Some((seen_sum, seen_head, tree))) = (checksum, self.index_tree_seen.get()) {
            if sum == seen_sum && seen_head == head_tree {
                return Ok(Some(tree));
            }
        }
        let tree = self.compute_index_tree(&index, head_tree)?;
        if let Some(sum) = checksum {
            self.index_tree_seen.set(Some((sum, head_tree, tree)));
        }
        Ok(Some(tree))
    }

    fn compute_index_tree(&self, index: &gix::index::File, head_tree: Oid) -> Result<Oid> {
        use gix::index::entry::{Flags, Mode};
        let mut edits = Vec::new();
        let edit = |path: &gix::bstr::BStr, mode: Mode, id: Oid, flags: Flags| -> Option<TreeEdit> {
            let path = path.to_str_lossy().into_owned();
            let kind = match mode {
                _ if flags.contains(Flags::INTENT_TO_ADD) => return Some(TreeEdit::Remove { path }),
                Mode::FILE => EntryKind::Blob,
                Mode::FILE_EXECUTABLE => EntryKind::Executable,
                Mode::SYMLINK => EntryKind::Link,
                Mode::COMMIT => EntryKind::Commit,
                _ => return None,
            };
            Some(entry_edit(path, Some((id, kind))))
        };
        self.inner
            .tree_index_status(
                &head_tree,
                index,
                None,
                gix::status::tree_index::TrackRenames::Disabled,
                |change, _, worktree_index| {
                    use gix::diff::index::ChangeRef;
                    match change {
                        ChangeRef::Deletion { location, .. } => edits.push(TreeEdit::Remove {
                            path: location.to_str_lossy().into_owned(),
                        }),
                        ChangeRef::Addition {
                            location,
                            index,
                            entry_mode,
                            id,
                        }
                        | ChangeRef::Modification {
                            location,
                            index,
                            entry_mode,
                            id,
                            ..
                        } => {
                            let flags = worktree_index.entries()[index].flags;
                            edits.extend(edit(location.as_ref(), entry_mode, id.into_owned(), flags));
                        }
                        ChangeRef::Rewrite { .. } => {}
                    }
                    Ok(std::ops::ControlFlow::Continue(()))
                },
            )
            .context("cannot compare the index with HEAD")?;
        if edits.is_empty() {
            return Ok(head_tree);
        }
        // Removals first: a path may turn from a file into a directory.
        removals_first(&mut edits);
        self.edit_tree(Some(head_tree), &edits)
    }

    /// The index `staged` (a tree recorded when HEAD's tree was `old`) carried
    /// over to HEAD's tree `new`: what was staged against `old` stays staged
    /// against `new`. A path `new` changed as well gets a three-way merge of
    /// its staged and new versions (git's algorithm); when they overlap, the
    /// new version is taken and the path is returned, so the caller can say
    /// where the staged version is kept.
    pub fn carry_staged(&self, staged: Oid, old: Oid, new: Oid) -> Result<(Oid, Vec<String>)> {
        let mut edits = Vec::new();
        let mut overlapping = Vec::new();
        for change in self.changes(old, staged)? {
            let before = self.tree_entry(old, &change.path)?;
            let now = self.tree_entry(new, &change.path)?;
            let target = if now == before || now == change.new {
                change.new
            } else {
                match (before, change.new, now) {
                    (
                        Some((base, EntryKind::Blob | EntryKind::Executable)),
                        Some((ours, kind @ (EntryKind::Blob | EntryKind::Executable))),
                        Some((theirs, EntryKind::Blob | EntryKind::Executable)),
                    ) => {
                        match Repo::merge_text(&self.read_blob(base)?, &self.read_blob(ours)?, &self.read_blob(theirs)?)
                        {
                            Some(merged) => Some((self.write_blob(&merged)?, kind)),
                            None => {
                                overlapping.push(change.path.clone());
                                now
                            }
                        }
                    }
                    _ => {
                        overlapping.push(change.path.clone());
                        now
                    }
                }
            };
            edits.push(entry_edit(change.path, target));
        }
        if edits.is_empty() {
            return Ok((new, overlapping));
        }
        removals_first(&mut edits);
        Ok((self.edit_tree(Some(new), &edits)?, overlapping))
    }

    /// Makes the index hold exactly `tree`'s entries (see the module docs for
    /// what is kept of each entry). Returns whether anything was written.
    pub fn restore_index(&self, tree: Oid) -> Result<bool> {
        if self.index_tree()? == Some(tree) {
            return Ok(false);
        }
        let current = self.fresh_index()?;
        let current: &gix::index::File = &current;
        let mut restored = self
            .inner
            .index_from_tree(&tree)
            .with_context(|| format!("cannot read tree {tree}"))?;
        let (entries, paths) = restored.entries_mut_and_pathbacking();
        for entry in entries.iter_mut() {
            let path = entry.path_in(paths);
            if let Some(old) = current.entry_by_path(bstr(&path.to_str_lossy())) {
                if old.id == entry.id && old.mode == entry.mode {
                    entry.stat = old.stat;
                    // The tree holds this entry: it is no intent-to-add one.
                    entry.flags = old.flags - gix::index::entry::Flags::INTENT_TO_ADD;
                }
            }
        }
        restored.remove_tree();
        restored.remove_resolve_undo();
        restored
            .write(gix::index::write::Options::default())
            .context("cannot write the index")?;
        if let Some(sum) = restored.checksum() {
            let head_tree = self.tree_of(self.head()?.commit)?;
            self.index_tree_seen.set(Some((sum, head_tree, tree)));
        }
        Ok(true)
    }

    /// Refuses index layouts this program cannot update in place.
    pub fn check_index_supported(&self) -> Result<()> {
        let index = match self.inner.open_index() {
            Ok(index) => index,
            Err(_) => return Ok(()), // no index yet
        };
        if index.link().is_some() {
            bail!("the index is split (core.splitIndex); git ultraplan cannot stage into a split index");
        }
        if index.is_sparse() {
            bail!("the index is sparse (sparse-checkout with index.sparse); git ultraplan cannot stage into it");
        }
        Ok(())
    }
}
