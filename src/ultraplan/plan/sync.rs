//! Task-plan checkbox sync (DESIGN §6.6, seed 000): a passed task's
//! `- [ ] Task N: …` line in `<success_criteria>` becomes
//! `- [x] Task N: … (completed YYYY-MM-DD)` and its `<task>` element gets
//! `status="completed" completed_at="…"`. Nothing else in the file changes.
//!
//! These are the run's own edits: [`without_marks`] takes them out again,
//! so that a resume comparing the plan with the one the run started from
//! does not take them for a person's change.

use std::borrow::Cow;

use super::task_number;

/// The plan text with task `task` marked done, or `None` when nothing changed.
pub fn mark_task_done(text: &str, task: u32, date: &str, timestamp: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut changed = false;
    let mut in_criteria = false;
    let mut pending_open_tag: Option<usize> = None; // byte offset in `out` of the current <task …> tag
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("<success_criteria") {
            in_criteria = true;
        }
        if in_criteria {
            if let Some(updated) = check_line(line, task, date) {
                out.push_str(&updated);
                changed = true;
                if trimmed.contains("</success_criteria>") {
                    in_criteria = false;
                }
                continue;
            }
            if trimmed.contains("</success_criteria>") {
                in_criteria = false;
            }
        }
        if trimmed.starts_with("<task") && trimmed[5..].starts_with([' ', '>', '\t']) {
            pending_open_tag = Some(out.len());
        }
        if let Some(start) = pending_open_tag {
            if let Some(name) = name_in(line) {
                if task_number(name) == Some(task) {
                    out.push_str(line);
                    if let Some(updated) = with_status(&out[start..], timestamp) {
                        out.replace_range(start.., &updated);
                        changed = true;
                    }
                    pending_open_tag = None;
                    continue;
                }
                pending_open_tag = None;
            }
            if trimmed.starts_with("</task>") {
                pending_open_tag = None;
            }
        }
        out.push_str(line);
    }
    changed.then_some(out)
}

fn check_line(line: &str, task: u32, date: &str) -> Option<String> {
    let indent_len = line.len() - line.trim_start().len();
    let rest = &line[indent_len..];
    let marker = rest.chars().next().filter(|c| matches!(c, '-' | '*' | '+'))?;
    let after_marker = rest[1..].strip_prefix(' ')?;
    let after_box = after_marker.strip_prefix("[ ]")?;
    let item = after_box.trim_start();
    if task_number(item) != Some(task) {
        return None;
    }
    let ending = if line.ends_with("\r\n") {
        "\r\n"
    } else if line.ends_with('\n') {
        "\n"
    } else {
        ""
    };
    let item = item.trim_end_matches(['\r', '\n']).trim_end();
    Some(format!(
        "{}{marker} [x] {item} (completed {date}){ending}",
        &line[..indent_len]
    ))
}

fn name_in(line: &str) -> Option<&str> {
    let start = line.find("<name>")? + "<name>".len();
    let end = line[start..].find("</name>")? + start;
    Some(line[start..end].trim())
}

/// The `<task …>` opening tag at the start of `block` with status attributes set.
fn with_status(block: &str, timestamp: &str) -> Option<String> {
    let open_end = block.find('>')?;
    let tag = &block[..open_end];
    let mut attrs: Vec<String> = Vec::new();
    let mut rest = tag.trim_start_matches("<task").trim();
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim().to_owned();
        let after = rest[eq + 1..].trim_start();
        let quote = after.chars().next()?;
        let close = after[1..].find(quote)? + 1;
        let value = &after[1..close];
        if key != "status" && key != "completed_at" {
            attrs.push(format!("{key}={quote}{value}{quote}"));
        }
        rest = after[close + 1..].trim_start();
    }
    attrs.push("status=\"completed\"".into());
    attrs.push(format!("completed_at=\"{timestamp}\""));
    let new_tag = format!("<task {}", attrs.join(" "));
    if new_tag == tag {
        return None;
    }
    Some(format!("{new_tag}{}", &block[open_end..]))
}

/// Whether the plan `text` is the one a run recorded as `recorded` (its
/// redacted text), the marks a run writes into a task plan aside. A plan
/// that reads as the record unredacted is the same plan (redacting the
/// record again changes nothing), so it is redacted only when they differ:
/// a resume of a plan of thousands of steps does not pay for it.
pub fn same_plan(recorded: &str, text: &str) -> bool {
    if recorded == text {
        return true;
    }
    let recorded = without_marks(recorded);
    recorded == without_marks(text) || recorded == without_marks(&crate::redact::redact(text))
}

/// `text` with the marks [`mark_task_done`] writes taken out: ticked
/// `Task N:` boxes of `<success_criteria>` unticked without their
/// `(completed …)`, and `status`/`completed_at` attributes dropped from
/// `<task>` tags. Two texts that differ only by a run's own marks come out
/// the same. A text without a `<task` or a `[x]` has no marks: it is
/// returned as it is.
pub fn without_marks(text: &str) -> Cow<'_, str> {
    if !text.contains("<task") && !text.contains("[x]") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("<task") && trimmed[5..].starts_with([' ', '\t']) && trimmed.contains("status=") {
            let indent = &line[..line.len() - trimmed.len()];
            let end = trimmed.find('>').unwrap_or(trimmed.len());
            let kept: Vec<&str> = trimmed[5..end]
                .split_whitespace()
                .filter(|a| !a.starts_with("status=") && !a.starts_with("completed_at="))
                .collect();
            out.push_str(indent);
            out.push_str("<task");
            for a in kept {
                out.push(' ');
                out.push_str(a);
            }
            out.push_str(&trimmed[end..]);
            continue;
        }
        match unticked(line) {
            Some(plain) => out.push_str(&plain),
            None => out.push_str(line),
        }
    }
    Cow::Owned(out)
}

/// A `- [x] Task N: … (completed DATE)` line as it was before the run.
fn unticked(line: &str) -> Option<String> {
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    let marker = rest.chars().next().filter(|c| matches!(c, '-' | '*' | '+'))?;
    let item = rest[1..].strip_prefix(' ')?.strip_prefix("[x]")?.trim_start();
    task_number(item)?;
    let ending = &item[item.trim_end_matches(['\r', '\n']).len()..];
    let body = item.trim_end_matches(['\r', '\n']).trim_end();
    let body = match body.rfind(" (completed ") {
        Some(at) if body.ends_with(')') => &body[..at],
        _ => body,
    };
    Some(format!("{}{marker} [ ] {body}{ending}", &line[..indent]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "<tasks>\n<task type=\"auto\">\n  <name>Task 1: Create executor agent</name>\n  <verify>true</verify>\n</task>\n<task type=\"auto\">\n  <name>Task 2: Add protocol</name>\n</task>\n</tasks>\n\n<success_criteria>\n- [ ] Task 1: Create executor agent\n- [ ] Task 2: Add protocol\n</success_criteria>\n";

    #[test]
    fn marks_the_checkbox_and_the_task_element() {
        let out = mark_task_done(PLAN, 1, "2026-01-02", "2026-01-02T03:04:05Z").unwrap();
        assert!(
            out.contains("- [x] Task 1: Create executor agent (completed 2026-01-02)\n"),
            "{out}"
        );
        assert!(out.contains("- [ ] Task 2: Add protocol\n"), "{out}");
        assert!(
            out.contains(
                "<task type=\"auto\" status=\"completed\" completed_at=\"2026-01-02T03:04:05Z\">\n  <name>Task 1:"
            ),
            "{out}"
        );
        assert_eq!(out.matches("status=\"completed\"").count(), 1);
        // Done twice changes nothing more.
        assert_eq!(mark_task_done(&out, 1, "2026-01-02", "2026-01-02T03:04:05Z"), None);
    }

    #[test]
    fn the_runs_own_marks_come_out_again() {
        let once = mark_task_done(PLAN, 1, "2026-01-02", "2026-01-02T03:04:05Z").unwrap();
        let twice = mark_task_done(&once, 2, "2026-01-03", "2026-01-03T00:00:00Z").unwrap();
        assert_eq!(without_marks(&twice), without_marks(PLAN));
        assert_eq!(without_marks(PLAN), PLAN);
        // A text with neither a task tag nor a ticked box is not copied.
        assert!(matches!(without_marks("### Step 1: A\n- [ ] b\n"), Cow::Borrowed(_)));
        // A person's change is still a change.
        assert_ne!(
            without_marks(&twice.replace("Add protocol", "Add the protocol")),
            without_marks(PLAN)
        );
    }

    #[test]
    fn other_lines_are_untouched() {
        let out = mark_task_done(PLAN, 2, "2026-01-03", "t").unwrap();
        let changed: Vec<_> = PLAN.lines().zip(out.lines()).filter(|(a, b)| a != b).collect();
        assert_eq!(changed.len(), 2, "{changed:?}");
        assert_eq!(mark_task_done(PLAN, 9, "d", "t"), None);
    }
}
