//! What a finished run reports: how it ended, each step's result and why it
//! stopped. The command renders it; outcomes and the stats line read it.

use serde::Serialize;

use crate::ultraplan::result::Usage;
use crate::ultraplan::state::StepStatus;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunResult {
    Completed,
    Failed,
    /// Stopped for a person: escalated, blocked, waiting or refused.
    Stopped,
    Interrupted,
}

impl RunResult {
    pub fn as_str(self) -> &'static str {
        match self {
            RunResult::Completed => "completed",
            RunResult::Failed => "failed",
            RunResult::Stopped => "stopped",
            RunResult::Interrupted => "interrupted",
        }
    }

    /// The word of the `ultraexecute_summary` block and the stats line
    /// (seed 004 knows no `interrupted`: a run cut short is `stopped`).
    pub fn summary_word(self) -> &'static str {
        match self {
            RunResult::Interrupted => "stopped",
            other => other.as_str(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct StepReport {
    pub number: u32,
    pub title: String,
    pub result: &'static str,
    pub attempts: u32,
    pub commit: Option<String>,
}

/// Why a run stopped at a step.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The step, when a step stopped the run (not a session, merge, condition
    /// or the Verification).
    pub step: Option<u32>,
    pub title: String,
    pub status: StepStatus,
    pub policy: String,
    pub error: String,
    pub attempts: u32,
}

#[derive(Clone, Debug)]
pub struct RunReport {
    pub plan: String,
    pub plan_type: &'static str,
    pub mode: String,
    pub result: RunResult,
    pub steps: Vec<StepReport>,
    pub failed_at_step: Option<u32>,
    pub exit_condition: &'static str,
    pub progress_ref: String,
    pub failure: Option<Failure>,
    /// What a person is asked to do (manual executor).
    pub instructions: Option<String>,
    pub warnings: Vec<String>,
    pub run_id: String,
    /// The session a `--session N` run ran (its resume command names it).
    pub session: Option<u32>,
    /// A plan run as one session: its `## Verification` items, once every
    /// step passed (a parallel run reports them in `WavesReport`).
    pub verification: Vec<super::plan_verification::Checked>,
    /// What the run's attempts cost, as their executors reported it.
    pub usage: Usage,
}

impl RunReport {
    pub fn count(&self, status: &str) -> usize {
        self.steps.iter().filter(|s| s.result == status).count()
    }

    /// Steps reached that did not pass: failed, and stopped for a person
    /// (escalated, blocked, waiting) — with passed, skipped and not reached,
    /// every step is counted once.
    pub fn failed(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s.result, "failed" | "escalated" | "blocked" | "waiting"))
            .count()
    }

    pub fn not_reached(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s.result, "pending" | "running"))
            .count()
    }
}
