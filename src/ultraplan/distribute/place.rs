//! Where a worker runs a session, and what the session's exit says.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{Context as _, Result};

use super::{Work, WorkOptions};
use crate::git::{Oid, Repo};
use crate::process;
use crate::ultraplan::engine::leftovers::work_place;
use crate::ultraplan::engine::ORCHESTRATED_VAR;

/// Where a worker runs a session: its own worktree and branch, outside the
/// names a multi-session run of the same plan in this clone cleans up.
pub(super) struct Place {
    pub dir: PathBuf,
    pub branch: String,
    pub log: PathBuf,
}

impl Place {
    pub fn new(repo: &Repo, slug: &str, n: u32) -> Place {
        let (dir, branch) = work_place(repo, slug, n);
        Place {
            dir,
            branch,
            log: repo
                .common_dir()
                .join("ultraplan")
                .join("logs")
                .join(slug)
                .join(format!("work-session-{n}.log")),
        }
    }

    /// A fresh worktree on a fresh branch at `base` (a killed worker's are removed first).
    pub fn prepare(&self, repo: &Repo, base: Oid) -> Result<()> {
        self.remove(repo)?;
        repo.create_branch(&self.branch, base)?;
        repo.add_worktree(&self.dir, &self.branch)?;
        if let Some(dir) = self.log.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&self.log, "").with_context(|| format!("cannot create '{}'", self.log.display()))
    }

    /// Runs session `n` in the worktree `prepare` made at `base`: fresh, so
    /// the session is told it is clean there (`run --clean-at`).
    pub fn run(&self, opts: &WorkOptions, work: &Work, n: u32, base: Oid) -> Result<String> {
        let log = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.log)
            .with_context(|| format!("cannot open '{}'", self.log.display()))?;
        let mut command = Command::new(&opts.program);
        command
            .arg("run")
            .arg("--session")
            .arg(n.to_string())
            .args(&opts.child_args)
            .arg(format!("--clean-at={base}"))
            // `--`: a plan may be called `-x.md`.
            .arg("--")
            .arg(&work.plan)
            .current_dir(&self.dir)
            .env(ORCHESTRATED_VAR, "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        let mut child = process::spawn_registered(&mut command)?;
        let status = child.wait()?;
        process::unregister(child.id());
        Ok(session_result(status.code()).into())
    }

    pub fn remove(&self, repo: &Repo) -> Result<()> {
        if repo.linked_worktrees()?.iter().any(|w| w.path == self.dir) && self.dir.exists() {
            repo.remove_worktree(&self.dir)?;
        }
        repo.prune_worktrees()?;
        if self.dir.exists() {
            std::fs::remove_dir_all(&self.dir).with_context(|| format!("cannot remove '{}'", self.dir.display()))?;
        }
        if repo.read_ref(&self.branch)?.is_some() {
            repo.delete_ref(&self.branch, None)?;
        }
        Ok(())
    }
}

/// What a session's exit status means (as for sessions run here).
pub fn session_result(code: Option<i32>) -> &'static str {
    match code {
        Some(0) => "completed",
        Some(1) => "failed",
        Some(3) => "stopped",
        Some(130) => "interrupted",
        _ => "crashed",
    }
}
