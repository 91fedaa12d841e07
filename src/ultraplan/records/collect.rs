//! One pass over every state chain: tasks and runs.
//!
//! A task is one step's execution within one run: its attempts (a retry is
//! an attempt after the first), the status of its last attempt (a step the
//! run marked skipped counts as skipped), the time all its attempts took, and
//! the files its passing attempt changed. Each attempt is counted once, even
//! when several state chains (a plan's and its sessions') hold it: attempts
//! are keyed by run id, step and attempt number.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::digest::Digests;
use crate::git::{Oid, Repo};
use crate::ultraplan::result::Usage;
use crate::ultraplan::state::catalog;

/// One step's execution in one run.
#[derive(Clone, Debug, Serialize)]
pub struct Task {
    pub plan: String,
    pub plan_id: String,
    pub phase: String,
    pub run_id: String,
    pub session: Option<u32>,
    pub step: u32,
    pub task_name: String,
    /// `success`, `failure`, `blocked` or `skipped`.
    pub status: String,
    pub attempts: u32,
    pub duration_ms: u64,
    pub files_modified: usize,
    /// When its last attempt was logged (RFC 3339).
    pub logged_at: String,
    /// The executor of its last attempt (`claude`, `shell`, `command: …`).
    pub executor: String,
    /// What its attempts cost, as their executors reported it.
    pub usage: Usage,
}

/// One run of a plan (a foreground run, a session, or an orchestrating run).
#[derive(Clone, Debug, Serialize)]
pub struct PlanRun {
    pub plan: String,
    pub plan_id: String,
    pub phase: String,
    pub run_id: String,
    pub session: Option<u32>,
    pub status: String,
    pub started_at: String,
    pub updated_at: String,
    pub duration_ms: u64,
    pub steps_total: usize,
    pub steps_passed: usize,
    /// The executor of its attempts (of its last one, when they differ).
    pub executor: String,
    /// What its attempts cost, as their executors reported it.
    pub usage: Usage,
}

/// One attempt as recorded: the note format (metadata header and result).
#[derive(Clone, Debug, Serialize)]
pub struct Attempt {
    pub plan_id: String,
    pub run_id: String,
    pub step: u32,
    pub attempt: u32,
    pub status: String,
    pub logged_at: String,
    /// The attempt's YAML as stored.
    pub yaml: String,
}

/// What the record holds, after the filter.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Record {
    pub tasks: Vec<Task>,
    pub runs: Vec<PlanRun>,
    /// Every attempt, oldest first.
    pub attempts: Vec<Attempt>,
}

/// Which runs count: by plan slug, and by when a task was logged or a run
/// started (both bounds included).
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub slugs: Option<Vec<String>>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// Whether each [`Attempt`] gets its record's text (`yaml`); without it
    /// the text is left empty and no record is read.
    pub records: bool,
}

impl Filter {
    /// Whether an RFC 3339 `timestamp` lies within the bounds; one that
    /// cannot be read lies within none.
    fn time_ok(&self, timestamp: &str) -> bool {
        if self.since.is_none() && self.until.is_none() {
            return true;
        }
        let Ok(at) = DateTime::parse_from_rfc3339(timestamp) else {
            return false;
        };
        self.since.is_none_or(|s| at >= s) && self.until.is_none_or(|u| at <= u)
    }
}

/// The phase of a plan id: the number before its last `-NN` part for ids
/// like `03-01` or `12.5-05` (a GSD phase and plan), else the id itself.
pub fn phase_of(plan_id: &str) -> String {
    match plan_id.rsplit_once('-') {
        Some((phase, plan))
            if !phase.is_empty()
                && phase.chars().next().is_some_and(|c| c.is_ascii_digit())
                && plan.chars().all(|c| c.is_ascii_digit()) =>
        {
            phase.to_owned()
        }
        _ => plan_id.to_owned(),
    }
}

fn parse_millis(a: &str, b: &str) -> u64 {
    let (Ok(a), Ok(b)) = (
        chrono::DateTime::parse_from_rfc3339(a),
        chrono::DateTime::parse_from_rfc3339(b),
    ) else {
        return 0;
    };
    b.signed_duration_since(a).num_milliseconds().max(0) as u64
}

/// Reads every run and task recorded in `repo`, through the digests of
/// runs read before ([`super::digest`]).
pub fn collect(repo: &Repo, filter: &Filter) -> Result<Record> {
    let mut record = Record::default();
    let mut seen_attempts: BTreeSet<(String, u32, u32)> = BTreeSet::new();
    let mut seen_runs: BTreeSet<(String, Option<u32>)> = BTreeSet::new();
    let mut digests = Digests::open(repo);
    for slug in catalog::slugs(repo)? {
        if filter.slugs.as_ref().is_some_and(|s| !s.contains(&slug)) {
            continue;
        }
        for state in catalog::states(repo, &slug)? {
            for p in digests.chain(repo, &state.ref_name)? {
                if !seen_runs.insert((p.run_id.clone(), p.session)) {
                    continue;
                }
                // Attempts grouped into tasks, in the order they ran.
                let mut tasks: BTreeMap<u32, Task> = BTreeMap::new();
                let mut plan_id = String::new();
                for attempt in &p.attempts {
                    if !seen_attempts.insert((p.run_id.clone(), attempt.step, attempt.attempt)) {
                        continue;
                    }
                    plan_id = attempt.plan_id.clone();
                    let task = tasks.entry(attempt.step).or_insert_with(|| Task {
                        plan: p.plan.clone(),
                        plan_id: plan_id.clone(),
                        phase: phase_of(&plan_id),
                        run_id: p.run_id.clone(),
                        session: p.session,
                        step: attempt.step,
                        task_name: attempt.task_name.clone(),
                        status: String::new(),
                        attempts: 0,
                        duration_ms: 0,
                        files_modified: 0,
                        logged_at: String::new(),
                        executor: String::new(),
                        usage: Usage::default(),
                    });
                    task.attempts += 1;
                    task.executor = attempt.executor.clone();
                    task.usage.add(&attempt.usage);
                    task.duration_ms += attempt.duration_ms;
                    task.status = attempt.status.clone();
                    task.files_modified = attempt.files_modified;
                    task.logged_at = attempt.logged_at.clone();
                    if filter.time_ok(&task.logged_at) {
                        let yaml = if filter.records {
                            let blob = Oid::from_hex(attempt.blob.as_bytes())?;
                            String::from_utf8_lossy(&repo.read_blob(blob)?).into_owned()
                        } else {
                            String::new()
                        };
                        record.attempts.push(Attempt {
                            plan_id: plan_id.clone(),
                            run_id: p.run_id.clone(),
                            step: attempt.step,
                            attempt: attempt.attempt,
                            status: task.status.clone(),
                            logged_at: task.logged_at.clone(),
                            yaml,
                        });
                    }
                }
                for (step, task) in &mut tasks {
                    if p.skipped.contains(step) {
                        task.status = "skipped".into();
                    }
                }
                let mut run_usage = Usage::default();
                let mut run_executor = String::new();
                for t in tasks.values() {
                    run_usage.add(&t.usage);
                    run_executor = t.executor.clone();
                }
                record
                    .tasks
                    .extend(tasks.into_values().filter(|t| filter.time_ok(&t.logged_at)));
                if !filter.time_ok(&p.started_at) {
                    continue;
                }
                let plan_id = if plan_id.is_empty() { slug.clone() } else { plan_id };
                record.runs.push(PlanRun {
                    plan: p.plan.clone(),
                    phase: phase_of(&plan_id),
                    plan_id,
                    run_id: p.run_id.clone(),
                    session: p.session,
                    status: p.status.clone(),
                    started_at: p.started_at.clone(),
                    updated_at: p.updated_at.clone(),
                    duration_ms: parse_millis(&p.started_at, &p.updated_at),
                    steps_total: p.total_steps,
                    steps_passed: p.steps_passed,
                    executor: run_executor,
                    usage: run_usage,
                });
            }
        }
    }
    digests.save(repo, filter.slugs.is_none());
    record
        .tasks
        .sort_by(|a, b| (&a.logged_at, &a.run_id, a.step).cmp(&(&b.logged_at, &b.run_id, b.step)));
    record
        .runs
        .sort_by(|a, b| (&a.updated_at, &a.run_id).cmp(&(&b.updated_at, &b.run_id)));
    Ok(record)
}

#[cfg(test)]
mod tests {
    #[test]
    fn phases_of_plan_ids() {
        assert_eq!(super::phase_of("03-01"), "03");
        assert_eq!(super::phase_of("12.5-05"), "12.5");
        assert_eq!(super::phase_of("demo-plan"), "demo-plan");
        assert_eq!(super::phase_of("plan"), "plan");
    }
}
