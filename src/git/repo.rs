//! The repository handle: opening it for another thread, where its
//! directories are, where `HEAD` points and whose identity writes commits.
//! Every subject of the room (`objects`, `refs`, `diff`, …) adds its
//! operations to [`Repo`] in its own file.

use std::path::Path;

use anyhow::{anyhow, Context as _, Result};
use gix::bstr::ByteSlice;

pub use gix::ObjectId as Oid;

/// An opened repository. Cheap to share by reference; not `Sync`.
pub struct Repo {
    pub(crate) inner: gix::Repository,
    /// The last index seen as a tree: its checksum, HEAD's tree then, and
    /// the tree (see `index_tree`).
    pub(crate) index_tree_seen: std::cell::Cell<Option<(Oid, Oid, Oid)>>,
    /// The blob pipeline rename detection reads blobs through, made once:
    /// making it maps every entry of the index (see `tree_deltas`).
    pub(crate) diff_cache: std::cell::Cell<Option<gix::diff::blob::Platform>>,
}

/// Where `HEAD` points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The commit, or `None` on an unborn branch.
    pub commit: Option<Oid>,
    /// The branch's full name (`refs/heads/main`), or `None` when detached.
    pub branch: Option<String>,
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
            diff_cache: std::cell::Cell::new(None),
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
        let head = self.inner.head().context("cannot read HEAD")?;
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
                Some(Err(e)) => return Err(e).with_context(|| format!("cannot read the {what} identity")),
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
}

/// An error and its sources, joined with `: ` (gix keeps the cause, such as
/// a lock held by another writer or an object a damaged clone lacks, in
/// the source chain).
pub(super) fn with_sources(err: &dyn std::error::Error) -> String {
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
