//! Integration tests: the real binaries, driven through the real `git` (build
//! directory first on PATH, so `git ultraplan …` dispatches as for a user), in
//! hermetic temporary repositories, with outcomes checked by the real `git`.

mod plans;
mod support;

mod bad_input;
mod check;
mod conventions;
mod crash;
mod executors;
mod generated;
mod gsd;
mod gsd_phase;
mod historian;
mod historian_session;
mod result;
mod run;
mod sessions;
mod state;
mod waves;
