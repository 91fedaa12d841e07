//! `git historian status [<branch>]`.

use std::io::Write;

use anyhow::Result;
use serde_json::{json, Value};

use crate::cli::{Exit, Ui};
use crate::git::Workspace;
use crate::historian::outcome::question_json;
use crate::historian::protocol::{self, ResultBlock};
use crate::historian::session::{self, Stage};

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  The pending sessions and their questions:
    git historian status
"#;

/// Show the pending sessions and their questions.
///
/// Reads refs/historian/ (every session, or the named branch's) and prints
/// each session's state and its QUESTION again, writing nothing.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// Only this branch's session.
    pub branch: Option<String>,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the status was shown (also when no session is pending)"),
    (Exit::Fatal, "not a git repository, or an unreadable session"),
    (Exit::Usage, "the command line was wrong"),
];

pub fn run(args: Args, _ui: Ui) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let sessions = session::pending(repo, args.branch.as_deref())?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let list: Vec<Value> = sessions
            .iter()
            .map(|s| {
                let question = match protocol::parse(&s.question) {
                    Ok(ResultBlock::Question(q)) => question_json(&q),
                    _ => Value::Null,
                };
                json!({
                    "branch": s.session.branch,
                    "session": s.ref_name,
                    "clean_branch": s.session.clean_branch,
                    "stage": s.session.stage,
                    "original_tip": s.session.original_tip,
                    "base": s.session.base,
                    "current_commit": s.session.current + 1,
                    "commits_planned": s.plan.commits.len(),
                    "commits_completed": s.session.built.len(),
                    "created_at": s.session.created_at,
                    "question": question,
                })
            })
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&json!({ "sessions": list }))?)?;
        return Ok(Exit::Done);
    }
    if sessions.is_empty() {
        writeln!(out, "No historian session is pending.")?;
        return Ok(Exit::Done);
    }
    for (n, s) in sessions.iter().enumerate() {
        if n > 0 {
            writeln!(out)?;
        }
        let state = &s.session;
        writeln!(
            out,
            "Session {} for '{}', since {}",
            s.ref_name, state.branch, state.created_at
        )?;
        writeln!(
            out,
            "Clean branch: {} ({} of {} commits built)",
            state.clean_branch,
            state.built.len(),
            s.plan.commits.len()
        )?;
        match state.stage {
            Stage::Completing => writeln!(
                out,
                "Every commit is built and checked; 'git historian resume --answer 1' finishes it."
            )?,
            Stage::Question => {
                writeln!(out)?;
                write!(out, "{}", s.question)?;
            }
        }
    }
    Ok(Exit::Done)
}
