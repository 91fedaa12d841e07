//! Taskmaster's `.taskmaster/tasks/tasks.json` (read from
//! eyaltoledano/claude-task-master at task-master-ai 0.43.1, commit c0c98d3:
//! its own `.taskmaster/tasks/tasks.json`, `packages/tm-core`'s task types
//! and test fixtures).
//!
//! The file is tagged — `{"master": {"tasks": [...], "metadata": {...}},
//! "feature-x": {...}}` — or, as older versions wrote it, plain —
//! `{"tasks": [...]}`. A task has `id`, `title`, `description`, `status`
//! (pending, in-progress, done, review, deferred, cancelled, blocked),
//! `dependencies` (task ids), `priority`, `details`, `testStrategy` and
//! `subtasks` (ids within the task; their `dependencies` name sibling
//! subtasks by number, or any subtask as `"3.2"`). What ultraplan makes of it:
//!
//! * the tag: `--tag <name>`, else `.taskmaster/state.json`'s `currentTag`,
//!   else `master`, else the file's only tag;
//! * the dependency graph becomes waves (a task's wave is one more than its
//!   dependencies' latest); the steps run wave by wave, in file order within
//!   a wave, one after another in this worktree — Taskmaster tasks name no
//!   files, so nothing proves two of them could share a wave in worktrees;
//! * a task with subtasks runs as its subtasks (in their dependency order);
//! * tasks whose status is `done`, `completed` or `review` were done before
//!   and are skipped, `cancelled` and `deferred` ones are not wanted and
//!   skipped too (a task depending on one is warned about);
//! * `testStrategy` is the Verify when it reads as a command (or holds
//!   commands in code spans); as prose it is sent to the executor with
//!   `details`, and the step passes on the executor's word only with
//!   `--allow-unverified`. Fenced blocks in `details` are what the shell
//!   executor runs;
//! * each checkpoint sets the task's `status` to `done` in the file — the
//!   parent's to `in-progress` with its first subtask and `done` with its
//!   last — changing those bytes only (see [`status`]).

mod order;
mod spans;
pub mod status;

use serde_json::Value;

use super::elements::LineIndex;
use super::markdown::{code_blocks, Document};
use super::verify_text::{read, Reading};
use super::{
    Checkpoint, Context, Diagnostic, ExpectedKind, FailurePolicy, OnFailure, Plan, PlanKind, Severity, Step,
    Unrecognised, Verify,
};

/// Statuses Taskmaster writes.
const STATUSES: [&str; 8] = [
    "pending",
    "in-progress",
    "done",
    "review",
    "deferred",
    "cancelled",
    "blocked",
    "completed",
];

/// Whether `text` is to be read as Taskmaster's JSON: a `.json` file, or
/// text that starts with `{`.
pub(crate) fn looks_like(text: &str, file_name: &str) -> bool {
    file_name.to_lowercase().ends_with(".json") || text.trim_start().starts_with('{')
}

/// Where the tasks are: the tag (`None` for a plain file) and the names of
/// every tag.
pub(crate) struct Located {
    pub tag: Option<String>,
    pub tags: Vec<String>,
}

pub(super) struct Reader {
    diags: Vec<Diagnostic>,
    lines: LineIndex,
}

impl Reader {
    pub(super) fn problem(&mut self, at: usize, message: String) {
        self.diags.push(Diagnostic {
            line: self.lines.line(at),
            severity: Severity::Problem,
            message,
        });
    }

    pub(super) fn warning(&mut self, at: usize, message: String) {
        self.diags.push(Diagnostic {
            line: self.lines.line(at),
            severity: Severity::Warning,
            message,
        });
    }
}

/// The tasks of the chosen tag, or why the file is not one.
pub(crate) fn locate(root: &Value, ctx: &Context) -> Result<Located, String> {
    let Some(obj) = root.as_object() else {
        return Err("it is JSON, but not an object".into());
    };
    if obj.get("tasks").is_some_and(Value::is_array) {
        if let Some(t) = &ctx.tag {
            return Err(format!(
                "--tag '{t}': this tasks.json has no tags (it is the plain, untagged layout)"
            ));
        }
        return Ok(Located {
            tag: None,
            tags: Vec::new(),
        });
    }
    let tags: Vec<String> = obj
        .iter()
        .filter(|(_, v)| v.get("tasks").is_some_and(Value::is_array))
        .map(|(k, _)| k.clone())
        .collect();
    if tags.is_empty() {
        return Err("it is JSON, but has no 'tasks' list at its top or under a tag".into());
    }
    let current = ctx
        .companions
        .get("../state.json")
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .and_then(|s| s.get("currentTag").and_then(Value::as_str).map(str::to_owned));
    let tag = match (&ctx.tag, current) {
        (Some(t), _) => t.clone(),
        (None, Some(c)) if tags.contains(&c) => c,
        _ if tags.iter().any(|t| t == "master") => "master".into(),
        _ if tags.len() == 1 => tags[0].clone(),
        _ => {
            return Err(format!(
                "it has {} tags and none is 'master': choose one with --tag ({})",
                tags.len(),
                tags.join(", ")
            ))
        }
    };
    if !tags.contains(&tag) {
        return Err(format!("it has no tag '{tag}' (its tags: {})", tags.join(", ")));
    }
    Ok(Located { tag: Some(tag), tags })
}

/// A task id as Taskmaster writes it (`3`, `"3"`), as text.
pub(crate) fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        _ => None,
    }
}

pub(super) struct Unit<'v> {
    /// `3`, or `3.2` for a subtask.
    pub(super) id: String,
    pub(super) task: &'v Value,
    pub(super) sub: Option<&'v Value>,
    pub(super) parent_strategy: Option<&'v str>,
    pub(super) at: usize,
}

pub(crate) fn parse(text: &str, file_name: &str, ctx: &Context) -> Result<Plan, Unrecognised> {
    let mut plan = Plan {
        kind: PlanKind::Taskmaster,
        plan_id: String::new(),
        title: None,
        plan_version: None,
        format_reason: None,
        verify_note: None,
        steps: Vec::new(),
        sessions: Vec::new(),
        waves: Vec::new(),
        verification: Vec::new(),
        session_spec: None,
        context: Vec::new(),
        success_criteria: None,
        diagnostics: Vec::new(),
        execution_order: Vec::new(),
    };
    let mut r = Reader {
        diags: Vec::new(),
        lines: LineIndex::new(text, 1),
    };
    let named_tasks = file_name.to_lowercase().ends_with("tasks.json");
    let root: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) if named_tasks || text.contains("\"tasks\"") => {
            plan.plan_id = stem(file_name);
            plan.format_reason = Some("a Taskmaster tasks.json (by its name), but not valid JSON".into());
            plan.diagnostics.push(Diagnostic {
                line: e.line().max(1),
                severity: Severity::Problem,
                message: format!("not valid JSON at column {}: {e}", e.column()),
            });
            return Ok(plan);
        }
        Err(_) => return Err(Unrecognised),
    };
    let located = match locate(&root, ctx) {
        Ok(l) => l,
        Err(why) if named_tasks || ctx.tag.is_some() => {
            plan.plan_id = stem(file_name);
            plan.format_reason = Some("a Taskmaster tasks.json (by its name)".into());
            plan.diagnostics.push(Diagnostic {
                line: 1,
                severity: Severity::Problem,
                message: why,
            });
            return Ok(plan);
        }
        Err(_) => return Err(Unrecognised),
    };
    let Some(tree) = spans::scan(text) else {
        return Err(Unrecognised);
    };
    let (tasks_value, tasks_node) = match &located.tag {
        Some(t) => (&root[t.as_str()]["tasks"], tree.get(t).and_then(|n| n.get("tasks"))),
        None => (&root["tasks"], tree.get("tasks")),
    };
    let Some(tasks_node) = tasks_node else {
        return Err(Unrecognised);
    };
    plan.plan_id = located.tag.clone().unwrap_or_else(|| stem(file_name));
    plan.title = match &located.tag {
        Some(t) => root[t.as_str()]["metadata"]["description"]
            .as_str()
            .map(str::to_owned)
            .or_else(|| Some(format!("tag {t}"))),
        None => None,
    };
    let tasks: Vec<&Value> = tasks_value.as_array().map(|a| a.iter().collect()).unwrap_or_default();
    let nodes = tasks_node.items();
    let (units, waves) = order::order(&tasks, nodes, &mut r);
    let mut verified_any = false;
    for u in &units {
        let step = step_for(u, plan.steps.len() as u32 + 1, &mut r);
        verified_any |= step.verify.is_some();
        plan.steps.push(step);
    }
    let to_run = plan.steps.iter().filter(|s| s.skip.is_none()).count();
    let wave_text: Vec<String> = waves
        .iter()
        .enumerate()
        .map(|(i, w)| format!("{}: {}", i + 1, w.join(", ")))
        .collect();
    plan.format_reason = Some(format!(
        "a Taskmaster tasks.json, {}: {} task(s), {} step(s) to run; the dependency graph's waves: {}",
        match &located.tag {
            Some(t) if located.tags.len() > 1 => format!("tag '{t}' (of {})", located.tags.join(", ")),
            Some(t) => format!("tag '{t}'"),
            None => "plain (untagged)".into(),
        },
        tasks.len(),
        to_run,
        if wave_text.is_empty() {
            "none".into()
        } else {
            wave_text.join(" · ")
        }
    ));
    plan.verify_note = Some(if verified_any {
        "testStrategy where it is (or names) a command; other tasks pass on the executor's word only with --allow-unverified".into()
    } else {
        "none: no testStrategy reads as a command, so tasks pass on the executor's word only with --allow-unverified (the strategy goes to the executor)".into()
    });
    if tasks.is_empty() {
        r.problem(tasks_node.start, "the tag has no tasks".into());
    }
    plan.diagnostics = r.diags;
    Ok(plan)
}

fn stem(file_name: &str) -> String {
    std::path::Path::new(file_name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tasks".into())
}

fn step_for(u: &Unit<'_>, number: u32, r: &mut Reader) -> Step {
    let v = u.sub.unwrap_or(u.task);
    let s = |key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").trim().to_owned();
    let title = s("title");
    let details = s("details");
    let mut changes = title.clone();
    for part in [s("description"), details.clone()] {
        if !part.is_empty() {
            changes.push_str("\n\n");
            changes.push_str(&part);
        }
    }
    if u.sub.is_some() {
        let parent = u.task.get("title").and_then(Value::as_str).unwrap_or("");
        changes.push_str(&format!(
            "\n\n(a subtask of task {}: {parent})",
            u.id.split('.').next().unwrap_or("")
        ));
    }
    let strategy = s("testStrategy");
    let mut done = Vec::new();
    for (label, text) in [
        ("Test strategy", strategy.as_str()),
        (
            "Acceptance criteria",
            v.get("acceptanceCriteria").and_then(Value::as_str).unwrap_or(""),
        ),
        ("The task's test strategy", u.parent_strategy.unwrap_or("")),
    ] {
        if !text.trim().is_empty() {
            done.push(format!("{label}: {}", text.trim()));
        }
    }
    let verify = [strategy.as_str(), u.parent_strategy.unwrap_or("")]
        .into_iter()
        .filter(|t| !t.trim().is_empty())
        .find_map(|t| match read(t) {
            Reading::Command(command) => Some(Verify {
                command,
                expected: None,
                expected_kind: None,
            }),
            Reading::Prose { text, commands } if !commands.is_empty() => Some(Verify {
                command: commands.join(" && "),
                expected: Some(text),
                expected_kind: Some(ExpectedKind::Prose),
            }),
            Reading::Prose { .. } => None,
        });
    let status = v.get("status").and_then(Value::as_str).unwrap_or("pending");
    let skip = match status {
        "done" | "completed" | "review" => Some(format!(
            "task {} is '{status}' in tasks.json: done before this run",
            u.id
        )),
        "cancelled" | "deferred" => Some(format!("task {} is '{status}' in tasks.json: not to be run", u.id)),
        _ => None,
    };
    if u.sub.is_some() && skip.is_none() && order::skipped(u.task) {
        r.warning(
            u.at,
            format!(
                "subtask {} is '{status}' though its task is '{}': it runs",
                u.id,
                u.task.get("status").and_then(Value::as_str).unwrap_or("")
            ),
        );
    }
    if title.is_empty() && u.sub.is_some() {
        r.problem(u.at, format!("subtask {} has no title", u.id));
    }
    Step {
        number,
        title: format!("{} {title}", u.id),
        code_blocks: code_blocks(&Document::new(&details, 1).lines),
        changes,
        verify,
        on_failure: OnFailure {
            action: FailurePolicy::Retry,
            instructions: None,
        },
        checkpoint: Some(Checkpoint::Commit {
            message: format!("task {}: {title}", u.id),
        }),
        done: (!done.is_empty()).then(|| done.join("\n")),
        source_id: Some(u.id.clone()),
        skip,
        line: r.lines.line(u.at),
        ..Default::default()
    }
}
