//! A plan's `## Verification` (DESIGN §4.1): each `` `command` → expected:
//! `text` `` item run in the worktree once every step is done — after the
//! last wave's merge for parallel sessions, after the last step for a plan
//! run as one session. A failed item fails the run, naming the command.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::{command_check, Failure, RunOptions};
use crate::ultraplan::plan::Plan;
use crate::ultraplan::state::StepStatus;

/// One item's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    pub command: String,
    pub passed: bool,
    pub detail: String,
}

/// Runs `plan`'s Verification items in `root`: their outcomes, and the
/// failure of the first that failed.
pub(super) fn run(plan: &Plan, root: &Path, opts: &RunOptions) -> Result<(Vec<Checked>, Option<Failure>)> {
    let mut out = Vec::new();
    for check in &plan.verification {
        let checked = command_check::run(check, root, opts)?;
        let detail = match &checked.failure {
            Some(f) => format!("{f}: {}", checked.tail(5)),
            None => checked.ending.describe(),
        };
        out.push(Checked {
            command: check.command.clone(),
            passed: checked.passed(),
            detail,
        });
    }
    let failure = out.iter().find(|c| !c.passed).map(|failed| Failure {
        step: None,
        title: "verification".into(),
        status: StepStatus::Failed,
        policy: "report".into(),
        error: format!("`{}` failed: {}", failed.command, failed.detail),
        attempts: 0,
    });
    Ok((out, failure))
}
