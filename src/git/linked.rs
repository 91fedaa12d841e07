//! Linked worktrees: adding them (on a branch or detached), listing,
//! checking another commit out in one, removing them.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::{anyhow, bail, Result};

use super::cli::GitCli;
use super::repo::{Oid, Repo};

/// A linked worktree as git has it registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkedWorktree {
    pub path: PathBuf,
    /// The branch checked out there (`refs/heads/…`), if any.
    pub branch: Option<String>,
}

impl Repo {
    /// Adds a linked worktree at `path` with `branch` checked out.
    pub fn add_worktree(&self, path: &Path, branch: &str) -> Result<()> {
        let name: gix::refs::FullName = branch
            .try_into()
            .map_err(|e| anyhow!("invalid branch name '{branch}': {e}"))?;
        self.add_linked(path, gix::worktree::add::Head::Attached(name))
    }

    /// Adds a linked worktree at `path` with `commit` checked out, detached.
    pub fn add_detached_worktree(&self, path: &Path, commit: Oid) -> Result<()> {
        self.add_linked(path, gix::worktree::add::Head::Detached(commit))
    }

    /// The one worktree adder (gix: no hooks run, files checked out in-process).
    fn add_linked(&self, path: &Path, head: gix::worktree::add::Head) -> Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| anyhow!("cannot create '{}': {e}", parent.display()))?;
        }
        let interrupt = AtomicBool::new(false);
        self.inner
            .add_worktree(path, head, gix::progress::Discard, &interrupt)
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
            let out = self
                .git_cli_with_work_tree()
                .args(["worktree", "remove", "--force", "--force"])
                .arg(path)
                .output()?;
            if !out.status.success() && path.exists() {
                bail!("cannot remove the worktree '{}': {e}", path.display());
            }
        }
        Ok(())
    }

    /// `git worktree prune`: forget registrations whose directories are gone
    /// (gix has no prune).
    pub fn prune_worktrees(&self) -> Result<()> {
        let _ = self.git(&["worktree", "prune"])?;
        Ok(())
    }

    /// Checks `commit` out in the linked worktree at `worktree` (detached,
    /// hooks off) and removes every file it does not track, ignored ones
    /// too, with git: gix cannot move a working tree from one tree to
    /// another, and has no clean.
    pub fn checkout_detached(&self, worktree: &Path, commit: Oid) -> Result<()> {
        let out = GitCli::in_dir(worktree)
            .no_hooks()
            .args(["checkout", "--quiet", "--force", "--detach"])
            .arg(commit.to_string())
            .output()?;
        if !out.status.success() {
            bail!(
                "cannot check out {commit} in '{}': {}",
                worktree.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let out = GitCli::in_dir(worktree)
            .args(["clean", "-q", "-f", "-d", "-x"])
            .output()?;
        if !out.status.success() {
            bail!(
                "cannot clean the worktree '{}': {}",
                worktree.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    }
}
