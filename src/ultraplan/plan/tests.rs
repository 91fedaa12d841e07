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
    assert!(
        w.contains(&(
            3,
            "step 1 has no Verify; it can pass only with --allow-unverified".into()
        )),
        "{w:?}"
    );
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
fn sessions_cycles_are_named() {
    let plan = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1\n- **Depends on:** Session 2\n\
         ### Session 2: Two\n- **Steps:** 2\n- **Depends on:** Session 1\n",
    ));
    let p = problems(&plan);
    assert!(
        p.iter()
            .any(|(_, m)| m == "dependency cycle: session 1 → session 2 → session 1"),
        "{p:?}"
    );
}

#[test]
fn session_reference_problems() {
    let plan = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1, 2, 7\n- **Depends on:** Session 1\n\
         ### Session 2: Two\n- **Steps:** 2\n- **Depends on:** Session 5\n",
    ));
    let p = problems(&plan);
    assert!(
        has_problem(&plan, 18, "session 1 lists step 7, which the plan does not have"),
        "{p:?}"
    );
    assert!(has_problem(&plan, 18, "session 1 depends on itself"));
    assert!(has_problem(&plan, 21, "step 2 belongs to both session 1 and session 2"));
    assert!(has_problem(
        &plan,
        21,
        "session 2 depends on session 5, which the plan does not have"
    ));
}

#[test]
fn waves_are_derived_and_checked() {
    let derived = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1\n- **Depends on:** none\n\
         ### Session 2: Two\n- **Steps:** 2\n- **Depends on:** Session 1\n",
    ));
    assert_eq!(problems(&derived), vec![]);
    assert_eq!(derived.waves, vec![vec![1], vec![2]]);
    assert_eq!(derived.strategy().to_string(), "2 sessions (0 parallel, 2 sequential)");

    let wrong = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1\n- **Wave:** 1\n\
         ### Session 2: Two\n- **Steps:** 2\n- **Wave:** 1\n- **Depends on:** Session 1\n",
    ));
    assert!(has_problem(
        &wrong,
        21,
        "session 2 runs in wave 1 but depends on session 1 in wave 1"
    ));

    let order = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1\n- **Wave:** 2\n\
         ### Session 2: Two\n- **Steps:** 2\n\
         ### Execution Order\n- Wave 1: Session 1, Session 2 (parallel)\n",
    ));
    assert!(has_problem(
        &order,
        24,
        "session 1 is in wave 2 by its Wave field but in wave 1 by the execution order"
    ));
    assert_eq!(
        order.session(2).unwrap().wave,
        Some(1),
        "the execution order gives the wave"
    );
}

#[test]
fn touch_overlaps_within_a_wave_name_the_files() {
    let plan = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1\n- **Wave:** 1\n- **Scope fence:** Touch: `a.txt`, `shared/**` — Never touch: `b.txt`\n\
         ### Session 2: Two\n- **Steps:** 2\n- **Wave:** 1\n- **Scope fence:** Touch: `b.txt`, `shared/x.rs`\n",
    ));
    let p = problems(&plan);
    assert!(
        p.iter().any(|(line, m)| *line == 22
            && m == "sessions 1 and 2 are both in wave 1 and both touch 'shared/**' and 'shared/x.rs'"),
        "{p:?}"
    );
}

#[test]
fn step_files_outside_the_session_fence_are_warnings() {
    let has_warning =
        |plan: &Plan, line: usize, needle: &str| warnings(plan).iter().any(|(l, m)| *l == line && m.contains(needle));
    let plan = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1, 2\n- **Scope fence:** Touch: `a.txt` — Never touch: `b.txt`\n",
    ));
    assert!(
        has_warning(
            &plan,
            12,
            "step 2: 'b.txt' is in session 1's Never touch list ('b.txt'); the step will escalate"
        ),
        "{:?}",
        warnings(&plan)
    );
    assert_eq!(problems(&plan), vec![], "the plan still runs");
    let outside = parsed(&two_steps(
        "## Execution Strategy\n\
         ### Session 1: One\n- **Steps:** 1, 2\n- **Scope fence:** Touch: `a.txt`\n",
    ));
    assert!(has_warning(
        &outside,
        12,
        "step 2: 'b.txt' is outside session 1's Touch list"
    ));
    assert_eq!(problems(&outside), vec![]);
}

#[test]
fn execution_strategy_without_sessions_or_steps() {
    let plan = parsed(&two_steps("## Execution Strategy\n\nTBD\n"));
    assert!(has_problem(&plan, 17, "has no '### Session N: <title>' sections"));
    let empty = parsed("# T\n\n## Implementation Plan\n\nNothing yet.\n");
    assert!(has_problem(&empty, 3, "no '### Step N: <title>' headings"));
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
    assert!(warnings(&plan)
        .iter()
        .any(|(l, m)| *l == 1 && m.contains("has no <verify>")));
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

mod properties {
    use super::super::parse;
    use proptest::prelude::*;

    const FRAGMENTS: &[&str] = &[
        "# Title\n",
        "## Implementation Plan\n",
        "## Execution Strategy\n",
        "### Execution Order\n",
        "## Verification\n",
        "## Dependencies\n",
        "## Scope Fence\n",
        "## Steps\n",
        "## Exit Condition\n",
        "### Step 1: A\n",
        "### Step 99999999999: B\n",
        "### Session 2: S\n",
        "- **Files:** `a`, `../b` (new)\n",
        "- **Verify:**\n",
        "- **Verify:** `x` → expected: `y`\n",
        "  ```bash\n",
        "```\n",
        "~~~\n",
        "- **On failure:** `revert` — x\n",
        "- **Checkpoint:** `git commit -m \"m\"`\n",
        "- **Manifest:**\n",
        "  manifest: {a: [\n",
        "- **Steps:** 1-3, 5–2\n",
        "- **Depends on:** Session 2, S1\n",
        "- **Wave:** 0\n",
        "- Wave 1: Session 1 (x)\n",
        "- **Scope fence:** Touch: `**/*` — Never touch: `[`\n",
        "- [ ] `cmd` → expected: `z`\n",
        "<task type=\"auto\">\n",
        "<name>Task 1: n</name>\n",
        "<files>a, b</files>\n",
        "<verify>`v`</verify>\n",
        "</task>\n",
        "<success_criteria>\n- [x] Task 1: n\n</success_criteria>\n",
        "---\n",
        "plan: 01\n",
        "  - **File:** `t`\n",
        "`",
        "**",
        "→",
        "\u{feff}",
        "\r\n",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn arbitrary_text_never_panics(text in any::<String>()) {
            let _ = parse(&text, "x.md");
        }

        #[test]
        fn plan_shaped_text_never_panics(parts in prop::collection::vec(0..FRAGMENTS.len(), 0..60), noise in ".{0,20}") {
            let mut text: String = parts.iter().map(|&i| FRAGMENTS[i]).collect();
            text.push_str(&noise);
            if let Ok(plan) = parse(&text, "x.md") {
                // Every diagnostic has a line inside the file.
                let lines = text.split('\n').count();
                for d in &plan.diagnostics {
                    prop_assert!(d.line >= 1 && d.line <= lines.max(1), "{d:?}");
                }
            }
        }
    }
}
