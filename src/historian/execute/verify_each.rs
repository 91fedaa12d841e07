//! `--verify-each <cmd>` (DESIGN §10.1, step 6): every new commit checked
//! out in a temporary linked worktree under
//! `<git-common-dir>/historian/verify-<pid>` and the command run there with
//! `sh -c`. The first failing commit is reported by number with the tail
//! of the command's output. The worktree is removed on every way out —
//! Ctrl-C, SIGTERM and SIGHUP stop the command and end the run with exit
//! 130 — and one left by a process that was killed is removed by the next
//! run.
//!
//! Not to be confused with ultraplan's Verify (`ultraplan::engine::command_check`,
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

/// A `--verify-each` worktree in git's worktree list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyWorktree {
    pub path: PathBuf,
    /// The process that made it (its name says).
    pub pid: u32,
}

/// Every `--verify-each` worktree registered, with whether the run that
/// made it is alive. Found from git's worktree list, not from a session
/// ref: a run killed while verifying had none, or had not written it yet.
///
/// Its maker is alive when its pid is alive (a zombie — killed, and not
/// reaped — is not), has been since before the worktree was made (a pid
/// reused by a later process is another one), and stays so for a moment (a
/// process killed just now stays visible while the kernel tears it down).
pub fn worktrees(repo: &Repo) -> Result<Vec<(VerifyWorktree, bool)>> {
    let dir = directory(repo);
    let dir = dir.canonicalize().unwrap_or(dir);
    let mut out = Vec::new();
    for worktree in repo.linked_worktrees()? {
        let path = worktree.path.canonicalize().unwrap_or_else(|_| worktree.path.clone());
        let Ok(relative) = path.strip_prefix(&dir) else {
            continue;
        };
        let Some(pid) = relative
            .to_str()
            .and_then(|name| name.strip_prefix("verify-"))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = maker_alive(pid, &worktree.path);
        out.push((
            VerifyWorktree {
                path: worktree.path,
                pid,
            },
            alive,
        ));
    }
    Ok(out)
}

fn maker_alive(pid: u32, worktree: &Path) -> bool {
    if pid == std::process::id() {
        return false; // ours from before: a pid this process reuses
    }
    // The `.git` file is written once, when the worktree is added.
    let made = std::fs::metadata(worktree.join(".git"))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok());
    let same_process = |pid: u32| match (process::age(pid), made) {
        (Some(age), Some(made)) => age + Duration::from_millis(30) >= made,
        _ => true,
    };
    process::alive(pid) && same_process(pid) && process::wait_gone(&[pid], Duration::from_millis(1500)).contains(&pid)
}

/// Removes verify worktrees whose run is gone (one killed with SIGKILL,
/// which no handler sees); returns their paths.
pub fn remove_stale(repo: &Repo) -> Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    for (worktree, alive) in worktrees(repo)? {
        if !alive {
            remove(repo, &worktree.path, true);
            removed.push(worktree.path);
        }
    }
    Ok(removed)
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
