//! Seed 004's stats line: one JSON line per finished run, appended to
//! `$XDG_DATA_HOME/git-ultraplan/stats.jsonl` (outside any repository, so a
//! user's runs everywhere are in one file). Writing it never fails a run.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::RunReport;

/// Appends the line for `report`; a directory or file that cannot be
/// written is passed over in silence.
pub fn append(report: &RunReport) {
    let Some(dir) = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
    else {
        return;
    };
    let dir = dir.join("git-ultraplan");
    let line = json!({
        "ts": crate::ultraplan::state::now(),
        "plan": Path::new(&report.plan).file_name().map(|n| n.to_string_lossy().into_owned()),
        "plan_type": report.plan_type,
        "mode": report.mode,
        "result": report.result.summary_word(),
        "steps_total": report.steps.len(),
        "steps_passed": report.count("passed"),
        "steps_failed": report.failed(),
        "steps_skipped": report.count("skipped"),
        "failed_at_step": report.failed_at_step,
    });
    let _ = std::fs::create_dir_all(&dir).and_then(|_| {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("stats.jsonl"))?;
        writeln!(file, "{line}")
    });
}
