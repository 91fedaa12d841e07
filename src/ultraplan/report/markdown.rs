//! The report as Markdown, for a pull request's description or a CI job's
//! summary (GitHub's `$GITHUB_STEP_SUMMARY`, GitLab's Markdown reports):
//! the same content as the page, with the timeline as a compact table (one
//! row per step, wave by wave, its attempts as marks in the order they ran) and each
//! step's attempts folded in `<details>`, which both hosts render.
//!
//! Text from the record is escaped so that a title or a file name cannot
//! open a link, a table cell or an HTML element; command output goes into
//! a fence longer than any run of backticks it holds.

use std::fmt::Write as _;

use super::model::{duration_text, short, Report, Step};
use crate::ultraplan::engine::risk;

/// The whole document.
pub fn render(report: &Report) -> String {
    let mut out = String::with_capacity(2048 + report.steps.len() * 400);
    let _ = writeln!(out, "## {} — {}\n", text(&report.heading()), mark(&report.status));
    let attempts = report.attempts().count();
    let not_run = report.steps.len() - report.count("passed") - report.count("failed") - report.count("skipped");
    let _ = writeln!(
        out,
        "Plan `{}` · run `{}`{} · started {}{}{}\n",
        code(&report.plan),
        code(&report.run_id),
        if report.mode.is_empty() {
            String::new()
        } else {
            format!(" ({})", text(&report.mode))
        },
        text(&report.started_at),
        report
            .duration_ms()
            .map(|ms| format!(" · took {}", duration_text(ms)))
            .unwrap_or_default(),
        if report.executor.is_empty() {
            String::new()
        } else {
            format!(" · executor {}", text(&report.executor))
        },
    );
    let usage = report.usage();
    let _ = writeln!(
        out,
        "**{} passed, {} failed, {} skipped, {} not run** of {} steps ({} attempts) · cost {} · tokens {}\n",
        report.count("passed"),
        report.count("failed"),
        report.count("skipped"),
        not_run,
        report.steps.len(),
        attempts,
        text(&usage.cost_text()),
        text(&usage.tokens_text())
    );
    for w in &report.warnings {
        let _ = writeln!(out, "> warning: {}\n", text(w));
    }
    timeline(&mut out, report);
    if report.parallel {
        sessions(&mut out, report);
    }
    agents(&mut out, report);
    risk_table(&mut out, report);
    out.push_str("### Steps in detail\n\n");
    for step in &report.steps {
        step_details(&mut out, report, step);
    }
    out
}

/// ✅ passed, ❌ failed, … — a mark and the word, so it reads in plain text too.
fn mark(status: &str) -> String {
    let m = match super::model::tone(status) {
        "pass" => "✅",
        "fail" => "❌",
        "skip" => "⏭️",
        "stop" => "⏸️",
        _ => "⏳",
    };
    format!("{m} {}", text(status))
}

/// The attempts of a step as marks in the order they ran: `❌ ✅`.
fn attempt_marks(step: &Step) -> String {
    step.attempts
        .iter()
        .map(|a| match super::model::tone(&a.status) {
            "pass" => "✅",
            "fail" => "❌",
            "stop" => "⏸️",
            _ => "⏳",
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn commit(report: &Report, id: &str) -> String {
    match &report.commit_url {
        Some(prefix) => format!("[`{}`](<{}{}>)", short(id), url(prefix), url(id)),
        None => format!("`{}`", code(short(id))),
    }
}

fn timeline(out: &mut String, report: &Report) {
    out.push_str("### Timeline\n\n");
    if report.parallel {
        out.push_str("| Step | Session | Title | Attempts | Result | Time | Cost | Tokens | Checkpoint |\n|---:|---:|---|---|---|---:|---:|---|---|\n");
    } else {
        out.push_str("| Step | Title | Attempts | Result | Time | Cost | Tokens | Checkpoint |\n|---:|---|---|---|---:|---:|---|---|\n");
    }
    // Wave by wave, as a timeline reads (the record's whole seconds cannot
    // order the steps of one wave), the steps not run last.
    let wave = |step: &Step| report.lane(step.session).and_then(|l| l.wave).unwrap_or(0);
    let mut order: Vec<&Step> = report.steps.iter().collect();
    order.sort_by_key(|s| (s.attempts.is_empty(), wave(s), s.number));
    for step in order {
        let usage = step.usage();
        let _ = write!(out, "| {} |", step.number);
        if report.parallel {
            let _ = write!(out, " {} |", step.session.map(|s| s.to_string()).unwrap_or_default());
        }
        let _ = writeln!(
            out,
            " {} | {} | {} | {} | {} | {} | {} |",
            text(&step.title),
            attempt_marks(step),
            mark(&step.outcome()),
            duration_text(step.duration_ms()),
            text(&usage.cost_text()),
            text(&usage.tokens_text()),
            step.commit
                .as_deref()
                .map(|c| commit(report, c))
                .unwrap_or_else(|| "—".into())
        );
    }
    out.push('\n');
}

fn sessions(out: &mut String, report: &Report) {
    out.push_str("### Sessions\n\n| Wave | Session | Result | Merged | Merge commit |\n|---:|---|---|---|---|\n");
    for lane in &report.lanes {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            lane.wave.map(|w| w.to_string()).unwrap_or_default(),
            text(&lane.label()),
            mark(&lane.result),
            if lane.merged { "yes" } else { "no" },
            lane.merge_commit
                .as_deref()
                .map(|c| commit(report, c))
                .unwrap_or_else(|| "—".into())
        );
    }
    out.push('\n');
}

fn agents(out: &mut String, report: &Report) {
    out.push_str("### Cost by agent\n\n");
    let agents = report.agents();
    if agents.is_empty() {
        out.push_str("No attempt was recorded.\n\n");
        return;
    }
    out.push_str("| Executor | Model | Attempts | Time | Cost | Tokens |\n|---|---|---:|---:|---:|---|\n");
    for a in &agents {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            text(&a.executor),
            text(a.model.as_deref().unwrap_or("—")),
            a.attempts,
            duration_text(a.duration_ms),
            text(&a.usage.cost_text()),
            text(&a.usage.tokens_text())
        );
    }
    out.push('\n');
}

fn risk_table(out: &mut String, report: &Report) {
    out.push_str("### Risk assessment\n\n");
    let Some(r) = &report.risk else {
        let _ = writeln!(
            out,
            "No risk table: {}.\n",
            text(report.risk_note.as_deref().unwrap_or("nothing to measure"))
        );
        return;
    };
    let _ = writeln!(
        out,
        "| Factor | Value | Risk |\n|---|---:|---|\n| Files changed | {} | {} |\n| Lines changed | {} | {} |\n| **Overall risk** | | **{}** |\n\nRecommended action: {}\n",
        r.files_changed,
        risk::assess(r.files_changed, 0).level,
        r.lines_changed,
        risk::assess(0, r.lines_changed).level,
        r.level.to_uppercase(),
        text(r.action)
    );
}

fn step_details(out: &mut String, report: &Report, step: &Step) {
    let _ = writeln!(
        out,
        "<details{}><summary>Step {}: {} — {}</summary>\n",
        if step.status == "passed" { "" } else { " open" },
        step.number,
        text(&step.title),
        mark(&step.outcome())
    );
    if let Some(c) = &step.commit {
        let _ = writeln!(out, "Checkpoint {}\n", commit(report, c));
    }
    let files = step.files();
    if !files.is_empty() {
        out.push_str("Files changed:\n");
        for f in files {
            let _ = writeln!(out, "- `{}`", code(f));
        }
        out.push('\n');
    }
    if step.attempts.is_empty() {
        out.push_str("Not attempted in this run.\n\n");
    }
    for a in &step.attempts {
        let mut who = a.executor.clone();
        if let Some(m) = &a.model {
            let _ = write!(who, " ({m})");
        }
        let _ = write!(
            out,
            "**Attempt {}{}** — {} in {} by {}",
            a.number,
            if a.run > 1 {
                format!(" (run {})", a.run)
            } else {
                String::new()
            },
            mark(&a.status),
            duration_text(a.duration_ms),
            text(&who)
        );
        if !a.usage.is_empty() {
            let _ = write!(
                out,
                " · {} · {}",
                text(&a.usage.cost_text()),
                text(&a.usage.tokens_text())
            );
        }
        out.push_str("\n\n");
        if let Some(v) = &a.verify {
            let _ = writeln!(
                out,
                "Verify {}{}\n",
                code_span(&v.command),
                v.exit_code.map(|c| format!(" exited {c}")).unwrap_or_default()
            );
            if !v.output.trim().is_empty() {
                fenced(out, v.output.trim_end());
            }
        }
        if let Some(e) = &a.error {
            out.push_str("Error:\n\n");
            fenced(out, e.trim_end());
        }
        if !a.warnings.is_empty() {
            let _ = writeln!(out, "{}: {}\n", text(&a.validation), text(&a.warnings.join("; ")));
        }
    }
    out.push_str("</details>\n\n");
}

/// A fenced block that `body` cannot close early.
fn fenced(out: &mut String, body: &str) {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "{fence}text\n{body}\n{fence}\n");
}

/// Text for a paragraph or a table cell: one line, and nothing in it that
/// Markdown or HTML would read as markup.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' => out.push_str("&#124;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Text inside a one-line code span: backticks and table bars cannot end
/// it early, line breaks become spaces.
fn code(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '`' => '\'',
            '|' => '¦',
            '\n' | '\r' | '\t' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// A whole one-line code span for a paragraph or a list item (never a
/// table cell, where a bar ends the cell: [`code`] is for those): the text
/// as it is, bars and backticks included, inside a run of backticks longer
/// than any run in it (CommonMark), padded with a space where the text
/// starts or ends with a backtick.
fn code_span(s: &str) -> String {
    let body: String = s
        .chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect();
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if body.starts_with('`') || body.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// A link target inside `<…>`: nothing that ends it.
fn url(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '<' | '>' | ' ' | '\n' | '\r' | '\t') && !c.is_control())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_cannot_open_markup() {
        assert_eq!(
            text("a|b <script> [x](y) *z*"),
            "a&#124;b &lt;script&gt; \\[x\\](y) \\*z\\*"
        );
        assert_eq!(text("two\nlines"), "two lines");
        assert_eq!(code("a`b|c"), "a'b¦c");
        assert_eq!(code_span("grep -c x f | wc -l"), "`grep -c x f | wc -l`");
        assert_eq!(code_span("echo `date` ``x``"), "``` echo `date` ``x`` ```");
        assert_eq!(code_span("`a`"), "`` `a` ``");
    }

    #[test]
    fn a_fence_outlasts_the_backticks_inside() {
        let mut out = String::new();
        fenced(&mut out, "```\nrm -rf\n````");
        assert!(out.starts_with("`````text\n"), "{out}");
    }
}
