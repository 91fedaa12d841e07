//! The lock ref `refs/ultraplan/<slug>/lock`: a blob naming the pid, host,
//! start and heartbeat time and command of the process running the plan.
//!
//! It is created only if absent (compare-and-swap), refreshed every 30 s by a
//! heartbeat thread, and released by deleting it only if it is still ours. It
//! is stale when its host is this host and its pid is gone, or when its
//! heartbeat is older than `ultraplan.lockTimeout`; a stale lock is taken over,
//! a live one refused with who holds it.
//!
//! Taking a lock also removes the `.lock` files of git's that a killed
//! writer left (see `git::locks`): those in the namespace a dead holder
//! guarded, and any other whose writer is provably gone. A run never
//! wedges on the leftovers of one killed before it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{anyhow, Result};

use super::guards::{guarded_refs, in_guarded};
use super::progress::now;
use crate::git::{Expect, LockSweep, Oid, RefConflict, Repo};
use crate::redact::redact;

const HEARTBEAT: Duration = Duration::from_secs(30);

/// What a lock blob says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockInfo {
    pub pid: u32,
    pub host: String,
    pub started_at: String,
    pub heartbeat_at: String,
    pub command: String,
    /// When the kernel started process `pid` (clock ticks since boot, from
    /// `/proc/<pid>/stat`): a pid reused by another process after the holder
    /// died has another start time. `None` where it cannot be read.
    pub pid_start: Option<u64>,
}

impl LockInfo {
    fn ours(command: &str) -> LockInfo {
        let t = now();
        LockInfo {
            pid: std::process::id(),
            host: hostname(),
            started_at: t.clone(),
            heartbeat_at: t,
            pid_start: crate::process::start_ticks(std::process::id()),
            // Redacted like everything written into git, on one line.
            command: crate::redact::redact(command).replace(['\n', '\r'], " "),
        }
    }

    pub fn render(&self) -> String {
        let start = self.pid_start.map(|t| format!("pid_start: {t}\n")).unwrap_or_default();
        format!(
            "pid: {}\nhost: {}\nstarted_at: {}\nheartbeat_at: {}\n{start}command: {}\n",
            self.pid, self.host, self.started_at, self.heartbeat_at, self.command
        )
    }

    pub fn parse(text: &str) -> LockInfo {
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(':')))
                .map(|v| v.trim().to_owned())
                .unwrap_or_default()
        };
        LockInfo {
            pid: field("pid").parse().unwrap_or(0),
            host: field("host"),
            started_at: field("started_at"),
            heartbeat_at: field("heartbeat_at"),
            command: field("command"),
            pid_start: field("pid_start").parse().ok(),
        }
    }

    /// Whether the holder's process is alive on this host: the pid exists, is
    /// not a zombie, and (when the lock recorded it) started when the holder did.
    fn holder_alive(&self) -> bool {
        crate::process::alive(self.pid)
            && match (self.pid_start, crate::process::start_ticks(self.pid)) {
                (Some(recorded), Some(now)) => recorded == now,
                _ => true,
            }
    }

    /// What every process this holder started carries in its environment as
    /// [`process::RUN_TOKEN_VAR`](crate::process::RUN_TOKEN_VAR).
    pub fn token(&self) -> String {
        format!("{}@{}@{}", self.pid, self.host, self.started_at)
    }

    /// Whether this holder ran on this host.
    pub fn on_this_host(&self) -> bool {
        self.host == hostname()
    }

    /// Whether this holder ran on this host and is gone (so are its
    /// processes once [`LockInfo::kill_leftovers`] ran).
    pub fn gone_from_this_host(&self) -> bool {
        self.host == hostname() && !self.holder_alive()
    }

    /// After this holder died on this host: stops what it left running (an
    /// executor's background children outlive it; they must not go on editing
    /// the worktree a resume restores). Returns how many processes were killed.
    pub fn kill_leftovers(&self) -> usize {
        if self.host != hostname() || self.holder_alive() {
            return 0;
        }
        crate::process::kill_tagged(&self.token())
    }

    /// Whether the holder is gone: same host and no such process, or silent
    /// for longer than `timeout`.
    pub fn status(&self, timeout: Duration) -> LockStatus {
        if self.host == hostname() && !self.holder_alive() {
            return LockStatus::Stale(format!("process {} on this host is gone", self.pid));
        }
        match chrono::DateTime::parse_from_rfc3339(&self.heartbeat_at) {
            Ok(beat) => {
                let age = chrono::Utc::now().signed_duration_since(beat);
                if age.to_std().unwrap_or_default() > timeout {
                    LockStatus::Stale(format!("no heartbeat for {}s", age.num_seconds()))
                } else {
                    LockStatus::Live
                }
            }
            Err(_) => LockStatus::Stale("the heartbeat time is unreadable".into()),
        }
    }
}

impl LockInfo {
    /// [`LockInfo::status`], asked again for a moment when a holder on this
    /// host still looks alive: a process just killed (SIGKILL) stays visible
    /// while the kernel tears it down, until its parent reaps it.
    pub fn settled_status(&self, timeout: Duration) -> LockStatus {
        let mut status = self.status(timeout);
        if self.host != hostname() {
            return status;
        }
        let deadline = std::time::Instant::now() + SETTLE;
        while status == LockStatus::Live && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(25));
            status = self.status(timeout);
        }
        status
    }
}

/// How long a live-looking holder on this host is watched before refusing.
const SETTLE: Duration = Duration::from_millis(1500);

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockStatus {
    Live,
    Stale(String),
}

/// What the other live locks of the plan `name` belongs to guard (a
/// worker's beside a dead orchestrator's, say), their own refs included:
/// none of it is a dead holder's to clean up. For a session's or worker's
/// lock the plan's own is left out: its orchestrator waits while the
/// session runs, and touches none of the session's refs meanwhile.
fn live_guards(repo: &Repo, name: &str, timeout: Duration) -> Result<Vec<String>> {
    let Some((namespace, last)) = name.rsplit_once('/') else {
        return Ok(Vec::new());
    };
    let plans_own = format!("{namespace}/lock");
    let mut out = Vec::new();
    for (other, id) in repo.refs_with_prefix(&format!("{namespace}/lock"))? {
        if other == name || (last != "lock" && other == plans_own) {
            continue;
        }
        let info = LockInfo::parse(&String::from_utf8_lossy(&repo.read_blob(id)?));
        if info.status(timeout) == LockStatus::Live {
            out.extend(guarded_refs(&other));
            out.push(other);
        }
    }
    Ok(out)
}

/// A held lock; dropping it without [`Lock::release`] leaves it to go stale.
pub struct Lock {
    name: String,
    current: Arc<Mutex<Oid>>,
    stop: Arc<AtomicBool>,
    heartbeat: Option<JoinHandle<()>>,
    /// Set when a stale lock was taken over: whose it was and why.
    pub took_over: Option<(LockInfo, String)>,
    /// How many processes the dead holder left running were stopped: their
    /// edits to the worktree cannot be told from a person's.
    pub leftovers_stopped: usize,
    /// The lock files of git's found when it was taken: removed (their
    /// writer is gone) or kept.
    pub lock_files: LockSweep,
}

impl Lock {
    /// Takes the lock `name` for `command`, taking over a stale one.
    pub fn acquire(repo: &Repo, name: &str, command: &str, timeout: Duration) -> Result<Lock> {
        let info = LockInfo::ours(command);
        let blob = repo.write_blob(redact(&info.render()).as_bytes())?;
        let mut took_over = None;
        let mut leftovers_stopped = 0;
        let mut gone: Vec<String> = Vec::new();
        let existing = repo.read_ref(name)?;
        if let Some(existing) = existing {
            let holder = LockInfo::parse(&String::from_utf8_lossy(&repo.read_blob(existing)?));
            match holder.settled_status(timeout) {
                LockStatus::Live => return Err(held(name, &holder)),
                LockStatus::Stale(why) => {
                    // Its processes go first: none may be writing while
                    // its lock files are judged, nor once the lock is ours.
                    let killed = holder.kill_leftovers();
                    leftovers_stopped = killed;
                    let why = match killed {
                        0 => why,
                        n => format!("{why}; stopped {n} process(es) it left running"),
                    };
                    if holder.gone_from_this_host() {
                        gone = guarded_refs(name);
                        gone.push(name.to_owned());
                    }
                    took_over = Some((holder, why));
                }
            }
        }
        // A process killed while it updated a ref (the dead holder, or any
        // git process before it) left its `.lock`: every later update of
        // that ref would fail — this lock's own included.
        let guarded_by_others = match gone.is_empty() {
            true => Vec::new(),
            false => live_guards(repo, name, timeout)?,
        };
        let lock_files = repo
            .remove_stale_lock_files(&|locked| in_guarded(&gone, locked) && !in_guarded(&guarded_by_others, locked))?;
        match existing {
            None => repo.update_ref(name, blob, Expect::Absent, "ultraplan: lock"),
            Some(existing) => repo.update_ref(name, blob, Expect::Value(existing), "ultraplan: take over stale lock"),
        }
        .map_err(|e| lost(e, name))?;
        crate::process::set_run_token(info.token());
        let current = Arc::new(Mutex::new(blob));
        let stop = Arc::new(AtomicBool::new(false));
        let heartbeat = {
            let shared = repo.share();
            let (current, stop, name) = (current.clone(), stop.clone(), name.to_owned());
            std::thread::Builder::new()
                .name("ultraplan-heartbeat".into())
                .spawn(move || beat(shared.open(), &name, info, &current, &stop))
                .ok()
        };
        Ok(Lock {
            name: name.to_owned(),
            current,
            stop,
            heartbeat,
            took_over,
            leftovers_stopped,
            lock_files,
        })
    }

    /// Stops the heartbeat and deletes the lock if it is still ours.
    pub fn release(mut self, repo: &Repo) -> Result<()> {
        self.stop_heartbeat();
        let ours = *self.current.lock().map_err(|_| anyhow!("lock state poisoned"))?;
        match repo.delete_ref(&self.name, Some(ours)) {
            Ok(()) => Ok(()),
            Err(e) if e.downcast_ref::<RefConflict>().is_some() => Ok(()), // taken over meanwhile: not ours to delete
            Err(e) => Err(e),
        }
    }

    fn stop_heartbeat(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(handle) = self.heartbeat.take() {
            // Woken now, not at its next tick: a release costs no wait.
            handle.thread().unpark();
            let _ = handle.join();
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        self.stop_heartbeat();
    }
}

fn beat(repo: Repo, name: &str, mut info: LockInfo, current: &Mutex<Oid>, stop: &AtomicBool) {
    let tick = Duration::from_millis(50);
    let mut last = std::time::Instant::now();
    while !stop.load(Ordering::SeqCst) {
        // Unparked by the release; a spurious wake-up only looks again.
        std::thread::park_timeout(tick);
        if stop.load(Ordering::SeqCst) || last.elapsed() < HEARTBEAT {
            continue;
        }
        last = std::time::Instant::now();
        info.heartbeat_at = now();
        let Ok(mut guard) = current.lock() else { return };
        let Ok(blob) = repo.write_blob(redact(&info.render()).as_bytes()) else {
            continue;
        };
        match repo.update_ref(name, blob, Expect::Value(*guard), "ultraplan: heartbeat") {
            Ok(()) => *guard = blob,
            // Someone took the lock: stop claiming it.
            Err(_) => return,
        }
    }
}

fn held(name: &str, holder: &LockInfo) -> anyhow::Error {
    crate::error::FatalWithHint {
        message: format!(
            "another git ultraplan holds '{name}': pid {} on {} since {} ({})",
            holder.pid, holder.host, holder.started_at, holder.command
        ),
        hint: "wait for it to finish; if it is gone, run 'git ultraplan clean --force-unlock <plan>'".into(),
    }
    .into()
}

fn lost(e: anyhow::Error, name: &str) -> anyhow::Error {
    if e.downcast_ref::<RefConflict>().is_some() {
        anyhow!("another git ultraplan took '{name}' at the same moment")
    } else {
        e
    }
}

pub fn hostname() -> String {
    let name = rustix::system::uname().nodename().to_string_lossy().into_owned();
    if name.is_empty() {
        "localhost".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_parse_round_trip_and_staleness() {
        let mut info = LockInfo::ours("git ultraplan run plan.md");
        assert_eq!(LockInfo::parse(&info.render()), info);
        assert_eq!(info.status(Duration::from_secs(600)), LockStatus::Live);
        info.pid = 999_999_999;
        assert!(matches!(info.status(Duration::from_secs(600)), LockStatus::Stale(_)));
        let mut old = LockInfo::ours("x");
        old.host = "elsewhere".into();
        old.heartbeat_at = "2020-01-01T00:00:00Z".into();
        assert!(matches!(old.status(Duration::from_secs(600)), LockStatus::Stale(_)));
        let mut reused = LockInfo::ours("x");
        reused.pid_start = reused.pid_start.map(|t| t + 1);
        if cfg!(target_os = "linux") {
            assert!(
                matches!(reused.status(Duration::from_secs(600)), LockStatus::Stale(_)),
                "a pid that started at another time is another process"
            );
        }
        old.heartbeat_at = now();
        assert_eq!(
            old.status(Duration::from_secs(600)),
            LockStatus::Live,
            "another host: trust the heartbeat"
        );
    }
}
