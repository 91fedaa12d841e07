//! The children a run starts, and what must reach them: each in its own
//! process group, tagged with the run's token, dying with us on Linux; the
//! signals we get (Ctrl-C, SIGTERM, SIGHUP) forwarded to their groups; and the
//! processes a killed run left behind found by their tag and stopped.

use std::os::unix::process::CommandExt as _;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

use anyhow::{anyhow, Result};

/// The environment variable naming the run (its lock's token) in every
/// process a run starts, so that the processes a killed run left behind can
/// be found and stopped by the run that takes its lock over.
pub const RUN_TOKEN_VAR: &str = "GIT_ULTRAPLAN_RUN";

static RUN_TOKEN: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Tags the processes started from now on with `token`.
pub fn set_run_token(token: String) {
    if let Ok(mut t) = RUN_TOKEN.lock() {
        *t = Some(token);
    }
}

fn run_token() -> Option<String> {
    RUN_TOKEN.lock().ok().and_then(|t| t.clone())
}

/// Stops what this run's children left running in the background (they
/// carry this run's token): for a run that was interrupted, or a session
/// whose worktree is about to be removed. Returns how many.
pub fn kill_own_leftovers() -> usize {
    run_token().map_or(0, |token| kill_tagged(&token))
}

/// Kills (SIGKILL) every process of ours whose environment carries
/// `RUN_TOKEN_VAR=token`; returns how many. Linux only (reads /proc).
pub fn kill_tagged(token: &str) -> usize {
    let wanted = format!("{RUN_TOKEN_VAR}={token}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let me = std::process::id();
    let mut killed = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        // Unreadable for processes of other users: those are not ours.
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ.split(|b| *b == 0).any(|var| var == wanted.as_bytes()) {
            // SAFETY: kill only sends a signal; the pid carries our run's token.
            if unsafe { libc::kill(pid as i32, libc::SIGKILL) } == 0 {
                killed += 1;
            }
        }
    }
    killed
}

static CURRENT_GROUP: AtomicI32 = AtomicI32::new(0);
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Process groups of long-running children (parallel sessions) that a signal
/// must reach too; a fixed table, because a signal handler cannot lock.
static GROUPS: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

/// What a child gets when we die (Linux; elsewhere nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeathSignal {
    /// An executor or a check: it must not go on editing the worktree.
    Kill,
    /// One of our own binaries: it catches this and takes its own children
    /// down before it exits.
    Term,
}

/// Puts `command`'s child in its own process group (a timeout or Ctrl-C
/// reaches everything it starts), tags it with the run's token, and has it
/// signalled when we die. Must be spawned from the main thread: the death
/// signal follows the spawning thread.
pub fn own_group(command: &mut Command, death: DeathSignal) {
    command.process_group(0);
    if let Some(token) = run_token() {
        command.env(RUN_TOKEN_VAR, token);
    }
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id();
        let signal = match death {
            DeathSignal::Kill => libc::SIGKILL,
            DeathSignal::Term => libc::SIGTERM,
        };
        // SAFETY: the closure only calls prctl and getppid (async-signal-safe)
        // in the forked child, affecting only that child.
        unsafe {
            command.pre_exec(move || die_with_parent(parent, signal));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = death;
}

/// The group of the child running now (0: none), for signal forwarding.
pub fn set_current(pgid: i32) {
    CURRENT_GROUP.store(pgid, Ordering::SeqCst);
}

/// Spawns `command` (one of our own binaries, like a session's run) with
/// [`own_group`] and [`DeathSignal::Term`], and registers its group so
/// Ctrl-C reaches it while other children come and go.
pub fn spawn_registered(command: &mut Command) -> Result<std::process::Child> {
    own_group(command, DeathSignal::Term);
    let child = command
        .spawn()
        .map_err(|e| anyhow!("cannot start {:?}: {e}", command.get_program()))?;
    let pgid = child.id() as i32;
    // A full table only means this child misses Ctrl-C forwarding (it still
    // dies with us on Linux).
    let _registered = GROUPS
        .iter()
        .any(|s| s.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst).is_ok());
    if interrupted() {
        // SAFETY: our own child's group.
        unsafe {
            libc::killpg(pgid, libc::SIGINT);
        }
    }
    Ok(child)
}

/// In a freshly forked child: asks for `signal` when the parent dies, and
/// gives up at once if it died before the request could take effect.
#[cfg(target_os = "linux")]
fn die_with_parent(parent: u32, signal: libc::c_int) -> std::io::Result<()> {
    // SAFETY: prctl and getppid are async-signal-safe and touch only this process.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, signal);
        if libc::getppid() as u32 != parent {
            return Err(std::io::Error::other("the parent process is gone"));
        }
    }
    Ok(())
}

/// Forgets a group registered by [`spawn_registered`] once its child ended.
pub fn unregister(pgid: u32) {
    for slot in &GROUPS {
        let _ = slot.compare_exchange(pgid as i32, 0, Ordering::SeqCst, Ordering::SeqCst);
    }
}

/// Whether SIGINT, SIGTERM or SIGHUP arrived.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// When the first signal came (monotonic milliseconds, plus one).
static FIRST_SIGNAL_MS: AtomicU64 = AtomicU64::new(0);

/// Signals closer than this to the first are the same Ctrl-C arriving twice:
/// the terminal sends it to the whole foreground group, and the `git` wrapper
/// of `git ultraplan` forwards its own copy to us.
const SAME_INTERRUPT_MS: u64 = 2_000;

fn monotonic_ms() -> u64 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime is async-signal-safe and writes only `now`.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now);
    }
    now.tv_sec as u64 * 1000 + now.tv_nsec as u64 / 1_000_000
}

extern "C" fn on_signal(signal: libc::c_int) {
    // Only async-signal-safe work: atomics, clock_gettime, killpg, signal, raise.
    let now = monotonic_ms() + 1;
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        let first = FIRST_SIGNAL_MS.load(Ordering::SeqCst);
        if now.saturating_sub(first) < SAME_INTERRUPT_MS {
            return; // the same interrupt again: cleanup is under way
        }
        // A second interrupt, later: stop being polite.
        // SAFETY: restoring the default disposition and re-raising are async-signal-safe.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
        return;
    }
    FIRST_SIGNAL_MS.store(now, Ordering::SeqCst);
    let group = CURRENT_GROUP.load(Ordering::SeqCst);
    if group > 0 {
        // SAFETY: killpg is async-signal-safe; the group is our own child's.
        unsafe {
            libc::killpg(group, signal);
        }
    }
    for slot in &GROUPS {
        let group = slot.load(Ordering::SeqCst);
        if group > 0 {
            // SAFETY: as above, a registered child's group.
            unsafe {
                libc::killpg(group, signal);
            }
        }
    }
}

/// Routes SIGINT, SIGTERM and SIGHUP to the running child's process group and
/// remembers them, so the run can record where it stopped and clean up.
pub fn install_interrupt_handler() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installing a handler that only touches atomics and calls
        // async-signal-safe functions.
        unsafe {
            libc::signal(signal, on_signal as *const () as libc::sighandler_t);
        }
    }
}
