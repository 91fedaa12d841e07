//! What a report shows, as plain values: the run, its lanes (sessions),
//! its steps with every attempt, its merges, what it cost and its risk.
//! [`super::read`] fills it from the recorded state; the renderers only
//! read it, so they can be tested on a model built by hand.

use std::collections::BTreeMap;

use crate::ultraplan::engine::risk::Risk;
use crate::ultraplan::result::Usage;

/// One run of a plan, as a report shows it.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The plan's path, as the run recorded it.
    pub plan: String,
    /// The plan's title (its first heading), when it has one.
    pub title: Option<String>,
    pub run_id: String,
    /// `in-progress`, `completed`, `failed`, `stopped` or `waiting`.
    pub status: String,
    /// `execute`, `resume`, …
    pub mode: String,
    pub started_at: String,
    pub updated_at: String,
    /// The executor the run was started with.
    pub executor: String,
    /// Sessions in worktrees, merged back (else one foreground lane).
    pub parallel: bool,
    pub lanes: Vec<Lane>,
    /// In the plan's order.
    pub steps: Vec<Step>,
    /// The risk of what the run changed, when it can be measured.
    pub risk: Option<Risk>,
    /// Why there is no risk table, when there is none.
    pub risk_note: Option<String>,
    /// Where a commit can be looked at: this prefix and the full id.
    pub commit_url: Option<String>,
    /// What the reader should know about how the report was read.
    pub warnings: Vec<String>,
}

/// A lane of the timeline: a session, or the foreground run.
#[derive(Clone, Debug, Default)]
pub struct Lane {
    /// `None` for a foreground run.
    pub session: Option<u32>,
    pub title: String,
    pub wave: Option<u32>,
    /// The session's result (`completed`, `failed`, `merge-failed`, …).
    pub result: String,
    pub merged: bool,
    pub merge_commit: Option<String>,
    /// How many times the session ran within this run (a resume reruns
    /// the sessions not merged yet).
    pub runs: u32,
}

impl Lane {
    pub fn label(&self) -> String {
        match self.session {
            Some(n) if self.title.is_empty() => format!("Session {n}"),
            Some(n) => format!("Session {n}: {}", self.title),
            None => "Foreground run".into(),
        }
    }
}

/// One step of the plan and what happened to it.
#[derive(Clone, Debug, Default)]
pub struct Step {
    pub number: u32,
    pub title: String,
    /// The lane (session) it ran in.
    pub session: Option<u32>,
    /// Its status at the end of the run (`passed`, `failed`, `skipped`,
    /// `pending`, …).
    pub status: String,
    /// Every attempt, in the order they ran.
    pub attempts: Vec<Attempt>,
    /// The checkpoint commit of its passing attempt.
    pub commit: Option<String>,
}

impl Step {
    pub fn usage(&self) -> Usage {
        let mut usage = Usage::default();
        for a in &self.attempts {
            usage.add(&a.usage);
        }
        usage
    }

    pub fn duration_ms(&self) -> u64 {
        self.attempts.iter().map(|a| a.duration_ms).sum()
    }

    /// Attempts after the first of each run of the step.
    pub fn retries(&self) -> usize {
        self.attempts.iter().filter(|a| a.number > 1).count()
    }

    /// The files its passing attempt changed (else its last attempt's).
    pub fn files(&self) -> &[String] {
        self.attempts
            .iter()
            .rev()
            .find(|a| a.status == "success")
            .or(self.attempts.last())
            .map_or(&[], |a| a.files.as_slice())
    }

    /// The result in a few words: `passed`, `passed after 1 retry`, …
    pub fn outcome(&self) -> String {
        let retries = self.retries();
        match (self.status.as_str(), retries) {
            ("passed", 0) => "passed".into(),
            ("passed", 1) => "passed after 1 retry".into(),
            ("passed", n) => format!("passed after {n} retries"),
            (status, _) => status.into(),
        }
    }
}

/// One attempt at a step, from its recorded result.
#[derive(Clone, Debug, Default)]
pub struct Attempt {
    /// Its number within its run of the step (from 1).
    pub number: u32,
    /// Which run of its session it belongs to (from 1; more than one when
    /// the session ran again on a resume).
    pub run: u32,
    /// Its place in the order its lane recorded attempts (the record's
    /// times have whole seconds: two quick attempts share one).
    pub seq: usize,
    /// The result's `task_name` (`Task 3: …`).
    pub task_name: String,
    /// The result's status: `success`, `failure` or `blocked`.
    pub status: String,
    /// When it ended (RFC 3339), as recorded.
    pub logged_at: String,
    pub duration_ms: u64,
    pub executor: String,
    pub model: Option<String>,
    pub agent_session: Option<String>,
    pub verify: Option<Verify>,
    /// Why it did not pass.
    pub error: Option<String>,
    /// The paths it was observed to change.
    pub files: Vec<String>,
    /// Its checkpoint commit, when it passed and was committed.
    pub commit: Option<String>,
    pub usage: Usage,
    /// `VALID`, `VALID_WITH_WARNINGS` or `INVALID`, and the warnings.
    pub validation: String,
    pub warnings: Vec<String>,
}

impl Attempt {
    /// When it ended, in milliseconds since the epoch.
    pub fn end_ms(&self) -> Option<i64> {
        chrono::DateTime::parse_from_rfc3339(&self.logged_at)
            .ok()
            .map(|t| t.timestamp_millis())
    }

    /// When it started: its end less its duration.
    pub fn start_ms(&self) -> Option<i64> {
        self.end_ms().map(|e| e - self.duration_ms as i64)
    }
}

/// What ultraplan ran to verify an attempt, and what it printed (the tail
/// kept in the record, redacted when it was stored).
#[derive(Clone, Debug, Default)]
pub struct Verify {
    pub command: String,
    pub exit_code: Option<i64>,
    pub output: String,
}

/// What one agent (an executor and model) did over the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentUse {
    pub executor: String,
    pub model: Option<String>,
    pub attempts: usize,
    pub duration_ms: u64,
    pub usage: Usage,
}

impl Report {
    /// Steps by status word, for the headline.
    pub fn count(&self, status: &str) -> usize {
        self.steps.iter().filter(|s| s.status == status).count()
    }

    pub fn attempts(&self) -> impl Iterator<Item = (&Step, &Attempt)> {
        self.steps.iter().flat_map(|s| s.attempts.iter().map(move |a| (s, a)))
    }

    pub fn usage(&self) -> Usage {
        let mut usage = Usage::default();
        for (_, a) in self.attempts() {
            usage.add(&a.usage);
        }
        usage
    }

    /// What each agent did: attempts grouped by executor and model, in the
    /// order they first appear.
    pub fn agents(&self) -> Vec<AgentUse> {
        let mut order: Vec<(String, Option<String>)> = Vec::new();
        let mut by: BTreeMap<(String, Option<String>), AgentUse> = BTreeMap::new();
        for (_, a) in self.attempts() {
            let key = (a.executor.clone(), a.model.clone());
            let entry = by.entry(key.clone()).or_insert_with(|| {
                order.push(key.clone());
                AgentUse {
                    executor: a.executor.clone(),
                    model: a.model.clone(),
                    ..AgentUse::default()
                }
            });
            entry.attempts += 1;
            entry.duration_ms += a.duration_ms;
            entry.usage.add(&a.usage);
        }
        order.into_iter().filter_map(|k| by.remove(&k)).collect()
    }

    /// The run's length: from its start to its last update, or — as the
    /// record's times have whole seconds — each wave's busiest lane's
    /// attempts one after another, when that is longer.
    pub fn duration_ms(&self) -> Option<u64> {
        let start = chrono::DateTime::parse_from_rfc3339(&self.started_at).ok();
        let end = chrono::DateTime::parse_from_rfc3339(&self.updated_at).ok();
        let clock = match (start, end) {
            (Some(s), Some(e)) => Some(e.signed_duration_since(s).num_milliseconds().max(0) as u64),
            _ => None,
        };
        // Waves run one after another; the lanes of a wave side by side.
        let mut by_wave: BTreeMap<u32, u64> = BTreeMap::new();
        for l in &self.lanes {
            let busy: u64 = self
                .attempts()
                .filter(|(s, _)| s.session == l.session)
                .map(|(_, a)| a.duration_ms)
                .sum();
            let wave = by_wave.entry(l.wave.unwrap_or(0)).or_insert(0);
            *wave = (*wave).max(busy);
        }
        let busiest = (!by_wave.is_empty()).then(|| by_wave.values().sum::<u64>());
        match (clock, busiest) {
            (Some(c), Some(b)) => Some(c.max(b)),
            (c, b) => c.or(b),
        }
    }

    /// The lane of `session`.
    pub fn lane(&self, session: Option<u32>) -> Option<&Lane> {
        self.lanes.iter().find(|l| l.session == session)
    }

    /// The heading: the plan's title, else its path.
    pub fn heading(&self) -> String {
        match &self.title {
            Some(t) if !t.trim().is_empty() => t.clone(),
            _ => self.plan.clone(),
        }
    }
}

/// `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`.
pub fn duration_text(ms: u64) -> String {
    match ms {
        0..=999 => format!("{ms} ms"),
        1_000..=59_999 => format!("{:.1} s", ms as f64 / 1000.0),
        60_000..=3_599_999 => format!("{} min {:02} s", ms / 60_000, (ms / 1000) % 60),
        _ => format!("{} h {:02} min", ms / 3_600_000, (ms / 60_000) % 60),
    }
}

/// A commit id as shown: its first 7 characters.
pub fn short(id: &str) -> &str {
    &id[..id.len().min(7)]
}

/// The kind of result a status word is, for colours and marks: `pass`,
/// `fail`, `skip`, `stop` (a person is needed) or `run` (not finished).
pub fn tone(status: &str) -> &'static str {
    match status {
        "passed" | "success" | "completed" => "pass",
        // A step's outcome: `passed after 2 retries`.
        s if s.starts_with("passed ") => "pass",
        "failed" | "failure" | "merge-failed" | "crashed" | "setup-failed" => "fail",
        "skipped" => "skip",
        "escalated" | "blocked" | "waiting" | "stopped" | "interrupted" => "stop",
        _ => "run",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(duration_text(850), "850 ms");
        assert_eq!(duration_text(12_345), "12.3 s");
        assert_eq!(duration_text(245_000), "4 min 05 s");
        assert_eq!(duration_text(7_380_000), "2 h 03 min");
    }

    #[test]
    fn agents_are_grouped_by_executor_and_model() {
        let attempt = |executor: &str, model: Option<&str>, cost: f64| Attempt {
            number: 1,
            executor: executor.into(),
            model: model.map(str::to_owned),
            duration_ms: 10,
            usage: Usage {
                cost_usd: Some(cost),
                tokens: None,
            },
            ..Attempt::default()
        };
        let report = Report {
            steps: vec![
                Step {
                    attempts: vec![attempt("claude", Some("opus"), 0.5), attempt("shell", None, 0.0)],
                    ..Step::default()
                },
                Step {
                    attempts: vec![attempt("claude", Some("opus"), 0.25)],
                    ..Step::default()
                },
            ],
            ..Report::default()
        };
        let agents = report.agents();
        assert_eq!(agents.len(), 2);
        assert_eq!(agents[0].executor, "claude");
        assert_eq!(agents[0].attempts, 2);
        assert_eq!(agents[0].usage.cost_usd, Some(0.75));
        assert_eq!(report.usage().cost_usd, Some(0.75));
    }

    #[test]
    fn a_step_says_how_it_passed() {
        let mut step = Step {
            status: "passed".into(),
            attempts: vec![
                Attempt {
                    number: 1,
                    status: "failure".into(),
                    files: vec!["a".into()],
                    ..Attempt::default()
                },
                Attempt {
                    number: 2,
                    status: "success".into(),
                    files: vec!["b".into()],
                    ..Attempt::default()
                },
            ],
            ..Step::default()
        };
        assert_eq!(step.outcome(), "passed after 1 retry");
        assert_eq!(step.files(), ["b".to_owned()]);
        step.status = "failed".into();
        assert_eq!(step.outcome(), "failed");
    }
}
