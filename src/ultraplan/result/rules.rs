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

use serde_yaml::Value;

use super::checker::{describe, get, required_string, type_name, Checker};
use super::lines::key_lines;
use super::sections::{metadata, verification};
use super::task_match::match_task;
use super::validation::{Finding, MatchedTask, Outcome, Validation, ValidationContext};
use crate::ultraplan::plan::pattern::{self, safe_relative_path};

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

fn check_mapping(c: &mut Checker<'_>, map: &serde_yaml::Mapping) -> Option<MatchedTask> {
    unknown_fields(c, map);
    let fields = read_fields(c, map);
    status_consistency(c, &fields);
    let matched = fields.task_name.as_ref().and_then(|name| match_task(c, name));
    if let Some(files) = fields.files {
        file_paths(c, files, matched.as_ref());
    }
    matched
}

/// Fields a result may not have are warned about.
fn unknown_fields(c: &mut Checker<'_>, map: &serde_yaml::Mapping) {
    for key in map.keys() {
        match key.as_str() {
            Some(k) if TOP_LEVEL.contains(&k) => {}
            Some(k) => c.warning(k, format!("unknown field '{k}'")),
            None => c.warning("", format!("unknown field {key:?}")),
        }
    }
}

/// The required fields as read (`None`: missing or mistyped, already a
/// violation).
struct Fields<'m> {
    status: Option<&'m str>,
    task_name: Option<String>,
    files: Option<Vec<&'m str>>,
    command: Option<Option<String>>,
    exit_code: Option<Option<i64>>,
    done: Option<bool>,
    error: Option<Option<&'m str>>,
}

/// Schema completeness and types.
fn read_fields<'m>(c: &mut Checker<'_>, map: &'m serde_yaml::Mapping) -> Fields<'m> {
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
    Fields {
        status,
        task_name,
        files,
        command,
        exit_code,
        done,
        error,
    }
}

/// Status consistency: what success, failure and blocked each require.
fn status_consistency(c: &mut Checker<'_>, fields: &Fields<'_>) {
    let Fields {
        status,
        files,
        command,
        exit_code,
        done,
        error,
        ..
    } = fields;
    let (status, exit_code, done) = (*status, *exit_code, *done);
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
}

/// File paths: inside the repository, existing, and in the task's list.
fn file_paths(c: &mut Checker<'_>, files: Vec<&str>, matched: Option<&MatchedTask>) {
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
