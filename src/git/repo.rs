//! A repository with a working tree, and the object, reference and note
//! operations the rest of the program asks for in its own words.

use std::path::Path;

use anyhow::{anyhow, bail, Result};
use gix::bstr::{BStr, ByteSlice};
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;

pub use gix::ObjectId as Oid;

use super::worktree::FileChange;

/// An opened repository. Cheap to share by reference; not `Sync`.
pub struct Repo {
    pub(crate) inner: gix::Repository,
    /// The last index seen as a tree: its checksum, HEAD's tree then, and
    /// the tree (see `index_tree`).
    pub(crate) index_tree_seen: std::cell::Cell<Option<(Oid, Oid, Oid)>>,
}

/// Where `HEAD` points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The commit, or `None` on an unborn branch.
    pub commit: Option<Oid>,
    /// The branch's full name (`refs/heads/main`), or `None` when detached.
    pub branch: Option<String>,
}

/// A compare-and-swap reference update lost the race: the reference did not
/// hold the expected value.
#[derive(Debug)]
pub struct RefConflict {
    pub name: String,
}

impl std::fmt::Display for RefConflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}' was changed by someone else", self.name)
    }
}

impl std::error::Error for RefConflict {}

/// What a reference must hold before an update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Create only: it must not exist.
    Absent,
    /// It must point at this object.
    Value(Oid),
    /// Either absent or this object (used where the first write creates it).
    AbsentOr(Option<Oid>),
}

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

/// The parts of a commit the program reads.
#[derive(Clone, Debug)]
pub struct CommitInfo {
    pub id: Oid,
    pub tree: Oid,
    pub parents: Vec<Oid>,
    pub message: String,
    /// Committer time, seconds since the epoch.
    pub time: i64,
}

/// Kinds of tree entries, as the program needs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    Blob,
    Executable,
    Link,
    Tree,
    Commit,
}

/// A repository handle that can move to another thread.
pub struct SharedRepo(gix::ThreadSafeRepository);

impl SharedRepo {
    pub fn open(&self) -> Repo {
        Repo::new(self.0.to_thread_local())
    }
}

impl Repo {
    pub(crate) fn new(mut inner: gix::Repository) -> Repo {
        // A run reads the same trees again and again (HEAD's, the
        // snapshots'): keep decoded objects, as git keeps its object cache.
        inner.object_cache_size_if_unset(32 << 20);
        Repo {
            inner,
            index_tree_seen: std::cell::Cell::new(None),
        }
    }

    /// A handle for another thread (a heartbeat, a parallel scan).
    pub fn share(&self) -> SharedRepo {
        SharedRepo(self.inner.clone().into_sync())
    }

    /// The top of the working tree.
    pub fn workdir(&self) -> Result<&Path> {
        self.inner
            .workdir()
            .ok_or_else(|| anyhow!("this operation must be run in a work tree"))
    }

    /// `.git` of this worktree (the per-worktree directory for linked worktrees).
    pub fn git_dir(&self) -> &Path {
        self.inner.git_dir()
    }

    /// The directory shared by all worktrees.
    pub fn common_dir(&self) -> &Path {
        self.inner.common_dir()
    }

    pub fn head(&self) -> Result<Head> {
        let head = self.inner.head().map_err(|e| anyhow!("cannot read HEAD: {e}"))?;
        let branch = head.referent_name().map(|n| n.as_bstr().to_str_lossy().into_owned());
        let commit = head.id().map(|id| id.detach());
        Ok(Head { commit, branch })
    }

    /// Whether a merge, rebase, cherry-pick or bisect is in progress.
    pub fn operation_in_progress(&self) -> Option<String> {
        self.inner.state().map(|s| format!("{s:?}").to_lowercase())
    }

    /// Fails unless a committer and author identity is configured (as `git commit` would).
    pub fn check_identity(&self) -> Result<()> {
        for (what, sig) in [("committer", self.inner.committer()), ("author", self.inner.author())] {
            match sig {
                Some(Ok(_)) => {}
                Some(Err(e)) => bail!("cannot read the {what} identity: {e}"),
                None => {
                    return Err(crate::error::FatalWithHint {
                        message: format!("{what} identity unknown"),
                        hint: "run\n  git config user.email \"you@example.com\"\n  git config user.name \"Your Name\"\nto set your identity".into(),
                    }
                    .into())
                }
            }
        }
        Ok(())
    }

    pub fn write_blob(&self, data: impl AsRef<[u8]>) -> Result<Oid> {
        Ok(self
            .inner
            .write_blob(data.as_ref())
            .map_err(|e| anyhow!("cannot write a blob: {e}"))?
            .detach())
    }

    pub fn read_blob(&self, id: Oid) -> Result<Vec<u8>> {
        let blob = self
            .inner
            .find_blob(id)
            .map_err(|e| anyhow!("cannot read blob {id}: {e}"))?;
        Ok(blob.data.clone())
    }

    pub fn empty_tree(&self) -> Oid {
        Oid::empty_tree(self.inner.object_hash())
    }

    /// The tree of `commit`.
    pub fn commit_tree(&self, commit: Oid) -> Result<Oid> {
        Ok(self.commit_info(commit)?.tree)
    }

    pub fn commit_info(&self, id: Oid) -> Result<CommitInfo> {
        let commit = self
            .inner
            .find_commit(id)
            .map_err(|e| anyhow!("cannot read commit {id}: {e}"))?;
        let decoded = commit.decode().map_err(|e| anyhow!("cannot decode commit {id}: {e}"))?;
        Ok(CommitInfo {
            id,
            tree: decoded.tree(),
            parents: decoded.parents().collect(),
            message: decoded.message.to_str_lossy().into_owned(),
            time: decoded.committer().map(|c| c.seconds()).unwrap_or(0),
        })
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    pub fn is_ancestor(&self, ancestor: Oid, descendant: Oid) -> Result<bool> {
        if ancestor == descendant {
            return Ok(true);
        }
        let walk = self
            .inner
            .rev_walk([descendant])
            .all()
            .map_err(|e| anyhow!("cannot walk history from {descendant}: {e}"))?;
        for info in walk {
            let info = info.map_err(|e| anyhow!("cannot walk history: {e}"))?;
            if info.id == ancestor {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Applies `edits` to `base` (or the empty tree) and writes the result.
    pub fn edit_tree(&self, base: Option<Oid>, edits: &[TreeEdit]) -> Result<Oid> {
        use gix::object::tree::EntryKind as K;
        let base = base.unwrap_or_else(|| self.empty_tree());
        let mut editor = self
            .inner
            .edit_tree(base)
            .map_err(|e| anyhow!("cannot edit tree {base}: {e}"))?;
        for edit in edits {
            let result = match edit {
                TreeEdit::Blob { path, id, executable } => editor.upsert(
                    path.as_str(),
                    if *executable { K::BlobExecutable } else { K::Blob },
                    *id,
                ),
                TreeEdit::Link { path, id } => editor.upsert(path.as_str(), K::Link, *id),
                TreeEdit::Tree { path, id } => editor.upsert(path.as_str(), K::Tree, *id),
                TreeEdit::Commit { path, id } => editor.upsert(path.as_str(), K::Commit, *id),
                TreeEdit::Remove { path } => editor.remove(path.as_str()),
            };
            result.map_err(|e| anyhow!("cannot edit tree at '{}': {e}", edit_path(edit)))?;
        }
        Ok(editor.write().map_err(|e| anyhow!("cannot write tree: {e}"))?.detach())
    }

    /// The entry at `path` in `tree`.
    pub fn tree_entry(&self, tree: Oid, path: &str) -> Result<Option<(Oid, EntryKind)>> {
        let tree = self
            .inner
            .find_tree(tree)
            .map_err(|e| anyhow!("cannot read tree {tree}: {e}"))?;
        let entry = tree
            .lookup_entry_by_path(path)
            .map_err(|e| anyhow!("cannot look up '{path}': {e}"))?;
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
            .map_err(|e| anyhow!("cannot read tree {tree}: {e}"))?;
        let decoded = tree.decode().map_err(|e| anyhow!("cannot decode tree: {e}"))?;
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

    /// The paths that differ from tree `old` to tree `new` (no rename
    /// detection), each with its new entry (`None` when deleted).
    pub fn changes(&self, old: Oid, new: Oid) -> Result<Vec<FileChange>> {
        if old == new {
            return Ok(Vec::new());
        }
        let old_tree = self
            .inner
            .find_tree(old)
            .map_err(|e| anyhow!("cannot read tree {old}: {e}"))?;
        let new_tree = self
            .inner
            .find_tree(new)
            .map_err(|e| anyhow!("cannot read tree {new}: {e}"))?;
        let mut options = gix::diff::Options::default();
        options.track_path();
        options.track_rewrites(None);
        let changes = self
            .inner
            .diff_tree_to_tree(&old_tree, &new_tree, options)
            .map_err(|e| anyhow!("cannot compare trees: {e}"))?;
        use gix::object::tree::diff::ChangeDetached as C;
        let mut out = Vec::new();
        for change in changes {
            match change {
                C::Addition {
                    location,
                    entry_mode,
                    id,
                    ..
                }
                | C::Modification {
                    location,
                    entry_mode,
                    id,
                    ..
                } => {
                    if !entry_mode.is_tree() {
                        out.push(FileChange {
                            path: location.to_str_lossy().into_owned(),
                            new: Some((id, kind(entry_mode))),
                        });
                    }
                }
                C::Deletion {
                    location, entry_mode, ..
                } => {
                    if !entry_mode.is_tree() {
                        out.push(FileChange {
                            path: location.to_str_lossy().into_owned(),
                            new: None,
                        });
                    }
                }
                C::Rewrite { .. } => {}
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.dedup_by(|a, b| a.path == b.path);
        Ok(out)
    }

    /// Writes a commit object with the user's identity; no reference moves.
    pub fn write_commit(&self, tree: Oid, parents: &[Oid], message: &str) -> Result<Oid> {
        let commit = self
            .inner
            .new_commit(message, tree, parents.iter().copied())
            .map_err(|e| anyhow!("cannot write a commit: {e}"))?;
        Ok(commit.id)
    }

    pub fn read_ref(&self, name: &str) -> Result<Option<Oid>> {
        let reference = self
            .inner
            .try_find_reference(name)
            .map_err(|e| anyhow!("cannot read '{name}': {e}"))?;
        match reference {
            None => Ok(None),
            Some(mut r) => Ok(Some(
                r.peel_to_id()
                    .map_err(|e| anyhow!("cannot resolve '{name}': {e}"))?
                    .detach(),
            )),
        }
    }

    /// Moves (or creates) `name` to `new` only if it holds what `expect` says;
    /// losing that race is a [`RefConflict`].
    pub fn update_ref(&self, name: &str, new: Oid, expect: Expect, message: &str) -> Result<()> {
        let previous = match expect {
            Expect::Absent => {
                // gix also accepts an existing ref with the same value; "create only" must mean absent.
                if self.read_ref(name)?.is_some() {
                    return Err(RefConflict { name: name.into() }.into());
                }
                PreviousValue::MustNotExist
            }
            Expect::Value(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
            Expect::AbsentOr(None) => PreviousValue::MustNotExist,
            Expect::AbsentOr(Some(old)) => PreviousValue::ExistingMustMatch(Target::Object(old)),
        };
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: message.into(),
                },
                expected: previous,
                new: Target::Object(new),
            },
            name: name
                .try_into()
                .map_err(|e| anyhow!("invalid reference name '{name}': {e}"))?,
            deref: false,
        };
        self.apply_edit(name, edit)
    }

    /// Moves the branch `HEAD` points at (or a detached `HEAD`) from `old` to
    /// `new`, writing reflogs for both as `git commit` does.
    pub fn advance_head(&self, old: Option<Oid>, new: Oid, message: &str) -> Result<()> {
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: message.into(),
                },
                expected: match old {
                    Some(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
                    None => PreviousValue::MustNotExist,
                },
                new: Target::Object(new),
            },
            name: "HEAD".try_into().map_err(|e| anyhow!("{e}"))?,
            deref: true,
        };
        self.apply_edit("HEAD", edit)
    }

    /// Deletes `name` if it still holds `expected` (any value when `None`).
    pub fn delete_ref(&self, name: &str, expected: Option<Oid>) -> Result<()> {
        let edit = RefEdit {
            change: Change::Delete {
                expected: match expected {
                    Some(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
                    None => PreviousValue::Any,
                },
                log: RefLog::AndReference,
            },
            name: name
                .try_into()
                .map_err(|e| anyhow!("invalid reference name '{name}': {e}"))?,
            deref: false,
        };
        self.apply_edit(name, edit)
    }

    fn apply_edit(&self, name: &str, edit: RefEdit) -> Result<()> {
        match self.inner.edit_reference(edit) {
            Ok(_) => Ok(()),
            // gix classifies a value that no longer matches as a conflict, and
            // a reference that had to exist as not found: both mean we lost.
            Err(err) if err.is_conflict() || err.is_not_found() => Err(RefConflict { name: name.into() }.into()),
            Err(err) => Err(anyhow!("cannot update '{name}': {}", with_sources(&err))),
        }
    }

    /// Every reference under `prefix` (`refs/ultraplan/`) with its target.
    /// A reference gix cannot read (a name it refuses, such as a Windows
    /// device name made by another tool) is left out rather than failing the
    /// listing of every other one.
    pub fn refs_with_prefix(&self, prefix: &str) -> Result<Vec<(String, Oid)>> {
        let platform = self
            .inner
            .references()
            .map_err(|e| anyhow!("cannot list references: {e}"))?;
        let iter = platform
            .prefixed(prefix)
            .map_err(|e| anyhow!("cannot list references under '{prefix}': {e}"))?;
        let mut out = Vec::new();
        for r in iter {
            let Ok(mut r) = r else { continue };
            let name = r.name().as_bstr().to_str_lossy().into_owned();
            if let Ok(id) = r.peel_to_id() {
                out.push((name, id.detach()));
            }
        }
        out.sort();
        Ok(out)
    }

    /// Adds or replaces the note for `object` in `notes_ref`, committed with
    /// git's own notes commit message. Parallel sessions share the notes ref:
    /// losing its compare-and-swap means trying again on a fresh view.
    pub fn set_note(&self, notes_ref: &str, object: Oid, text: &str) -> Result<()> {
        let name: &gix::refs::FullNameRef = notes_ref
            .try_into()
            .map_err(|e| anyhow!("invalid notes reference '{notes_ref}': {e}"))?;
        let mut tries = 0u64;
        loop {
            let mut notes = self
                .inner
                .notes()
                .map_err(|e| anyhow!("cannot open notes: {e}"))?
                .with_commit_message("Notes added by 'git ultraplan'");
            match notes.replace_at_ref(name, object, text.as_bytes()) {
                Ok(_) => return Ok(()),
                Err(e) if (e.is_conflict() || e.is_not_found()) && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(
                        2 + (tries * 7 + u64::from(std::process::id())) % 20,
                    ));
                }
                Err(e) => return Err(anyhow!("cannot write the note for {object}: {e}")),
            }
        }
    }

    /// The note for `object` in `notes_ref`.
    pub fn note(&self, notes_ref: &str, object: Oid) -> Result<Option<String>> {
        let Some(notes_commit) = self.read_ref(notes_ref)? else {
            return Ok(None);
        };
        let tree = self.commit_tree(notes_commit)?;
        // Notes trees may fan out into directories of two hex digits.
        let hex = object.to_string();
        let mut current = tree;
        let mut consumed = 0;
        loop {
            let entries = self.list_tree(current)?;
            if let Some((_, id, _)) = entries.iter().find(|(name, _, _)| name == &hex[consumed..]) {
                return Ok(Some(String::from_utf8_lossy(&self.read_blob(*id)?).into_owned()));
            }
            let next = entries
                .iter()
                .find(|(name, _, kind)| *kind == EntryKind::Tree && hex[consumed..].starts_with(name.as_str()));
            match next {
                Some((name, id, _)) => {
                    consumed += name.len();
                    current = *id;
                }
                None => return Ok(None),
            }
        }
    }

    /// Parses a revision (`HEAD`, `main~2`, an abbreviated id) to an object id.
    pub fn rev_parse(&self, spec: &str) -> Result<Oid> {
        let id = self
            .inner
            .rev_parse_single(spec)
            .map_err(|e| anyhow!("not a valid revision: '{spec}' ({e})"))?;
        Ok(id.detach())
    }

    /// A short unique prefix of `id` for messages.
    pub fn short(&self, id: Oid) -> String {
        use gix::prelude::ObjectIdExt as _;
        id.attach(&self.inner)
            .shorten()
            .map(|p| p.to_string())
            .unwrap_or_else(|_| id.to_hex_with_len(7).to_string())
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

fn edit_path(edit: &TreeEdit) -> &str {
    match edit {
        TreeEdit::Blob { path, .. }
        | TreeEdit::Link { path, .. }
        | TreeEdit::Tree { path, .. }
        | TreeEdit::Commit { path, .. }
        | TreeEdit::Remove { path } => path,
    }
}

pub(crate) fn kind(mode: gix::object::tree::EntryMode) -> EntryKind {
    use gix::object::tree::EntryKind as K;
    match mode.kind() {
        K::Blob => EntryKind::Blob,
        K::BlobExecutable => EntryKind::Executable,
        K::Link => EntryKind::Link,
        K::Tree => EntryKind::Tree,
        K::Commit => EntryKind::Commit,
    }
}

pub(crate) fn bstr(s: &str) -> &BStr {
    s.as_bytes().as_bstr()
}

/// An error and its sources, joined with `: ` (gix keeps the cause, such as
/// a lock held by another writer, in the source chain).
fn with_sources(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}
