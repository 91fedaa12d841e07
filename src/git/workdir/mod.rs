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
//!
//! The files here, by what they do to the working tree:
//! * this file: taking a [`Snapshot`] (hashing files as `git add` would);
//! * `status`: what git would list as changed (`git status`);
//! * `scan` and `watch`: later snapshots of a run, looking only at what
//!   inotify saw change; `ahead`: the first one taken on a thread at launch;
//! * `ignored` and `own_files`: the ignored files and git's own files
//!   (`config`, hooks) a snapshot also keeps;
//! * `restore`: putting a snapshot back on disk;
//! * `index` and `stage`: the index as a tree and back, and staging exactly
//!   the paths asked for.

mod ahead;
mod ignored;
mod index;
mod own_files;
mod restore;
mod scan;
mod stage;
mod status;
mod watch;

use std::collections::{BTreeSet, HashMap};

use anyhow::{Context as _, Result};

pub use ahead::ScanAhead;
pub use ignored::{IgnoredBound, IgnoredFiles};
pub use own_files::risky_settings_added;
pub use restore::remove_files;
pub use status::Dirt;

use super::objects::{bstr, TreeEdit};
use super::repo::{Oid, Repo};

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

/// What a run carries from scan to scan.
#[derive(Default)]
pub struct Tracker {
    watcher: Option<watch::Watcher>,
    last: Option<Snapshot>,
    /// A HEAD this program moved to itself (a commit of the last snapshot).
    own_head: Option<Oid>,
    /// How many scans were incremental (for tests and benchmarks).
    pub incremental_scans: usize,
    /// Whether the first scan was the one taken ahead (for tests).
    pub taken_ahead: bool,
    /// Ignored files hashed before, by path: their fingerprint then and the
    /// tree edit made, so an unchanged file is not read again.
    ignored: HashMap<String, (ignored::Fingerprint, TreeEdit)>,
    /// Every ignored file with its fingerprint, as of the last walk brought up
    /// to date by incremental scans; `None` after a full scan (walk again).
    ignored_list: Option<ignored::IgnoredList>,
    /// The working tree is clean at this commit, as the caller knows: the
    /// first full scan trusts it (see `Repo::scan`).
    trusted_clean: Option<Oid>,
    /// The first scan, being taken ahead ([`Repo::scan_ahead`]).
    ahead: Option<ScanAhead>,
}

impl Tracker {
    /// A tracker whose first full scan trusts that the working tree is
    /// clean at `commit` (nothing staged, modified, untracked or ignored)
    /// when HEAD is there: a worktree just checked out, or proved clean, by
    /// the run that placed a session in it.
    pub fn trusting_clean(commit: Option<Oid>) -> Tracker {
        Tracker {
            trusted_clean: commit,
            ..Tracker::default()
        }
    }

    /// A tracker whose first scan takes the one `ahead` took, when
    /// nothing it read changed since (see [`Repo::scan_ahead`]).
    pub fn ahead(ahead: Option<ScanAhead>) -> Tracker {
        Tracker {
            ahead,
            ..Tracker::default()
        }
    }

    /// This program moved HEAD to `commit` (from the last snapshot's content).
    pub fn moved_head(&mut self, commit: Oid) {
        self.own_head = Some(commit);
    }
}

impl Repo {
    /// Takes a snapshot of the working tree.
    pub fn snapshot(&self) -> Result<Snapshot> {
        self.snapshot_writing(true)
    }

    /// Takes a snapshot of the working tree; with `write_index`, the index's
    /// refreshed stat data is written back, as `git status` does.
    fn snapshot_writing(&self, write_index: bool) -> Result<Snapshot> {
        let head = self.head()?.commit;
        let head_tree = self.tree_of(head)?;
        let (paths, unstorable): (BTreeSet<String>, BTreeSet<String>) =
            self.dirty_paths(write_index)?.into_iter().partition(|p| storable(p));
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
            .with_context(|| format!("cannot hash '{path}'"))?;
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
            .context("cannot prepare git's filters")?;
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

#[cfg(test)]
mod ahead_tests;
#[cfg(test)]
mod tests;
