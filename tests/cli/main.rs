//! Integration tests: the real binaries, driven through the real `git` (build
//! directory first on PATH, so `git ultraplan …` dispatches as for a user), in
//! hermetic temporary repositories, with outcomes checked by the real `git`.

mod plans;
mod support;

mod check;
mod conventions;
mod crash;
mod executors;
mod generated;
mod historian;
mod historian_session;
mod outcomes;
mod result;
mod run;
mod safety;
mod sessions;
mod state;
mod waves;
