//! Setting a task's status in tasks.json as a checkpoint records it: only
//! the bytes of the `"status"` values change (the task's, and its parent's
//! when a subtask moves it), so every other field, the key order, the
//! indentation and the line endings stay exactly as the file had them. A
//! task without a `"status"` gets one after its `"title"`, indented like it.

use serde_json::Value;

use super::spans::{scan, Node};
use super::{id_text, locate};
use crate::ultraplan::plan::Context;

/// The text with task `id` (`3`, or `3.2` for a subtask) set to `done`, its
/// parent moved to `in-progress` (a subtask of several done) or `done` (its
/// last); `None` when nothing changes or the task is not found.
pub fn mark_done(text: &str, ctx: &Context, id: &str) -> Option<String> {
    let root: Value = serde_json::from_str(text).ok()?;
    let located = locate(&root, ctx).ok()?;
    let tree = scan(text)?;
    let (tasks_value, tasks_node) = match &located.tag {
        Some(t) => (&root[t.as_str()]["tasks"], tree.get(t)?.get("tasks")?),
        None => (&root["tasks"], tree.get("tasks")?),
    };
    let tasks = tasks_value.as_array()?;
    let (task_id, sub_id) = match id.split_once('.') {
        Some((t, s)) => (t, Some(s)),
        None => (id, None),
    };
    let i = tasks
        .iter()
        .position(|t| t.get("id").and_then(id_text).as_deref() == Some(task_id))?;
    let task = &tasks[i];
    let task_node = tasks_node.items().get(i)?;
    let mut edits: Vec<Edit> = Vec::new();
    match sub_id {
        None => edits.push(set(text, task, task_node, "done")?),
        Some(s) => {
            let subs = task.get("subtasks")?.as_array()?;
            let k = subs
                .iter()
                .position(|x| x.get("id").and_then(id_text).as_deref() == Some(s))?;
            let sub_nodes = task_node.get("subtasks")?.items();
            edits.push(set(text, &subs[k], sub_nodes.get(k)?, "done")?);
            let others_done = subs.iter().enumerate().all(|(j, x)| {
                j == k
                    || matches!(
                        x.get("status").and_then(Value::as_str),
                        Some("done" | "completed" | "cancelled" | "deferred")
                    )
            });
            let parent = if others_done { "done" } else { "in-progress" };
            let current = task.get("status").and_then(Value::as_str);
            if current != Some(parent) && !(parent == "in-progress" && current == Some("done")) {
                edits.push(set(text, task, task_node, parent)?);
            }
        }
    }
    edits.retain(|e| e.changes(text));
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.start));
    let mut out = text.to_owned();
    for e in edits {
        out.replace_range(e.start..e.end, &e.with);
    }
    Some(out)
}

struct Edit {
    start: usize,
    end: usize,
    with: String,
}

impl Edit {
    fn changes(&self, text: &str) -> bool {
        text[self.start..self.end] != self.with
    }
}

/// The edit that gives `task` (at `node`) the status `to`.
fn set(text: &str, task: &Value, node: &Node, to: &str) -> Option<Edit> {
    let quoted = serde_json::to_string(to).ok()?;
    if let Some(status) = node.get("status") {
        if task.get("status").is_some_and(Value::is_string) {
            return Some(Edit {
                start: status.start,
                end: status.end,
                with: quoted,
            });
        }
    }
    // No status: one after the title (or the id), on a line of its own
    // when the object spans lines.
    let after = node.get("title").or_else(|| node.get("id"))?;
    let key_at = node.key_at("title").or_else(|| node.key_at("id"))?;
    let line_start = text[..key_at].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[line_start..key_at];
    let with = if indent.trim().is_empty() && line_start > 0 {
        let newline = if text[..line_start].ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        format!(",{newline}{indent}\"status\": {quoted}")
    } else {
        format!(", \"status\": {quoted}")
    };
    Some(Edit {
        start: after.end,
        end: after.end,
        with,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "{\n  \"master\": {\n    \"tasks\": [\n      {\n        \"id\": 1,\n        \"title\": \"A\",\n        \"status\": \"pending\",\n        \"dependencies\": [],\n        \"subtasks\": [\n          {\"id\": 1, \"title\": \"a1\", \"status\": \"pending\"},\n          {\"id\": 2, \"title\": \"a2\", \"status\": \"pending\"}\n        ]\n      },\n      {\n        \"id\": \"2\",\n        \"title\": \"B\"\n      }\n    ],\n    \"metadata\": {\"created\": \"x\"}\n  }\n}\n";

    #[test]
    fn only_status_bytes_change() {
        let ctx = Context::default();
        let one = mark_done(FILE, &ctx, "1.1").unwrap();
        assert_eq!(
            one,
            FILE.replacen(
                "\"status\": \"pending\",\n        \"dependencies\"",
                "\"status\": \"in-progress\",\n        \"dependencies\"",
                1
            )
            .replacen("\"a1\", \"status\": \"pending\"", "\"a1\", \"status\": \"done\"", 1)
        );
        let two = mark_done(&one, &ctx, "1.2").unwrap();
        assert!(two.contains("\"title\": \"A\",\n        \"status\": \"done\""));
        assert_eq!(mark_done(&two, &ctx, "1.2"), None);
        let b = mark_done(&two, &ctx, "2").unwrap();
        assert!(
            b.contains("\"title\": \"B\",\n        \"status\": \"done\"\n      }"),
            "{b}"
        );
        assert!(mark_done(&b, &ctx, "9").is_none());
    }
}
