//! `git ultraplan show <plan> --step N` / `git ultraplan show <commit>`.

use std::io::Write;

use anyhow::{anyhow, Context as _, Result};

use crate::cli::{Exit, GlobalArgs};
use crate::git::Workspace;
use crate::ultraplan::state::{note_stream, Refs, RunState};

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  The result recorded for step 2 (its latest attempt), then for its first:
    git ultraplan show plan.md --step 2
    git ultraplan show plan.md --step 2 --attempt 1

  The result on a checkpoint commit, and the note git stores it in:
    git ultraplan show HEAD
    git notes --ref=ultraplan show HEAD
"#;

/// Show the recorded result (YAML) of a step, or of a checkpoint commit.
///
/// With --step, the latest attempt of step N in the plan's run state (or a
/// session's, with --session); otherwise the argument is a commit and its
/// note in refs/notes/ultraplan is shown — the same text as
/// `git notes --ref=ultraplan show <commit>` — or, when there is none here, a
/// remote's copy fetched by `sync` (or by `git fetch` after `sync --setup`).
/// A checkpoint recorded in two clones holds a YAML stream of both results
/// (an array with --json).
///
/// A step the plan does not have (not in the plan file as it is now, nor in
/// its recorded run) is an error naming the plan and how many steps it has;
/// a step it has that the run did not reach "has not run". Both exit 128,
/// as a missing state, attempt, commit or note does.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// A plan (with --step) or a commit.
    pub target: String,

    /// The step whose result to show.
    #[arg(long, value_name = "N")]
    pub step: Option<u32>,

    /// Read session N's state instead of the plan's run.
    #[arg(long, value_name = "N", requires = "step")]
    pub session: Option<u32>,

    /// The attempt to show (default: the latest).
    #[arg(long, value_name = "A", requires = "step")]
    pub attempt: Option<u32>,

    /// Print the result as JSON instead of YAML.
    #[arg(long)]
    pub json: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the result was shown"),
    (Exit::Fatal, "no such plan state, step, attempt, commit or note"),
    (Exit::Usage, "the command line was wrong"),
];

pub fn run(args: Args, _global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let yaml = match args.step {
        Some(step) => {
            let refs = Refs::of_plan(&args.target);
            let ref_name = refs.state(args.session);
            let Some(state) = RunState::load(repo, &ref_name)? else {
                super::plan_without_runs(std::path::Path::new(&args.target))?;
                return Err(anyhow!(
                    "no run of '{}' is recorded ({ref_name} does not exist)",
                    args.target
                ));
            };
            no_such_step(&state, &args.target, step)?;
            let attempts = state.progress.step(step).attempts;
            let attempt = args.attempt.unwrap_or(attempts);
            state
                .read_text(&state.step_paths(step).record(attempt))?
                .ok_or_else(|| {
                    if attempts == 0 {
                        anyhow!("step {step} of '{}' has not run", args.target)
                    } else {
                        anyhow!(
                            "step {step} of '{}' has no attempt {attempt} (it has {attempts})",
                            args.target
                        )
                    }
                })?
        }
        None => {
            if std::path::Path::new(&args.target).is_file() && repo.rev_parse(&args.target).is_err() {
                return Err(crate::error::FatalWithHint {
                    message: format!("'{}' is a plan; say which step", args.target),
                    hint: format!(
                        "git ultraplan show --step N {}",
                        crate::cli::shell::operand(&args.target)
                    ),
                }
                .into());
            }
            let commit = repo.rev_parse_commit(&args.target)?;
            crate::ultraplan::sync::find_note(repo, commit)?
                .ok_or_else(|| anyhow!("no git-ultraplan result is recorded for {}", repo.short(commit)))?
        }
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        // A checkpoint recorded in two clones holds a stream: shown as an array.
        let mut docs = note_stream::documents(&yaml).context("the recorded result")?;
        let value = if docs.len() == 1 {
            serde_json::to_value(docs.remove(0))?
        } else {
            serde_json::to_value(docs)?
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        out.write_all(yaml.as_bytes())?;
        if !yaml.ends_with('\n') {
            writeln!(out)?;
        }
    }
    Ok(Exit::Done)
}

/// Refuses a step the plan does not have: not in the plan file as it is now
/// (when it reads as a plan), nor in the recorded run. A step the plan has
/// that the run did not reach "has not run" instead.
fn no_such_step(state: &RunState<'_>, target: &str, step: u32) -> Result<()> {
    if state.progress.steps.contains_key(&step) {
        return Ok(());
    }
    let path = std::path::Path::new(target);
    let (count, whose) = match crate::ultraplan::plan::load::load_plan_with(path, &Default::default()) {
        Ok((_, plan)) if plan.step(step).is_some() => return Ok(()),
        Ok((_, plan)) => (plan.steps.len(), "the plan has"),
        // The file is gone or unreadable: what its recorded run knew.
        Err(_) => (state.progress.steps.len(), "its recorded run has"),
    };
    Err(crate::error::FatalWithHint {
        message: format!(
            "'{target}' has no step {step} ({whose} {count} step{})",
            if count == 1 { "" } else { "s" }
        ),
        hint: format!(
            "'git ultraplan status {}' lists its steps",
            crate::cli::shell::operand(target)
        ),
    }
    .into())
}
