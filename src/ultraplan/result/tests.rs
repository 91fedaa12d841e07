//! Seed 000's validation rules over the shared result fixtures and one case
//! per rule.

use super::*;
use crate::ultraplan::plan::{self, Plan};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn task_plan() -> Plan {
    plan::parse(&fixture("plans/03-01-PLAN.md"), "03-01-PLAN.md").unwrap()
}

/// A repository root where the fixtures' file exists.
fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude/agents")).unwrap();
    std::fs::write(dir.path().join(".claude/agents/ultraplan-executor.md"), "x").unwrap();
    dir
}

fn check(text: &str) -> Validation {
    let plan = task_plan();
    let dir = root();
    validate(
        text,
        ValidationContext {
            plan: Some(&plan),
            root: Some(dir.path()),
        },
    )
}

fn messages(findings: &[Finding]) -> Vec<String> {
    findings.iter().map(|f| f.message.clone()).collect()
}

const GOOD: &str = "status: success
task_name: \"Task 1: Create executor agent\"
files_modified:
  - .claude/agents/ultraplan-executor.md
verification:
  command: \"grep x f\"
  exit_code: 0
  output_summary: \"ok\"
done_criteria_met: true
evidence: \"did it\"
error: null
metadata:
  duration_ms: 10
  attempt: 1
  executor_id: \"e\"
";

fn with(replace: &str, by: &str) -> String {
    assert!(GOOD.contains(replace), "{replace}");
    GOOD.replacen(replace, by, 1)
}

#[test]
fn fixtures_get_the_seed_outcomes() {
    let success = check(&fixture("results/success.yaml"));
    assert_eq!(success.outcome, Outcome::Valid, "{:?}", success.warnings);
    assert_eq!(success.task.as_ref().unwrap().how, "exact");

    let blocked = check(&fixture("results/blocked.yaml"));
    assert_eq!(blocked.outcome, Outcome::ValidWithWarnings);
    assert_eq!(
        messages(&blocked.warnings),
        vec!["missing optional field 'metadata' (duration_ms, attempt, executor_id)"]
    );

    let failure = check(&fixture("results/failure.yaml"));
    assert_eq!(failure.outcome, Outcome::ValidWithWarnings);
    assert_eq!(
        messages(&failure.warnings),
        vec!["missing optional field 'metadata.executor_id'"]
    );

    let nonzero = check(&fixture("results/invalid-success-nonzero.yaml"));
    assert_eq!(nonzero.outcome, Outcome::Invalid);
    assert_eq!(nonzero.violations.len(), 1);
    assert_eq!(nonzero.violations[0].field, "verification.exit_code");
    assert_eq!(nonzero.violations[0].line, Some(7));

    let unknown = check(&fixture("results/invalid-unknown-task.yaml"));
    assert_eq!(unknown.outcome, Outcome::Invalid);
    assert_eq!(unknown.violations[0].field, "task_name");
    assert_eq!(unknown.violations[0].line, Some(2));

    let extra = check(&fixture("results/warnings-extra-fields.yaml"));
    assert_eq!(extra.outcome, Outcome::ValidWithWarnings);
    assert_eq!(extra.task.as_ref().unwrap().how, "prefix");
    let w = messages(&extra.warnings);
    assert!(w.contains(&"unknown field 'reviewer_mood'".to_owned()), "{w:?}");
    assert!(w
        .iter()
        .any(|m| m.contains("'README.md' is not in the files of 'Task 1: Create executor agent'")));
    assert!(w.iter().any(|m| m.contains("'README.md' does not exist")));
    let readme = extra
        .warnings
        .iter()
        .find(|f| f.message.contains("README.md' does not"))
        .unwrap();
    assert_eq!(readme.line, Some(5), "points at the list item");
}

#[test]
fn a_good_result_is_valid() {
    let v = check(GOOD);
    assert_eq!(v.outcome, Outcome::Valid, "{:?} {:?}", v.violations, v.warnings);
}

#[test]
fn status_consistency() {
    for (text, field, needle) in [
        (
            with("done_criteria_met: true", "done_criteria_met: false"),
            "done_criteria_met",
            "success' but done_criteria_met is false",
        ),
        (
            with("error: null", "error: \"oops\""),
            "error",
            "success' but error is set",
        ),
        (
            with("exit_code: 0", "exit_code: null"),
            "verification.exit_code",
            "exit_code is null",
        ),
        (
            with("status: success", "status: failure"),
            "error",
            "failure' but error is null",
        ),
        (
            with("status: success", "status: blocked")
                .replace("error: null", "error: \"x\"")
                .replace("done_criteria_met: true", "done_criteria_met: false"),
            "files_modified",
            "blocked' but files_modified is not empty",
        ),
    ] {
        let v = check(&text);
        assert_eq!(v.outcome, Outcome::Invalid, "{text}");
        assert!(
            v.violations
                .iter()
                .any(|f| f.field == field && f.message.contains(needle)),
            "{:?}",
            v.violations
        );
    }
    let failure_done = with("status: success", "status: failure").replace("error: null", "error: \"x\"");
    assert!(messages(&check(&failure_done).violations)
        .iter()
        .any(|m| m.contains("failure' but done_criteria_met is true")));
    let blocked_cmd = "status: blocked\ntask_name: \"Task 1: Create executor agent\"\nfiles_modified: []\nverification:\n  command: \"x\"\n  exit_code: null\n  output_summary: \"\"\ndone_criteria_met: false\nevidence: \"\"\nerror: \"missing\"\n";
    assert!(messages(&check(blocked_cmd).violations)
        .iter()
        .any(|m| m.contains("verification.command is set")));
}

#[test]
fn required_fields_and_types() {
    for key in [
        "status",
        "task_name",
        "files_modified",
        "verification",
        "done_criteria_met",
        "evidence",
        "error",
    ] {
        let text: String = GOOD
            .lines()
            .scan(false, |skipping, line| {
                let starts = line.starts_with(&format!("{key}:"));
                if starts {
                    *skipping = true;
                    return Some(None);
                }
                if *skipping && line.starts_with(' ') {
                    return Some(None);
                }
                *skipping = false;
                Some(Some(line))
            })
            .flatten()
            .collect::<Vec<_>>()
            .join("\n");
        let v = check(&text);
        assert_eq!(v.outcome, Outcome::Invalid, "without {key}");
        assert!(
            messages(&v.violations).contains(&format!("missing required field '{key}'")) || key == "error",
            "{key}: {:?}",
            v.violations
        );
    }
    for (from, to, needle) in [
        (
            "status: success",
            "status: done",
            "status must be success, failure or blocked, not 'done'",
        ),
        (
            "exit_code: 0",
            "exit_code: \"0\"",
            "exit_code must be an integer, not a string",
        ),
        (
            "done_criteria_met: true",
            "done_criteria_met: \"yes\"",
            "done_criteria_met must be true or false",
        ),
        ("attempt: 1", "attempt: 0", "metadata.attempt must be an integer from 1"),
        (
            "duration_ms: 10",
            "duration_ms: -5",
            "metadata.duration_ms must be a non-negative integer",
        ),
        (
            "evidence: \"did it\"",
            "evidence: [1]",
            "evidence must be a string, not a list",
        ),
    ] {
        let v = check(&with(from, to));
        assert_eq!(v.outcome, Outcome::Invalid, "{to}");
        assert!(
            messages(&v.violations).iter().any(|m| m.contains(needle)),
            "{to}: {:?}",
            v.violations
        );
    }
    let not_list = with(
        "files_modified:\n  - .claude/agents/ultraplan-executor.md",
        "files_modified: a.txt",
    );
    assert!(messages(&check(&not_list).violations)
        .iter()
        .any(|m| m.contains("files_modified must be a list")));
}

#[test]
fn unsafe_paths_are_critical() {
    for path in ["/etc/passwd", "../outside", ".git/config"] {
        let v = check(&with(".claude/agents/ultraplan-executor.md", path));
        assert_eq!(v.outcome, Outcome::Invalid, "{path}");
        assert_eq!(v.violations[0].field, "files_modified[0]");
        assert_eq!(v.violations[0].line, Some(4));
    }
}

#[test]
fn task_names() {
    let unknown = check(&with("Task 1: Create executor agent", "Task 7: Create executor agent"));
    assert_eq!(unknown.outcome, Outcome::Invalid);
    assert!(messages(&unknown.violations)[0].contains("matches no task of the plan"));
    let by_number = check(&with("Task 1: Create executor agent", "Task 1: Delete everything"));
    assert_eq!(by_number.outcome, Outcome::Invalid);
    assert!(
        messages(&by_number.violations)[0].contains("(task 1 is 'Task 1: Create executor agent')"),
        "{:?}",
        by_number.violations
    );
    // Seed 000's prefix rule: the words of one name in the other, in order.
    for name in [
        "Task 1: Create agent",
        "Task 1: create the executor agent",
        "Task 1: Create",
    ] {
        let v = check(&with("Task 1: Create executor agent", name));
        assert_eq!(v.outcome, Outcome::Valid, "{name}: {:?}", v.violations);
        assert_eq!(v.task.unwrap().how, "prefix", "{name}");
    }
    // Without a plan only the `Task N:` form is checked.
    let alone = validate(
        &with("Task 1: Create executor agent", "Task 7: Whatever"),
        ValidationContext::default(),
    );
    assert_eq!(alone.outcome, Outcome::Valid);
    let no_number = validate(
        &with("Task 1: Create executor agent", "Create file"),
        ValidationContext::default(),
    );
    assert_eq!(no_number.outcome, Outcome::Invalid);
}

#[test]
fn unknown_fields_warn_at_every_level() {
    let text = with("  output_summary: \"ok\"", "  output_summary: \"ok\"\n  extra: 1").replace(
        "  executor_id: \"e\"",
        "  executor_id: \"e\"\n  cost_usd: 0.5\n  tokens: {input: 10, output: 5}\n  mood: 2",
    );
    let v = check(&text);
    assert_eq!(v.outcome, Outcome::ValidWithWarnings, "{:?}", v.violations);
    assert_eq!(
        messages(&v.warnings),
        vec!["unknown field 'verification.extra'", "unknown field 'metadata.mood'"]
    );
}

#[test]
fn not_yaml_or_not_a_mapping() {
    let broken = check("status: success\ntask_name: [unclosed\n");
    assert_eq!(broken.outcome, Outcome::Invalid);
    assert!(broken.violations[0].message.starts_with("not valid YAML"));
    assert!(broken.violations[0].line.is_some());
    assert_eq!(
        check("- a\n- b\n").violations[0].message,
        "the result must be a YAML mapping, not a list"
    );
    assert_eq!(check("").violations[0].message, "the result is empty");
}
