//! One of the two places with `unsafe` code (the other sets the allocator's
//! thresholds, `allocator.rs`): a closure run in a freshly forked
//! child before it executes its program (`CommandExt::pre_exec` is unsafe
//! because such a closure may only do what is safe between `fork` and
//! `exec`). Everything else reaches the system through `rustix` and
//! `signal-hook`, whose calls are safe; the crate denies `unsafe_code`
//! outside these two modules.

use std::os::unix::process::CommandExt as _;
use std::process::Command;

use rustix::process::Signal;

/// Has `command`'s child get `signal` when we die, and give up at once if we
/// died before the request could take effect (Linux).
#[cfg(target_os = "linux")]
pub(super) fn die_with_parent(command: &mut Command, signal: Signal) {
    let parent = rustix::process::getpid();
    // SAFETY: the closure runs in the forked child, allocates nothing, takes
    // no lock, and makes two system calls (prctl, getppid), both
    // async-signal-safe and affecting only the child itself.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(signal))?;
            if rustix::process::getppid() != Some(parent) {
                // The parent is gone already.
                return Err(rustix::io::Errno::SRCH.into());
            }
            Ok(())
        });
    }
}

/// Has `command`'s child run at the lowest CPU priority (nice 19), so work
/// nobody waits for (deleting a removed worktree) yields the cores to the
/// run's own. Best effort: a refusal leaves the child as it is.
#[cfg(unix)]
pub(super) fn lowest_priority(command: &mut Command) {
    // SAFETY: the closure runs in the forked child, allocates nothing, takes
    // no lock, and makes one async-signal-safe system call (setpriority)
    // affecting only the child itself.
    unsafe {
        command.pre_exec(|| {
            let _ = rustix::process::setpriority_process(None, 19);
            Ok(())
        });
    }
}
