//! What a multi-session run leaves while it goes — linked worktrees and
//! `ultraplan/<slug>/*` branches — removed on every exit path, at the next
//! run's pre-flight, and by `git ultraplan clean`; and the places a worker
//! (`git ultraplan work`) runs a session in — a worktree under
//! `<git-common-dir>/ultraplan/work/<slug>/` on an `ultraplan-work/<slug>/*`
//! branch — which a killed worker leaves, removed by `clean`.
//!
//! A run does not wait for a worktree's files to be deleted (thousands of
//! files take seconds, and nothing depends on it): the worktree leaves git's
//! list at once, its directory is renamed to a `.trash-<plan>-…` entry beside
//! the plan's worktrees, and a process of its own deletes it. `clean` deletes
//! such entries itself, so a run killed before they were gone still leaves
//! nothing behind after it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::{Context, Result};

use crate::git::Repo;
use crate::process;

/// How worktrees are removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Removal {
    /// Out of git's list at once, the files deleted in the background.
    Background,
    /// Deleted before returning, earlier runs' trash too (`clean`).
    Now,
}

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

/// Where a worker runs session `n` of `slug`: its own worktree and branch,
/// outside the names a multi-session run of the same plan cleans up.
pub fn work_place(repo: &Repo, slug: &str, n: u32) -> (PathBuf, String) {
    (
        work_dir(repo, slug).join(format!("session-{n}")),
        format!("{}session-{n}", work_branch_prefix(slug)),
    )
}

fn work_dir(repo: &Repo, slug: &str) -> PathBuf {
    repo.common_dir().join("ultraplan").join("work").join(slug)
}

fn work_branch_prefix(slug: &str) -> String {
    format!("refs/heads/ultraplan-work/{slug}/")
}

/// The session number in a place's name (`session-<N>`).
fn session_of(name: &str) -> Option<u32> {
    name.strip_prefix("session-")?.parse().ok()
}

impl Leftovers<'_> {
    fn branch_prefix(&self) -> String {
        format!("refs/heads/ultraplan/{}/", self.slug)
    }

    /// The branch of session `n`, and only that.
    pub fn remove_branch(&self, n: u32) -> Result<()> {
        let branch = format!("{}session-{n}", self.branch_prefix());
        if self.repo.read_ref(&branch)?.is_some() {
            self.repo.delete_ref(&branch, None)?;
        }
        Ok(())
    }

    /// Takes the worktree at `path` out of git's list and deletes its files
    /// in the background.
    pub fn discard(&self, path: &Path) -> Result<()> {
        static SEQUENCE: AtomicU32 = AtomicU32::new(0);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let trash = self.trash_dir().join(format!(
            "{}{name}-{}-{}-{nanos}",
            self.trash_prefix(),
            std::process::id(),
            SEQUENCE.fetch_add(1, Ordering::Relaxed)
        ));
        match self.repo.discard_worktree(path, &trash) {
            Ok(()) => process::delete_detached(&trash),
            // Not movable (another filesystem, say): deleted here instead.
            Err(_) => self.repo.remove_worktree(path),
        }
    }

    /// Where trash goes: beside the plans' worktree directories, on their
    /// filesystem (a rename must not copy).
    fn trash_dir(&self) -> PathBuf {
        self.dir.parent().map_or_else(|| self.dir.clone(), Path::to_owned)
    }

    fn trash_prefix(&self) -> String {
        format!(".trash-{}-", self.slug)
    }

    /// Removes every worktree and branch of the plan.
    pub fn remove(&self, removal: Removal) -> Result<Removed> {
        let prefix = self.branch_prefix();
        self.remove_matching(removal, |path, b| {
            path.starts_with(&self.dir) || b.is_some_and(|b| b.starts_with(&prefix))
        })
    }

    fn remove_matching(&self, removal: Removal, wanted: impl Fn(&Path, Option<&str>) -> bool) -> Result<Removed> {
        let mut removed = Removed::default();
        for wt in self.repo.linked_worktrees()? {
            if wanted(&wt.path, wt.branch.as_deref()) {
                // A directory already gone is pruned below.
                if wt.path.exists() {
                    match removal {
                        Removal::Background => self.discard(&wt.path)?,
                        Removal::Now => self.repo.remove_worktree(&wt.path)?,
                    }
                }
                removed.worktrees.push(wt.path);
            }
        }
        if removal == Removal::Now {
            self.empty_trash();
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
                    std::fs::remove_dir_all(&path).with_context(|| format!("cannot remove '{}'", path.display()))?;
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
        // Empty directories of ours go too (trash being deleted keeps the
        // parent a while); anything else stays.
        let _ = std::fs::remove_dir(&self.dir);
        if let Some(parent) = self.dir.parent() {
            let _ = std::fs::remove_dir(parent);
        }
        Ok(removed)
    }
}

impl Leftovers<'_> {
    /// Removes the places workers ran this plan's sessions in — worktrees
    /// and `ultraplan-work/<slug>/session-<N>` branches — but those of the
    /// sessions `live` names (a worker holds them): what killed workers left.
    pub fn remove_work_places(&self, live: impl Fn(u32) -> bool) -> Result<Removed> {
        let dir = work_dir(self.repo, &self.slug);
        let mut removed = Removed::default();
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_owned());
        let dir_canonical = canonical(&dir);
        let place_of = |path: &Path| {
            let path = canonical(path);
            let n = path.file_name().and_then(|n| n.to_str()).and_then(session_of)?;
            (path.parent() == Some(dir_canonical.as_path())).then_some(n)
        };
        for wt in self.repo.linked_worktrees()? {
            let Some(n) = place_of(&wt.path) else { continue };
            if live(n) {
                continue;
            }
            if wt.path.exists() {
                self.repo.remove_worktree(&wt.path)?;
            }
            removed.worktrees.push(wt.path);
        }
        self.repo.prune_worktrees()?;
        // A place no worktree is registered for any more (a worker killed
        // while it made or removed it) goes too.
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                let Some(n) = place_of(&path) else { continue };
                if live(n) || removed.worktrees.iter().any(|w| canonical(w) == canonical(&path)) {
                    continue;
                }
                std::fs::remove_dir_all(&path).with_context(|| format!("cannot remove '{}'", path.display()))?;
                removed.worktrees.push(path);
            }
        }
        let prefix = work_branch_prefix(&self.slug);
        for (name, _) in self.repo.refs_with_prefix(&prefix)? {
            let n = name.strip_prefix(&prefix).and_then(session_of);
            if n.is_some_and(&live) {
                continue;
            }
            self.repo.delete_ref(&name, None)?;
            removed.branches.push(name);
        }
        let _ = std::fs::remove_dir(&dir);
        if let Some(parent) = dir.parent() {
            let _ = std::fs::remove_dir(parent);
        }
        Ok(removed)
    }

    /// Deletes the trash a background deletion did not finish (the machine
    /// stopped), or is still deleting: whichever deletes an entry first, it
    /// ends up gone. Every plan's: trash is nobody's work.
    fn empty_trash(&self) {
        let prefix = ".trash-";
        let Ok(entries) = std::fs::read_dir(self.trash_dir()) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(prefix) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}
