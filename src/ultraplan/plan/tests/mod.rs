//! The plan formats over the shared fixtures (copied into `tests/fixtures`),
//! lenient spellings, every structural problem with its line, and a property
//! test that no input makes the parser panic.

use super::*;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/plans/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parsed(text: &str) -> Plan {
    parse(text, "plan.md").expect("recognised")
}

fn problems(plan: &Plan) -> Vec<(usize, String)> {
    plan.problems().map(|d| (d.line, d.message.clone())).collect()
}

fn warnings(plan: &Plan) -> Vec<(usize, String)> {
    plan.warnings().map(|d| (d.line, d.message.clone())).collect()
}

fn has_problem(plan: &Plan, line: usize, needle: &str) -> bool {
    problems(plan).iter().any(|(l, m)| *l == line && m.contains(needle))
}

#[test]
fn multi_session_fixture() {
    let plan = parse(&fixture("ultraplan-multi-session.md"), "ultraplan-multi-session.md").unwrap();
    assert_eq!(plan.kind, PlanKind::Plan);
    assert_eq!(plan.plan_id, "ultraplan-multi-session");
    assert_eq!(plan.title.as_deref(), Some("Status endpoint and CLI flags"));
    assert_eq!(plan.plan_version.as_deref(), Some("1.7"));
    assert_eq!(problems(&plan), vec![]);
    assert_eq!(
        plan.steps.iter().map(|s| s.number).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );

    let step1 = &plan.steps[0];
    assert_eq!(step1.title, "Add config field");
    assert_eq!(step1.line, 13);
    assert_eq!(step1.files[0].path, "src/config.rs");
    let verify = step1.verify.as_ref().unwrap();
    assert_eq!(verify.command, "cargo test config::status_enabled");
    assert_eq!(verify.expected.as_deref(), Some("test result: ok"));
    assert_eq!(step1.on_failure.action, FailurePolicy::Revert);
    assert_eq!(
        step1.on_failure.instructions.as_deref(),
        Some("restore `src/config.rs`")
    );
    assert_eq!(
        step1.checkpoint,
        Some(Checkpoint::Commit {
            message: "feat(config): add status_enabled".into()
        })
    );
    assert_eq!(
        plan.steps[1].on_failure.instructions.as_deref(),
        Some("once, then escalate")
    );
    assert_eq!(plan.steps[3].on_failure.action, FailurePolicy::Escalate);
    assert_eq!(plan.steps[4].on_failure.action, FailurePolicy::Skip);

    assert_eq!(plan.sessions.len(), 3);
    assert_eq!(plan.sessions[1].steps, vec![3, 4]);
    assert_eq!(plan.sessions[2].depends_on, vec![1, 2]);
    assert_eq!(plan.sessions[0].never_touch[0].text, "src/server/**");
    assert_eq!(plan.waves, vec![vec![1, 2], vec![3]]);
    assert!(plan.is_multi_session());
    assert_eq!(plan.strategy().to_string(), "3 sessions (2 parallel, 1 sequential)");

    assert_eq!(plan.verification.len(), 2);
    assert_eq!(plan.verification[0].command, "cargo test");
    assert_eq!(plan.verification[1].expected.as_deref(), Some("exit 0"));
    assert_eq!(plan.verification[1].expected_kind, Some(ExpectedKind::Prose));
}

#[test]
fn verbose_flag_fixture_nested_test_first_and_manifest() {
    let plan = parse(&fixture("ultraplan-verbose-flag.md"), "ultraplan-verbose-flag.md").unwrap();
    assert_eq!(problems(&plan), vec![]);
    assert_eq!(plan.strategy().to_string(), "single session");
    let step = &plan.steps[0];
    let test = step.test_first.as_ref().unwrap();
    assert_eq!(test.file.as_deref(), Some("tests/cli.rs"));
    assert!(test.verifies.as_deref().unwrap().contains("verbose == true"));
    assert!(test.pattern.is_some());
    let manifest = step.manifest.as_ref().unwrap();
    assert_eq!(manifest.expected_paths, vec!["src/cli.rs", "tests/cli.rs"]);
    assert_eq!(manifest.forbidden_paths, vec!["Cargo.lock"]);
    assert_eq!(manifest.min_file_count, Some(2));
    assert_eq!(manifest.must_contain[0].pattern, "verbose");
    assert_eq!(manifest.commit_message_pattern.as_deref(), Some("^feat\\(cli\\):"));
    assert_eq!(
        step.verify.as_ref().unwrap().expected.as_deref(),
        Some("test result: ok. 1 passed")
    );
    let count = &plan.verification[1];
    assert_eq!(count.expected.as_deref(), Some(">= 1"));
    assert_eq!(count.expected_kind, Some(ExpectedKind::Comparison));
}

#[test]
fn comparisons_need_no_backticks_but_prose_stays_prose() {
    use super::fields::expectation;
    assert_eq!(expectation(">= 1"), (">= 1".into(), ExpectedKind::Comparison));
    assert_eq!(expectation("`< 10`"), ("< 10".into(), ExpectedKind::Comparison));
    assert_eq!(expectation("`ok`"), ("ok".into(), ExpectedKind::Literal));
    assert_eq!(expectation("non-77 exit code").1, ExpectedKind::Prose);
    assert_eq!(expectation("> than before").1, ExpectedKind::Prose);
}

#[test]
fn session_spec_fixture() {
    let plan = parse(&fixture("session-2-status-endpoint.md"), "session-2-status-endpoint.md").unwrap();
    assert_eq!(plan.kind, PlanKind::SessionSpec);
    assert_eq!(problems(&plan), vec![]);
    assert_eq!(plan.title.as_deref(), Some("Server endpoint"));
    assert_eq!(plan.steps.iter().map(|s| s.number).collect::<Vec<_>>(), vec![0, 3, 4]);
    let step0 = &plan.steps[0];
    assert!(step0.files.is_empty());
    assert!(step0.changes.is_empty());
    let verify = step0.verify.as_ref().unwrap();
    assert!(verify.command.starts_with("git push --dry-run origin HEAD"));
    assert_eq!(verify.expected.as_deref(), Some("non-77 exit code"));
    assert_eq!(step0.checkpoint, None);
    assert_eq!(step0.on_failure.action, FailurePolicy::Escalate);

    let spec = plan.session_spec.as_ref().unwrap();
    assert_eq!(spec.session, 2);
    assert_eq!(spec.blocks, vec![3]);
    assert_eq!(
        spec.master_plan.as_deref(),
        Some(".claude/plans/ultraplan-2026-04-21-status.md")
    );
    let entry = spec.entry_condition.as_ref().unwrap();
    assert_eq!(entry.check.as_ref().unwrap().command, "cargo build");
    assert_eq!(spec.exit_conditions.len(), 3);
    assert_eq!(
        spec.exit_conditions[0].check.as_ref().unwrap().command,
        "cargo test server"
    );
    assert!(
        spec.exit_conditions[2].check.is_none(),
        "prose with a backticked word is not a command"
    );

    let session = &plan.sessions[0];
    assert_eq!(session.number, 2);
    assert_eq!(session.steps, vec![0, 3, 4]);
    assert_eq!(session.touch.len(), 2);
    assert_eq!(session.never_touch.len(), 3);
    assert!(session.depends_on.is_empty());
}

#[test]
fn task_plan_fixture() {
    let plan = parse(&fixture("03-01-PLAN.md"), "03-01-PLAN.md").unwrap();
    assert_eq!(plan.kind, PlanKind::TaskPlan);
    assert_eq!(problems(&plan), vec![]);
    assert_eq!(plan.plan_id, "03-01");
    assert_eq!(plan.steps.len(), 3);
    let task = &plan.steps[1];
    assert_eq!(task.number, 2);
    assert_eq!(task.title, "Add execution protocol section");
    assert_eq!(task.task_name(), "Task 2: Add execution protocol section");
    assert_eq!(task.line, 21);
    assert_eq!(task.files[0].path, ".claude/agents/ultraplan-executor.md");
    assert_eq!(
        task.verify.as_ref().unwrap().command,
        "grep -c 'Step 1: Parse Task XML' .claude/agents/ultraplan-executor.md"
    );
    assert_eq!(task.on_failure.action, FailurePolicy::Retry);
    assert_eq!(task.done.as_deref(), Some("The section lists all four steps in order."));
    assert_eq!(task.task_type.as_deref(), Some("auto"));
    assert_eq!(
        task.checkpoint,
        Some(Checkpoint::Commit {
            message: "03-01 Task 2: Add execution protocol section".into()
        })
    );
    let criteria = plan.success_criteria.as_ref().unwrap();
    assert_eq!(criteria.len(), 3);
    assert_eq!(criteria[0].task, Some(1));
    assert!(!criteria[0].checked);
    assert_eq!(criteria[2].line, 42);
}

#[test]
fn plan_id_from_front_matter_file_name_or_stem() {
    let body = "<task type=\"auto\">\n<name>Task 1: A</name>\n<verify>true</verify>\n</task>\n";
    assert_eq!(parse(body, "07-12-PLAN.md").unwrap().plan_id, "07-12");
    assert_eq!(parse(body, "my-plan.md").unwrap().plan_id, "my-plan");
    let front = format!("---\nphase: 3-exec\nplan: 2\n---\n{body}");
    assert_eq!(parse(&front, "x.md").unwrap().plan_id, "03-02");
    let explicit = format!("---\nplan_id: \"X-1\"\n---\n{body}");
    assert_eq!(parse(&explicit, "x.md").unwrap().plan_id, "X-1");
}

#[test]
fn lenient_spellings() {
    let plan = parsed(
        "# T\n\n## Implementation Plan\n\n### Step 1 — First\n\n\
         * Files: src/a.rs, src/b.rs (new)\n\
         * Changes: do it\n\
         * Verify: `true` -> expected: `ok`\n\
         * On failure: Retry – try again\n\
         * Checkpoint: `git commit -m 'one'`\n\n\
         ### Step 2: Second\n\n\
         - **Files**: `src/c.rs`\n\
         - __Verify:__ `test -f x`\n\
         - **On failure**: `skip`\n\
         - **Checkpoint:** none\n\n\
         ## Execution Strategy\n\n### Session 1: All\n- Steps: 1–2\n- Wave: 1\n",
    );
    assert_eq!(problems(&plan), vec![]);
    let s1 = &plan.steps[0];
    assert_eq!(s1.title, "First");
    assert_eq!(
        s1.files.iter().map(|f| (f.path.as_str(), f.new)).collect::<Vec<_>>(),
        vec![("src/a.rs", false), ("src/b.rs", true)]
    );
    assert_eq!(s1.verify.as_ref().unwrap().expected.as_deref(), Some("ok"));
    assert_eq!(s1.on_failure.action, FailurePolicy::Retry);
    assert_eq!(s1.on_failure.instructions.as_deref(), Some("try again"));
    assert_eq!(plan.steps[1].on_failure.action, FailurePolicy::Skip);
    assert_eq!(plan.steps[1].checkpoint, None);
    assert_eq!(plan.sessions[0].steps, vec![1, 2]);
    assert!(!plan.is_multi_session(), "one session runs in the foreground");
}

fn two_steps(extra: &str) -> String {
    format!(
        "# T\n\n## Implementation Plan\n\n\
         ### Step 1: A\n- **Files:** `a.txt`\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** none\n\n\
         ### Step 2: B\n- **Files:** `b.txt`\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** none\n\n\
         {extra}"
    )
}

#[test]
fn missing_fields_are_warnings_with_defaults() {
    let plan = parsed("# T\n## Implementation Plan\n### Step 1: A\n- **Files:** `a`\n- **Changes:** x\n");
    assert_eq!(problems(&plan), vec![]);
    let w = warnings(&plan);
    assert_eq!(plan.unverified_steps().map(|s| s.number).collect::<Vec<_>>(), vec![1]);
    assert!(
        w.contains(&(3, "step 1 has no On failure; escalate is assumed".into())),
        "{w:?}"
    );
    assert_eq!(plan.steps[0].on_failure.action, FailurePolicy::Escalate);
}

#[test]
fn step_problems_have_lines() {
    let plan = parsed(
        "# T\n## Implementation Plan\n\
         ### Step 2: A\n- **Verify:** `true`\n- **On failure:** explode\n- **Verify:** `false`\n\
         ### Step 1: B\n- **Verify:** `true`\n\
         ### Step 1: C\n- **Verify:** `true`\n\
         ### Step x: D\n\
         #### Step 9: Deep\n- **Verify:** `true`\n\
         ### Step 10:\n- **Verify:** `true`\n\
         ### Step 11: Empty\nno fields here\n",
    );
    assert!(
        has_problem(&plan, 5, "unknown On failure action 'explode'"),
        "{:?}",
        problems(&plan)
    );
    assert!(has_problem(&plan, 6, "field 'Verify' appears twice"));
    assert!(has_problem(&plan, 7, "step 1 comes after step 2"));
    assert!(has_problem(&plan, 9, "step 1 appears twice (first at line 7)"));
    assert!(has_problem(&plan, 11, "cannot read a number"));
    assert!(has_problem(&plan, 12, "found level 4"));
    assert!(has_problem(&plan, 14, "step 10 has no title"));
    assert!(has_problem(&plan, 16, "step 11 has no '- **Label:** value' fields"));
}

#[test]
fn unsafe_paths_are_problems() {
    let plan = parsed(
        "# T\n## Implementation Plan\n### Step 1: A\n\
         - **Files:** `/etc/passwd`, `../outside.txt`, `.git/config`, `ok/../../x`, `fine.txt`\n\
         - **Verify:** `true`\n- **On failure:** skip\n- **Checkpoint:** none\n",
    );
    let p = problems(&plan);
    assert_eq!(p.len(), 4, "{p:?}");
    assert!(has_problem(&plan, 4, "'/etc/passwd' is absolute"));
    assert!(has_problem(&plan, 4, "'../outside.txt' leaves the repository"));
    assert!(has_problem(&plan, 4, "'.git/config' is inside the .git directory"));
    assert!(has_problem(&plan, 4, "'ok/../../x' leaves the repository"));
}

#[test]
fn invalid_manifest_yaml_is_a_problem_at_its_line() {
    let plan = parsed(
        "# T\n## Implementation Plan\n### Step 1: A\n- **Verify:** `true`\n- **Manifest:**\n  ```yaml\n  manifest:\n    expected_paths: [a\n  ```\n",
    );
    assert!(
        problems(&plan)
            .iter()
            .any(|(l, m)| *l >= 7 && m.contains("Manifest is not valid YAML")),
        "{:?}",
        problems(&plan)
    );
}

#[test]
fn headings_and_fields_inside_code_blocks_are_ignored() {
    let plan = parsed(
        "# T\n## Implementation Plan\n### Step 1: A\n- **Changes:**\n  ```sh\n  cat > x.md <<'EOF'\n  ### Step 2: Not a step\n  - **Verify:** `false`\n  EOF\n  ```\n- **Verify:** `true`\n",
    );
    assert_eq!(plan.steps.len(), 1);
    assert_eq!(plan.steps[0].verify.as_ref().unwrap().command, "true");
    assert_eq!(plan.steps[0].code_blocks.len(), 1);
    assert_eq!(plan.steps[0].code_blocks[0].lang, "sh");
    assert!(plan.steps[0].code_blocks[0].code.contains("### Step 2"));
}

#[test]
fn byte_order_mark_and_crlf() {
    let text = "\u{feff}---\r\nplan_version: 2\r\n---\r\n# Title\r\n\r\n## Implementation Plan\r\n\r\n### Step 1: A\r\n- **Verify:** `true`\r\n- **On failure:** skip\r\n";
    let plan = parsed(text);
    assert_eq!(plan.title.as_deref(), Some("Title"));
    assert_eq!(plan.plan_version.as_deref(), Some("2"));
    assert_eq!(plan.steps[0].verify.as_ref().unwrap().command, "true");
    assert_eq!(plan.steps[0].line, 8);
}

#[test]
fn misplaced_step_headings_are_pointed_at() {
    let plan = parsed("# T\n\n## Implementation Plan\n\nSee below.\n\n## Step 1: A\n- **Verify:** `true`\n");
    assert!(
        has_problem(
            &plan,
            7,
            "step heading 'Step 1: A' must be '### Step N: <title>' under '## Implementation Plan'"
        ),
        "{:?}",
        problems(&plan)
    );
}

#[test]
fn unrecognised_files() {
    for text in [
        "",
        "just some notes\n",
        "# Title\n\n## Context\n\nNothing.\n",
        "```\n<task>\n```\n",
    ] {
        assert_eq!(parse(text, "x.md").unwrap_err(), Unrecognised, "{text:?}");
    }
}

#[test]
fn task_plan_problems() {
    let plan = parse(
        "<task type=\"auto\">\n<name>Create file</name>\n<files>a</files>\n<action>x</action>\n</task>\n\n<task>\n<name>Task 2: B</name>\n",
        "x.md",
    )
    .unwrap();
    assert!(warnings(&plan).iter().any(|(l, m)| *l == 2
        && m.contains("task 1: name 'Create file' does not start with 'Task N:'; tasks are numbered by position")));
    assert_eq!(plan.steps[0].task_name(), "Task 1: Create file");
    assert!(has_problem(&plan, 7, "<task> has no matching </task>"));
    assert!(plan.unverified_steps().any(|s| s.number == 1 && s.line == 1));
}

#[test]
fn front_matter_must_be_yaml() {
    let plan = parse(
        "---\nphase: [unclosed\n---\n<task>\n<name>Task 1: A</name>\n<verify>true</verify>\n</task>\n",
        "x.md",
    )
    .unwrap();
    assert!(problems(&plan)
        .iter()
        .any(|(_, m)| m.contains("front matter is not valid YAML")));
}

#[test]
fn task_matching() {
    let plan = parse(&fixture("03-01-PLAN.md"), "03-01-PLAN.md").unwrap();
    assert!(matches!(
        plan.match_task("Task 1: Create executor agent"),
        TaskMatch::Exact(_)
    ));
    assert!(matches!(
        plan.match_task("Task 1: Create executor"),
        TaskMatch::Prefix(_)
    ));
    assert!(matches!(
        plan.match_task("Task 1: Something else"),
        TaskMatch::NumberOnly(_)
    ));
    assert!(matches!(plan.match_task("Task 9: Nope"), TaskMatch::Unknown(9)));
    assert!(matches!(plan.match_task("Create file"), TaskMatch::NoTaskNumber));
}

mod properties;
mod sessions;
