//! Integration tests: the real binaries, driven through the real `git` (build
//! directory first on PATH, so `git ultraplan …` dispatches as for a user), in
//! hermetic temporary repositories, with outcomes checked by the real `git`.
//!
//! One test binary, its modules grouped by what they test:
//!
//! * `ultraplan/`: `git ultraplan`, a file a command or an idea (`run`,
//!   `waves`, `sync`, `state`, the planners' formats, recovery after a kill);
//! * `historian/`: `git historian`, `clean.rs` the command end to end and a
//!   file a way it reads a branch or a command it offers;
//! * `both/`: what holds for both programs (git's conventions, a newcomer's
//!   first hour, no secret reaching git, the HTML reports);
//! * `project/`: the project's own files (documentation that runs, the
//!   floors of `src/`, the generated man pages and completions);
//! * `harness/`: what the tests share (the environment, transcripts, plan
//!   builders, agent stand-ins, the historian's messy branch).
//!
//! A transcript's snapshot lives at the same path under `snapshots/`:
//! `historian/clean.rs`'s at `snapshots/historian/clean/<test>.txt`.

// First, so that its `assert_transcript!` is in scope in every module below.
#[macro_use]
mod harness;

mod both;
mod historian;
mod project;
mod ultraplan;
