//! A BMAD story, `docs/stories/<epic>.<story>.<title>.md` (read from
//! bmad-code-org/BMAD-METHOD: v4.44.3's `bmad-core/templates/story-tmpl.yaml`
//! and `agents/dev.md`, and v6.11's `bmad-create-story/template.md` and
//! `bmad-dev-story/SKILL.md`, commit 67d876f).
//!
//! `# Story 1.2: Title`, a Status (`## Status` then its value — v4: Draft,
//! Approved, InProgress, Review, Done — or v6's `Status: ready-for-dev`
//! line), `## Acceptance Criteria` as a numbered list, `## Tasks / Subtasks`
//! as a checklist whose tasks name the criteria they serve (`(AC: 1, 3)`),
//! and `## Dev Notes` with a `### Testing` part. What ultraplan makes of it:
//!
//! * a step per task, its subtasks part of what the executor is asked and
//!   ticked with it — BMAD's dev agent works "task and its subtasks", then
//!   checks the box only when its validations pass;
//! * `(AC: #)` references must name criteria of the story (a problem
//!   naming the line otherwise); the criteria's text goes to the executor;
//! * the Status line moves to in progress with the first checkpoint and to
//!   review with the one that ticks the last task (`InProgress`/`Review`
//!   in a v4 story, `in-progress`/`review` in a v6 one);
//! * the story's test command — a code span under Dev Notes' Testing that
//!   reads as a command — is every task's Verify, as BMAD runs the tests
//!   after each task; without one, tasks pass on the executor's word only
//!   with `--allow-unverified`.

use std::collections::BTreeSet;

use super::checklist::{creates, item, paths_in};
use super::markdown::{code_spans, normalize_heading, plain, Document};
use super::ultraplan::empty_plan;
use super::verify_text::is_command;
use super::{Checkpoint, Diagnostics, FailurePolicy, FileRef, OnFailure, Plan, PlanKind, Step, Verify};

/// Why a document reads as a BMAD story, or `None`.
pub(crate) fn looks_like(doc: &Document<'_>) -> Option<String> {
    tasks_heading(doc)?;
    let status = status_of(doc).is_some();
    let criteria = doc.find_section(2, "acceptance criteria").is_some();
    if !(status || criteria) {
        return None;
    }
    let mut parts = vec!["'Tasks / Subtasks'"];
    if status {
        parts.insert(0, "a Status");
    }
    if criteria {
        parts.insert(parts.len() - 1, "'Acceptance Criteria'");
    }
    Some(format!("a BMAD story: {}", parts.join(", ")))
}

fn tasks_heading<'d>(doc: &'d Document<'_>) -> Option<&'d super::markdown::Heading<'d>> {
    doc.headings.iter().find(|h| {
        h.level == 2
            && matches!(
                normalize_heading(h.text).as_str(),
                "tasks / subtasks" | "tasks/subtasks" | "tasks / sub-tasks"
            )
    })
}

/// The story's status: its value, its line, and whether it is v6's
/// one-line `Status: value` form.
pub(crate) fn status_of(doc: &Document<'_>) -> Option<(String, usize, bool)> {
    if let Some(h) = doc.find_section(2, "status") {
        let value = doc.section(h).iter().find(|l| !l.is_blank() && !l.fenced)?;
        return Some((plain(value.text.trim()), value.no, false));
    }
    doc.lines.iter().filter(|l| !l.fenced).find_map(|l| {
        let v = l.text.trim().strip_prefix("Status:")?;
        Some((plain(v.trim()), l.no, true))
    })
}

struct Task {
    text: String,
    done: bool,
    subtasks: Vec<String>,
    line: usize,
}

pub(crate) fn parse(doc: &Document<'_>, diags: &mut Diagnostics) -> Plan {
    let mut plan = empty_plan(PlanKind::BmadStory, doc);
    if let Some(title) = plan.title.clone() {
        if let Some(rest) = title.strip_prefix("Story ") {
            let (number, name) = rest.split_once(':').unwrap_or((rest, ""));
            plan.plan_id = format!("story-{}", number.trim());
            if !name.trim().is_empty() {
                plan.title = Some(name.trim().to_owned());
            }
        }
    }
    match status_of(doc) {
        None => diags.warning(1, "the story has no Status: ultraplan writes none until one is added"),
        Some((s, line, _)) => {
            let lower = s.to_lowercase();
            if ["draft", "backlog", "drafted"].contains(&lower.as_str()) {
                diags.warning(
                    line,
                    format!("the story's Status is '{s}': BMAD's dev agent takes Approved (ready-for-dev) stories"),
                );
            }
        }
    }
    let criteria = acceptance_criteria(doc);
    let tasks = read_tasks(doc, diags);
    let test = test_command(doc);
    plan.verify_note = Some(match &test {
        Some((c, line)) => format!("`{c}` after each task (Dev Notes' Testing, line {line})"),
        None => "none: the story's Dev Notes name no test command (a code span under Testing), so tasks pass on the executor's word only with --allow-unverified".into(),
    });
    for (k, t) in tasks.iter().enumerate() {
        let (title, refs) = ac_refs(&t.text);
        let mut ac_text = Vec::new();
        match &refs {
            Some(list) if list.is_empty() => diags.warning(
                t.line,
                format!("task {}: '(AC: #)' names no acceptance criterion", k + 1),
            ),
            Some(list) => {
                for n in list {
                    match criteria.iter().find(|(m, _)| m == n) {
                        Some((_, text)) => ac_text.push(format!("AC {n}: {text}")),
                        None => diags.problem(
                            t.line,
                            format!(
                                "task {} names AC {n}, which is not among the story's acceptance criteria ({})",
                                k + 1,
                                if criteria.is_empty() {
                                    "it has none".to_owned()
                                } else {
                                    format!("1–{}", criteria.len())
                                }
                            ),
                        ),
                    }
                }
            }
            None => {}
        }
        let mut changes = title.clone();
        for s in &t.subtasks {
            changes.push_str(&format!("\n- {s}"));
        }
        let all_text = format!("{} {}", t.text, t.subtasks.join(" "));
        let new = creates(&title);
        plan.steps.push(Step {
            number: k as u32 + 1,
            title: title.clone(),
            files: paths_in(&all_text)
                .into_iter()
                .map(|path| FileRef {
                    path,
                    new,
                    line: t.line,
                })
                .collect(),
            changes,
            verify: test.as_ref().map(|(c, _)| Verify {
                command: c.clone(),
                expected: None,
                expected_kind: None,
            }),
            on_failure: OnFailure {
                action: FailurePolicy::Retry,
                instructions: None,
            },
            checkpoint: Some(Checkpoint::Commit {
                message: format!("task {}: {title}", k + 1),
            }),
            done: (!ac_text.is_empty()).then(|| ac_text.join("\n")),
            unchecked: ac_text,
            source_id: Some(format!("{}", k + 1)),
            skip: t
                .done
                .then(|| format!("task {} is ticked in the story: done before this run", k + 1)),
            line: t.line,
            ..Default::default()
        });
    }
    if plan.steps.is_empty() {
        diags.problem(
            tasks_heading(doc).map_or(1, |h| h.no),
            "no tasks: BMAD's 'Tasks / Subtasks' holds '- [ ] <task> (AC: 1)' lines",
        );
    }
    plan
}

/// The numbered Acceptance Criteria: (number, text).
fn acceptance_criteria(doc: &Document<'_>) -> Vec<(u32, String)> {
    let Some(h) = doc.find_section(2, "acceptance criteria") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for l in doc.section(h).iter().filter(|l| !l.fenced) {
        let t = l.text.trim();
        let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") ")) {
            if let Ok(n) = t[..digits].parse() {
                out.push((n, plain(t[digits + 2..].trim())));
            }
        }
    }
    out
}

fn read_tasks(doc: &Document<'_>, diags: &mut Diagnostics) -> Vec<Task> {
    let Some(h) = tasks_heading(doc) else {
        return Vec::new();
    };
    let mut tasks: Vec<Task> = Vec::new();
    let mut top_indent: Option<usize> = None;
    for l in doc.section(h) {
        if l.fenced || l.text.trim().starts_with('#') {
            continue;
        }
        match item(l) {
            Some(i) => {
                let top = *top_indent.get_or_insert(i.indent);
                if i.indent <= top {
                    if i.text.is_empty() {
                        diags.problem(l.no, "a task with nothing to do");
                    }
                    tasks.push(Task {
                        text: i.text.to_owned(),
                        done: i.done(),
                        subtasks: Vec::new(),
                        line: l.no,
                    });
                } else if let Some(t) = tasks.last_mut() {
                    t.subtasks.push(plain(i.text));
                }
            }
            None => {
                let t = l.text.trim();
                if (t.starts_with("- ") || t.starts_with("* ")) && top_indent.is_none_or(|top| l.indent() <= top) {
                    diags.problem(
                        l.no,
                        format!("a task without its checkbox: BMAD writes '- [ ] {}'", &t[2..]),
                    );
                }
            }
        }
    }
    tasks
}

/// The task's text without its `(AC: …)` reference, and the criteria it
/// names (`Some(empty)` for the template's bare `(AC: #)`).
fn ac_refs(text: &str) -> (String, Option<Vec<u32>>) {
    let Some(open) = text.find("(AC") else {
        return (plain(text), None);
    };
    let Some(close) = text[open..].find(')').map(|i| open + i) else {
        return (plain(text), None);
    };
    let inner = text[open + 3..close].trim_start_matches([':', ' ']);
    let mut out = BTreeSet::new();
    for part in inner.split([',', ';', '&']).flat_map(|p| p.split(" and ")) {
        let p = part.trim().trim_start_matches('#').trim();
        let p = p.strip_prefix("AC").unwrap_or(p).trim().trim_start_matches('#').trim();
        match p.split_once(['-', '–']) {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
                    if a <= b && b - a < 100 {
                        out.extend(a..=b);
                    }
                }
            }
            None => {
                if let Ok(n) = p.parse::<u32>() {
                    out.insert(n);
                }
            }
        }
    }
    let title = format!("{}{}", &text[..open], &text[close + 1..]);
    (plain(title.trim()), Some(out.into_iter().collect()))
}

/// A command under Dev Notes' `Testing` heading: its first code span (or
/// fenced line) that reads as a command, and its line.
fn test_command(doc: &Document<'_>) -> Option<(String, usize)> {
    let h = doc
        .headings
        .iter()
        .find(|h| (2..=4).contains(&h.level) && normalize_heading(h.text).starts_with("testing"))?;
    for l in doc.section(h) {
        if l.fenced {
            let t = l.text.trim().trim_start_matches("$ ");
            if !t.starts_with("```") && !t.starts_with("~~~") && is_command(t) {
                return Some((t.to_owned(), l.no));
            }
            continue;
        }
        for s in code_spans(l.text) {
            let c = s.content.trim();
            if c.contains(' ') && is_command(c) {
                return Some((c.to_owned(), l.no));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ac_references() {
        assert_eq!(
            ac_refs("Add login form (AC: 1, 3)"),
            ("Add login form".into(), Some(vec![1, 3]))
        );
        assert_eq!(ac_refs("Task 1 (AC: #)"), ("Task 1".into(), Some(vec![])));
        assert_eq!(ac_refs("Wire it (AC: #2, #4)").1, Some(vec![2, 4]));
        assert_eq!(ac_refs("Range (AC: 1-3)").1, Some(vec![1, 2, 3]));
        assert_eq!(ac_refs("No refs").1, None);
    }
}
