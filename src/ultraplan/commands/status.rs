//! `git ultraplan status [<plan>]`: where runs stand.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use serde_json::json;

use super::PlanSelection;
use crate::cli::config::{self, duration};
use crate::cli::{table, Exit, GlobalArgs};
use crate::git::Oid;
use crate::git::Workspace;
use crate::ultraplan::state::index::Depth;
use crate::ultraplan::state::{catalog, LockInfo, LockStatus, RunState};
use crate::ultraplan::sync;

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Where every plan with state here stands, and who holds its lock:
    git ultraplan status

  One plan, as JSON:
    git ultraplan status --json plan.md
"#;

/// Show the progress of one plan, or of every plan with state in this repository.
///
/// Reads the run state under refs/ultraplan/<plan>/ (the foreground run and
/// each session) and the plan's lock, writing nothing. A remote's state that
/// diverged from ours (kept by `sync`) is shown beside it, with a warning
/// saying how to pick one.
///
/// A plan named that has not run says so (exit 0); a path that does not
/// exist, or a file that is no plan, with no run of it recorded, is an
/// error (exit 128), as in `log`, `show` and `report`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The plan (its file name selects the state; the file need not exist).
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub plan: Option<PathBuf>,

    /// Print one JSON object instead.
    #[arg(long)]
    pub json: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (
        Exit::Done,
        "the status was shown (also when there is none: a plan that has not run says so)",
    ),
    (
        Exit::Fatal,
        "not a git repository, unreadable state, or a plan named that does not exist (or is no plan) and has no run recorded",
    ),
    (Exit::Usage, "the command line was wrong"),
];

/// A plan's run states and locks.
type PlanState<'r> = (String, Vec<RunState<'r>>, Vec<(String, Oid, LockInfo)>);

/// The plans to show, from the command line.
fn options(args: &Args, repo: &crate::git::Repo) -> Result<PlanSelection> {
    PlanSelection::of(args.plan.as_deref(), repo)
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let timeout = duration(workspace.config(), &config::LOCK_TIMEOUT)?;
    let PlanSelection { slugs, wanted } = options(&args, repo)?;
    let ui = crate::cli::Ui { quiet: global.quiet };
    let mut plans = Vec::new();
    // A headline reads run.json and the entries of the steps it names as
    // failing; the table of one plan (and the JSON) every step's entry.
    let depth = if args.plan.is_some() || args.json {
        Depth::Steps
    } else {
        Depth::Headline
    };
    for s in &slugs {
        let states: Vec<_> = catalog::states_at(repo, s, depth)?
            .into_iter()
            .filter(|st| super::state_belongs(&st.progress.plan, wanted.as_deref(), &ui))
            .collect();
        let locks = catalog::locks(repo, s)?;
        plans.push((s.clone(), states, locks));
    }
    // Remote states that diverged from ours: shown beside them, with how to pick.
    let diverged = sync::diverged_states(repo, &slugs)?;
    for (d, _) in &diverged {
        ui.warning(format!(
            "run state '{}' diverged from '{}''s; both are shown",
            d.local, d.remote
        ));
        ui.hint(sync::pick_hint(d));
    }
    if let (Some(plan), true) = (&args.plan, nothing_recorded(&plans)) {
        // Nothing there, or no plan: an error, also with --json.
        super::plan_without_runs(plan)?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json_of(&plans, &diverged, timeout))?
        )?;
    } else {
        render(&mut out, &args, &plans, &diverged, timeout)?;
    }
    Ok(Exit::Done)
}

fn json_of(
    plans: &[PlanState<'_>],
    diverged: &[(sync::Diverged, RunState<'_>)],
    timeout: Duration,
) -> serde_json::Value {
    json!({
        "plans": plans.iter().map(|(slug, states, locks)| json!({
            "slug": slug,
            "states": states.iter().map(|st| json!({
                "ref": st.ref_name,
                "progress": st.progress,
            })).collect::<Vec<_>>(),
            "locks": locks.iter().map(|(name, _, info)| json!({
                "ref": name,
                "pid": info.pid,
                "host": info.host,
                "started_at": info.started_at,
                "heartbeat_at": info.heartbeat_at,
                "command": info.command,
                "stale": matches!(info.status(timeout), LockStatus::Stale(_)),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "diverged": diverged.iter().map(|(d, st)| json!({
            "ref": d.local,
            "remote": d.remote,
            "remote_ref": d.remote_copy,
            "remote_progress": st.progress,
        })).collect::<Vec<_>>(),
    })
}

/// Whether no plan of `plans` has a run state or a lock.
fn nothing_recorded(plans: &[PlanState<'_>]) -> bool {
    plans
        .iter()
        .all(|(_, states, locks)| states.is_empty() && locks.is_empty())
}

fn render(
    out: &mut impl Write,
    args: &Args,
    plans: &[PlanState<'_>],
    diverged: &[(sync::Diverged, RunState<'_>)],
    timeout: Duration,
) -> Result<()> {
    if nothing_recorded(plans) {
        match &args.plan {
            Some(plan) => writeln!(out, "no run of '{}' is recorded: it has not run", plan.display())?,
            None => writeln!(out, "no plan has run in this repository")?,
        }
        return Ok(());
    }
    let detailed = args.plan.is_some();
    for (_, states, locks) in plans {
        for state in states {
            writeln!(out, "{}", headline(state))?;
            if detailed {
                let rows: Vec<Vec<String>> = state
                    .progress
                    .steps
                    .iter()
                    .map(|(n, s)| {
                        vec![
                            n.to_string(),
                            s.status.as_str().into(),
                            s.attempts.to_string(),
                            s.commit.as_deref().map_or("—".into(), |c| c.chars().take(7).collect()),
                        ]
                    })
                    .collect();
                out.write_all(table::render(&["Step", "Status", "Attempts", "Commit"], &rows, 60, 2).as_bytes())?;
                // Plain `git notes show` reads refs/notes/commits (see the run report).
                if let Some(commit) = state.progress.steps.values().rev().find_map(|s| s.commit.as_deref()) {
                    writeln!(
                        out,
                        "  results: git notes --ref=ultraplan show {}",
                        &commit[..commit.len().min(7)]
                    )?;
                }
            }
            write_errors(out, state, detailed)?;
        }
        for (d, remote_state) in diverged
            .iter()
            .filter(|(d, _)| states.iter().any(|s| s.ref_name == d.local))
        {
            writeln!(out, "{} [from '{}', diverged]", headline(remote_state), d.remote)?;
        }
        for (name, _, info) in locks {
            let state = match info.status(timeout) {
                LockStatus::Live => "held".to_owned(),
                LockStatus::Stale(why) => format!("stale: {why}"),
            };
            writeln!(
                out,
                "lock {name}: pid {} on {} since {} ({state})",
                info.pid, info.host, info.started_at
            )?;
        }
    }
    Ok(())
}

/// Why steps did not pass, in full: a failed Verify's command and the tail
/// of its output. Without a plan named, only the step the run stopped at.
fn write_errors(out: &mut impl Write, state: &RunState<'_>, every: bool) -> Result<()> {
    let failing = state
        .progress
        .steps
        .iter()
        .filter(|(_, s)| crate::ultraplan::state::index::is_failing(s))
        .filter_map(|(n, s)| s.error.as_deref().map(|e| (n, s.status, e)));
    for (n, status, error) in failing.take(if every { usize::MAX } else { 1 }) {
        let mut lines = error.lines();
        writeln!(out, "  step {n} {}: {}", status.as_str(), lines.next().unwrap_or(""))?;
        for line in lines {
            writeln!(out, "    {line}")?;
        }
    }
    Ok(())
}

fn headline(state: &RunState<'_>) -> String {
    let p = &state.progress;
    let count = |status: &str| state.step_counts.get(status).copied().unwrap_or(0);
    let passed = count("passed") + count("skipped");
    let total: usize = state.step_counts.values().sum();
    let session = p.session.map(|n| format!(" session {n}")).unwrap_or_default();
    format!(
        "{}{session}: {} ({passed}/{total} steps done, current step {}) — run {}, updated {}",
        p.plan,
        p.status.as_str(),
        p.current_step,
        p.run_id,
        p.updated_at
    )
}
