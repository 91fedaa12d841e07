//! A plan whose recorded run completed is done: running it again without a
//! mode, or resuming it when the plan has not changed, says so and changes
//! nothing (exit 0: no state commit, no outcome recorded again). Steps are
//! not idempotent — a step that appends to a file would append again — so a
//! new run of every step is asked for by name: `run --again`, recorded as a
//! new run beside the old one (`git ultraplan log` lists both).

use std::io::Write;

use anyhow::Result;
use serde_json::json;

use crate::cli::shell::shell_word;
use crate::cli::Ui;
use crate::git::Repo;
use crate::ultraplan::plan::sync::same_plan;
use crate::ultraplan::state::index::Depth;
use crate::ultraplan::state::{Refs, RunState, RunStatus, StepStatus};

/// The recorded run of the plan at `path` (as the state records plan
/// paths), when it completed.
pub(super) fn completed_run<'r>(repo: &'r Repo, path: &str) -> Result<Option<RunState<'r>>> {
    let refs = Refs::of_plan(path);
    // run.json alone: its counts say whether every step is done.
    let Some(state) = RunState::load_at(repo, &refs.state(None), Depth::Run)? else {
        return Ok(None);
    };
    // A `--step N` run completes that step only; a plan is done when a
    // whole run left every step passed or skipped.
    let p = &state.progress;
    let done = p.status == RunStatus::Completed
        && p.plan == path
        && !p.mode.starts_with("step")
        && state.step_counts.iter().all(|(status, n)| {
            *n == 0 || status == StepStatus::Passed.as_str() || status == StepStatus::Skipped.as_str()
        });
    Ok(done.then_some(state))
}

/// Whether the plan `text` differs from the one the run recorded
/// ([`same_plan`]).
pub(super) fn changed_since(state: &RunState<'_>, text: &str) -> Result<bool> {
    Ok(state
        .read_text("plan.md")?
        .is_some_and(|recorded| !same_plan(&recorded, text)))
}

/// Says that the plan is done and how to run it again; `changed`: the plan
/// differs from the one the run recorded ([`changed_since`]), which is
/// pointed out.
pub(super) fn report(state: &RunState<'_>, changed: bool, plan_arg: &str, json: bool, ui: &Ui) -> Result<()> {
    let p = &state.progress;
    let mut out = std::io::stdout().lock();
    if json {
        let doc = json!({
            "ultraexecute_summary": {
                "plan": p.plan,
                "plan_type": p.plan_type,
                "mode": "none",
                "result": "completed",
                "already_completed": true,
                "run_id": p.run_id,
                "completed_at": p.updated_at,
                "plan_changed": changed,
                "steps_total": state.step_counts.values().sum::<usize>(),
                "progress_ref": state.ref_name,
            }
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        writeln!(
            out,
            "'{}' is already completed (run {}, {}): nothing to do.",
            p.plan, p.run_id, p.updated_at
        )?;
    }
    out.flush()?;
    let arg = shell_word(plan_arg);
    if changed {
        ui.warning("the plan changed since that run");
        ui.hint(format!(
            "to run only the steps the completed run did not have: git ultraplan run --resume {arg}"
        ));
    }
    ui.hint(format!(
        "to run every step again, as a new run: git ultraplan run --again {arg}"
    ));
    Ok(())
}
