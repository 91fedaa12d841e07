//! The report `check` prints: the plan's overview, the table of steps, the
//! file references, conditions, the execution preview, the Verify
//! commands, and the findings with the verdict.

use crate::cli::color::Paint;
use crate::cli::table;
use crate::ultraplan::plan::check::{CheckReport, Reference, Verdict};
use crate::ultraplan::plan::{Checkpoint, Plan};

/// Seed 004's dry-run report, as plain text.
pub(super) fn render(file: &str, plan: &Plan, report: &CheckReport, executor: &str, paint: Paint) -> String {
    let mut out = String::new();
    overview(&mut out, file, plan, paint);
    line(
        &mut out,
        &format!("Executor: {executor} (the verdict assumes it; --executor to check for another)"),
    );
    out.push('\n');
    step_table(&mut out, plan, report, paint);
    skipped(&mut out, plan, paint);
    file_references(&mut out, report, paint);
    conditions(&mut out, plan, paint);
    execution_preview(&mut out, file, plan, paint);
    verification(&mut out, plan, paint);
    findings_and_verdict(&mut out, report, paint);
    out
}

fn line(out: &mut String, s: &str) {
    out.push_str(s);
    out.push('\n');
}

/// The plan's kind, id, title, size and strategy.
fn overview(out: &mut String, file: &str, plan: &Plan, paint: Paint) {
    line(out, &paint.bold(format!("Dry run report: {file}")));
    line(out, "");
    line(out, &format!("Type: {}", plan.kind.as_str()));
    if let Some(why) = &plan.format_reason {
        line(out, &format!("Read as: {why}"));
    }
    line(out, &format!("Plan: {}", plan.plan_id));
    if let Some(title) = &plan.title {
        line(out, &format!("Title: {title}"));
    }
    if let Some(version) = &plan.plan_version {
        line(out, &format!("Plan version: {version}"));
    }
    line(out, &format!("Steps: {}", plan.steps.len()));
    line(out, &format!("Strategy: {}", plan.strategy()));
    if let Some(note) = &plan.verify_note {
        line(out, &format!("Verify: {note}"));
    }
    if let Some(spec) = &plan.session_spec {
        let session = plan.sessions.first();
        line(
            out,
            &format!(
                "Scope fence: {} touch, {} never-touch",
                session.map_or(0, |s| s.touch.len()),
                session.map_or(0, |s| s.never_touch.len())
            ),
        );
        if let Some(master) = &spec.master_plan {
            line(out, &format!("Master plan: {master}"));
        }
    }
}

/// One row per step: its Verify, failure policy, checkpoint and issues.
fn step_table(out: &mut String, plan: &Plan, report: &CheckReport, paint: Paint) {
    line(out, &paint.bold("Step validation"));
    let issues = issues_by_step(report);
    let rows: Vec<Vec<String>> = plan
        .steps
        .iter()
        .map(|step| {
            vec![
                step.number.to_string(),
                step.title.clone(),
                match (&step.verify, &step.human, step.verified_by) {
                    (Some(v), _, _) => v.command.clone(),
                    (None, Some(h), _) => format!("(a person: {})", h.kind.as_str()),
                    (None, None, Some(n)) => format!("(checked by step {n})"),
                    (None, None, None) => "—".into(),
                },
                step.on_failure.action.as_str().to_owned(),
                match &step.checkpoint {
                    Some(Checkpoint::Commit { message }) => message.clone(),
                    Some(Checkpoint::Command { command }) => command.clone(),
                    None => "none".into(),
                },
                match (&step.skip, step.optional) {
                    (Some(_), _) => format!("skipped; {}", step_issues(step.number, &issues)),
                    (None, true) => format!("optional; {}", step_issues(step.number, &issues)),
                    (None, false) => step_issues(step.number, &issues),
                },
            ]
        })
        .collect();
    let table = table::render(
        &["Step", "Description", "Verify", "On failure", "Checkpoint", "Issues"],
        &rows,
        40,
        2,
    );
    out.push_str(&table);
}

/// Steps the run will skip, and why.
fn skipped(out: &mut String, plan: &Plan, paint: Paint) {
    let skipped: Vec<_> = plan
        .steps
        .iter()
        .filter_map(|s| s.skip.as_ref().map(|w| (s.number, w)))
        .collect();
    if skipped.is_empty() {
        return;
    }
    out.push('\n');
    out.push_str(&paint.bold(format!("Skipped ({})", skipped.len())));
    out.push('\n');
    for (n, why) in skipped {
        out.push_str(&format!("  step {n}: {why}\n"));
    }
}

/// What the plan's file references point at: each path once, as its first
/// step finds it (a later step's reference to a file an earlier one makes
/// says nothing new), with the steps listing it when there are several.
/// `--json` keeps every reference with its step.
fn file_references(out: &mut String, report: &CheckReport, paint: Paint) {
    if report.file_references.is_empty() {
        return;
    }
    out.push('\n');
    out.push_str(&paint.bold("File references"));
    out.push('\n');
    let mut steps: std::collections::HashMap<&str, Vec<u32>> = Default::default();
    let mut first = Vec::new();
    for r in &report.file_references {
        let listed = steps.entry(r.path.as_str()).or_default();
        if listed.is_empty() {
            first.push(r);
        }
        if !listed.contains(&r.step) {
            listed.push(r.step);
        }
    }
    for r in first {
        let status = match r.status {
            Reference::NotFound => paint.yellow(r.status.describe()),
            _ => r.status.describe().to_owned(),
        };
        let listed = &steps[r.path.as_str()];
        let by = if listed.len() > 1 {
            let numbers: Vec<String> = listed.iter().map(u32::to_string).collect();
            format!(" (steps {})", numbers.join(", "))
        } else {
            String::new()
        };
        out.push_str(&format!("  {}{by}: {status}\n", r.path));
    }
}

/// A session spec's entry and exit conditions.
fn conditions(out: &mut String, plan: &Plan, paint: Paint) {
    if let Some(spec) = &plan.session_spec {
        out.push('\n');
        out.push_str(&paint.bold("Entry / exit conditions"));
        out.push('\n');
        match &spec.entry_condition {
            Some(c) => out.push_str(&format!("  Entry: {}\n", describe_condition(c))),
            None => out.push_str("  Entry: none\n"),
        }
        for c in &spec.exit_conditions {
            out.push_str(&format!("  Exit:  {}\n", describe_condition(c)));
        }
    }
}

/// Sessions by wave, with the command that runs each.
fn execution_preview(out: &mut String, file: &str, plan: &Plan, paint: Paint) {
    if plan.is_multi_session() {
        out.push('\n');
        out.push_str(&paint.bold("Execution preview"));
        out.push('\n');
        out.push_str(&format!(
            "  Sessions: {} across {} waves\n",
            plan.sessions.len(),
            plan.waves.len()
        ));
        let mut rows = Vec::new();
        for session in &plan.sessions {
            let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
            rows.push(vec![
                session.wave.map_or("?".into(), |w| w.to_string()),
                format!("Session {}: {}", session.number, session.title),
                list(&session.steps),
                if session.depends_on.is_empty() {
                    "none".into()
                } else {
                    list(&session.depends_on)
                },
                format!(
                    "git ultraplan run --session {} {}",
                    session.number,
                    crate::cli::shell::operand(file)
                ),
            ]);
        }
        rows.sort_by_key(|r| r[0].parse::<u32>().unwrap_or(u32::MAX));
        out.push_str(&table::render(
            &["Wave", "Session", "Steps", "Depends on", "Command"],
            &rows,
            60,
            2,
        ));
    }
}

/// The plan's `## Verification` checks.
fn verification(out: &mut String, plan: &Plan, paint: Paint) {
    if !plan.verification.is_empty() {
        out.push('\n');
        out.push_str(&paint.bold("Verification"));
        out.push('\n');
        for check in &plan.verification {
            match &check.expected {
                Some(e) => out.push_str(&format!("  {} → expected: {e}\n", check.command)),
                None => out.push_str(&format!("  {}\n", check.command)),
            }
        }
    }
}

/// Problems, warnings and the verdict.
fn findings_and_verdict(out: &mut String, report: &CheckReport, paint: Paint) {
    let problems: Vec<_> = report.problems().collect();
    let warnings: Vec<_> = report.warnings().collect();
    if !problems.is_empty() {
        out.push('\n');
        out.push_str(&paint.red(paint.bold(format!("Problems ({})", problems.len()))));
        out.push('\n');
        for d in &problems {
            out.push_str(&format!("  line {}: {}\n", d.line, d.message));
        }
    }
    if !warnings.is_empty() {
        out.push('\n');
        out.push_str(&paint.yellow(paint.bold(format!("Warnings ({})", warnings.len()))));
        out.push('\n');
        for d in &warnings {
            out.push_str(&format!("  line {}: {}\n", d.line, d.message));
        }
    }

    out.push('\n');
    let verdict = match report.verdict() {
        Verdict::Ready => paint.green(paint.bold("READY")),
        Verdict::NeedsAttention => paint.red(paint.bold(format!(
            "NEEDS ATTENTION — {} problem{} found",
            problems.len(),
            if problems.len() == 1 { "" } else { "s" }
        ))),
    };
    out.push_str(&format!("Verdict: {verdict}\n"));
}

fn describe_condition(c: &crate::ultraplan::plan::Condition) -> String {
    match &c.check {
        Some(check) => match &check.expected {
            Some(e) => format!("run `{}` → expected: {e}", check.command),
            None => format!("run `{}` (exit code decides)", check.command),
        },
        None => format!("{} (prose; checked by a person)", c.text),
    }
}

/// How many problems and warnings name each step (`step N: …`, `task N: …`),
/// counted in one pass over the diagnostics.
fn issues_by_step(report: &CheckReport) -> std::collections::HashMap<u32, (usize, usize)> {
    let mut counts = std::collections::HashMap::new();
    for d in &report.diagnostics {
        let Some(rest) = d
            .message
            .strip_prefix("step ")
            .or_else(|| d.message.strip_prefix("task "))
        else {
            continue;
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let named = rest[digits.len()..].starts_with([':', ' ']);
        if let (Ok(n), true) = (digits.parse::<u32>(), named) {
            let entry: &mut (usize, usize) = counts.entry(n).or_default();
            match d.severity {
                crate::ultraplan::plan::Severity::Problem => entry.0 += 1,
                crate::ultraplan::plan::Severity::Warning => entry.1 += 1,
            }
        }
    }
    counts
}

/// "none", or how many problems and warnings name the step.
fn step_issues(number: u32, counts: &std::collections::HashMap<u32, (usize, usize)>) -> String {
    match counts.get(&number).copied().unwrap_or_default() {
        (0, 0) => "none".into(),
        (p, 0) => plural(p, "problem"),
        (0, w) => plural(w, "warning"),
        (p, w) => format!("{}, {}", plural(p, "problem"), plural(w, "warning")),
    }
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}
