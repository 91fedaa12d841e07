//! The children a run starts, and what must reach them: each in its own
//! process group, tagged with the run's token, dying with us on Linux; the
//! signals we get (Ctrl-C, SIGTERM, SIGHUP) forwarded to their groups; and the
//! processes a killed run left behind found by their tag and stopped.

use std::os::unix::process::CommandExt as _;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

use anyhow::{Context as _, Result};
use rustix::process::{Pid, Signal};

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
/// `RUN_TOKEN_VAR=token`, and waits (at most [`KILLED_SETTLE`]) until they
/// are gone: whoever judges next whether a process of that run is alive (a
/// session's lock) must not see one still dying. Returns how many were
/// killed. Linux only (reads /proc).
pub fn kill_tagged(token: &str) -> usize {
    let wanted = format!("{RUN_TOKEN_VAR}={token}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let me = std::process::id();
    let mut killed = Vec::new();
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
            let Some(target) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
                continue;
            };
            if rustix::process::kill_process(target, Signal::KILL).is_ok() {
                killed.push(pid);
            }
        }
    }
    super::procfs::wait_gone(&killed, KILLED_SETTLE);
    killed.len()
}

/// How long processes just sent SIGKILL are waited for. The kernel tears
/// one down in milliseconds, unless it is stuck in the kernel (a hung
/// network filesystem): then it is left, and counts as alive.
pub const KILLED_SETTLE: std::time::Duration = std::time::Duration::from_secs(5);

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
    group_and_tag(command);
    #[cfg(target_os = "linux")]
    super::fork::die_with_parent(command, death.signal());
    #[cfg(not(target_os = "linux"))]
    let _ = death;
}

/// A command for `program` with what [`own_group`] gives, started without
/// copying our address space where our binary can launch it (see
/// `launch`): for the children of every step (executors, Verify), started
/// from a process whose memory grows with the run. `path` is the `PATH`
/// the child will see when the caller sets one.
pub(super) fn owned_command(
    program: &str,
    path: Option<&std::ffi::OsStr>,
    cwd: &std::path::Path,
    death: DeathSignal,
) -> std::io::Result<Command> {
    #[cfg(target_os = "linux")]
    let mut command = super::launch::dying_with_us(program, path, cwd, death.signal())?;
    #[cfg(not(target_os = "linux"))]
    let mut command = {
        let _ = (path, cwd, death);
        Command::new(program)
    };
    group_and_tag(&mut command);
    Ok(command)
}

/// Its own process group, and the run's token in its environment.
fn group_and_tag(command: &mut Command) {
    command.process_group(0);
    if let Some(token) = run_token() {
        command.env(RUN_TOKEN_VAR, token);
    }
}

impl DeathSignal {
    fn signal(self) -> Signal {
        match self {
            DeathSignal::Kill => Signal::KILL,
            DeathSignal::Term => Signal::TERM,
        }
    }
}

/// The group of the child running now (0: none), for signal forwarding. A
/// signal that came before the group was known (between its spawn and this
/// call; on a loaded machine the child may already be running its command)
/// found none to forward to: it is forwarded now, as [`spawn_registered`]
/// does for its groups.
pub fn set_current(pgid: i32) {
    CURRENT_GROUP.store(pgid, Ordering::SeqCst);
    if pgid > 0 && interrupted() {
        kill_group(pgid, Signal::INT);
        escalate(pgid);
    }
}

/// Spawns `command` (one of our own binaries, like a session's run) with
/// [`own_group`] and [`DeathSignal::Term`], and registers its group so
/// Ctrl-C reaches it while other children come and go.
pub fn spawn_registered(command: &mut Command) -> Result<std::process::Child> {
    own_group(command, DeathSignal::Term);
    let child = command
        .spawn()
        .with_context(|| format!("cannot start {:?}", command.get_program()))?;
    let pgid = child.id() as i32;
    // A full table only means this child misses Ctrl-C forwarding (it still
    // dies with us on Linux).
    let _registered = GROUPS
        .iter()
        .any(|s| s.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst).is_ok());
    if interrupted() {
        kill_group(pgid, Signal::INT);
    }
    Ok(child)
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

/// Sends `signal` to the process group `pgid` (one of our children's);
/// a group that is gone already is no error.
pub fn kill_group(pgid: i32, signal: Signal) {
    if let Some(group) = Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(group, signal);
    }
}

/// Whether a process with `pid` exists on this host (it may belong to
/// another user: then it exists though we may not signal it).
pub fn exists(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

/// Ends this process at once with SIGKILL, as a crash would (fault
/// injection); nothing runs after it.
pub fn kill_self() -> ! {
    let _ = rustix::process::kill_process(rustix::process::getpid(), Signal::KILL);
    std::process::abort()
}

fn monotonic_ms() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_millis() as u64
}

/// What a signal does: the first forwards it to the running children's
/// groups and marks the run interrupted; a later one (past the same Ctrl-C
/// arriving twice) ends us the way the signal's default would.
fn on_signal(signal: i32) {
    let now = monotonic_ms() + 1;
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        let first = FIRST_SIGNAL_MS.load(Ordering::SeqCst);
        if now.saturating_sub(first) < SAME_INTERRUPT_MS {
            return; // the same interrupt again: cleanup is under way
        }
        // A second interrupt, later: stop being polite.
        let _ = signal_hook::low_level::emulate_default_handler(signal);
        return;
    }
    FIRST_SIGNAL_MS.store(now, Ordering::SeqCst);
    let Some(signal) = Signal::from_named_raw(signal) else {
        return;
    };
    let group = CURRENT_GROUP.load(Ordering::SeqCst);
    if group > 0 {
        kill_group(group, signal);
        escalate(group);
    }
    for slot in &GROUPS {
        let group = slot.load(Ordering::SeqCst);
        if group > 0 {
            kill_group(group, signal);
        }
    }
}

/// How long a child forwarded a signal has to end before the next, harder
/// one: SIGTERM once the first signal (SIGINT, say) has had this long, then
/// SIGKILL. A program may catch SIGINT and go on: a shell catches it
/// between two commands and still runs the next (a `sleep` forked just
/// after a Ctrl-C runs its whole minute), and a script may trap it. An
/// agent that saves its session on SIGINT does so well within this.
pub const ESCALATE_AFTER: std::time::Duration = std::time::Duration::from_secs(5);

/// Sends the running child's group SIGTERM, then SIGKILL, each
/// [`ESCALATE_AFTER`] later, while it is still the child running: a
/// signal forwarded to it stops the step in bounded time whatever the
/// child does with it. Our own binaries' groups (parallel sessions, in
/// [`GROUPS`]) are left to stop their children themselves.
fn escalate(group: i32) {
    let _ = std::thread::Builder::new().name("escalate".into()).spawn(move || {
        for signal in [Signal::TERM, Signal::KILL] {
            std::thread::sleep(ESCALATE_AFTER);
            if CURRENT_GROUP.load(Ordering::SeqCst) != group {
                return;
            }
            kill_group(group, signal);
        }
    });
}

/// Routes SIGINT, SIGTERM and SIGHUP to the running child's process group and
/// remembers them, so the run can record where it stopped and clean up.
///
/// signal-hook's iterator: the signal handler only wakes a thread of ours,
/// which does the forwarding, so no code of ours runs in a signal handler.
pub fn install_interrupt_handler() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    monotonic_ms();
    let _ = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || signals.forever().for_each(on_signal));
}
