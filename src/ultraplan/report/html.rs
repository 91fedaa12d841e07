//! The report as one self-contained HTML page: the headline, the timeline
//! (inline SVG), the sessions and their merges, a table of steps with their
//! cost, cost by agent, the risk table, then a card per step with every
//! attempt's Verify command and output, its error and the files it changed
//! with its checkpoint commit.
//!
//! Everything that comes from the record goes through [`escape`]; the
//! record's texts were redacted when they were stored. The page needs no
//! script: a bar of the timeline is a link to its step's card, attempts
//! fold with `<details>`.

use std::fmt::Write as _;

use super::model::{duration_text, short, tone, Attempt, Report, Step};
use super::timeline;
use crate::html::{escape, page};
use crate::ultraplan::engine::risk;

/// The style the report needs beyond the page's and the timeline's.
const STYLE: &str = r#".legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:4px 0 8px;font-size:12px}
.legend i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:4px;vertical-align:-2px}
.legend .pass{background:var(--pass)}.legend .fail{background:var(--fail)}.legend .skip{background:var(--skip)}.legend .stop{background:var(--stop)}.legend .run{background:var(--run)}.legend .merge{background:var(--merge);transform:rotate(45deg) scale(.8)}.legend .retry{border:1px dashed var(--fg)}
details{margin:6px 0}summary{cursor:pointer}
.card h3{margin-top:4px}.card :target{outline:none}
.files{margin:4px 0;padding-left:20px}
"#;

/// The whole page.
pub fn render(report: &Report) -> String {
    let mut body = String::with_capacity(4096 + report.steps.len() * 1200);
    headline(&mut body, report);
    for w in &report.warnings {
        let _ = writeln!(body, "<p class=\"muted\">warning: {}</p>", escape(w));
    }
    body.push_str("<h2 id=\"timeline\">Timeline</h2>\n<div class=\"legend\" aria-hidden=\"true\"><span><i class=\"pass\"></i>passed</span><span><i class=\"fail\"></i>failed</span><span><i class=\"stop\"></i>blocked or stopped</span><span><i class=\"skip\"></i>skipped</span><span><i class=\"retry\"></i>a retry (outlined; labelled step·attempt)</span><span><i class=\"merge\"></i>merged session</span></div>\n<div class=\"scroll\">\n");
    body.push_str(&timeline::svg(report));
    body.push_str("</div>\n");
    if report.parallel {
        sessions(&mut body, report);
    }
    steps_table(&mut body, report);
    agents(&mut body, report);
    risk_table(&mut body, report);
    body.push_str("<h2 id=\"details\">Steps in detail</h2>\n");
    for step in &report.steps {
        step_card(&mut body, report, step);
    }
    let _ = writeln!(
        body,
        "<p class=\"muted\">Written by git ultraplan report {} from the run state under refs/ultraplan/.</p>",
        env!("CARGO_PKG_VERSION")
    );
    let extra = format!("{}{STYLE}", timeline::STYLE);
    page(&format!("{} — ultraplan report", report.heading()), &extra, &body)
}

fn badge(status: &str) -> String {
    format!("<span class=\"badge {}\">{}</span>", tone(status), escape(status))
}

/// A commit: linked when the report knows where commits are shown.
fn commit(report: &Report, id: &str) -> String {
    match &report.commit_url {
        Some(prefix) => format!(
            "<a href=\"{}\"><code title=\"{id}\">{}</code></a>",
            escape(&format!("{prefix}{id}")),
            escape(short(id)),
            id = escape(id)
        ),
        None => format!("<code title=\"{}\">{}</code>", escape(id), escape(short(id))),
    }
}

fn headline(body: &mut String, report: &Report) {
    let _ = writeln!(body, "<h1>{} {}</h1>", escape(&report.heading()), badge(&report.status));
    body.push_str("<ul class=\"facts\">\n");
    let mut fact = |name: &str, value: String| {
        let _ = writeln!(body, "<li><span class=\"muted\">{name}</span> {value}</li>");
    };
    fact("Plan", format!("<code>{}</code>", escape(&report.plan)));
    fact("Run", format!("<code>{}</code>", escape(&report.run_id)));
    if !report.mode.is_empty() {
        fact("Mode", escape(&report.mode));
    }
    fact("Started", escape(&report.started_at));
    if let Some(ms) = report.duration_ms() {
        fact("Took", escape(&duration_text(ms)));
    }
    if !report.executor.is_empty() {
        fact("Executor", escape(&report.executor));
    }
    let attempts = report.attempts().count();
    fact(
        "Steps",
        format!(
            "{} passed, {} failed, {} skipped, {} not run — of {} ({} attempts)",
            report.count("passed"),
            report.count("failed"),
            report.count("skipped"),
            report.steps.len() - report.count("passed") - report.count("failed") - report.count("skipped"),
            report.steps.len(),
            attempts
        ),
    );
    let usage = report.usage();
    fact("Cost", escape(&usage.cost_text()));
    fact("Tokens", escape(&usage.tokens_text()));
    body.push_str("</ul>\n");
}

fn sessions(body: &mut String, report: &Report) {
    body.push_str("<h2 id=\"sessions\">Sessions</h2>\n<table>\n<tr><th class=\"n\">Wave</th><th>Session</th><th>Result</th><th>Merged</th><th>Merge commit</th><th class=\"n\">Runs</th></tr>\n");
    for lane in &report.lanes {
        let _ = writeln!(
            body,
            "<tr><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>",
            lane.wave.map(|w| w.to_string()).unwrap_or_default(),
            escape(&lane.label()),
            badge(&lane.result),
            if lane.merged { "yes" } else { "no" },
            lane.merge_commit
                .as_deref()
                .map(|c| commit(report, c))
                .unwrap_or_else(|| "—".into()),
            lane.runs
        );
    }
    body.push_str("</table>\n");
}

fn steps_table(body: &mut String, report: &Report) {
    body.push_str("<h2 id=\"steps\">Steps</h2>\n<table>\n<tr><th class=\"n\">Step</th><th>Title</th>");
    if report.parallel {
        body.push_str("<th class=\"n\">Session</th>");
    }
    body.push_str("<th>Result</th><th class=\"n\">Attempts</th><th class=\"n\">Time</th><th class=\"n\">Cost</th><th>Tokens</th><th>Checkpoint</th></tr>\n");
    for step in &report.steps {
        let usage = step.usage();
        let _ = write!(
            body,
            "<tr><td class=\"n\"><a href=\"#step-{n}\">{n}</a></td><td>{}</td>",
            escape(&step.title),
            n = step.number
        );
        if report.parallel {
            let _ = write!(
                body,
                "<td class=\"n\">{}</td>",
                step.session.map(|s| s.to_string()).unwrap_or_default()
            );
        }
        let _ = writeln!(
            body,
            "<td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
            badge(&step.outcome()),
            step.attempts.len(),
            escape(&duration_text(step.duration_ms())),
            escape(&usage.cost_text()),
            escape(&usage.tokens_text()),
            step.commit.as_deref().map(|c| commit(report, c)).unwrap_or_else(|| "—".into())
        );
    }
    body.push_str("</table>\n");
}

fn agents(body: &mut String, report: &Report) {
    body.push_str("<h2 id=\"agents\">Cost by agent</h2>\n");
    let agents = report.agents();
    if agents.is_empty() {
        body.push_str("<p class=\"muted\">No attempt was recorded.</p>\n");
        return;
    }
    body.push_str("<table>\n<tr><th>Executor</th><th>Model</th><th class=\"n\">Attempts</th><th class=\"n\">Time</th><th class=\"n\">Cost</th><th>Tokens</th></tr>\n");
    for a in &agents {
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            escape(&a.executor),
            escape(a.model.as_deref().unwrap_or("—")),
            a.attempts,
            escape(&duration_text(a.duration_ms)),
            escape(&a.usage.cost_text()),
            escape(&a.usage.tokens_text())
        );
    }
    body.push_str("</table>\n<p class=\"muted\">A cost or token count of “-” means the executor reported none (its cost is unknown, not zero).</p>\n");
}

fn risk_table(body: &mut String, report: &Report) {
    body.push_str("<h2 id=\"risk\">Risk assessment</h2>\n");
    let Some(r) = &report.risk else {
        let _ = writeln!(
            body,
            "<p class=\"muted\">No risk table: {}.</p>",
            escape(report.risk_note.as_deref().unwrap_or("nothing to measure"))
        );
        return;
    };
    let _ = writeln!(
        body,
        "<table>\n<tr><th>Factor</th><th class=\"n\">Value</th><th>Risk</th></tr>\n<tr><td>Files changed</td><td class=\"n\">{}</td><td>{}</td></tr>\n<tr><td>Lines changed</td><td class=\"n\">{}</td><td>{}</td></tr>\n<tr><th>Overall risk</th><td></td><th>{}</th></tr>\n</table>\n<p>Recommended action: {}</p>",
        r.files_changed,
        risk::assess(r.files_changed, 0).level,
        r.lines_changed,
        risk::assess(0, r.lines_changed).level,
        r.level.to_uppercase(),
        escape(r.action)
    );
}

fn step_card(body: &mut String, report: &Report, step: &Step) {
    let _ = writeln!(
        body,
        "<section class=\"card\" id=\"step-{n}\">\n<h3>Step {n}: {} {}</h3>",
        escape(&step.title),
        badge(&step.outcome()),
        n = step.number
    );
    let mut facts = Vec::new();
    if let Some(lane) = report.parallel.then(|| report.lane(step.session)).flatten() {
        facts.push(escape(&lane.label()));
    }
    if let Some(c) = &step.commit {
        facts.push(format!("checkpoint {}", commit(report, c)));
    }
    if !step.attempts.is_empty() {
        facts.push(escape(&format!(
            "{} attempt(s), {}",
            step.attempts.len(),
            duration_text(step.duration_ms())
        )));
    }
    let usage = step.usage();
    if !usage.is_empty() {
        facts.push(escape(&format!("{} · {}", usage.cost_text(), usage.tokens_text())));
    }
    if !facts.is_empty() {
        let _ = writeln!(body, "<p class=\"muted\">{}</p>", facts.join(" · "));
    }
    let files = step.files();
    if !files.is_empty() {
        body.push_str("<div>Files changed:</div>\n<ul class=\"files\">\n");
        for f in files {
            let _ = writeln!(body, "<li><code>{}</code></li>", escape(f));
        }
        body.push_str("</ul>\n");
    }
    if step.attempts.is_empty() {
        body.push_str("<p class=\"muted\">Not attempted in this run.</p>\n");
    }
    let last = step.attempts.len().saturating_sub(1);
    for (i, a) in step.attempts.iter().enumerate() {
        attempt(body, report, a, i == last);
    }
    body.push_str("</section>\n");
}

fn attempt(body: &mut String, report: &Report, a: &Attempt, open: bool) {
    let mut who = a.executor.clone();
    if let Some(m) = &a.model {
        let _ = write!(who, " ({m})");
    }
    let _ = writeln!(
        body,
        "<details{}><summary>Attempt {}{} {} {} · {}</summary>",
        if open { " open" } else { "" },
        a.number,
        if a.run > 1 {
            format!(" (run {})", a.run)
        } else {
            String::new()
        },
        badge(&a.status),
        escape(&duration_text(a.duration_ms)),
        escape(&who)
    );
    match &a.verify {
        Some(v) => {
            let _ = writeln!(
                body,
                "<div>Verify <code>{}</code>{}</div>",
                escape(&v.command),
                v.exit_code.map(|c| format!(" exited {c}")).unwrap_or_default()
            );
            if !v.output.trim().is_empty() {
                let _ = writeln!(body, "<pre>{}</pre>", escape(v.output.trim_end()));
            }
        }
        None => body.push_str("<div class=\"muted\">No Verify command ran.</div>\n"),
    }
    if let Some(e) = &a.error {
        let _ = writeln!(body, "<div>Error:</div>\n<pre>{}</pre>", escape(e.trim_end()));
    }
    if !a.warnings.is_empty() {
        let _ = writeln!(
            body,
            "<div class=\"muted\">{}: {}</div>",
            escape(&a.validation),
            escape(&a.warnings.join("; "))
        );
    }
    if let Some(c) = &a.commit {
        let _ = writeln!(body, "<div>Checkpoint {}</div>", commit(report, c));
    }
    if !a.usage.is_empty() {
        let _ = writeln!(
            body,
            "<div class=\"muted\">{} · {}</div>",
            escape(&a.usage.cost_text()),
            escape(&a.usage.tokens_text())
        );
    }
    body.push_str("</details>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ultraplan::report::model::Lane;
    use crate::ultraplan::result::Usage;

    #[test]
    fn cost_and_tokens_per_step_and_per_agent() {
        let attempt = |executor: &str, cost: f64| Attempt {
            number: 1,
            run: 1,
            status: "success".into(),
            executor: executor.into(),
            model: Some("m-1".into()),
            logged_at: "2026-01-01T00:00:01Z".into(),
            duration_ms: 1000,
            usage: Usage {
                cost_usd: Some(cost),
                tokens: None,
            },
            ..Attempt::default()
        };
        let report = Report {
            plan: "p.md".into(),
            status: "completed".into(),
            lanes: vec![Lane::default()],
            steps: vec![
                Step {
                    number: 1,
                    title: "<one>".into(),
                    status: "passed".into(),
                    attempts: vec![attempt("claude", 0.25)],
                    commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
                    ..Step::default()
                },
                Step {
                    number: 2,
                    title: "two".into(),
                    status: "passed".into(),
                    attempts: vec![attempt("claude", 0.5)],
                    ..Step::default()
                },
            ],
            commit_url: Some("https://example.com/c/".into()),
            ..Report::default()
        };
        let page = render(&report);
        assert!(page.contains("<td class=\"n\">$0.2500</td>"), "the step's cost");
        assert!(
            page.contains("<tr><td>claude</td><td>m-1</td><td class=\"n\">2</td><td class=\"n\">2.0 s</td><td class=\"n\">$0.7500</td>"),
            "the agent's attempts, time and cost"
        );
        assert!(page.contains("<a href=\"https://example.com/c/0123456789abcdef0123456789abcdef01234567\"><code"));
        assert!(page.contains("<td>&lt;one&gt;</td>"));
        assert!(page.contains("No risk table: nothing to measure."));
    }
}
