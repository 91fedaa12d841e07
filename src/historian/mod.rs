//! git-historian: rewrites a feature branch into a clean branch of logical
//! commits beside the original. This part is the RESULT protocol its
//! answers are written in; the commands arrive with the rewrite itself.

pub mod protocol;

use clap::{CommandFactory, Parser};

use crate::cli::{self, Exit, GlobalArgs};

/// Rewrite a messy feature branch into a clean branch of logical commits.
///
/// git-historian builds `<branch>-<YYYYMMDD-HHMMSS>-clean` next to the original
/// branch, commit by commit in memory, and checks that its final tree is
/// byte-identical to the original tip. It never touches the working tree, the
/// index, HEAD or the original branch. When a decision needs a person it stops
/// with a RESULT: QUESTION that `git historian resume` continues from.
#[derive(Debug, Parser)]
#[command(
    name = "git-historian",
    version,
    bin_name = "git historian",
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// The clap definition, for parsing, man pages and completions.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Entry point of the `git-historian` binary.
pub fn main() -> std::process::ExitCode {
    cli::main_with(command(), |_cli: Cli| {
        // No subcommand works yet: like git with a missing subcommand, print
        // the usage to stderr and exit 129.
        eprint!("{}", command().render_help());
        Ok(Exit::Usage)
    })
}
