//! `progress.json`: seed 004's progress schema (plan, plan_type, mode,
//! status, current_step, per-step status/attempts/error/completed_at/commit,
//! entry and exit condition flags, summary), plus the run id, session,
//! executor and plan blob id.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::usage::Usage;

/// A run's status (DESIGN §6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    InProgress,
    Completed,
    Failed,
    Stopped,
    Waiting,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::InProgress => "in-progress",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Stopped => "stopped",
            RunStatus::Waiting => "waiting",
        }
    }
}

/// A step's status (DESIGN §6.1, plus `waiting` for a manual step).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepStatus {
    Pending,
    Running,
    Passed,
    Failed,
    Skipped,
    Escalated,
    Blocked,
    Waiting,
}

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::Running => "running",
            StepStatus::Passed => "passed",
            StepStatus::Failed => "failed",
            StepStatus::Skipped => "skipped",
            StepStatus::Escalated => "escalated",
            StepStatus::Blocked => "blocked",
            StepStatus::Waiting => "waiting",
        }
    }

    /// Passed or skipped: nothing left to do.
    pub fn is_done(self) -> bool {
        matches!(self, StepStatus::Passed | StepStatus::Skipped)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepProgress {
    pub status: StepStatus,
    pub attempts: u32,
    pub error: Option<String>,
    pub completed_at: Option<String>,
    pub commit: Option<String>,
    /// One summary per recorded attempt, oldest first (what `log` lists
    /// without reading the records). Absent from layout 1's progress.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<AttemptSummary>,
    /// The attempts a killed process cut short, oldest first: a resume
    /// keeps what each had changed (`attempt-<A>.interrupted`) and starts
    /// it again under its number, so its summary in `results` is the new
    /// attempt's. Kept here so that `log` lists them without looking in
    /// every step's folder (absent from entries written before it was kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interrupted: Vec<u32>,
}

/// What `log` shows of one recorded attempt, kept in the step's entry. New
/// fields are added with `#[serde(default)]`, so an entry written by an older
/// version still reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AttemptSummary {
    pub attempt: u32,
    /// The result's status (`success`, `failure`, `blocked`).
    pub status: String,
    #[serde(default)]
    pub validation: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default)]
    pub logged_at: String,
    /// The attempt's place among the run's attempts (0 in states written
    /// before it was kept).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seq: u64,
    /// The checkpoint commit, for the attempt that passed and was committed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Why it failed, as its record says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The cost and tokens its record reports (none when it reports none).
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
}

impl AttemptSummary {
    /// The summary of attempt `attempt`'s record (the note format; of a
    /// stream, the newest document).
    pub fn of_record(attempt: u32, record: &str) -> AttemptSummary {
        let doc = super::note_stream::documents(record)
            .ok()
            .and_then(|mut d| d.pop())
            .unwrap_or_default();
        let text = |v: Option<&serde_yaml::Value>| v.and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let result = doc.get("result");
        AttemptSummary {
            attempt,
            status: match text(result.and_then(|r| r.get("status"))) {
                s if s.is_empty() => "unknown".into(),
                s => s,
            },
            validation: text(doc.get("validation")),
            duration_ms: result
                .and_then(|r| r.get("metadata"))
                .and_then(|m| m.get("duration_ms"))
                .and_then(|d| d.as_u64()),
            logged_at: text(doc.get("logged_at")),
            seq: 0,
            commit: None,
            error: result
                .and_then(|r| r.get("error"))
                .and_then(|e| e.as_str())
                .map(str::to_owned),
            usage: Usage::of_record(&doc),
        }
    }
}

impl StepProgress {
    /// The checkpoint of a step that passed with one.
    pub fn passed_checkpoint(&self) -> Option<&str> {
        self.commit.as_deref().filter(|_| self.status == StepStatus::Passed)
    }
}

impl Default for StepProgress {
    fn default() -> Self {
        StepProgress {
            status: StepStatus::Pending,
            attempts: 0,
            error: None,
            completed_at: None,
            commit: None,
            results: Vec::new(),
            interrupted: Vec::new(),
        }
    }
}

/// The summary written when a run ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub result: String,
    pub steps_total: usize,
    pub steps_passed: usize,
    pub steps_failed: usize,
    pub steps_skipped: usize,
    pub steps_not_reached: usize,
    pub failed_at_step: Option<u32>,
    pub exit_condition: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub schema_version: String,
    pub plan: String,
    pub plan_type: String,
    pub started_at: String,
    pub updated_at: String,
    pub mode: String,
    pub total_steps: usize,
    pub current_step: u32,
    pub status: RunStatus,
    /// Keyed by step number (serialized as `"1"`, `"2"`, … in numeric order).
    pub steps: BTreeMap<u32, StepProgress>,
    pub entry_condition_checked: bool,
    pub exit_condition_checked: bool,
    pub summary: Option<Summary>,
    pub run_id: String,
    pub session: Option<u32>,
    pub executor: String,
    pub plan_blob: String,
    /// How many attempts this run has recorded: each attempt's summary
    /// takes the next number, which orders attempts logged in one second.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempts_recorded: u64,
    /// A commit whose history holds every passed step's checkpoint (it is
    /// one of them or a descendant of all): kept as each checkpoint lands
    /// on the one before, so that a resume checks the checkpoints by
    /// walking from HEAD back to it rather than back to the first step's.
    /// `None` when not known (a checkpoint landed elsewhere, a state from
    /// before it was kept): a resume then looks for each checkpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoints_tip: Option<String>,
    /// The steps handed out by [`Progress::step_mut`] since the state was
    /// last saved: the ones a save writes again (never serialized).
    #[serde(skip)]
    pub touched: Touched,
}

/// Step numbers changed since the last save. Not part of what a progress
/// is: two progresses that differ only here are equal.
#[derive(Clone, Debug, Default)]
pub struct Touched(pub std::collections::BTreeSet<u32>);

impl PartialEq for Touched {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Touched {}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Progress {
    /// The cost and tokens every recorded attempt reported, summed from the
    /// attempts' summaries (no record is read).
    pub fn usage(&self) -> Usage {
        let mut usage = Usage::default();
        for attempt in self.steps.values().flat_map(|s| &s.results) {
            usage.add(&attempt.usage);
        }
        usage
    }

    pub fn step(&self, number: u32) -> StepProgress {
        self.steps.get(&number).cloned().unwrap_or_default()
    }

    /// The step's status (pending when it has no entry), without a copy of
    /// its entry: what a look over every step needs.
    pub fn status(&self, number: u32) -> StepStatus {
        self.steps.get(&number).map_or(StepStatus::Pending, |s| s.status)
    }

    /// The step's entry, for a change: the next save writes it.
    pub fn step_mut(&mut self, number: u32) -> &mut StepProgress {
        self.touched.0.insert(number);
        self.steps.entry(number).or_default()
    }
}

/// The current time as RFC 3339 in UTC, seconds precision.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_serialize_keyed_by_number_in_order() {
        let mut p = Progress {
            schema_version: "1".into(),
            plan: "plan.md".into(),
            plan_type: "plan".into(),
            started_at: "t".into(),
            updated_at: "t".into(),
            mode: "execute".into(),
            total_steps: 2,
            current_step: 0,
            status: RunStatus::InProgress,
            steps: BTreeMap::new(),
            entry_condition_checked: false,
            exit_condition_checked: false,
            summary: None,
            run_id: "r".into(),
            session: None,
            executor: "shell".into(),
            plan_blob: "b".into(),
            attempts_recorded: 0,
            checkpoints_tip: None,
            touched: Default::default(),
        };
        p.step_mut(10).status = StepStatus::Passed;
        p.step_mut(2).attempts = 1;
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["steps"]["2"]["status"], "pending");
        assert_eq!(json["steps"]["10"]["status"], "passed");
        assert_eq!(json["status"], "in-progress");
        let text = serde_json::to_string(&p).unwrap();
        assert!(text.find("\"2\"").unwrap() < text.find("\"10\"").unwrap());
        let back: Progress = serde_json::from_value(json).unwrap();
        assert_eq!(back, p);
    }
}
