//! What `git status` lists: staged and unstaged changes to tracked files,
//! and untracked files.

use std::collections::BTreeSet;

use anyhow::{Context as _, Result};
use gix::bstr::ByteSlice;

use crate::git::repo::Repo;

/// Tracked and untracked changes in the working tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dirt {
    /// Staged or unstaged changes to tracked files.
    pub tracked: Vec<String>,
    pub untracked: Vec<String>,
}

impl Repo {
    /// `git status` as an iterator: staged and unstaged changes, untracked
    /// files one by one, no rename detection, submodules judged by `ignore`.
    /// The index is read fresh (see `fresh_index`): the refreshed stat data
    /// the caller may write back must not carry a stale index over a newer one.
    pub(crate) fn status_iter(&self, ignore: gix::submodule::config::Ignore) -> Result<gix::status::Iter> {
        let index = self.fresh_index()?;
        self.inner
            .status(gix::progress::Discard)
            .context("cannot read the status")?
            .index(index)
            .untracked_files(gix::status::UntrackedFiles::Files)
            .index_worktree_rewrites(None)
            .index_worktree_submodules(gix::status::Submodule::Given {
                ignore,
                check_dirty: false,
            })
            .into_iter(None)
            .context("cannot read the status")
    }

    /// Paths where the working tree may differ from HEAD: staged, modified,
    /// deleted and untracked (not ignored) files. With `write_index`, the
    /// stat data refreshed is written back to the index.
    pub(super) fn dirty_paths(&self, write_index: bool) -> Result<BTreeSet<String>> {
        let mut iter = self.status_iter(gix::submodule::config::Ignore::All)?;
        let mut paths = BTreeSet::new();
        for item in &mut iter {
            let item = item.context("cannot read the status")?;
            paths.extend(status_paths(item).into_iter().map(|p| match p {
                StatusPath::Tracked(p) | StatusPath::Untracked(p) => p,
            }));
        }
        // Like `git status`, keep the stat data it refreshed, so the next scan
        // does not hash the same files again; opportunistic, as in git: a busy
        // index.lock or GIT_OPTIONAL_LOCKS=0 skips it.
        if write_index && std::env::var("GIT_OPTIONAL_LOCKS").map_or(true, |v| v != "0") {
            if let Some(mut outcome) = iter.into_outcome() {
                if outcome.has_changes() {
                    let _ = outcome.write_changes();
                }
            }
        }
        Ok(paths)
    }

    /// What `git status` would list: tracked changes (staged or not) and
    /// untracked files.
    pub fn dirt(&self) -> Result<Dirt> {
        let mut dirt = Dirt::default();
        for item in self.status_iter(gix::submodule::config::Ignore::Dirty)? {
            for path in status_paths(item.context("cannot read the status")?) {
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
