//! Seed `000_…`'s log directory as a view of the record:
//!
//! ```text
//! executions/<YYYY-MM-DD>/<plan-id>-task-<NN>-<status>.yaml   one per attempt
//! summary/daily-<YYYY-MM-DD>.json                              one per day
//! current-session.json                                         the latest run
//! ```
//!
//! An execution file is the attempt's record exactly as stored (the metadata
//! header, then `result:`), which is the seed's format. Two attempts that
//! would share a name (a task failing twice on one day) are told apart by
//! `-2`, `-3` before `.yaml`. This module only lays out files in memory; the
//! command writes them.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::collect::Record;
use super::metrics::Metrics;

/// Relative path → contents.
pub type Files = BTreeMap<String, String>;

fn safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The seed's layout of `record`.
pub fn layout(record: &Record, metrics: &Metrics) -> Files {
    let mut files = Files::new();
    let mut taken = BTreeSet::new();
    for a in &record.attempts {
        let date = a.logged_at.get(..10).unwrap_or("unknown-date");
        let stem = format!(
            "executions/{}/{}-task-{:02}-{}",
            safe(date),
            safe(&a.plan_id),
            a.step,
            safe(&a.status)
        );
        let mut name = format!("{stem}.yaml");
        let mut n = 1;
        while !taken.insert(name.clone()) {
            n += 1;
            name = format!("{stem}-{n}.yaml");
        }
        files.insert(name, a.yaml.clone());
    }
    for day in &metrics.by_day {
        let c = &day.counts;
        let mut by_plan = serde_json::Map::new();
        for t in record.tasks.iter().filter(|t| t.logged_at.starts_with(&day.key)) {
            let entry = by_plan
                .entry(t.plan_id.clone())
                .or_insert_with(|| json!({"tasks": 0, "succeeded": 0, "failed": 0, "blocked": 0, "duration_ms": 0}));
            let bump = |v: &mut Value, k: &str, by: u64| v[k] = json!(v[k].as_u64().unwrap_or(0) + by);
            bump(entry, "tasks", 1);
            match t.status.as_str() {
                "success" => bump(entry, "succeeded", 1),
                "blocked" => bump(entry, "blocked", 1),
                "skipped" => bump(entry, "skipped", 1),
                _ => bump(entry, "failed", 1),
            }
            bump(entry, "duration_ms", t.duration_ms);
        }
        let summary = json!({
            "date": day.key,
            "tasks_executed": c.tasks_executed,
            "tasks_succeeded": c.tasks_succeeded,
            "tasks_failed": c.tasks_failed,
            "tasks_blocked": c.tasks_blocked,
            "total_retries": c.total_retries,
            "success_rate": c.success_rate,
            "total_duration_ms": c.total_duration_ms,
            "average_duration_ms": c.average_duration_ms,
            "by_plan": by_plan,
            "files_modified_count": c.files_modified_count,
        });
        files.insert(
            format!("summary/daily-{}.json", safe(&day.key)),
            serde_json::to_string_pretty(&summary).unwrap_or_default() + "\n",
        );
    }
    if let Some(latest) = record.runs.iter().max_by(|a, b| a.updated_at.cmp(&b.updated_at)) {
        let tasks: Vec<Value> = record
            .tasks
            .iter()
            .filter(|t| t.run_id == latest.run_id && t.session == latest.session)
            .map(|t| {
                json!({
                    "task_name": t.task_name,
                    "status": t.status,
                    "attempts": t.attempts,
                    "completed_at": t.logged_at,
                    "duration_ms": t.duration_ms,
                })
            })
            .collect();
        let session = json!({
            "session_id": latest.run_id,
            "started_at": latest.started_at,
            "plan_id": latest.plan_id,
            "tasks": tasks,
            "last_updated": latest.updated_at,
        });
        files.insert(
            "current-session.json".into(),
            serde_json::to_string_pretty(&session).unwrap_or_default() + "\n",
        );
    }
    files
}
