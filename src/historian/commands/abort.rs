//! `git historian abort [<branch>]`.

use std::io::Write;

use anyhow::Result;
use serde_json::json;

use crate::cli::{Exit, Ui};
use crate::git::Workspace;
use crate::historian::{execute, session};

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Drop the pending session of the current branch, or of another:
    git historian abort
    git historian abort feature
"#;

/// Drop the pending session and its partial clean branch.
///
/// Removes refs/historian/<branch> (the current branch's session, or the
/// only one pending) and the partial clean branch it was building, and
/// for `clean --stack` any stack branch it had made already. A clean
/// branch someone else moved is left alone, with a warning. The original
/// branch is never touched. A --verify-each worktree left by a killed
/// run goes too, also when no session is pending; one whose run is still
/// going on is named instead.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The branch whose session to drop (default: the current branch's, or
    /// the only one pending).
    pub branch: Option<String>,

    /// Print what was removed as JSON.
    #[arg(long)]
    pub json: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the session was dropped"),
    (Exit::Fatal, "not a git repository, or no session is pending"),
    (Exit::Usage, "the command line was wrong"),
];

pub fn run(args: Args, ui: Ui) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    // A run killed during --verify-each (SIGKILL: no handler ran) leaves
    // its worktree registered, and no session when it had none: what is
    // pending is found in git's worktree list too.
    let swept = super::sweep_verify_worktrees(repo, ui)?;
    if args.branch.is_none() && session::list(repo)?.is_empty() {
        if let Some((running, _)) = execute::verify_each::worktrees(repo)?
            .into_iter()
            .find(|(_, alive)| *alive)
        {
            return Err(crate::error::FatalWithHint {
                message: format!(
                    "no historian session is pending, but a git historian run (pid {}) is verifying commits in '{}'",
                    running.pid,
                    running.path.display()
                ),
                hint: format!(
                    "wait for it to end, or stop it (kill {}); then its worktree goes with 'git historian abort'",
                    running.pid
                ),
            }
            .into());
        }
    }
    if !swept.is_empty() && args.branch.is_none() && session::list(repo)?.is_empty() {
        if args.json {
            let removed: Vec<String> = swept.iter().map(|p| p.display().to_string()).collect();
            let value = json!({ "aborted": null, "removed_worktrees": removed });
            writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(&value)?)?;
        }
        return Ok(Exit::Done);
    }
    let stored = session::find_session(repo, args.branch.as_deref())?;
    let aborted = execute::abort(repo, &stored)?;
    if let Some(kept) = &aborted.kept_branch {
        ui.warning(format!("'{kept}' was moved by someone else; leaving it alone"));
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let value = json!({
            "aborted": aborted.branch,
            "session": aborted.session,
            "removed_branch": aborted.clean_branch,
            "kept_branch": aborted.kept_branch,
            "removed_stack_branches": aborted.stack_branches,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        match &aborted.clean_branch {
            Some(b) => writeln!(
                out,
                "Dropped the historian session of '{}' and the partial branch '{b}'.",
                aborted.branch
            )?,
            None => writeln!(out, "Dropped the historian session of '{}'.", aborted.branch)?,
        }
        for name in &aborted.stack_branches {
            writeln!(out, "Removed the stack branch '{name}'.")?;
        }
    }
    Ok(Exit::Done)
}
