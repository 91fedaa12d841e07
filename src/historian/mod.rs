//! git-historian: rewrites a feature branch into a clean branch of logical
//! commits beside the original, whose final tree is byte-identical to the
//! original tip (DESIGN §10).
//!
//! The rooms are the pipeline, in the order data flows (DESIGN §10.1's six
//! steps):
//!
//! ```text
//!  branch ─► analyse/ ──────► plan/ ─────────────► execute/ ───► clean branch
//!            base             context, units         build
//!            items, lines     group                  writer
//!            symbols          affinity, attach       ask, resume ─► session
//!            provenance       order, split           verify         (a QUESTION
//!            coupling         auto ─► message/       branch          waiting)
//!            classify
//!           └──── engine: steps 1 to 4 ────┘       └ steps 5, 6 ┘
//!
//!  every step ends in an outcome (SUCCESS, ERROR, QUESTION),
//!  printed as a protocol RESULT block by commands/
//! ```
//!
//! [`analyse`] reads the facts of the branch; [`plan`] groups them into
//! commits and orders them, drafting each one's [`message`]; the
//! [`engine`] runs steps 1 to 4 and [`execute`] steps 5 and 6, stopping
//! with a QUESTION stored as a [`session`] when a person must decide. Every
//! answer is an [`outcome`] printed as a RESULT block ([`protocol`]).
//! A room imports only from rooms earlier in this list (its floors, checked
//! by `tests/cli/project/floors.rs`): `protocol`; `outcome` and `analyse`;
//! `message`; `plan`; `session`; `engine`; `execute`; `commands`.
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
    if let Some(exit) = crate::cli::launcher() {
        return exit;
    }
    crate::cli::main_with(command(), commands::run)
}
