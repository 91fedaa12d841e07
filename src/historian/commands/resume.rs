//! `git historian resume --answer <N or label> [<branch>]`.

use anyhow::Result;

use crate::cli::{Exit, Ui};
use crate::git::Workspace;
use crate::historian::engine::Options;
use crate::historian::{execute, session};

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Answer the pending QUESTION by its option's number, or by part of its text:
    git historian resume --answer 2
    git historian resume --answer keep
"#;

/// Answer the pending QUESTION and continue.
///
/// Reads the session in refs/historian/<branch> (the current branch's, or
/// the only one pending), applies the answer — an option's number, or its
/// text — and continues building where the run stopped. An answer is
/// refused as stale when the branch's tip or its base moved since the
/// question was asked; `git historian abort` then drops the session.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The option chosen: its number (`2`), or its text or a unique part of it
    /// (`keep`).
    #[arg(long, value_name = "N|LABEL")]
    pub answer: String,

    /// The branch whose session to continue (default: the current branch's,
    /// or the only one pending).
    pub branch: Option<String>,

    /// Print JSON instead of the RESULT block.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: Ui) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    super::sweep_verify_worktrees(repo, ui)?;
    let stored = session::find_session(repo, args.branch.as_deref())?;
    let mut options = Options::new(workspace.root().to_owned())?;
    super::runtime_options(&workspace, &mut options)?;
    let outcome = execute::resume(repo, stored, &args.answer, &options)?;
    super::render(&outcome, args.json, ui)
}
