//! The result validator: every rule of seed 000's "Result Validation".
//!
//! Critical violations make a result INVALID: missing required fields, wrong
//! types, inconsistent status (success needs exit code 0, done criteria met and
//! no error; failure needs an error and done criteria false; blocked needs an
//! error, no files and no verification command), a task name without
//! `Task N:` or naming no task of the plan (same number but another name
//! included: a name matches exactly, as a prefix, or by its words in order),
//! and paths that are absolute or leave the repository. Warnings
//! (VALID_WITH_WARNINGS): unknown fields, missing optional metadata, files
//! that do not exist, and files outside the task's list.

use std::path::Path;

use serde::Serialize;
use serde_yaml::Value;

use super::lines::key_lines;
use crate::ultraplan::plan::pattern::{self, safe_relative_path};
use crate::ultraplan::plan::{task_number, Plan, TaskMatch};

/// What the validator knows besides the result itself.
#[derive(Clone, Copy, Default)]
pub struct ValidationContext<'a> {
    /// The plan whose task the result reports on; enables name matching and
    /// the files-in-the-task's-list check.
    pub plan: Option<&'a Plan>,
    /// The repository root, for "file does not exist" warnings.
    pub root: Option<&'a Path>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Outcome {
    #[serde(rename = "VALID")]
    Valid,
    #[serde(rename = "VALID_WITH_WARNINGS")]
    ValidWithWarnings,
    #[serde(rename = "INVALID")]
    Invalid,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Valid => "VALID",
            Outcome::ValidWithWarnings => "VALID_WITH_WARNINGS",
            Outcome::Invalid => "INVALID",
        }
    }
}

/// One violation or warning: the field at fault and its line, when known.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub line: Option<usize>,
    pub field: String,
    pub message: String,
}

/// The task a result was matched to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchedTask {
    pub number: u32,
    pub name: String,
    /// `exact` or `prefix`.
    #[serde(rename = "match")]
    pub how: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct Validation {
    pub outcome: Outcome,
    pub violations: Vec<Finding>,
    pub warnings: Vec<Finding>,
    pub task: Option<MatchedTask>,
}

const TOP_LEVEL: [&str; 9] = [
    "status",
    "task_name",
    "files_modified",
    "verification",
    "done_criteria_met",
    "evidence",
    "error",
    "metadata",
    // Written by ultraplan's own records (DESIGN §8.3); harmless in a result.
    "warnings",
];
const VERIFICATION: [&str; 3] = ["command", "exit_code", "output_summary"];
const METADATA: [&str; 5] = ["duration_ms", "attempt", "executor_id", "cost_usd", "tokens"];
const OPTIONAL_METADATA: [&str; 3] = ["duration_ms", "attempt", "executor_id"];

struct Checker<'a> {
    lines: std::collections::HashMap<String, usize>,
    violations: Vec<Finding>,
    warnings: Vec<Finding>,
    ctx: ValidationContext<'a>,
}

impl Checker<'_> {
    /// The line of `field`, or of the nearest enclosing key.
    fn line(&self, field: &str) -> Option<usize> {
        let mut key = field;
        loop {
            if let Some(&l) = self.lines.get(key) {
                return Some(l);
            }
            key = match key.rsplit_once(['.', '[']) {
                Some((parent, _)) => parent,
                None => return None,
            };
        }
    }

    fn violation(&mut self, field: &str, message: impl Into<String>) {
        let line = self.line(field);
        self.violations.push(Finding {
            line,
            field: field.to_owned(),
            message: message.into(),
        });
    }

    fn warning(&mut self, field: &str, message: impl Into<String>) {
        let line = self.line(field);
        self.warnings.push(Finding {
            line,
            field: field.to_owned(),
            message: message.into(),
        });
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

/// Validates the result YAML `text`.
pub fn validate(text: &str, ctx: ValidationContext<'_>) -> Validation {
    // Editors on Windows start UTF-8 files with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut c = Checker {
        lines: key_lines(text),
        violations: Vec::new(),
        warnings: Vec::new(),
        ctx,
    };
    let task = match crate::yaml::parse(text) {
        Err(err) => {
            c.violations.push(Finding {
                line: err.line,
                field: String::new(),
                message: format!("not valid YAML: {}", err.message),
            });
            None
        }
        Ok(Value::Mapping(map)) => check_mapping(&mut c, &map),
        Ok(Value::Null) => {
            c.violations.push(Finding {
                line: None,
                field: String::new(),
                message: "the result is empty".into(),
            });
            None
        }
        Ok(other) => {
            c.violations.push(Finding {
                line: Some(1),
                field: String::new(),
                message: format!("the result must be a YAML mapping, not {}", type_name(&other)),
            });
            None
        }
    };
    let by_line = |a: &Finding, b: &Finding| a.line.unwrap_or(0).cmp(&b.line.unwrap_or(0));
    c.violations.sort_by(by_line);
    c.warnings.sort_by(by_line);
    let outcome = if !c.violations.is_empty() {
        Outcome::Invalid
    } else if !c.warnings.is_empty() {
        Outcome::ValidWithWarnings
    } else {
        Outcome::Valid
    };
    Validation {
        outcome,
        violations: c.violations,
        warnings: c.warnings,
        task,
    }
}

fn get<'v>(map: &'v serde_yaml::Mapping, key: &str) -> Option<&'v Value> {
    map.get(key)
}

fn check_mapping(c: &mut Checker<'_>, map: &serde_yaml::Mapping) -> Option<MatchedTask> {
    for key in map.keys() {
        match key.as_str() {
            Some(k) if TOP_LEVEL.contains(&k) => {}
            Some(k) => c.warning(k, format!("unknown field '{k}'")),
            None => c.warning("", format!("unknown field {key:?}")),
        }
    }

    // Schema completeness and types.
    let status = match get(map, "status") {
        None => {
            c.violation("status", "missing required field 'status'");
            None
        }
        Some(Value::String(s)) if matches!(s.as_str(), "success" | "failure" | "blocked") => Some(s.as_str()),
        Some(v) => {
            c.violation(
                "status",
                format!("status must be success, failure or blocked, not {}", describe(v)),
            );
            None
        }
    };
    let task_name = required_string(c, map, "task_name");
    let files: Option<Vec<&str>> = match get(map, "files_modified") {
        None => {
            c.violation("files_modified", "missing required field 'files_modified'");
            None
        }
        Some(Value::Sequence(items)) => {
            let mut paths = Vec::new();
            for item in items {
                match item.as_str() {
                    Some(p) => paths.push(p),
                    None => c.violation(
                        "files_modified",
                        format!("files_modified must list paths as strings, not {}", type_name(item)),
                    ),
                }
            }
            Some(paths)
        }
        Some(v) => {
            c.violation(
                "files_modified",
                format!("files_modified must be a list, not {}", type_name(v)),
            );
            None
        }
    };
    let (command, exit_code) = verification(c, map);
    let done = match get(map, "done_criteria_met") {
        None => {
            c.violation("done_criteria_met", "missing required field 'done_criteria_met'");
            None
        }
        Some(Value::Bool(b)) => Some(*b),
        Some(v) => {
            c.violation(
                "done_criteria_met",
                format!("done_criteria_met must be true or false, not {}", type_name(v)),
            );
            None
        }
    };
    required_string(c, map, "evidence");
    let error: Option<Option<&str>> = match get(map, "error") {
        None => {
            c.violation("error", "missing required field 'error' (null when there is none)");
            None
        }
        Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.as_str())),
        Some(v) => {
            c.violation("error", format!("error must be a string or null, not {}", type_name(v)));
            None
        }
    };
    metadata(c, map);

    // Status consistency.
    let has_error = error.map(|e| e.is_some_and(|s| !s.trim().is_empty()));
    match status {
        Some("success") => {
            match exit_code {
                Some(Some(0)) | None => {}
                Some(Some(code)) => c.violation(
                    "verification.exit_code",
                    format!("status is 'success' but verification.exit_code is {code}, not 0"),
                ),
                Some(None) => c.violation(
                    "verification.exit_code",
                    "status is 'success' but verification.exit_code is null, not 0",
                ),
            }
            if done == Some(false) {
                c.violation(
                    "done_criteria_met",
                    "status is 'success' but done_criteria_met is false",
                );
            }
            if has_error == Some(true) {
                c.violation("error", "status is 'success' but error is set; it must be null");
            }
        }
        Some("failure") => {
            if has_error == Some(false) {
                c.violation("error", "status is 'failure' but error is null; say what went wrong");
            }
            if done == Some(true) {
                c.violation("done_criteria_met", "status is 'failure' but done_criteria_met is true");
            }
        }
        Some("blocked") => {
            if has_error == Some(false) {
                c.violation(
                    "error",
                    "status is 'blocked' but error is null; say what blocks the task",
                );
            }
            if files.as_ref().is_some_and(|f| !f.is_empty()) {
                c.violation("files_modified", "status is 'blocked' but files_modified is not empty");
            }
            if matches!(command, Some(Some(_))) {
                c.violation(
                    "verification.command",
                    "status is 'blocked' but verification.command is set; it must be null",
                );
            }
        }
        _ => {}
    }

    // Task name matching.
    let matched = task_name.and_then(|name| match_task(c, &name));

    // File paths.
    if let Some(files) = files {
        let step = matched.as_ref().and_then(|m| c.ctx.plan.and_then(|p| p.step(m.number)));
        for (i, path) in files.into_iter().enumerate() {
            let field = format!("files_modified[{i}]");
            let normalized = match safe_relative_path(path) {
                Ok(p) => p,
                Err(why) => {
                    c.violation(&field, format!("files_modified: '{path}' {why}"));
                    continue;
                }
            };
            if let Some(root) = c.ctx.root {
                if root.join(&normalized).symlink_metadata().is_err() {
                    c.warning(&field, format!("files_modified: '{path}' does not exist"));
                }
            }
            if let Some(step) = step {
                let listed = step.files.iter().any(|f| {
                    safe_relative_path(&f.path).is_ok_and(|p| p == normalized) || pattern::matches(&f.path, &normalized)
                });
                if !listed {
                    c.warning(
                        &field,
                        format!("files_modified: '{path}' is not in the files of '{}'", step.task_name()),
                    );
                }
            }
        }
    }
    matched
}

fn describe(v: &Value) -> String {
    match v.as_str() {
        Some(s) => format!("'{s}'"),
        None => type_name(v).to_owned(),
    }
}

fn required_string(c: &mut Checker<'_>, map: &serde_yaml::Mapping, key: &str) -> Option<String> {
    match get(map, key) {
        None => {
            c.violation(key, format!("missing required field '{key}'"));
            None
        }
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) => {
            c.violation(key, format!("{key} must be a string, not {}", type_name(v)));
            None
        }
    }
}

/// Checks the verification block; returns (command, exit_code) where the outer
/// `None` means absent or mistyped and the inner `None` means null.
#[allow(clippy::type_complexity)]
fn verification(c: &mut Checker<'_>, map: &serde_yaml::Mapping) -> (Option<Option<String>>, Option<Option<i64>>) {
    let block = match get(map, "verification") {
        None => {
            c.violation("verification", "missing required field 'verification'");
            return (None, None);
        }
        Some(Value::Mapping(m)) => m,
        Some(v) => {
            c.violation(
                "verification",
                format!("verification must be a mapping, not {}", type_name(v)),
            );
            return (None, None);
        }
    };
    for key in block.keys() {
        match key.as_str() {
            Some(k) if VERIFICATION.contains(&k) => {}
            Some(k) => c.warning(
                &format!("verification.{k}"),
                format!("unknown field 'verification.{k}'"),
            ),
            None => c.warning("verification", format!("unknown field {key:?} in verification")),
        }
    }
    let command = match block.get("command") {
        None => {
            c.violation("verification.command", "missing required field 'verification.command'");
            None
        }
        Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(v) => {
            c.violation(
                "verification.command",
                format!("verification.command must be a string or null, not {}", type_name(v)),
            );
            None
        }
    };
    let exit_code = match block.get("exit_code") {
        None => {
            c.violation(
                "verification.exit_code",
                "missing required field 'verification.exit_code'",
            );
            None
        }
        Some(Value::Null) => Some(None),
        Some(Value::Number(n)) if n.as_i64().is_some() => Some(n.as_i64()),
        Some(v) => {
            c.violation(
                "verification.exit_code",
                format!("verification.exit_code must be an integer, not {}", type_name(v)),
            );
            None
        }
    };
    match block.get("output_summary") {
        None => c.violation(
            "verification.output_summary",
            "missing required field 'verification.output_summary'",
        ),
        Some(Value::String(_)) => {}
        Some(v) => c.violation(
            "verification.output_summary",
            format!("verification.output_summary must be a string, not {}", type_name(v)),
        ),
    }
    (command, exit_code)
}

fn metadata(c: &mut Checker<'_>, map: &serde_yaml::Mapping) {
    let block = match get(map, "metadata") {
        None | Some(Value::Null) => {
            c.warning(
                "metadata",
                "missing optional field 'metadata' (duration_ms, attempt, executor_id)",
            );
            return;
        }
        Some(Value::Mapping(m)) => m,
        Some(v) => {
            c.violation("metadata", format!("metadata must be a mapping, not {}", type_name(v)));
            return;
        }
    };
    for key in block.keys() {
        match key.as_str() {
            Some(k) if METADATA.contains(&k) => {}
            Some(k) => c.warning(&format!("metadata.{k}"), format!("unknown field 'metadata.{k}'")),
            None => c.warning("metadata", format!("unknown field {key:?} in metadata")),
        }
    }
    for key in OPTIONAL_METADATA {
        if !block.contains_key(key) {
            c.warning("metadata", format!("missing optional field 'metadata.{key}'"));
        }
    }
    let field = |k: &str| format!("metadata.{k}");
    if let Some(v) = block.get("duration_ms") {
        if v.as_u64().is_none() {
            c.violation(
                &field("duration_ms"),
                format!(
                    "metadata.duration_ms must be a non-negative integer, not {}",
                    describe(v)
                ),
            );
        }
    }
    if let Some(v) = block.get("attempt") {
        if v.as_u64().is_none_or(|n| n < 1) {
            c.violation(
                &field("attempt"),
                format!("metadata.attempt must be an integer from 1, not {}", describe(v)),
            );
        }
    }
    if let Some(v) = block.get("executor_id") {
        if !v.is_string() {
            c.violation(
                &field("executor_id"),
                format!("metadata.executor_id must be a string, not {}", type_name(v)),
            );
        }
    }
    if let Some(v) = block.get("cost_usd") {
        if !v.as_f64().is_some_and(|n| n >= 0.0) {
            c.violation(
                &field("cost_usd"),
                format!("metadata.cost_usd must be a non-negative number, not {}", describe(v)),
            );
        }
    }
    if let Some(v) = block.get("tokens") {
        let ok = v.as_u64().is_some() || v.as_mapping().is_some_and(|m| m.values().all(|n| n.as_u64().is_some()));
        if !ok {
            c.violation(
                &field("tokens"),
                format!(
                    "metadata.tokens must be an integer or a mapping of integers, not {}",
                    type_name(v)
                ),
            );
        }
    }
}

fn match_task(c: &mut Checker<'_>, name: &str) -> Option<MatchedTask> {
    if task_number(name).is_none() {
        c.violation(
            "task_name",
            format!("task_name '{name}' does not start with 'Task N:', so it matches no task"),
        );
        return None;
    }
    let plan = c.ctx.plan?;
    let (step, how) = match plan.match_task(name) {
        TaskMatch::Exact(step) => (step, "exact"),
        TaskMatch::Prefix(step) => (step, "prefix"),
        TaskMatch::NumberOnly(step) => {
            // Seed 000: a name matching no task is a critical violation.
            c.violation(
                "task_name",
                format!(
                    "task_name '{name}' matches no task of the plan (task {} is '{}')",
                    step.number,
                    step.task_name()
                ),
            );
            return None;
        }
        TaskMatch::Unknown(n) => {
            c.violation(
                "task_name",
                format!("task_name '{name}' matches no task of the plan (it has no task {n})"),
            );
            return None;
        }
        TaskMatch::NoTaskNumber => return None,
    };
    Some(MatchedTask {
        number: step.number,
        name: step.task_name(),
        how,
    })
}
