//! Seed `000_…`'s metrics over a [`Record`]: counts, retries, success rate,
//! durations and files per plan, per phase and per day (the fields of its
//! `daily-YYYY-MM-DD.json`), velocity, and the recent trend.

use std::collections::BTreeMap;

use serde::Serialize;

use super::collect::{PlanRun, Record, Task};
use crate::ultraplan::result::Usage;

/// Counters over a set of tasks, named as the seed's daily summary names them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counts {
    pub tasks_executed: usize,
    pub tasks_succeeded: usize,
    pub tasks_failed: usize,
    pub tasks_blocked: usize,
    pub tasks_skipped: usize,
    pub total_retries: u64,
    pub success_rate: f64,
    pub total_duration_ms: u64,
    pub average_duration_ms: u64,
    pub min_duration_ms: Option<u64>,
    pub max_duration_ms: Option<u64>,
    pub files_modified_count: usize,
    /// Cost and tokens, as the executors reported them (agent executors).
    #[serde(flatten)]
    pub usage: Usage,
}

impl Counts {
    fn of<'a>(tasks: impl IntoIterator<Item = &'a Task>) -> Counts {
        let mut c = Counts::default();
        let mut timed = 0u64;
        for t in tasks {
            c.tasks_executed += 1;
            match t.status.as_str() {
                "success" => c.tasks_succeeded += 1,
                "blocked" => c.tasks_blocked += 1,
                "skipped" => c.tasks_skipped += 1,
                _ => c.tasks_failed += 1,
            }
            c.total_retries += u64::from(t.attempts.saturating_sub(1));
            c.files_modified_count += t.files_modified;
            c.usage.add(&t.usage);
            if t.duration_ms > 0 {
                timed += 1;
                c.total_duration_ms += t.duration_ms;
                c.min_duration_ms = Some(c.min_duration_ms.map_or(t.duration_ms, |m| m.min(t.duration_ms)));
                c.max_duration_ms = Some(c.max_duration_ms.map_or(t.duration_ms, |m| m.max(t.duration_ms)));
            }
        }
        if c.tasks_executed > 0 {
            c.success_rate = round2(c.tasks_succeeded as f64 / c.tasks_executed as f64);
        }
        c.average_duration_ms = c.total_duration_ms.checked_div(timed).unwrap_or(0);
        c
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// A plan's (or phase's) runs: how many completed and how long they took.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Velocity {
    pub plans_completed: usize,
    pub plans_total: usize,
    pub total_duration_ms: u64,
    pub average_duration_ms: u64,
}

impl Velocity {
    fn of<'a>(runs: impl IntoIterator<Item = &'a PlanRun>) -> Velocity {
        let mut v = Velocity::default();
        for r in runs {
            v.plans_total += 1;
            if r.status == "completed" {
                v.plans_completed += 1;
                v.total_duration_ms += r.duration_ms;
            }
        }
        v.average_duration_ms = v.total_duration_ms.checked_div(v.plans_completed as u64).unwrap_or(0);
        v
    }
}

/// The seed's trend over the last five completed plans' durations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trend {
    Improving,
    Declining,
    Stable,
    /// Fewer than five completed plans: no trend yet.
    Unknown,
}

impl Trend {
    /// Seed `000_…`: "Improving" if the average of the last 2 is below the
    /// average of the first 3; "Declining" if above it by more than 20 %;
    /// else "Stable". `durations` are oldest first, five of them.
    pub fn of(durations: &[u64]) -> Trend {
        if durations.len() < 5 {
            return Trend::Unknown;
        }
        let last5 = &durations[durations.len() - 5..];
        let first3 = last5[..3].iter().sum::<u64>() as f64 / 3.0;
        let last2 = last5[3..].iter().sum::<u64>() as f64 / 2.0;
        if last2 < first3 {
            Trend::Improving
        } else if last2 > first3 * 1.2 {
            Trend::Declining
        } else {
            Trend::Stable
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Trend::Improving => "Improving",
            Trend::Declining => "Declining",
            Trend::Stable => "Stable",
            Trend::Unknown => "n/a (fewer than 5 completed plans)",
        }
    }
}

/// One row of a grouping (a plan, a phase or a day).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    pub key: String,
    #[serde(flatten)]
    pub counts: Counts,
    #[serde(flatten)]
    pub velocity: Velocity,
}

/// Everything `stats` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metrics {
    #[serde(flatten)]
    pub totals: Counts,
    pub velocity: Velocity,
    pub by_plan: Vec<Group>,
    pub by_phase: Vec<Group>,
    pub by_day: Vec<Group>,
    /// By executor (`claude`, `codex`, `shell`, …): what each agent costs.
    pub by_agent: Vec<Group>,
    /// By run id.
    pub by_run: Vec<Group>,
    /// Durations of the last five completed plans, oldest first.
    pub recent_durations_ms: Vec<u64>,
    pub trend: Trend,
}

fn groups(record: &Record, key_task: fn(&Task) -> String, key_run: fn(&PlanRun) -> String) -> Vec<Group> {
    let mut tasks: BTreeMap<String, Vec<&Task>> = BTreeMap::new();
    for t in &record.tasks {
        tasks.entry(key_task(t)).or_default().push(t);
    }
    let mut runs: BTreeMap<String, Vec<&PlanRun>> = BTreeMap::new();
    for r in record.runs.iter().filter(|r| r.session.is_none()) {
        runs.entry(key_run(r)).or_default().push(r);
    }
    let keys: std::collections::BTreeSet<String> = tasks.keys().chain(runs.keys()).cloned().collect();
    keys.into_iter()
        .map(|key| Group {
            counts: Counts::of(tasks.get(&key).into_iter().flatten().copied()),
            velocity: Velocity::of(runs.get(&key).into_iter().flatten().copied()),
            key,
        })
        .collect()
}

impl Metrics {
    /// The metrics of `record`. A plan's velocity counts its foreground or
    /// orchestrating runs; its sessions' runs are parts of those.
    pub fn of(record: &Record) -> Metrics {
        let plan_runs: Vec<&PlanRun> = record.runs.iter().filter(|r| r.session.is_none()).collect();
        let completed: Vec<u64> = plan_runs
            .iter()
            .filter(|r| r.status == "completed")
            .map(|r| r.duration_ms)
            .collect();
        let recent = completed[completed.len().saturating_sub(5)..].to_vec();
        Metrics {
            totals: Counts::of(&record.tasks),
            velocity: Velocity::of(plan_runs.iter().copied()),
            by_plan: groups(record, |t| t.plan_id.clone(), |r| r.plan_id.clone()),
            by_phase: groups(record, |t| t.phase.clone(), |r| r.phase.clone()),
            by_day: groups(
                record,
                |t| t.logged_at.get(..10).unwrap_or_default().to_owned(),
                |r| r.updated_at.get(..10).unwrap_or_default().to_owned(),
            ),
            by_agent: groups(record, |t| t.executor.clone(), |r| r.executor.clone()),
            by_run: groups(record, |t| t.run_id.clone(), |r| r.run_id.clone()),
            trend: Trend::of(&recent),
            recent_durations_ms: recent,
        }
    }
}

/// `1h 05m`, `28m`, `42s`: durations as the seed's STATE.md writes them.
pub fn human_duration(ms: u64) -> String {
    let s = ms / 1000;
    match (s / 3600, (s % 3600) / 60) {
        (0, 0) => format!("{s}s"),
        (0, m) => format!("{m}m"),
        (h, m) => format!("{h}h {m:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_trend_rule_at_its_edges() {
        assert_eq!(Trend::of(&[10, 10, 10, 10]), Trend::Unknown);
        assert_eq!(Trend::of(&[30, 30, 30, 20, 20]), Trend::Improving);
        assert_eq!(Trend::of(&[30, 30, 30, 30, 30]), Trend::Stable);
        assert_eq!(
            Trend::of(&[30, 30, 30, 36, 36]),
            Trend::Stable,
            "20 % above is not more than 20 %"
        );
        assert_eq!(Trend::of(&[30, 30, 30, 36, 38]), Trend::Declining);
        assert_eq!(
            Trend::of(&[99, 30, 30, 30, 20, 20]),
            Trend::Improving,
            "only the last five count"
        );
    }

    #[test]
    fn durations_read_like_the_seeds() {
        assert_eq!(human_duration(42_000), "42s");
        assert_eq!(human_duration(28 * 60_000), "28m");
        assert_eq!(human_duration(5 * 3_600_000 + 36 * 60_000), "5h 36m");
    }
}
