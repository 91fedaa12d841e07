//! git-ultraplan: executes implementation plans with verified checkpoints.
//! This part reads plans ([`plan`]), validates executor results ([`result`])
//! and holds one file per subcommand ([`commands`]).

pub mod commands;
pub mod engine;
pub mod exec;
pub mod outcomes;
pub mod plan;
pub mod records;
pub mod result;
pub mod state;
pub mod sync;

/// The clap definition, for parsing, man pages and completions.
pub fn command() -> clap::Command {
    commands::command()
}

/// Entry point of the `git-ultraplan` binary.
pub fn main() -> std::process::ExitCode {
    crate::cli::main_with(command(), commands::run)
}
