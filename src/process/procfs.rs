//! The process table of this machine (Linux `/proc`): whether a process is
//! alive — an unreaped zombie is not —, how long ago it started, waiting a
//! bounded while for processes just killed to be gone, and which git
//! processes work in a repository (the only ones that can be writing its
//! `.lock` files).
//!
//! Off Linux nothing here can tell: a process counts as alive while it
//! answers signal 0, and [`git_processes_in`] says it cannot list them.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Whether process `pid` is alive on this machine: it exists and is not a
/// zombie (a process that exited and was not reaped — its parent died, and
/// in some containers nothing reaps orphans — answers signal 0, yet is gone).
pub fn alive(pid: u32) -> bool {
    super::exists(pid) && !zombie(pid)
}

fn zombie(pid: u32) -> bool {
    stat_fields(pid).is_some_and(|fields| matches!(fields.first().map(String::as_str), Some("Z" | "X")))
}

/// The fields of `/proc/<pid>/stat` after the command name (field 3, the
/// state, first); `None` off Linux or when the process is gone.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) S ppid …": the name may hold spaces and ')', so the
    // fields start after the last ')'.
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// When process `pid` started, in clock ticks since boot (field 22 of
/// `/proc/<pid>/stat`): a pid reused by another process has another start.
/// `None` off Linux or when it cannot be read.
pub fn start_ticks(pid: u32) -> Option<u64> {
    stat_fields(pid)?.get(19)?.parse().ok()
}

/// How long ago process `pid` started; `None` off Linux or when gone.
pub fn age(pid: u32) -> Option<Duration> {
    let started = start_ticks(pid)?;
    let hz = rustix::param::clock_ticks_per_second().max(1);
    let uptime = uptime()?;
    let started = Duration::from_secs_f64(started as f64 / hz as f64);
    Some(uptime.saturating_sub(started))
}

/// Time since boot, from `/proc/uptime` (hundredths of a second).
fn uptime() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/uptime").ok()?;
    let seconds: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_secs_f64(seconds))
}

/// Waits until none of `pids` is alive, for at most `bound`: a process sent
/// SIGKILL stays visible while the kernel tears it down, and a judgement
/// made meanwhile ("its holder is alive") would be wrong. Returns those
/// still alive at the end.
pub fn wait_gone(pids: &[u32], bound: Duration) -> Vec<u32> {
    let deadline = Instant::now() + bound;
    loop {
        let living: Vec<u32> = pids.iter().copied().filter(|p| alive(*p)).collect();
        if living.is_empty() || Instant::now() >= deadline {
            return living;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A live git process working in a repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitProcess {
    pub pid: u32,
    /// Its program's name (`git`, `git-ultraplan`, …).
    pub name: String,
    /// How long ago it started.
    pub age: Duration,
}

/// The environment variables through which a git process is pointed at a
/// repository other than the one around its working directory.
const REPOSITORY_VARS: [&str; 4] = ["GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"];

/// Every live git process — a program named `git` or `git-…` (git itself,
/// its helpers, these programs) — other than this one and the `git` that
/// started it as `git <name>` (it holds nothing while it waits for us),
/// whose working directory or `GIT_DIR`-like variable lies inside one of
/// `roots` (the repository's git directory and its worktrees): the
/// processes that can hold the repository's lock files. `None` when the
/// process table cannot be read (off Linux). Processes of other users are
/// not visible.
pub fn git_processes_in(roots: &[PathBuf]) -> Option<Vec<GitProcess>> {
    let entries = std::fs::read_dir("/proc").ok()?;
    let roots: Vec<PathBuf> = roots.iter().map(|r| canonical(r)).collect();
    let inside = |path: &Path| roots.iter().any(|root| path.starts_with(root));
    let me = std::process::id();
    let dispatcher = dispatching_git();
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me || Some(pid) == dispatcher {
            continue;
        }
        let dir = entry.path();
        let Ok(name) = std::fs::read_to_string(dir.join("comm")) else {
            continue;
        };
        let name = name.trim_end().to_owned();
        if name != "git" && !name.starts_with("git-") {
            continue;
        }
        let cwd_inside = std::fs::read_link(dir.join("cwd")).is_ok_and(|cwd| inside(&cwd));
        let env_inside = || {
            let Ok(environ) = std::fs::read(dir.join("environ")) else {
                return false;
            };
            let cwd = std::fs::read_link(dir.join("cwd")).unwrap_or_default();
            environ.split(|b| *b == 0).any(|var| {
                let var = String::from_utf8_lossy(var);
                REPOSITORY_VARS.iter().any(|name| {
                    var.strip_prefix(name)
                        .and_then(|rest| rest.strip_prefix('='))
                        .is_some_and(|value| inside(&canonical(&cwd.join(value))))
                })
            })
        };
        if !(cwd_inside || env_inside()) || !alive(pid) {
            continue;
        }
        if let Some(age) = age(pid) {
            out.push(GitProcess { pid, name, age });
        }
    }
    Some(out)
}

/// Our parent when it is the `git` that ran us as a subcommand (`git
/// ultraplan …` runs `git-ultraplan …` and waits): its command line names
/// the subcommand our program is (`ultraplan` for `git-ultraplan`).
fn dispatching_git() -> Option<u32> {
    let parent = rustix::process::getppid()?.as_raw_nonzero().get() as u32;
    let comm = std::fs::read_to_string(format!("/proc/{parent}/comm")).ok()?;
    if comm.trim_end() != "git" {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let name = exe.file_name()?.to_str()?.strip_prefix("git-")?.to_owned();
    let cmdline = std::fs::read(format!("/proc/{parent}/cmdline")).ok()?;
    cmdline
        .split(|b| *b == 0)
        .skip(1)
        .any(|arg| arg == name.as_bytes())
        .then_some(parent)
}

/// `path` with symbolic links resolved where it exists (its nearest existing
/// ancestor otherwise), so that prefixes compare.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(c) = path.canonicalize() {
        return c;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if parent != path => canonical(parent).join(name),
        _ => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_child_is_gone_once_waited_for_though_never_reaped() {
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let pid = child.id();
        assert!(alive(pid));
        if cfg!(target_os = "linux") {
            let age = age(pid).unwrap();
            assert!(age < Duration::from_secs(30), "{age:?}");
        }
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_raw(pid as i32).unwrap(),
            rustix::process::Signal::KILL,
        );
        // Not reaped: a zombie, which is not alive.
        if cfg!(target_os = "linux") {
            assert_eq!(wait_gone(&[pid], Duration::from_secs(5)), Vec::<u32>::new());
            assert!(super::super::exists(pid), "still in the table, unreaped");
        }
        let _ = child.wait();
        assert!(!alive(pid));
    }

    #[test]
    fn git_processes_are_found_by_their_working_directory() {
        if !cfg!(target_os = "linux") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("repo");
        std::fs::create_dir_all(&inside).unwrap();
        // `git hash-object --stdin` waits for its input: a live git process.
        let mut git = std::process::Command::new("git")
            .args(["hash-object", "--stdin"])
            .current_dir(&inside)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = git.id();
        let start = Instant::now();
        let found = loop {
            let found = git_processes_in(std::slice::from_ref(&inside)).unwrap();
            if found.iter().any(|p| p.pid == pid) || start.elapsed() > Duration::from_secs(5) {
                break found;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(found.iter().any(|p| p.pid == pid && p.name == "git"), "{found:?}");
        let elsewhere = git_processes_in(&[dir.path().join("other")]).unwrap();
        assert!(!elsewhere.iter().any(|p| p.pid == pid));
        drop(git.stdin.take());
        let _ = git.wait();
    }
}
