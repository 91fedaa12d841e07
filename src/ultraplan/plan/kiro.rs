//! Kiro's `.kiro/specs/<feature>/tasks.md` (read from Kiro's docs,
//! kiro.dev/docs/specs, and the spec in kirodotdev/Kiro at commit 2916647:
//! `.kiro/specs/github-issue-automation/{tasks,requirements}.md`).
//!
//! `# Implementation Plan`, then numbered checkbox tasks `- [ ] 1. Title`
//! with sub-tasks `- [ ] 1.1 Title` (indented or not), detail bullets under
//! each, `_Requirements: 1.1, 2.3_` naming acceptance criteria of
//! `requirements.md` (`### Requirement N` → `#### Acceptance Criteria` →
//! numbered `WHEN … SHALL …` lines), `- [ ]*` optional tasks ("can be skipped
//! for faster MVP"), `[x]` done and `[-]` in progress. What ultraplan makes
//! of them:
//!
//! * a step per task without sub-tasks; a task with sub-tasks is their
//!   container: its box is ticked when its last required sub-task passes
//!   (optional ones are not waited for);
//! * `_Requirements:_` and `**Validates: Requirements …**` references are
//!   recorded in the step (with the criterion's text, sent to the executor)
//!   and must exist in `requirements.md`: a reference to a criterion that is
//!   not there is a problem naming the line;
//! * optional tasks run unless `--skip-optional` is given; then they are
//!   skipped and reported as skipped;
//! * Kiro has no Verify field: a detail bullet `Verify: \`cmd\`` (or `Run
//!   \`cmd\``) whose code span reads as a command is the step's Verify;
//!   other steps pass on the executor's word only with `--allow-unverified`.

use std::collections::{BTreeMap, HashMap};

use super::checklist::{creates, item, numbered_id, paths_in, Item};
use super::markdown::{code_spans, plain, Document};
use super::ultraplan::empty_plan;
use super::verify_text::is_command;
use super::{Checkpoint, Context, Diagnostics, FailurePolicy, FileRef, OnFailure, Plan, PlanKind, Step, Verify};

/// Why a document reads as a Kiro tasks.md, or `None`.
pub(crate) fn looks_like(doc: &Document<'_>) -> Option<String> {
    let items: Vec<Item<'_>> = doc.lines.iter().filter_map(item).collect();
    let numbered = items.iter().filter(|i| numbered_id(i.text).is_some()).count();
    if numbered == 0 {
        return None;
    }
    let subs = items
        .iter()
        .filter(|i| numbered_id(i.text).is_some_and(|(id, _)| id.contains('.')))
        .count();
    Some(format!(
        "a Kiro tasks.md: {numbered} numbered checkbox task(s) '- [ ] 1. …' ({subs} sub-task(s) '- [ ] 1.1 …')"
    ))
}

struct Task {
    id: String,
    title: String,
    optional: bool,
    done: bool,
    details: Vec<(usize, String)>,
    line: usize,
}

pub(crate) fn parse(doc: &Document<'_>, ctx: &Context, diags: &mut Diagnostics) -> Plan {
    let mut plan = empty_plan(PlanKind::Kiro, doc);
    if let Some(t) = &plan.title {
        let t = t.strip_prefix("Implementation Plan").unwrap_or(t);
        let t = t.trim_start_matches([':', ' ', '-', '—']).trim();
        plan.title = (!t.is_empty()).then(|| t.to_owned()).or(plan.title.clone());
    }
    let tasks = read_tasks(doc, diags);
    let requirements = ctx.companions.get("requirements.md").map(|t| criteria(t));
    if requirements.is_none()
        && tasks
            .iter()
            .any(|t| t.details.iter().any(|(_, d)| refs_in(d).is_some()))
    {
        diags.warning(
            1,
            "requirements.md is not beside tasks.md: the _Requirements:_ references are recorded, not checked",
        );
    }
    let ids: HashMap<&str, usize> = tasks.iter().enumerate().map(|(i, t)| (t.id.as_str(), i)).collect();
    let parents: std::collections::HashSet<&str> = tasks.iter().filter_map(|t| parent_of(&t.id)).collect();
    let has_children = |id: &str| parents.contains(id);
    let mut verified_any = false;
    for t in &tasks {
        if let Some(parent) = parent_of(&t.id) {
            if !ids.contains_key(parent) {
                diags.problem(
                    t.line,
                    format!(
                        "sub-task {} has no task {parent}: a sub-task follows its own numbered task",
                        t.id
                    ),
                );
            }
        }
        if has_children(&t.id) {
            continue; // a container: closed with its last required sub-task
        }
        let parent = parent_of(&t.id).and_then(|p| ids.get(p)).map(|&i| &tasks[i]);
        let optional = t.optional || parent.is_some_and(|p| p.optional);
        let mut changes = t.title.clone();
        let mut verify = None;
        let mut refs: Vec<(usize, String)> = Vec::new();
        let mut text_for_paths = t.title.clone();
        for (line, d) in parent
            .map(|p| p.details.as_slice())
            .unwrap_or(&[])
            .iter()
            .chain(&t.details)
        {
            if let Some(found) = refs_in(d) {
                refs.extend(found.into_iter().map(|r| (*line, r)));
                continue;
            }
            changes.push_str(&format!("\n- {d}"));
            text_for_paths.push(' ');
            text_for_paths.push_str(d);
            if verify.is_none() {
                verify = verify_in(d);
            }
        }
        verified_any |= verify.is_some();
        let mut done_text = Vec::new();
        let mut unchecked = Vec::new();
        for (line, r) in &refs {
            match requirements.as_ref().map(|req| lookup(req, r)) {
                Some(Ok(text)) => {
                    done_text.push(format!("{r}: {text}"));
                    unchecked.push(format!("requirement {r}: {text}"));
                }
                Some(Err(why)) => diags.problem(*line, format!("task {}: _Requirements: {r}_ {why}", t.id)),
                None => unchecked.push(format!("requirement {r}")),
            }
        }
        // A Kiro task names the files it writes: new unless it says it
        // changes existing ones.
        let new = creates(&t.title) || !super::checklist::modifies(&t.title);
        plan.steps.push(Step {
            number: plan.steps.len() as u32 + 1,
            title: format!("{} {}", t.id, t.title),
            files: paths_in(&text_for_paths)
                .into_iter()
                .map(|path| FileRef {
                    path,
                    new,
                    line: t.line,
                })
                .collect(),
            changes,
            verify,
            on_failure: OnFailure {
                action: FailurePolicy::Retry,
                instructions: None,
            },
            checkpoint: Some(Checkpoint::Commit {
                message: format!("{}: {}", t.id, t.title),
            }),
            done: (!done_text.is_empty()).then(|| format!("Requirements {}", done_text.join("; "))),
            unchecked,
            source_id: Some(t.id.clone()),
            optional,
            skip: t
                .done
                .then(|| format!("{} is ticked in tasks.md: done before this run", t.id)),
            line: t.line,
            ..Default::default()
        });
    }
    if plan.steps.is_empty() {
        diags.problem(1, "no tasks: a Kiro task is a numbered checkbox line '- [ ] 1. <what>'");
    }
    if ctx.skip_optional {
        for step in plan.steps.iter_mut().filter(|s| s.optional) {
            step.skip
                .get_or_insert_with(|| "optional ('- [ ]*'), skipped with --skip-optional".into());
        }
    }
    plan.verify_note = Some(if verified_any {
        "the tasks' 'Verify: `cmd`' details; tasks without one pass on the executor's word only with --allow-unverified"
            .into()
    } else {
        "none: Kiro tasks carry no command (a detail 'Verify: `cmd`' would be one), so tasks pass on the executor's word only with --allow-unverified".into()
    });
    plan
}

/// `2` for `2.1`, `None` for a top-level `2`.
fn parent_of(id: &str) -> Option<&str> {
    id.rsplit_once('.').map(|(p, _)| p)
}

fn read_tasks(doc: &Document<'_>, diags: &mut Diagnostics) -> Vec<Task> {
    let mut tasks: Vec<Task> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut current: Option<(usize, usize)> = None; // (task index, its indent)
    for line in &doc.lines {
        if line.fenced {
            if let (Some((i, _)), false) = (current, line.text.trim().is_empty()) {
                tasks[i].details.push((line.no, line.text.trim().to_owned()));
            }
            continue;
        }
        let text = line.text.trim();
        if text.starts_with('#') {
            current = None;
            continue;
        }
        if let Some(i) = item(line) {
            match numbered_id(i.text) {
                Some((id, title)) => {
                    let optional = i.optional || i.text.split_whitespace().next().is_some_and(|w| w.ends_with('*'));
                    if let Some(first) = seen.get(&id) {
                        diags.problem(line.no, format!("task {id} appears twice (first at line {first})"));
                        current = None;
                        continue;
                    }
                    if title.is_empty() {
                        diags.problem(line.no, format!("task {id} says nothing to do"));
                    }
                    seen.insert(id.clone(), line.no);
                    check_order(&tasks, &seen, &id, line.no, diags);
                    tasks.push(Task {
                        id,
                        title: plain(title),
                        optional,
                        done: i.done(),
                        details: Vec::new(),
                        line: line.no,
                    });
                    current = Some((tasks.len() - 1, i.indent));
                }
                None => {
                    if current.is_some() {
                        diags.problem(
                            line.no,
                            format!(
                                "checkbox without a task number: Kiro numbers every task ('- [ ] 2. …', sub-tasks '- [ ] 2.1 …'): '{}'",
                                i.text
                            ),
                        );
                    }
                    current = None;
                }
            }
            continue;
        }
        if let Some((index, _)) = current {
            if text.is_empty() {
                continue;
            }
            let detail = text.trim_start_matches(['-', '*', '+']).trim();
            if !detail.is_empty() {
                tasks[index].details.push((line.no, detail.to_owned()));
            }
        }
    }
    tasks
}

/// Sub-task numbers continue their parent's: `2.1` after `2`, never under `3`.
fn check_order(tasks: &[Task], seen: &HashMap<String, usize>, id: &str, line: usize, diags: &mut Diagnostics) {
    let Some(parent) = parent_of(id) else { return };
    // The task this one stands under: the last top-level one (a walk back
    // over this task's siblings only).
    let last_top = tasks.iter().rev().find(|t| parent_of(&t.id).is_none());
    if let Some(top) = last_top {
        if top.id != parent && !parent.starts_with(&format!("{}.", top.id)) && seen.contains_key(parent) {
            diags.problem(
                line,
                format!(
                    "sub-task {id} stands under task {}: a sub-task follows its own task {parent}",
                    top.id
                ),
            );
        }
    }
}

/// The references of a `_Requirements: 1.1, 2.3_` or `**Validates:
/// Requirements 1.2**` detail (ranges `1.1–1.4` expanded), or `None`.
fn refs_in(detail: &str) -> Option<Vec<String>> {
    let t = detail.trim().trim_matches(['_', '*']).trim();
    let rest = t
        .strip_prefix("Requirements:")
        .or_else(|| t.strip_prefix("Requirement:"))
        .or_else(|| t.strip_prefix("Validates: Requirements"))
        .or_else(|| t.strip_prefix("Validates: Requirement"))?;
    let rest = rest.trim().trim_matches(['_', '*']).trim();
    // "1.4, 1.8 (Design §2)": what is in parentheses is a note.
    let rest = rest.split('(').next().unwrap_or(rest);
    let mut out = Vec::new();
    for part in rest.split([',', ';']) {
        let part = part.trim().trim_matches(['_', '*', '.']).trim();
        if part.is_empty() {
            continue;
        }
        match part.split_once(['–', '-']) {
            Some((a, b)) => {
                let (a, b) = (a.trim(), b.trim());
                match (a.split_once('.'), b.split_once('.')) {
                    (Some((ma, na)), Some((mb, nb))) if ma == mb => match (na.parse::<u32>(), nb.parse::<u32>()) {
                        (Ok(x), Ok(y)) if x <= y && y - x < 100 => out.extend((x..=y).map(|n| format!("{ma}.{n}"))),
                        _ => out.push(part.to_owned()),
                    },
                    _ => out.push(part.to_owned()),
                }
            }
            None => out.push(part.to_owned()),
        }
    }
    Some(out)
}

/// A detail `Verify: \`cmd\`` / `Run \`cmd\``: its command.
fn verify_in(detail: &str) -> Option<Verify> {
    let lower = detail.to_lowercase();
    let leads = ["verify:", "verify with", "run ", "execute ", "test:"];
    if !leads.iter().any(|l| lower.starts_with(l)) {
        return None;
    }
    code_spans(detail)
        .into_iter()
        .map(|s| s.content.trim().to_owned())
        .find(|c| is_command(c))
        .map(|command| Verify {
            command,
            expected: None,
            expected_kind: None,
        })
}

/// requirements.md's criteria: requirement number → its numbered criteria.
fn criteria(text: &str) -> BTreeMap<String, Vec<String>> {
    let doc = Document::new(text, 1);
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in &doc.lines {
        if line.fenced {
            continue;
        }
        let t = line.text.trim();
        if t.starts_with("###") && !t.starts_with("####") {
            let h = plain(t.trim_start_matches('#'));
            current = h
                .strip_prefix("Requirement ")
                .map(|r| r.split([':', ' ', '-', '—']).next().unwrap_or("").trim().to_owned())
                .filter(|n| !n.is_empty());
            if let Some(n) = &current {
                out.entry(n.clone()).or_default();
            }
            continue;
        }
        if let Some(n) = &current {
            let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
            if digits > 0 && t[digits..].starts_with(". ") {
                out.entry(n.clone()).or_default().push(plain(t[digits + 2..].trim()));
            }
        }
    }
    out
}

/// The text of criterion `r` (`1.2`, or a whole requirement `1`).
fn lookup(req: &BTreeMap<String, Vec<String>>, r: &str) -> Result<String, String> {
    let (major, minor) = match r.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (r, None),
    };
    let Some(list) = req.get(major) else {
        return Err(format!(
            "names requirement {major}, which requirements.md does not have ({} requirement(s))",
            req.len()
        ));
    };
    match minor {
        None => Ok(format!("requirement {major} ({} criteria)", list.len())),
        Some(m) => match m
            .parse::<usize>()
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| list.get(i))
        {
            Some(text) => Ok(text.clone()),
            None => Err(format!(
                "names criterion {r}, but requirement {major} has {} acceptance criteria",
                list.len()
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references() {
        assert_eq!(refs_in("_Requirements: 1.1, 2.3_").unwrap(), ["1.1", "2.3"]);
        assert_eq!(refs_in("_Requirements: 1.4, 1.8 (Design §2)_").unwrap(), ["1.4", "1.8"]);
        assert_eq!(refs_in("**Validates: Requirements 1.2**").unwrap(), ["1.2"]);
        assert_eq!(refs_in("_Requirements: 1.1–1.3_").unwrap(), ["1.1", "1.2", "1.3"]);
        assert_eq!(refs_in("Write the parser"), None);
    }

    #[test]
    fn criteria_and_lookup() {
        let req = criteria("# Requirements Document\n\n### Requirement 1: Sign in\n\n#### Acceptance Criteria\n\n1. WHEN a user signs in THEN the system SHALL greet them\n2. IF the password is wrong THEN the system SHALL refuse\n\n### Requirement 2\n\n1. WHEN x THEN y\n");
        assert_eq!(
            lookup(&req, "1.2").unwrap(),
            "IF the password is wrong THEN the system SHALL refuse"
        );
        assert!(lookup(&req, "1.3").unwrap_err().contains("2 acceptance criteria"));
        assert!(lookup(&req, "3.1").is_err());
        assert!(lookup(&req, "2").is_ok());
    }
}
