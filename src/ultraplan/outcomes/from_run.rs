//! The outcome of a finished run (and each step with
//! `ultraplan.outcomes=steps`), filled from what
//! ultraplan knows: task = the plan's title, agent = the executor, execution
//! path = the steps reached in order with their results, result = the final
//! report's counts, context = plan, run id, branch and commit.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use serde_json::{json, Map};

use super::model::{agent_name_from, OutcomeInput};
use super::{log, Logged, Recording, Settings};
use crate::git::Repo;
use crate::ultraplan::engine::{RunReport, RunResult};
use crate::ultraplan::plan::Plan;
use crate::ultraplan::state::{Progress, RunState};

/// What a finished run knows about itself.
pub struct FinishedRun<'a> {
    pub report: &'a RunReport,
    pub plan: &'a Plan,
    /// The executor's recorded id (`shell`, `command: ./agent`).
    pub executor: &'a str,
    pub elapsed: Duration,
}

/// Records the run's outcomes as `settings` asks; returns what was recorded.
/// A run that did not finish (interrupted) records nothing. Each session of
/// a multi-session run is a `run --session N` process of its own, so it
/// records its own outcome through here too.
pub fn record_run(repo: &Repo, run: &FinishedRun<'_>, settings: &Settings, cwd: &Path) -> Result<Vec<Logged>> {
    if settings.recording == Recording::Off || run.report.result == RunResult::Interrupted {
        return Ok(Vec::new());
    }
    let mut inputs = vec![run_input(repo, run)?];
    if settings.recording == Recording::Steps {
        // The run state has each step's error and completion time; without
        // it the step outcomes say less, but are still recorded.
        let progress = RunState::load(repo, &run.report.progress_ref)
            .ok()
            .flatten()
            .map(|state| state.progress);
        inputs.extend(step_inputs(&inputs[0], run, progress.as_ref()));
    }
    inputs.iter().map(|input| log(repo, input, settings, cwd)).collect()
}

fn title(plan: &Plan) -> String {
    plan.title.clone().unwrap_or_else(|| plan.plan_id.clone())
}

fn run_input(repo: &Repo, run: &FinishedRun<'_>) -> Result<OutcomeInput> {
    let report = run.report;
    let head = repo.head()?;
    let success = report.result == RunResult::Completed;
    let mut result = Map::new();
    result.insert(
        "status".into(),
        json!(if success { "success" } else { report.result.as_str() }),
    );
    result.insert("steps_total".into(), json!(report.steps.len()));
    result.insert("steps_passed".into(), json!(report.count("passed")));
    result.insert("steps_failed".into(), json!(report.failed()));
    result.insert("steps_skipped".into(), json!(report.count("skipped")));
    result.insert("steps_not_reached".into(), json!(report.not_reached()));
    result.insert("failed_at_step".into(), json!(report.failed_at_step));
    result.insert("exit_condition".into(), json!(report.exit_condition));
    let mut context = Map::new();
    context.insert("plan".into(), json!(report.plan));
    context.insert("plan_id".into(), json!(run.plan.plan_id));
    context.insert("plan_type".into(), json!(report.plan_type));
    context.insert("run_id".into(), json!(report.run_id));
    context.insert("mode".into(), json!(report.mode));
    context.insert(
        "branch".into(),
        json!(head
            .branch
            .as_deref()
            .map(|b| b.strip_prefix("refs/heads/").unwrap_or(b))),
    );
    context.insert("commit".into(), json!(head.commit.map(|c| c.to_string())));
    context.insert("executor".into(), json!(run.executor));
    if let Some(session) = report.session {
        context.insert("session".into(), json!(session));
    }
    Ok(OutcomeInput {
        task: bounded(
            &match report.session {
                Some(n) => format!("{} — session {n}", title(run.plan)),
                None => title(run.plan),
            },
            super::model::MAX_TASK_BYTES,
        ),
        agent_name: agent_name_from(run.executor),
        success,
        execution_path: report
            .steps
            .iter()
            .filter(|s| !matches!(s.result, "pending" | "running"))
            .map(|s| bounded(&format!("{} ({})", s.title, s.result), super::model::MAX_STEP_BYTES))
            .take(super::model::MAX_PATH_STEPS)
            .collect(),
        result,
        error_message: report
            .failure
            .as_ref()
            .map(|f| bounded(&f.error, super::model::MAX_ERROR_BYTES)),
        execution_time: run.elapsed.as_secs_f64(),
        context,
    })
}

fn step_inputs(run_input: &OutcomeInput, run: &FinishedRun<'_>, progress: Option<&Progress>) -> Vec<OutcomeInput> {
    let durations = progress.map(step_durations).unwrap_or_default();
    run.report
        .steps
        .iter()
        .filter(|s| !matches!(s.result, "pending" | "running" | "skipped"))
        .map(|step| {
            let success = step.result == "passed";
            let recorded = progress.and_then(|p| p.steps.get(&step.number));
            let mut context = run_input.context.clone();
            context.insert("step".into(), json!(step.number));
            context.insert("attempts".into(), json!(step.attempts));
            context.insert("checkpoint".into(), json!(step.commit));
            let mut result = Map::new();
            result.insert("status".into(), json!(if success { "success" } else { step.result }));
            OutcomeInput {
                task: bounded(
                    &format!("{} — step {}: {}", title(run.plan), step.number, step.title),
                    super::model::MAX_TASK_BYTES,
                ),
                execution_path: vec![bounded(&step.title, super::model::MAX_STEP_BYTES)],
                success,
                result,
                error_message: (!success).then(|| {
                    let error = recorded
                        .and_then(|r| r.error.clone())
                        .unwrap_or_else(|| format!("step {} {}", step.number, step.result));
                    bounded(&error, super::model::MAX_ERROR_BYTES)
                }),
                execution_time: durations.get(&step.number).copied().unwrap_or(0.0),
                context,
                ..run_input.clone()
            }
        })
        .collect()
}

/// Seconds from the end of the step before (or the run's start) to each
/// step's completion, from the run state's timestamps (whole seconds).
fn step_durations(progress: &Progress) -> std::collections::BTreeMap<u32, f64> {
    let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
    let mut out = std::collections::BTreeMap::new();
    let mut previous = parse(&progress.started_at);
    let mut done: Vec<(chrono::DateTime<chrono::FixedOffset>, u32)> = progress
        .steps
        .iter()
        .filter_map(|(n, s)| s.completed_at.as_deref().and_then(parse).map(|t| (t, *n)))
        .collect();
    done.sort();
    for (at, n) in done {
        if let Some(before) = previous {
            out.insert(n, ((at - before).num_milliseconds() as f64 / 1000.0).max(0.0));
        }
        previous = Some(at);
    }
    out
}

/// `text` cut to at most `max` bytes at a character boundary.
fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub(3);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
