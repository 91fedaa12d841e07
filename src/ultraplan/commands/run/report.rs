//! The final report of a run (DESIGN §9.2, seed 004 Phase 8) for people,
//! and its `ultraexecute_summary` machine block, which goes only to `--json`
//! output or the `--summary-file` (never at the end of the human report:
//! a person reads the report, a program reads JSON from its own channel).

use serde_json::json;

use crate::cli::table;
use crate::ultraplan::engine::{RunReport, RunResult};

/// `{"ultraexecute_summary": {…}}`.
pub fn summary_json(report: &RunReport) -> serde_json::Value {
    let mut value = json!({
        "ultraexecute_summary": {
            "plan": report.plan,
            "plan_type": report.plan_type,
            "mode": report.mode,
            "result": report.result.summary_word(),
            "steps_total": report.steps.len(),
            "steps_passed": report.count("passed"),
            "steps_failed": report.failed(),
            "steps_skipped": report.count("skipped"),
            "steps_not_reached": report.not_reached(),
            "failed_at_step": report.failed_at_step,
            "exit_condition": report.exit_condition,
            "progress_ref": report.progress_ref,
            "steps": report.steps,
        }
    });
    if !report.verification.is_empty() {
        value["ultraexecute_summary"]["verification"] = json!(report.verification);
    }
    if let Some(cost) = report.usage.cost_usd {
        value["ultraexecute_summary"]["total_cost_usd"] = json!((cost * 1e6).round() / 1e6);
    }
    if let Some(tokens) = report.usage.tokens {
        value["ultraexecute_summary"]["tokens"] = json!(tokens);
    }
    value
}

pub fn render(report: &RunReport, plan_arg: &str) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line("Ultraplan run complete".into());
    line(String::new());
    line(format!("Plan: {}", report.plan));
    line(format!("Type: {}", report.plan_type));
    line(format!("Mode: {}", report.mode));
    let at = report
        .failed_at_step
        .map(|n| format!(" at step {n}"))
        .unwrap_or_default();
    let result = match report.result {
        RunResult::Completed => "COMPLETED".to_owned(),
        RunResult::Failed => format!("FAILED{at}"),
        RunResult::Stopped => match report.failure.as_ref().map(|f| f.status.as_str()) {
            Some("escalated") => format!("STOPPED (escalation){at}"),
            Some("waiting") => format!("STOPPED (waiting for a person){at}"),
            Some("blocked") => format!("STOPPED (blocked){at}"),
            _ => format!("STOPPED{at}"),
        },
        RunResult::Interrupted => "STOPPED (interrupted)".into(),
    };
    line(format!("Result: {result}"));
    line(String::new());
    line("Step results".into());
    let rows: Vec<Vec<String>> = report
        .steps
        .iter()
        .map(|s| {
            vec![
                s.number.to_string(),
                s.title.clone(),
                word(s.result).into(),
                s.attempts.to_string(),
                s.commit.as_deref().map_or("—".into(), |c| c.chars().take(7).collect()),
            ]
        })
        .collect();
    out.push_str(&table::render(
        &["Step", "Description", "Result", "Attempts", "Commit"],
        &rows,
        48,
        2,
    ));
    out.push('\n');
    out.push_str("Summary\n");
    out.push_str(&format!(
        "  Passed: {}/{}\n  Skipped: {}\n  Failed: {}{}\n  Not reached: {}\n",
        report.count("passed"),
        report.steps.len(),
        report.count("skipped"),
        report.failed(),
        match report.failed() - report.count("failed") {
            0 => String::new(),
            n => format!(" ({n} stopped for a person)"),
        },
        report.not_reached()
    ));
    if report.exit_condition != "n/a" {
        out.push_str(&format!("  Exit condition: {}\n", report.exit_condition.to_uppercase()));
    }
    if !report.usage.is_empty() {
        out.push_str(&format!(
            "  Cost: {} (as the agent reported it); tokens: {}\n",
            report.usage.cost_text(),
            report.usage.tokens_text()
        ));
    }
    out.push_str(&notes_hint(report));
    out.push_str(&verification(&report.verification));
    if let Some(f) = &report.failure {
        out.push_str("\nFailure details\n");
        match f.step {
            // Not a step: a session, a merge, a condition or the Verification.
            None => out.push_str(&format!(
                "  {}\n  Status: {}\n  Then: {}\n",
                upper_first(&f.title),
                f.status.as_str(),
                f.policy
            )),
            Some(n) => out.push_str(&format!(
                "  Step {n}: {}\n  Status: {}\n  On failure: {}\n  Attempts: {}\n",
                f.title,
                f.status.as_str(),
                f.policy,
                f.attempts
            )),
        }
        let error: Vec<&str> = f.error.lines().take(20).collect();
        out.push_str(&format!("  Error: {}\n", error.join("\n         ")));
    }
    if let Some(text) = &report.instructions {
        out.push_str("\nWaiting for you\n");
        for l in text.lines() {
            out.push_str(&format!("  {l}\n"));
        }
        if !text.contains(crate::ultraplan::plan::ANSWER_HINT) && !text.contains("--resume --answer") {
            out.push_str("  Make the change, then run the resume command below; git-ultraplan verifies it.\n");
        }
    }
    let remaining: Vec<_> = report
        .steps
        .iter()
        .filter(|s| !matches!(s.result, "passed" | "skipped"))
        .collect();
    if !remaining.is_empty() && report.result != RunResult::Completed {
        out.push_str("\nWhat remains\n");
        for (i, s) in remaining.iter().enumerate() {
            out.push_str(&format!("  {}. Step {}: {}\n", i + 1, s.number, s.title));
        }
        let session = report.session.map(|n| format!("--session {n} ")).unwrap_or_default();
        let plan = crate::cli::shell::operand(plan_arg);
        match report.failure.as_ref().filter(|f| f.error.contains(crate::ultraplan::exec::NOTHING_TO_RUN)) {
            // Resuming with the shell executor would block again.
            Some(f) => out.push_str(&format!(
                "\nThe shell executor runs only fenced sh, bash or diff blocks. To go on, add one to {} Changes\nand resume, or have the change made by someone who reads prose:\n  git ultraplan run --resume --executor manual {session}{plan}   (you make it; ultraplan verifies)\n  git ultraplan run --resume --executor claude {session}{plan}   (a coding agent makes it)\n",
                f.step.map_or("the step's".to_owned(), |n| format!("step {n}'s"))
            )),
            None => out.push_str(&format!("\nTo resume: git ultraplan run --resume {session}{plan}\n")),
        }
    }
    if !report.warnings.is_empty() {
        out.push_str("\nWarnings\n");
        for w in &report.warnings {
            out.push_str(&format!("  {w}\n"));
        }
    }
    out
}

/// How to read a checkpoint's recorded result with plain git. The notes
/// live under refs/notes/ultraplan, so a bare `git notes show` (which reads
/// core.notesRef, default refs/notes/commits) finds nothing; ultraplan does
/// not point core.notesRef there, as every `git notes add` of the user's
/// would then write into the results, where a note that is not a result
/// makes the pre-push gate refuse the push. `sync --setup` makes `git log`
/// show them (notes.displayRef).
fn notes_hint(report: &RunReport) -> String {
    match report.steps.iter().rev().find_map(|s| s.commit.as_deref()) {
        Some(commit) => {
            let short: String = commit.chars().take(7).collect();
            format!(
                "\nResults are git notes on the checkpoints; read one with\n  git notes --ref=ultraplan show {short}\n"
            )
        }
        None => String::new(),
    }
}

/// The `## Verification` items as the report lists them, PASS or FAIL each
/// (nothing when the plan has none).
fn verification(checked: &[crate::ultraplan::engine::plan_verification::Checked]) -> String {
    let mut out = String::new();
    if !checked.is_empty() {
        out.push_str("\nVerification\n");
        for c in checked {
            let word = if c.passed { "PASS" } else { "FAIL" };
            out.push_str(&format!("  {word} {} ({})\n", c.command, c.detail));
        }
    }
    out
}

fn word(status: &str) -> &'static str {
    match status {
        "passed" => "PASS",
        "failed" => "FAIL",
        "skipped" => "SKIPPED",
        "escalated" => "ESCALATED",
        "blocked" => "BLOCKED",
        "waiting" => "WAITING",
        "running" => "RUNNING",
        _ => "—",
    }
}

/// The summary of a multi-session run: the usual block plus `sessions`,
/// `conflicts` and `risk`.
pub fn waves_json(w: &crate::ultraplan::engine::waves::WavesReport) -> serde_json::Value {
    let mut value = summary_json(&w.run);
    let summary = &mut value["ultraexecute_summary"];
    summary["sessions"] = json!(w
        .sessions
        .iter()
        .map(|s| json!({
            "number": s.number,
            "title": s.title,
            "wave": s.wave,
            "result": s.result,
            "merged": s.merged,
            "merge_commit": s.merge_commit,
            "log": s.log,
        }))
        .collect::<Vec<_>>());
    summary["conflicts"] = json!(w.conflicts);
    summary["risk"] = json!(w.risk.as_ref().map(|r| json!({
        "level": r.level,
        "files_changed": r.files_changed,
        "lines_changed": r.lines_changed,
        "action": r.action,
    })));
    summary["verification"] = json!(w.verification);
    value
}

pub fn render_waves(w: &crate::ultraplan::engine::waves::WavesReport, plan_arg: &str) -> String {
    let mut out = render(&w.run, plan_arg);
    let mut sections = String::from("\nSessions\n");
    let rows: Vec<Vec<String>> = w
        .sessions
        .iter()
        .map(|s| {
            vec![
                s.wave.to_string(),
                format!("Session {}: {}", s.number, s.title),
                s.result.to_uppercase(),
                if s.merged { "yes".into() } else { "no".into() },
                s.merge_commit
                    .as_deref()
                    .map_or("—".into(), |c| c.chars().take(7).collect()),
            ]
        })
        .collect();
    sections.push_str(&table::render(
        &["Wave", "Session", "Result", "Merged", "Merge commit"],
        &rows,
        48,
        2,
    ));
    for c in &w.conflicts {
        match &c.refused {
            Some(_) => sections.push_str(&format!(
                "\nMerge refused: session {} would overwrite files in the working tree:\n",
                c.session
            )),
            None => sections.push_str(&format!(
                "\nMerge conflict: session {} conflicts with the merged work in:\n",
                c.session
            )),
        }
        for p in &c.paths {
            sections.push_str(&format!("  {p}\n"));
        }
        sections.push_str("Nothing was changed by this merge: HEAD, index and working tree are as they were.\n");
        sections.push_str(&format!(
            "The session's work is kept in the run state; to merge it by hand:\n  git merge --no-ff {}\n",
            &c.tip[..c.tip.len().min(12)]
        ));
    }
    sections.push_str(&verification(&w.verification));
    if let Some(r) = &w.risk {
        sections.push_str("\nRisk assessment\n");
        sections.push_str(&table::render(
            &["Factor", "Value", "Risk"],
            &[
                vec![
                    "Files changed".into(),
                    r.files_changed.to_string(),
                    crate::ultraplan::engine::risk::assess(r.files_changed, 0).level.into(),
                ],
                vec![
                    "Lines changed".into(),
                    r.lines_changed.to_string(),
                    crate::ultraplan::engine::risk::assess(0, r.lines_changed).level.into(),
                ],
                vec!["Overall risk".into(), String::new(), r.level.to_uppercase()],
            ],
            40,
            2,
        ));
        sections.push_str(&format!("  Recommended action: {}\n", r.action));
    }
    out.push_str(&sections);
    out
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
