//! git-historian: rewrites a feature branch into a clean branch of logical
//! commits beside the original, whose final tree is byte-identical to the
//! original tip (DESIGN §10).
//!
//! The steps, each in its module: find the [`base`]; read the change
//! [`items`] (whole files and hunks) and their [`provenance`] in the
//! branch's commits; [`group`] them into commits, [`order`] them and write
//! their [`message`]s ([`planner`]); check their [`split`] sizes; [`build`]
//! the commits in memory and [`execute`] the plan, stopping with a QUESTION
//! stored as a [`session`] when a person must decide; [`verify`] each
//! commit on request. Every answer is a RESULT block ([`protocol`],
//! [`outcome`]).
//!
//! Never touched: the working tree, the index, `HEAD`, the original branch.

pub mod analyse;
pub mod commands;
pub mod engine;
pub mod execute;
pub mod message;
pub mod outcome;
pub mod plan;
pub mod protocol;
pub mod session;

/// The clap definition, for parsing, man pages and completions.
pub fn command() -> clap::Command {
    commands::command()
}

/// Entry point of the `git-historian` binary.
pub fn main() -> std::process::ExitCode {
    crate::cli::main_with(command(), commands::run)
}
