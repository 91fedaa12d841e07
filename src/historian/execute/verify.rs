//! `--verify-each <cmd>` (DESIGN §10.1, step 6): every new commit checked
//! out in a temporary linked worktree under
//! `<git-common-dir>/historian/verify-<pid>` and the command run there with
//! `sh -c`. The first failing commit is reported by number with the tail
//! of the command's output. The worktree is removed on every way out —
//! Ctrl-C, SIGTERM and SIGHUP stop the command and end the run with exit
//! 130 — and one left by a process that was killed is removed by the next
//! run.
//!
//! Not to be confused with ultraplan's Verify (`ultraplan::engine::verify`,
//! DESIGN §6.3), which checks a task plan's step: this runs a command on
//! each commit the historian built.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use crate::git::{Oid, Repo};
use crate::process;

use super::writer::tail;

/// Lines of output shown for a failing commit.
pub const TAIL_LINES: usize = 20;

/// A commit the command failed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// From 1.
    pub number: usize,
    pub commit: Oid,
    /// `exit 1`, `timed out`, …
    pub ending: String,
    pub tail: String,
}

/// Removes the worktree when dropped.
struct Worktree<'a> {
    repo: &'a Repo,
    path: PathBuf,
    added: bool,
}

impl Drop for Worktree<'_> {
    fn drop(&mut self) {
        remove(self.repo, &self.path, self.added);
    }
}

fn remove(repo: &Repo, path: &Path, registered: bool) {
    if registered {
        let _ = repo.remove_worktree(path);
    }
    if path.exists() {
        let _ = std::fs::remove_dir_all(path);
    }
    let _ = repo.prune_worktrees();
}

fn directory(repo: &Repo) -> PathBuf {
    repo.common_dir().join("historian")
}

/// Removes verify worktrees whose process is gone (one killed with
/// SIGKILL, which no handler sees); returns their paths.
pub fn remove_stale(repo: &Repo) -> Result<Vec<PathBuf>> {
    let dir = directory(repo);
    let mut removed = Vec::new();
    for worktree in repo.linked_worktrees()? {
        let Ok(relative) = worktree.path.strip_prefix(&dir) else {
            continue;
        };
        let Some(pid) = relative
            .to_str()
            .and_then(|name| name.strip_prefix("verify-"))
            .and_then(|pid| pid.parse::<i32>().ok())
        else {
            continue;
        };
        if !alive(pid) {
            remove(repo, &worktree.path, true);
            removed.push(worktree.path);
        }
    }
    Ok(removed)
}

fn alive(pid: i32) -> bool {
    u32::try_from(pid).is_ok_and(process::exists)
}

/// Runs `command` on each of `commits` in order; the first failure, if any.
pub fn each(repo: &Repo, commits: &[Oid], command: &str, timeout: Duration) -> Result<Option<Failure>> {
    remove_stale(repo)?;
    // Ctrl-C stops the command and comes back here, so the worktree goes.
    process::install_interrupt_handler();
    let path = directory(repo).join(format!("verify-{}", std::process::id()));
    if path.exists() {
        remove(repo, &path, true);
    }
    let mut worktree = Worktree {
        repo,
        path: path.clone(),
        added: false,
    };
    for (i, commit) in commits.iter().enumerate() {
        if !worktree.added {
            repo.add_detached_worktree(&path, *commit)?;
            worktree.added = true;
        } else {
            repo.checkout_detached(&path, *commit)?;
        }
        let mut env = vec![
            ("HISTORIAN_COMMIT".to_owned(), (i + 1).to_string()),
            ("HISTORIAN_COMMIT_ID".to_owned(), commit.to_string()),
            ("GIT_WORK_TREE".to_owned(), path.display().to_string()),
        ];
        if let Some(admin) = admin_dir(&path) {
            env.push(("GIT_DIR".to_owned(), admin.display().to_string()));
            env.push(("GIT_INDEX_FILE".to_owned(), admin.join("index").display().to_string()));
        }
        let finished = process::shell(command, &path, env, timeout, 256 * 1024)?;
        if process::interrupted() {
            return Err(crate::error::Interrupted {
                message: format!(
                    "interrupted while verifying commit {} of {}: nothing was written",
                    i + 1,
                    commits.len()
                ),
            }
            .into());
        }
        if !finished.ending.success() {
            return Ok(Some(Failure {
                number: i + 1,
                commit: *commit,
                ending: finished.ending.describe(),
                tail: tail(&finished.output(), TAIL_LINES),
            }));
        }
    }
    Ok(None)
}

/// The worktree's own git directory, from its `.git` file.
fn admin_dir(worktree: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(worktree.join(".git")).ok()?;
    let dir = text.trim().strip_prefix("gitdir:")?.trim();
    let dir = PathBuf::from(dir);
    Some(if dir.is_absolute() { dir } else { worktree.join(dir) })
}
