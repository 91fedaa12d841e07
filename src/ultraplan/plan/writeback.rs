//! A passed task recorded in the plan's own file (DESIGN §2.1, §6.6): the
//! only bytes of a tracked file ultraplan writes besides a step's changes.
//! Each format marks done as its own tool does — a task plan's `- [x] Task
//! N:` and `status="completed"`, spec-kit's `[X]`, Kiro's `[x]` (and the
//! parent's with its last required sub-task), a BMAD story's task and
//! subtask boxes and its Status line, Taskmaster's `"status": "done"` —
//! and nothing else in the file changes.

use super::checklist::{numbered_id, parse_item};
use super::markdown::{normalize_heading, plain};
use super::{sync, taskmaster, Context, PlanKind, Step};

/// When a task is marked done: the date (`2026-01-02`) and time stamp.
pub struct Stamp<'a> {
    pub date: &'a str,
    pub timestamp: &'a str,
}

/// Whether `kind` records passed tasks in the plan's file.
pub fn records(kind: PlanKind) -> bool {
    !matches!(kind, PlanKind::Plan | PlanKind::SessionSpec)
}

/// `text` with `step` marked done, or `None` when nothing changes.
pub fn mark_done(kind: PlanKind, text: &str, step: &Step, ctx: &Context, stamp: &Stamp<'_>) -> Option<String> {
    match kind {
        PlanKind::TaskPlan | PlanKind::Phase => {
            let task = step.origin.as_ref().map_or(step.number, |(_, n)| *n);
            sync::mark_task_done(text, task, stamp.date, stamp.timestamp)
        }
        PlanKind::SpecKit => {
            let id = step.source_id.as_deref()?;
            tick_where(text, 'X', |t| {
                t.strip_prefix(id)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', ':']))
            })
        }
        PlanKind::Kiro => kiro(text, step.source_id.as_deref()?),
        PlanKind::BmadStory => bmad(text, step.source_id.as_deref()?.parse().ok()?),
        PlanKind::Taskmaster => taskmaster::status::mark_done(text, ctx, step.source_id.as_deref()?),
        PlanKind::Plan | PlanKind::SessionSpec => None,
    }
}

/// Lines with their byte offsets, fences noted.
fn lines(text: &str) -> Vec<(usize, &str, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut fence: Option<&str> = None;
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let t = line.trim_start();
        let marker = if t.starts_with("```") {
            Some("```")
        } else if t.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        let fenced = fence.is_some() || marker.is_some();
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m && t.trim_end() == m => fence = None,
            _ => {}
        }
        out.push((at, line, fenced));
        at += raw.len();
    }
    out
}

/// Ticks (with `mark`) the first open checklist item whose text `wanted`.
fn tick_where(text: &str, mark: char, wanted: impl Fn(&str) -> bool) -> Option<String> {
    for (at, line, fenced) in lines(text) {
        if fenced {
            continue;
        }
        if let Some((_, m, _, item, mark_at)) = parse_item(line) {
            if wanted(item) {
                if matches!(m, 'x' | 'X') {
                    return None;
                }
                let mut out = text.to_owned();
                out.replace_range(at + mark_at..at + mark_at + m.len_utf8(), &mark.to_string());
                return Some(out);
            }
        }
    }
    None
}

fn kiro(text: &str, id: &str) -> Option<String> {
    let mut out = tick_where(text, 'x', |t| numbered_id(t).is_some_and(|(i, _)| i == id))?;
    // The parent closes with its last required sub-task.
    let mut child = id.to_owned();
    while let Some((parent, _)) = child.rsplit_once('.') {
        let parent = parent.to_owned();
        let children: Vec<(bool, bool)> = lines(&out)
            .into_iter()
            .filter(|(_, _, f)| !f)
            .filter_map(|(_, l, _)| parse_item(l))
            .filter_map(|(_, m, optional, t, _)| {
                let (i, _) = numbered_id(t)?;
                let starred = optional || t.split_whitespace().next().is_some_and(|w| w.ends_with('*'));
                (i.rsplit_once('.').map(|(p, _)| p) == Some(parent.as_str()))
                    .then_some((matches!(m, 'x' | 'X'), starred))
            })
            .collect();
        if children.iter().all(|(done, optional)| *done || *optional) {
            match tick_where(&out, 'x', |t| numbered_id(t).is_some_and(|(i, _)| i == parent)) {
                Some(next) => out = next,
                None => break,
            }
        } else {
            break;
        }
        child = parent;
    }
    Some(out)
}

fn bmad(text: &str, task: usize) -> Option<String> {
    let all = lines(text);
    // The Tasks / Subtasks section's lines.
    let start = all.iter().position(|(_, l, f)| {
        !f && l.starts_with("## ")
            && matches!(
                normalize_heading(l.trim_start_matches('#')).as_str(),
                "tasks / subtasks" | "tasks/subtasks" | "tasks / sub-tasks"
            )
    })?;
    let end = all[start + 1..]
        .iter()
        .position(|(_, l, f)| !f && l.starts_with("## "))
        .map_or(all.len(), |i| start + 1 + i);
    let mut top: Option<usize> = None;
    let mut k = 0;
    let mut targets: Vec<(usize, char)> = Vec::new();
    let mut inside = false;
    for (at, line, fenced) in &all[start + 1..end] {
        if *fenced {
            continue;
        }
        let Some((indent, m, _, _, mark_at)) = parse_item(line) else {
            continue;
        };
        let top_indent = *top.get_or_insert(indent);
        if indent <= top_indent {
            k += 1;
            inside = k == task;
        }
        if inside && !matches!(m, 'x' | 'X') {
            targets.push((at + mark_at, m));
        }
    }
    let mut out = text.to_owned();
    for (pos, m) in targets.iter().rev() {
        out.replace_range(*pos..*pos + m.len_utf8(), "x");
    }
    // The Status: in progress while a task is open, review once none is.
    let open = lines(&out)[start + 1..end]
        .iter()
        .filter(|(_, _, f)| !f)
        .filter_map(|(_, l, _)| parse_item(l))
        .filter(|(indent, _, _, _, _)| Some(*indent) <= top)
        .any(|(_, m, _, _, _)| !matches!(m, 'x' | 'X'));
    if let Some(updated) = bmad_status(&out, open) {
        out = updated;
    }
    (out != text).then_some(out)
}

/// The story's Status set to in progress (`open`) or review, in the
/// story's own vocabulary (v4 `InProgress`/`Review`, v6
/// `in-progress`/`review`); `None` when it already says so or has none.
fn bmad_status(text: &str, open: bool) -> Option<String> {
    let all = lines(text);
    let (at, line) = match all
        .iter()
        .position(|(_, l, f)| !f && normalize_heading(l.trim_start_matches('#')) == "status" && l.starts_with("## "))
    {
        Some(h) => all[h + 1..]
            .iter()
            .find(|(_, l, f)| !f && !l.trim().is_empty())
            .map(|(a, l, _)| (*a, *l))?,
        None => all
            .iter()
            .find(|(_, l, f)| !f && l.trim_start().starts_with("Status:"))
            .map(|(a, l, _)| (*a, *l))?,
    };
    let (prefix, value) = match line.find("Status:") {
        Some(i) if line.trim_start().starts_with("Status:") => {
            (&line[..i + "Status:".len()], &line[i + "Status:".len()..])
        }
        _ => ("", line),
    };
    let v6 = !prefix.is_empty() || value.trim().chars().next().is_some_and(|c| c.is_lowercase());
    let word = match (open, v6) {
        (true, false) => "InProgress",
        (false, false) => "Review",
        (true, true) => "in-progress",
        (false, true) => "review",
    };
    let current = plain(value.trim());
    if current.eq_ignore_ascii_case(word) || (!open && current.eq_ignore_ascii_case("done")) {
        return None;
    }
    let lead = &value[..value.len() - value.trim_start().len()];
    let new_line = format!(
        "{prefix}{}{word}",
        if prefix.is_empty() {
            lead.to_owned()
        } else {
            " ".to_owned()
        }
    );
    let mut out = text.to_owned();
    out.replace_range(at..at + line.len(), &new_line);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(id: &str) -> Step {
        Step {
            source_id: Some(id.into()),
            ..Default::default()
        }
    }

    fn done(kind: PlanKind, text: &str, id: &str) -> Option<String> {
        mark_done(
            kind,
            text,
            &step(id),
            &Context::default(),
            &Stamp {
                date: "d",
                timestamp: "t",
            },
        )
    }

    #[test]
    fn speckit_ticks_with_a_capital_x() {
        let text = "## Phase 1\n- [ ] T001 Setup\n- [ ] T002 [P] Lint in .eslintrc\n";
        assert_eq!(
            done(PlanKind::SpecKit, text, "T002").unwrap(),
            "## Phase 1\n- [ ] T001 Setup\n- [X] T002 [P] Lint in .eslintrc\n"
        );
        assert_eq!(done(PlanKind::SpecKit, "- [X] T001 a\n", "T001"), None);
    }

    #[test]
    fn kiro_closes_the_parent_with_its_last_required_subtask() {
        let text = "- [ ] 2. Models\n  - [x] 2.1 A\n  - [ ] 2.2 B\n  - [ ]* 2.3 Tests\n- [ ] 3. Next\n";
        let out = done(PlanKind::Kiro, text, "2.2").unwrap();
        assert_eq!(
            out,
            "- [x] 2. Models\n  - [x] 2.1 A\n  - [x] 2.2 B\n  - [ ]* 2.3 Tests\n- [ ] 3. Next\n"
        );
        let first = done(PlanKind::Kiro, "- [ ] 1. A\n  - [ ] 1.1 a\n  - [ ] 1.2 b\n", "1.1").unwrap();
        assert_eq!(first, "- [ ] 1. A\n  - [x] 1.1 a\n  - [ ] 1.2 b\n");
    }

    #[test]
    fn bmad_ticks_task_and_subtasks_and_moves_the_status() {
        let text = "# Story 1.1: X\n\n## Status\n\nApproved\n\n## Tasks / Subtasks\n\n- [ ] Form (AC: 1)\n  - [ ] Field\n- [ ] API (AC: 2)\n\n## Dev Notes\n- [ ] not a task\n";
        let one = done(PlanKind::BmadStory, text, "1").unwrap();
        assert!(one.contains("## Status\n\nInProgress\n"), "{one}");
        assert!(one.contains("- [x] Form (AC: 1)\n  - [x] Field\n- [ ] API"), "{one}");
        let two = done(PlanKind::BmadStory, &one, "2").unwrap();
        assert!(two.contains("## Status\n\nReview\n"), "{two}");
        assert!(two.contains("- [ ] not a task"), "{two}");
        let v6 = "Status: ready-for-dev\n\n## Tasks / Subtasks\n\n- [ ] A\n";
        assert_eq!(
            done(PlanKind::BmadStory, v6, "1").unwrap(),
            "Status: review\n\n## Tasks / Subtasks\n\n- [x] A\n"
        );
    }
}
