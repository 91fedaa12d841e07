//! The working tree as git objects.
//!
//! A [`Snapshot`] is HEAD's tree with every modified, deleted and
//! untracked-but-not-ignored file as it is on disk, hashed into the object
//! database (through git's clean filters, as `git add` would). Two snapshots
//! tell what changed in between; a snapshot's tree is what a revert restores.
//! Staging writes index entries for exactly the paths asked for — never the
//! whole tree — and commits are built from HEAD's tree plus those paths, so
//! whatever else the user had staged stays staged and out of the commit.
//!
//! Ignored files are never looked at, hashed or touched.

use std::collections::{BTreeSet, HashMap};

use anyhow::{anyhow, Context as _, Result};
use gix::bstr::ByteSlice;

use super::repo::{bstr, EntryKind, Oid, Repo, TreeEdit};

/// The working tree at one moment, as a tree object.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The commit `HEAD` pointed at.
    pub head: Option<Oid>,
    /// HEAD's tree with the working tree's differences applied.
    pub tree: Oid,
    /// Stat data of the files hashed for this snapshot, for staging them.
    pub(crate) stats: HashMap<String, gix::index::entry::Stat>,
    /// Files git refuses to store (a path through a spelling of `.git`, such
    /// as `.GIT/config`): not in `tree`, listed here so a step that makes
    /// one can be told.
    pub unstorable: BTreeSet<String>,
}

/// One path that differs between two trees: its new entry, or `None` when deleted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub new: Option<(Oid, EntryKind)>,
}

impl Snapshot {
    /// A snapshot known only by its trees (from recorded state): staging from
    /// it writes zeroed stat data, which makes git compare contents.
    pub fn recorded(head: Option<Oid>, tree: Oid) -> Snapshot {
        Snapshot {
            head,
            tree,
            stats: HashMap::new(),
            unstorable: BTreeSet::new(),
        }
    }

    /// Takes `path`'s stat data from the disk as it is now: for a file just
    /// written by us with content we know (a synced plan), so that the index
    /// entry staged for it is as fresh as `git add` would make it.
    pub fn refresh_stat(&mut self, root: &std::path::Path, path: &str) {
        let stat = gix::index::fs::Metadata::from_path_no_follow(&root.join(path))
            .ok()
            .and_then(|m| gix::index::entry::Stat::from_fs(&m).ok());
        match stat {
            Some(stat) => self.stats.insert(path.to_owned(), stat),
            None => self.stats.remove(path),
        };
    }

    /// Forgets `path`'s stat data: its index entry will make git compare
    /// contents (for a file staged with content other than the worktree's).
    pub fn forget_stat(&mut self, path: &str) {
        self.stats.remove(path);
    }

    pub(crate) fn with_stats(
        head: Option<Oid>,
        tree: Oid,
        stats: HashMap<String, gix::index::entry::Stat>,
        unstorable: BTreeSet<String>,
    ) -> Snapshot {
        Snapshot {
            head,
            tree,
            stats,
            unstorable,
        }
    }
}

impl Repo {
    /// Takes a snapshot of the working tree.
    pub fn snapshot(&self) -> Result<Snapshot> {
        let head = self.head()?.commit;
        let head_tree = match head {
            Some(commit) => self.commit_tree(commit)?,
            None => self.empty_tree(),
        };
        let (paths, unstorable): (BTreeSet<String>, BTreeSet<String>) =
            self.dirty_paths()?.into_iter().partition(|p| storable(p));
        if paths.is_empty() {
            return Ok(Snapshot {
                head,
                tree: head_tree,
                stats: HashMap::new(),
                unstorable,
            });
        }
        let (edits, stats) = self.hash_paths(paths)?;
        let tree = self.edit_tree(Some(head_tree), &edits)?;
        Ok(Snapshot {
            head,
            tree,
            stats,
            unstorable,
        })
    }

    /// Hashes the worktree file `path` into the object database as `git add`
    /// would: `None` when it is gone; otherwise the tree edit (none for
    /// submodules and nested repositories, which keep what HEAD records) and
    /// the stat data, taken before hashing so that a file changing meanwhile
    /// looks modified to git, never falsely clean.
    pub(crate) fn hash_file(
        &self,
        pipeline: &mut gix::filter::Pipeline<'_>,
        index: &gix::index::State,
        root: &std::path::Path,
        path: &str,
    ) -> Result<Option<(Option<TreeEdit>, Option<gix::index::entry::Stat>)>> {
        let before = gix::index::fs::Metadata::from_path_no_follow(&root.join(path))
            .ok()
            .and_then(|m| gix::index::entry::Stat::from_fs(&m).ok());
        let hashed = pipeline
            .worktree_file_to_object(bstr(path), index)
            .map_err(|e| anyhow!("cannot hash '{path}': {e}"))?;
        use gix::object::tree::EntryKind as K;
        let Some((id, kind, metadata)) = hashed else {
            return Ok(None);
        };
        let stat = before.filter(|s| u64::from(s.size) == metadata.len() & 0xffff_ffff);
        let path = path.to_owned();
        let edit = match kind {
            K::Blob => Some(TreeEdit::Blob {
                path,
                id,
                executable: false,
            }),
            K::BlobExecutable => Some(TreeEdit::Blob {
                path,
                id,
                executable: true,
            }),
            K::Link => Some(TreeEdit::Link { path, id }),
            K::Commit | K::Tree => None,
        };
        Ok(Some((edit, stat)))
    }

    /// Paths where the working tree may differ from HEAD: staged, modified,
    /// deleted and untracked (not ignored) files.
    fn dirty_paths(&self) -> Result<BTreeSet<String>> {
        let mut iter = self.status_iter(gix::submodule::config::Ignore::All)?;
        let mut paths = BTreeSet::new();
        for item in &mut iter {
            let item = item.map_err(|e| anyhow!("cannot read the status: {e}"))?;
            paths.extend(status_paths(item).into_iter().map(|p| match p {
                StatusPath::Tracked(p) | StatusPath::Untracked(p) => p,
            }));
        }
        // Like `git status`, keep the stat data it refreshed, so the next scan
        // does not hash the same files again; opportunistic, as in git: a busy
        // index.lock or GIT_OPTIONAL_LOCKS=0 skips it.
        if std::env::var("GIT_OPTIONAL_LOCKS").map_or(true, |v| v != "0") {
            if let Some(mut outcome) = iter.into_outcome() {
                if outcome.has_changes() {
                    let _ = outcome.write_changes();
                }
            }
        }
        Ok(paths)
    }

    /// Hashes `paths` of the working tree (through git's filters) into tree
    /// edits — a removal for a path that is gone — with the stat data of each
    /// file hashed.
    pub(crate) fn hash_paths(
        &self,
        paths: impl IntoIterator<Item = String>,
    ) -> Result<(Vec<TreeEdit>, HashMap<String, gix::index::entry::Stat>)> {
        let (mut pipeline, index) = self
            .inner
            .filter_pipeline(None)
            .map_err(|e| anyhow!("cannot prepare git's filters: {e}"))?;
        let root = self.workdir()?.to_owned();
        let mut edits = Vec::new();
        let mut stats = HashMap::new();
        for path in paths {
            match self.hash_file(&mut pipeline, &index, &root, &path)? {
                None => edits.push(TreeEdit::Remove { path }),
                Some((edit, stat)) => {
                    if let Some(stat) = stat {
                        stats.insert(path.clone(), stat);
                    }
                    edits.extend(edit);
                }
            }
        }
        Ok((edits, stats))
    }

    /// `git status` as an iterator: staged and unstaged changes, untracked
    /// files one by one, no rename detection, submodules judged by `ignore`.
    /// The index is read fresh (see `fresh_index`): the refreshed stat data
    /// the caller may write back must not carry a stale index over a newer one.
    pub(crate) fn status_iter(&self, ignore: gix::submodule::config::Ignore) -> Result<gix::status::Iter> {
        let index = self.fresh_index()?;
        self.inner
            .status(gix::progress::Discard)
            .map_err(|e| anyhow!("cannot read the status: {e}"))?
            .index(index)
            .untracked_files(gix::status::UntrackedFiles::Files)
            .index_worktree_rewrites(None)
            .index_worktree_submodules(gix::status::Submodule::Given {
                ignore,
                check_dirty: false,
            })
            .into_iter(None)
            .map_err(|e| anyhow!("cannot read the status: {e}"))
    }

    /// Makes the working tree hold `target`'s version of every path where
    /// `current` differs from it (only the paths in `only`, when given). Files
    /// `target` lacks are deleted, with directories left empty by that; ignored
    /// files and submodules are never touched. Returns the paths written.
    pub fn restore(&self, current: &Snapshot, target: Oid, only: Option<&BTreeSet<String>>) -> Result<Vec<String>> {
        let mut changes = self.changes(current.tree, target)?;
        if let Some(only) = only {
            changes.retain(|c| only.contains(&c.path));
        }
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        let root = self.workdir()?.to_owned();
        // Deletions first: a file may be replaced by a directory or the reverse.
        changes.sort_by_key(|c| c.new.is_some());
        let (mut pipeline, _) = self
            .inner
            .filter_pipeline(None)
            .map_err(|e| anyhow!("cannot prepare git's filters: {e}"))?;
        let mut written = Vec::new();
        for change in &changes {
            let path = root.join(&change.path);
            match change.new {
                None => {
                    remove_path(&path).with_context(|| format!("cannot remove '{}'", change.path))?;
                    prune_empty_parents(&root, &path);
                }
                Some((id, kind @ (EntryKind::Blob | EntryKind::Executable))) => {
                    let data = self.read_blob(id)?;
                    let mut outcome = pipeline
                        .convert_to_worktree(&data, bstr(&change.path), Default::default())
                        .map_err(|e| anyhow!("cannot convert '{}' for the worktree: {e}", change.path))?;
                    let mut bytes = Vec::new();
                    match outcome.as_bytes() {
                        Some(b) => bytes.extend_from_slice(b),
                        None => {
                            if let Some(read) = outcome.as_read() {
                                std::io::Read::read_to_end(read, &mut bytes)
                                    .with_context(|| format!("cannot convert '{}'", change.path))?;
                            }
                        }
                    }
                    write_file(&path, &bytes, kind == EntryKind::Executable)
                        .with_context(|| format!("cannot write '{}'", change.path))?;
                }
                Some((id, EntryKind::Link)) => {
                    let target = self.read_blob(id)?;
                    let _ = remove_path(&path);
                    if let Some(parent) = path.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    #[cfg(unix)]
                    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes_lossy(&target), &path)
                        .with_context(|| format!("cannot create the symbolic link '{}'", change.path))?;
                }
                Some((_, EntryKind::Tree | EntryKind::Commit)) => continue,
            }
            written.push(change.path.clone());
        }
        Ok(written)
    }

    /// `tree` with every file that differs from `base` passed through
    /// `rewrite` (which returns `None` to keep a file as it is); binary files
    /// are kept. Used to store snapshots without the secrets they may hold.
    pub fn rewrite_tree(&self, base: Oid, tree: Oid, rewrite: impl Fn(&str) -> Option<String>) -> Result<Oid> {
        let mut edits = Vec::new();
        for change in self.changes(base, tree)? {
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
            return Ok(tree);
        }
        self.edit_tree(Some(tree), &edits)
    }

    /// Builds a commit on `parent` whose tree is the parent's with `changes`
    /// applied; no reference moves.
    pub fn commit_changes(&self, parent: Option<Oid>, changes: &[FileChange], message: &str) -> Result<Oid> {
        let base = match parent {
            Some(p) => self.commit_tree(p)?,
            None => self.empty_tree(),
        };
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
        edits.sort_by_key(|e| !matches!(e, TreeEdit::Remove { .. }));
        self.edit_tree(Some(base), &edits)
    }

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
            .map_err(|e| anyhow!("cannot write the index: {e}"))?;
        Ok(())
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

/// Whether git can store `path`: none of its components is a spelling of
/// `.git` (any case, NTFS short names, HFS-ignorable characters), which git
/// and gix refuse in trees and the index.
pub fn storable(path: &str) -> bool {
    let options = gix::validate::path::component::Options {
        protect_windows: false,
        protect_hfs: true,
        protect_ntfs: true,
    };
    path.split('/')
        .all(|c| gix::validate::path::component(bstr(c), None, options).is_ok())
}

/// Deletes the worktree files `paths` (relative to `root`) and the
/// directories they leave empty: for files a step made where git cannot
/// store them. Returns the paths removed.
pub fn remove_files(root: &std::path::Path, paths: &[String]) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    for rel in paths {
        let path = root.join(rel);
        remove_path(&path).with_context(|| format!("cannot remove '{rel}'"))?;
        prune_empty_parents(root, &path);
        removed.push(rel.clone());
    }
    Ok(removed)
}

fn remove_path(path: &std::path::Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            // Only an empty directory; anything inside belongs to someone.
            std::fs::remove_dir(path)
        }
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

fn prune_empty_parents(root: &std::path::Path, path: &std::path::Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == root || !d.starts_with(root) || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

fn write_file(path: &std::path::Path, bytes: &[u8], executable: bool) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        std::fs::remove_file(path)?;
    }
    std::fs::write(path, bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut perms = std::fs::metadata(path)?.permissions();
        let mode = perms.mode();
        let new_mode = if executable { mode | 0o111 } else { mode & !0o111 };
        if new_mode != mode {
            perms.set_mode(new_mode);
            std::fs::set_permissions(path, perms)?;
        }
    }
    Ok(())
}

trait OsStrExt {
    fn from_bytes_lossy(bytes: &[u8]) -> &std::ffi::OsStr;
}

impl OsStrExt for std::ffi::OsStr {
    fn from_bytes_lossy(bytes: &[u8]) -> &std::ffi::OsStr {
        use std::os::unix::ffi::OsStrExt as _;
        std::ffi::OsStr::from_bytes(bytes)
    }
}

/// A path `git status` lists.
pub(crate) enum StatusPath {
    /// A staged or unstaged change to a tracked file.
    Tracked(String),
    Untracked(String),
}

/// The paths one status item names (none for an entry whose stat data only
/// needs a refresh).
pub(crate) fn status_paths(item: gix::status::Item) -> Vec<StatusPath> {
    use gix::status::index_worktree::Item as Worktree;
    use gix::status::plumbing::index_as_worktree::EntryStatus;
    use gix::status::Item;
    let text = |p: &gix::bstr::BStr| p.to_str_lossy().into_owned();
    match item {
        Item::TreeIndex(change) => vec![StatusPath::Tracked(text(change.location()))],
        Item::IndexWorktree(Worktree::Modification { rela_path, status, .. }) => match status {
            EntryStatus::NeedsUpdate(_) => Vec::new(),
            _ => vec![StatusPath::Tracked(text(rela_path.as_ref()))],
        },
        Item::IndexWorktree(Worktree::DirectoryContents { entry, .. }) => {
            match entry.status == gix::dir::entry::Status::Untracked {
                true => vec![StatusPath::Untracked(text(entry.rela_path.as_ref()))],
                false => Vec::new(),
            }
        }
        Item::IndexWorktree(Worktree::Rewrite {
            source, dirwalk_entry, ..
        }) => vec![
            StatusPath::Tracked(text(source.rela_path())),
            StatusPath::Untracked(text(dirwalk_entry.rela_path.as_ref())),
        ],
    }
}
