//! git-ultraplan: executes implementation plans with verified checkpoints.
//!
//! The rooms, lowest floor first (DESIGN §12; `tests/cli/project/floors.rs`
//! keeps a room from importing one above it or beside it):
//!
//! * [`plan`] — the three formats read into one model, with diagnostics;
//!   [`plan::load`] reads a plan file or a GSD phase directory. [`state`] —
//!   the run state, notes and lock in git.
//! * [`result`] — the result YAML an executor reports, and its validator.
//!   [`exec`] — the executors that make a step's changes.
//! * [`engine`] — the step lifecycle (an attempt's phases, checkpoints,
//!   conditions, restores), parallel sessions in waves and their merges, and
//!   `clean`. [`records`] — stats, logs, export and import.
//! * [`outcomes`] — what runs did and the plans behind them.
//! * [`sync`] — notes, states and outcomes shared with a remote (each record
//!   taken checked against the store's rules), and the pre-push gate.
//! * [`distribute`] — sessions of one run on other clones, through a remote.
//! * [`commands`] — one file (or folder) per subcommand: arguments into
//!   options, the library call, the rendering.
//!
//! Words the historian uses too mean something else here: a *plan* is steps
//! to execute (the historian's is commits to build); the *engine* runs those
//! steps (the historian's rewrites a branch); a *session* is a part of a plan
//! run in its own worktree (the historian's is a rewrite in progress); and
//! *verify* is a step's Verify command judged by its exit code (the
//! historian's `--verify-each` runs a command on every built commit).

pub mod commands;
pub mod distribute;
pub mod engine;
pub mod exec;
pub mod outcomes;
pub mod plan;
pub mod records;
pub mod report;
pub mod result;
pub mod state;
pub mod sync;

/// The clap definition, for parsing, man pages and completions.
pub fn command() -> clap::Command {
    commands::command()
}

/// Entry point of the `git-ultraplan` binary.
pub fn main() -> std::process::ExitCode {
    if let Some(exit) = crate::cli::launcher() {
        return exit;
    }
    crate::cli::main_with(command(), commands::run)
}
