//! Trees: the one editor every tree is built with, and reading entries.

use anyhow::{anyhow, Context as _, Result};
use gix::bstr::ByteSlice;

use super::{kind, Entry, EntryKind};
use crate::git::repo::{Oid, Repo};

/// An edit of a tree, by repository-relative path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeEdit {
    /// A file (`executable` sets mode 100755).
    Blob {
        path: String,
        id: Oid,
        executable: bool,
    },
    /// A symbolic link whose target is the blob.
    Link {
        path: String,
        id: Oid,
    },
    /// A whole subtree.
    Tree {
        path: String,
        id: Oid,
    },
    /// A submodule's commit (a gitlink).
    Commit {
        path: String,
        id: Oid,
    },
    Remove {
        path: String,
    },
}

impl Repo {
    /// Applies `edits` to `base` (or the empty tree) and writes the result.
    ///
    /// What the edits bring in is checked — each path component is a valid
    /// name, each object (but a submodule's commit) exists — and nothing
    /// else: the entries a rewritten tree keeps came from a tree already in
    /// the repository. (gix's own editor checks every entry of every tree it
    /// writes, one `stat` each: a record appended to a folder of 10,000 files
    /// paid 10,000 of them, under the writers' lock.)
    pub fn edit_tree(&self, base: Option<Oid>, edits: &[TreeEdit]) -> Result<Oid> {
        use gix::object::tree::EntryKind as K;
        let base = base.unwrap_or_else(|| self.empty_tree());
        let mut editor = self
            .inner
            .edit_tree(base)
            .with_context(|| format!("cannot edit tree {base}"))?
            .detach();
        for edit in edits {
            let path = edit_path(edit);
            self.check_edit(edit)
                .with_context(|| format!("cannot edit tree at '{path}'"))?;
            let result = match edit {
                TreeEdit::Blob { path, id, executable } => editor.upsert(
                    path.split('/'),
                    if *executable { K::BlobExecutable } else { K::Blob },
                    *id,
                ),
                TreeEdit::Link { path, id } => editor.upsert(path.split('/'), K::Link, *id),
                TreeEdit::Tree { path, id } => editor.upsert(path.split('/'), K::Tree, *id),
                TreeEdit::Commit { path, id } => editor.upsert(path.split('/'), K::Commit, *id),
                TreeEdit::Remove { path } => editor.remove(path.split('/')),
            };
            result.with_context(|| format!("cannot edit tree at '{path}'"))?;
        }
        editor
            .write(|tree| self.inner.write_object(tree).map(|id| id.detach()))
            .context("cannot write tree")
    }

    /// Whether `edit` may go into a tree: every component of its path a name
    /// git accepts (`.git` and its NTFS spellings refused everywhere, as git
    /// does by default), and the object it puts there present. Removing
    /// is always allowed.
    fn check_edit(&self, edit: &TreeEdit) -> Result<()> {
        use gix::validate::path::component::{Mode, Options};
        let options = Options {
            protect_windows: cfg!(windows),
            protect_hfs: cfg!(target_os = "macos"),
            protect_ntfs: true,
        };
        if matches!(edit, TreeEdit::Remove { .. }) {
            return Ok(());
        }
        let path = edit_path(edit);
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            let leaf_link = parts.peek().is_none() && matches!(edit, TreeEdit::Link { .. });
            gix::validate::path::component(part.into(), leaf_link.then_some(Mode::Symlink), options)
                .with_context(|| format!("'{part}' is not a valid name"))?;
        }
        let id = match edit {
            TreeEdit::Blob { id, .. } | TreeEdit::Link { id, .. } | TreeEdit::Tree { id, .. } => *id,
            TreeEdit::Commit { .. } | TreeEdit::Remove { .. } => return Ok(()),
        };
        if !self.inner.has_object(id) {
            return Err(anyhow!("object {id} does not exist"));
        }
        Ok(())
    }

    /// The entry at `path` in `tree`.
    pub fn tree_entry(&self, tree: Oid, path: &str) -> Result<Option<(Oid, EntryKind)>> {
        let tree = self
            .inner
            .find_tree(tree)
            .with_context(|| format!("cannot read tree {tree}"))?;
        let entry = tree
            .lookup_entry_by_path(path)
            .with_context(|| format!("cannot look up '{path}'"))?;
        Ok(entry.map(|e| (e.object_id(), kind(e.mode()))))
    }

    /// The blob at `path` in `tree`, if there is one.
    pub fn read_path(&self, tree: Oid, path: &str) -> Result<Option<Vec<u8>>> {
        match self.tree_entry(tree, path)? {
            Some((id, EntryKind::Blob | EntryKind::Executable | EntryKind::Link)) => Ok(Some(self.read_blob(id)?)),
            _ => Ok(None),
        }
    }

    /// The names and kinds of `tree`'s direct entries.
    pub fn list_tree(&self, tree: Oid) -> Result<Vec<(String, Oid, EntryKind)>> {
        let tree = self
            .inner
            .find_tree(tree)
            .with_context(|| format!("cannot read tree {tree}"))?;
        let decoded = tree.decode().context("cannot decode tree")?;
        Ok(decoded
            .entries
            .iter()
            .map(|e| (e.filename.to_str_lossy().into_owned(), e.oid.to_owned(), kind(e.mode)))
            .collect())
    }

    /// Every file of `tree` with its blob id and kind, by path.
    pub fn tree_files(&self, tree: Oid) -> Result<Vec<(String, Oid, EntryKind)>> {
        let mut out = Vec::new();
        let mut stack = vec![(String::new(), tree)];
        while let Some((prefix, id)) = stack.pop() {
            for (name, oid, kind) in self.list_tree(id)? {
                let path = if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}/{name}")
                };
                match kind {
                    EntryKind::Tree => stack.push((path, oid)),
                    _ => out.push((path, oid, kind)),
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Every symbolic link of `tree`, by path, with its target's blob: the
    /// trees are read, no other entry's path is made.
    pub fn tree_links(&self, tree: Oid) -> Result<Vec<(String, Oid)>> {
        let mut out = Vec::new();
        let mut stack = vec![(String::new(), tree)];
        let mut subtrees = Vec::new();
        while let Some((prefix, id)) = stack.pop() {
            let tree = self
                .inner
                .find_tree(id)
                .with_context(|| format!("cannot read tree {id}"))?;
            for entry in tree.iter() {
                let entry = entry.context("cannot decode tree")?;
                let wanted = match kind(entry.mode()) {
                    EntryKind::Tree => true,
                    EntryKind::Link => false,
                    _ => continue,
                };
                let name = entry.filename().to_str_lossy();
                let path = match prefix.is_empty() {
                    true => name.into_owned(),
                    false => format!("{prefix}/{name}"),
                };
                match wanted {
                    true => subtrees.push((path, entry.oid().to_owned())),
                    false => out.push((path, entry.oid().to_owned())),
                }
            }
            stack.append(&mut subtrees);
        }
        out.sort();
        Ok(out)
    }

    /// `base` with each path given the entry, or removed for `None`: the
    /// edits as pairs, through [`Repo::edit_tree`]. Removals go first, so a
    /// file may give way to a directory of the same name in one edit.
    pub fn build_tree(&self, base: Oid, edits: &[(String, Option<Entry>)]) -> Result<Oid> {
        if edits.is_empty() {
            return Ok(base);
        }
        let mut edits: Vec<TreeEdit> = edits
            .iter()
            .map(|(path, entry)| entry_edit(path.clone(), entry.map(|e| (e.id, e.kind))))
            .collect();
        removals_first(&mut edits);
        self.edit_tree(Some(base), &edits)
    }
}

/// Puts removals before every other edit, each group in its order: a path
/// may turn from a file into a directory (or back) in one edit.
pub(crate) fn removals_first(edits: &mut [TreeEdit]) {
    edits.sort_by_key(|e| !matches!(e, TreeEdit::Remove { .. }));
}

fn edit_path(edit: &TreeEdit) -> &str {
    match edit {
        TreeEdit::Blob { path, .. }
        | TreeEdit::Link { path, .. }
        | TreeEdit::Tree { path, .. }
        | TreeEdit::Commit { path, .. }
        | TreeEdit::Remove { path } => path,
    }
}

/// The tree edit that puts `entry` (or nothing) at `path`.
pub(crate) fn entry_edit(path: String, entry: Option<(Oid, EntryKind)>) -> TreeEdit {
    match entry {
        None => TreeEdit::Remove { path },
        Some((id, EntryKind::Blob)) => TreeEdit::Blob {
            path,
            id,
            executable: false,
        },
        Some((id, EntryKind::Executable)) => TreeEdit::Blob {
            path,
            id,
            executable: true,
        },
        Some((id, EntryKind::Link)) => TreeEdit::Link { path, id },
        Some((id, EntryKind::Commit)) => TreeEdit::Commit { path, id },
        Some((id, EntryKind::Tree)) => TreeEdit::Tree { path, id },
    }
}
