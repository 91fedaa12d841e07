//! Starting a child that dies with us, without copying our address space.
//!
//! A child that must die with us gets the kernel's parent-death signal
//! (Linux `prctl(PR_SET_PDEATHSIG)`), which only the child can ask for,
//! between `fork` and `exec`. Rust's standard library then has to `fork`:
//! a closure run before `exec` rules out `posix_spawn`, whose `vfork`-like
//! clone shares our memory instead of copying it. A `fork` copies the page
//! tables of the whole process and the `exec` after it tears the copy down:
//! in a run of a thousand steps, whose heap has grown, that was four tenths
//! of the run's own time, two children a step, and it grew with the run.
//!
//! So our binaries start such a child through themselves: `posix_spawn`
//! (no closure) starts a fresh copy of our binary with [`LAUNCH_ARG`], which
//! asks for the death signal, checks that its parent is still the one that
//! started it, and `exec`s the real program in place. The cost is one small
//! `exec` a child, the same at step 10 as at step 10,000. The binaries opt
//! in at start ([`launch_through`]); anything else (a library user, a unit
//! test's harness) keeps the `fork` with the closure.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use rustix::process::Signal;

/// The first argument that makes our binary a launcher (never shown, never
/// parsed by the command line: see [`launched`]).
pub const LAUNCH_ARG: &str = "--ultraplan-launch-child";

static LAUNCHER: OnceLock<PathBuf> = OnceLock::new();

/// Has children that must die with us start through `binary` (our own
/// executable), from now on.
pub fn launch_through(binary: PathBuf) {
    let _ = LAUNCHER.set(binary);
}

/// When this process was started as a launcher (`<binary> LAUNCH_ARG
/// <signal> <parent pid> <program's path> <program's name> [<arg>…]`), becomes the program and does
/// not return; if it cannot, says why on stderr and returns the exit code
/// a shell gives a command it cannot run (127). `None` for every other
/// command line.
pub fn launched(args: &[OsString]) -> Option<u8> {
    if args.get(1).map(OsString::as_os_str) != Some(OsStr::new(LAUNCH_ARG)) {
        return None;
    }
    let program = args.get(5).map(OsString::as_os_str).unwrap_or_default();
    let failed = |why: &dyn std::fmt::Display| {
        eprintln!("fatal: cannot run '{}': {why}", program.to_string_lossy());
        Some(127)
    };
    let (Some(signal), Some(parent)) = (
        args.get(2).and_then(|s| s.to_str()).and_then(signal_named),
        args.get(3).and_then(|s| s.to_str()).and_then(|s| s.parse::<i32>().ok()),
    ) else {
        return failed(&"malformed launch");
    };
    if let Err(err) = rustix::process::set_parent_process_death_signal(Some(signal)) {
        return failed(&err);
    }
    // The parent may have died before the request took effect: then nobody
    // is left to signal us, and nobody waits for what we would do.
    if rustix::process::getppid().map(|p| p.as_raw_nonzero().get()) != Some(parent) {
        return failed(&"the run that started it is gone");
    }
    let path = args.get(4).map(OsString::as_os_str).unwrap_or_default();
    // The program sees the name it was asked by (`$0` of a shell).
    let err = Command::new(path).arg0(program).args(&args[6..]).exec();
    failed(&err)
}

fn signal_named(name: &str) -> Option<Signal> {
    match name {
        "KILL" => Some(Signal::KILL),
        "TERM" => Some(Signal::TERM),
        _ => None,
    }
}

fn signal_name(signal: Signal) -> &'static str {
    if signal == Signal::TERM {
        "TERM"
    } else {
        "KILL"
    }
}

/// A command for `program` that gets `signal` when we die: through our
/// binary when one was registered ([`launch_through`]), else with a
/// closure run before `exec`. `path` is the `PATH` the child will see (its
/// own when the caller sets one): a bare program name is looked up in it
/// here, so that a missing program fails to start as it would without the
/// launcher, naming the same error.
pub(super) fn dying_with_us(
    program: &str,
    path: Option<&OsStr>,
    cwd: &Path,
    signal: Signal,
) -> std::io::Result<Command> {
    // A binary replaced or removed while the run goes on (an upgrade) can no
    // longer be started: then the fork it was meant to spare.
    match LAUNCHER.get().filter(|launcher| launcher.is_file()) {
        Some(launcher) => {
            let resolved = if program.contains('/') {
                PathBuf::from(program)
            } else {
                let path = path
                    .map(OsString::from)
                    .or_else(|| std::env::var_os("PATH"))
                    .unwrap_or_default();
                which::which_in(program, Some(path), cwd)
                    .map_err(|_| std::io::Error::from_raw_os_error(rustix::io::Errno::NOENT.raw_os_error()))?
            };
            let mut command = Command::new(launcher);
            command
                .arg(LAUNCH_ARG)
                .arg(signal_name(signal))
                .arg(rustix::process::getpid().as_raw_nonzero().get().to_string())
                .arg(resolved)
                .arg(program);
            Ok(command)
        }
        None => {
            let mut command = Command::new(program);
            super::fork::die_with_parent(&mut command, signal);
            Ok(command)
        }
    }
}
