//! `git ultraplan log [<plan>]`: every step attempt of every run.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use super::PlanSelection;
use crate::cli::{Exit, GlobalArgs};
use crate::git::Workspace;
use crate::ultraplan::state::catalog;
use crate::ultraplan::state::index::Depth;
use crate::ultraplan::state::{RunStatus, StepStatus};
use crate::ultraplan::sync;

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Every attempt of every run of plan.md:
    git ultraplan log plan.md

  The run state's own audit log, with plain git:
    git log --format=%s refs/ultraplan/plan/run
"#;

/// List every step attempt of every run: status, duration and commit.
///
/// Reads the run-state chains under refs/ultraplan/ (each run's last state
/// holds its attempts); `git log refs/ultraplan/<plan>/run` shows the same
/// history commit by commit. A remote's state that diverged from ours (kept
/// by `sync` under refs/ultraplan-remotes/) is listed too, with a warning.
///
/// An attempt a killed process cut short is listed as `interrupted`, just
/// before the attempt `run --resume` started again in its place (it keeps
/// the attempt's number; what the cut-short attempt had changed is kept in
/// the run state as `steps/…/attempt-N.interrupted`). While the killed run
/// is not resumed yet, its step's attempt is listed as `running`: the state
/// cannot tell a live run from a killed one, `status` can (by the lock).
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// Only this plan's runs.
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub plan: Option<PathBuf>,

    /// Print one JSON object instead.
    #[arg(long)]
    pub json: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the log was shown (a plan that has not run says so)"),
    (
        Exit::Fatal,
        "not a git repository, unreadable state, or a plan named that does not exist (or is no plan) and has no run recorded",
    ),
    (Exit::Usage, "the command line was wrong"),
];

#[derive(Serialize)]
struct AttemptRow {
    step: u32,
    attempt: u32,
    status: String,
    duration_ms: Option<u64>,
    commit: Option<String>,
    /// Why the attempt did not pass (a failed Verify's command and output tail).
    error: Option<String>,
}

#[derive(Serialize)]
struct RunRow {
    run_id: String,
    plan: String,
    session: Option<u32>,
    mode: String,
    status: String,
    started_at: String,
    updated_at: String,
    state: String,
    attempts: Vec<AttemptRow>,
}

/// The plans to show, from the command line.
fn options(args: &Args, repo: &crate::git::Repo) -> Result<PlanSelection> {
    PlanSelection::of(args.plan.as_deref(), repo)
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let PlanSelection { slugs, wanted } = options(&args, repo)?;
    let ui = crate::cli::Ui { quiet: global.quiet };
    let mut runs = Vec::new();
    for s in &slugs {
        // The states' run.json alone: each run's attempts are read once, by its history.
        for state in catalog::states_at(repo, s, Depth::Run)? {
            if !super::state_belongs(&state.progress.plan, wanted.as_deref(), &ui) {
                continue;
            }
            for past in catalog::history(repo, &state.ref_name)? {
                runs.push(run_row(&state.ref_name, past));
            }
        }
    }
    // A remote's history of a run state that diverged from ours, kept by `sync`.
    let diverged = sync::diverged(repo)?;
    for d in &diverged {
        if !slugs
            .iter()
            .any(|s| d.local.starts_with(&format!("refs/ultraplan/{s}/")))
        {
            continue;
        }
        for past in catalog::history(repo, &d.remote_copy)? {
            runs.push(run_row(&d.remote_copy, past));
        }
        ui.warning(format!(
            "run state '{}' diverged from '{}''s; both are listed",
            d.local, d.remote
        ));
        ui.hint(sync::pick_hint(d));
    }
    // Newest first; runs started in the same second (a parallel run and its
    // sessions) in the order of their run states' names, so the listing is
    // the same every time.
    runs.sort_by(|a, b| b.started_at.cmp(&a.started_at).then_with(|| a.state.cmp(&b.state)));
    if let (Some(plan), true) = (&args.plan, runs.is_empty()) {
        // Nothing there, or no plan: an error, also with --json.
        super::plan_without_runs(plan)?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "runs": runs }))?
        )?;
        return Ok(Exit::Done);
    }
    if let (Some(plan), true) = (&args.plan, runs.is_empty()) {
        writeln!(out, "no run of '{}' is recorded: it has not run", plan.display())?;
    }
    for run in &runs {
        let session = run.session.map(|n| format!(" session {n}")).unwrap_or_default();
        writeln!(
            out,
            "run {} {}{session} ({}, {}) {}: {}",
            run.run_id, run.plan, run.mode, run.state, run.started_at, run.status
        )?;
        for a in &run.attempts {
            writeln!(
                out,
                "  step {:<3} attempt {}  {:<8} {:>8}  {}",
                a.step,
                a.attempt,
                a.status,
                a.duration_ms.map(|d| format!("{d} ms")).unwrap_or_default(),
                a.commit.as_deref().map(|c| &c[..c.len().min(7)]).unwrap_or("")
            )?;
            for line in a.error.iter().flat_map(|e| e.lines()) {
                writeln!(out, "      {line}")?;
            }
        }
    }
    Ok(Exit::Done)
}

/// A run's row: its recorded attempts, with those a killed process cut
/// short (`interrupted`, just before the attempt that started them again)
/// and, in a run still in progress, the attempt its step was left running.
fn run_row(state_ref: &str, past: catalog::PastRun) -> RunRow {
    let interrupted = past.interrupted();
    let mut attempts: Vec<AttemptRow> = past
        .attempts
        .into_iter()
        .map(|a| AttemptRow {
            step: a.step,
            attempt: a.attempt,
            status: a.status,
            duration_ms: a.duration_ms,
            commit: a.commit,
            error: a.error,
        })
        .collect();
    for (step, attempt) in interrupted {
        let row = AttemptRow {
            step,
            attempt,
            status: "interrupted".into(),
            duration_ms: None,
            commit: None,
            error: Some("the process was killed while this attempt ran; a resume started it again".into()),
        };
        // Before the attempt that started it again (it has its number).
        let at = attempts
            .iter()
            .position(|a| a.step == step && a.attempt >= attempt)
            .unwrap_or(attempts.len());
        attempts.insert(at, row);
    }
    let p = past.progress;
    if p.status == RunStatus::InProgress {
        for (n, step) in &p.steps {
            let open = step.status == StepStatus::Running
                && step.attempts > 0
                && !attempts
                    .iter()
                    .any(|a| a.step == *n && a.attempt == step.attempts && a.status != "interrupted");
            if open {
                attempts.push(AttemptRow {
                    step: *n,
                    attempt: step.attempts,
                    status: "running".into(),
                    duration_ms: None,
                    commit: None,
                    error: Some(
                        "not recorded as ended: still running, or its process was killed ('git ultraplan status' says which; 'run --resume' goes on)".into(),
                    ),
                });
            }
        }
    }
    RunRow {
        run_id: p.run_id,
        plan: p.plan,
        session: p.session,
        mode: p.mode,
        status: p.status.as_str().into(),
        started_at: p.started_at,
        updated_at: p.updated_at,
        state: state_ref.into(),
        attempts,
    }
}
