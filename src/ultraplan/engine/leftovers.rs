//! What a multi-session run leaves while it goes — linked worktrees and
//! `ultraplan/<slug>/*` branches — removed on every exit path, at the next
//! run's pre-flight, and by `git ultraplan clean`.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::git::Repo;

/// The worktrees and branches of one plan.
pub struct Leftovers<'r> {
    pub repo: &'r Repo,
    pub slug: String,
    /// Where this plan's session worktrees live.
    pub dir: PathBuf,
}

/// What was removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Removed {
    pub worktrees: Vec<PathBuf>,
    pub branches: Vec<String>,
}

impl Removed {
    pub fn is_empty(&self) -> bool {
        self.worktrees.is_empty() && self.branches.is_empty()
    }
}

/// Where session worktrees of `slug` live: `<worktreeDir or
/// <git-common-dir>/ultraplan/worktrees>/<slug>`.
pub fn worktree_dir(repo: &Repo, configured: Option<&Path>, slug: &str) -> PathBuf {
    let base = match configured {
        Some(dir) if dir.is_absolute() => dir.to_owned(),
        Some(dir) => repo.workdir().map(|w| w.join(dir)).unwrap_or_else(|_| dir.to_owned()),
        None => repo.common_dir().join("ultraplan").join("worktrees"),
    };
    base.join(slug)
}

impl Leftovers<'_> {
    fn branch_prefix(&self) -> String {
        format!("refs/heads/ultraplan/{}/", self.slug)
    }

    /// Removes the session worktree and branch of session `n` only.
    pub fn remove_session(&self, n: u32) -> Result<Removed> {
        let branch = format!("{}session-{n}", self.branch_prefix());
        self.remove_matching(|path, b| path == self.dir.join(format!("session-{n}")) || b == Some(branch.as_str()))
    }

    /// Removes every worktree and branch of the plan.
    pub fn remove(&self) -> Result<Removed> {
        let prefix = self.branch_prefix();
        self.remove_matching(|path, b| path.starts_with(&self.dir) || b.is_some_and(|b| b.starts_with(&prefix)))
    }

    fn remove_matching(&self, wanted: impl Fn(&Path, Option<&str>) -> bool) -> Result<Removed> {
        let mut removed = Removed::default();
        for wt in self.repo.linked_worktrees()? {
            if wanted(&wt.path, wt.branch.as_deref()) {
                // A directory already gone is pruned below.
                if wt.path.exists() {
                    self.repo.remove_worktree(&wt.path)?;
                }
                removed.worktrees.push(wt.path);
            }
        }
        self.repo.prune_worktrees()?;
        // A session directory no worktree is registered for (a run killed
        // while creating it) would block every later run: it is ours, so it goes.
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_owned());
        let registered: Vec<PathBuf> = self
            .repo
            .linked_worktrees()?
            .iter()
            .map(|w| canonical(&w.path))
            .collect();
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                let ours = name.strip_prefix("session-").is_some_and(|n| n.parse::<u32>().is_ok());
                if ours && !registered.contains(&canonical(&path)) && wanted(&path, None) {
                    std::fs::remove_dir_all(&path)
                        .map_err(|e| anyhow::anyhow!("cannot remove '{}': {e}", path.display()))?;
                    removed.worktrees.push(path);
                }
            }
        }
        for (name, _) in self.repo.refs_with_prefix(&self.branch_prefix())? {
            let session_dir = name.rsplit('/').next().map(|s| self.dir.join(s));
            if wanted(session_dir.as_deref().unwrap_or(Path::new("")), Some(&name)) {
                self.repo.delete_ref(&name, None)?;
                removed.branches.push(name);
            }
        }
        // Empty directories of ours go too; anything else stays.
        let _ = std::fs::remove_dir(&self.dir);
        if let Some(parent) = self.dir.parent() {
            let _ = std::fs::remove_dir(parent);
        }
        Ok(removed)
    }
}
