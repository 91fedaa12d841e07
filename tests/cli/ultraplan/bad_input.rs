//! Bad input (issue 9, items 12 and 13): deeply nested YAML is refused
//! wherever YAML is read, naming the limit; and `check` never says READY for
//! a plan `run` cannot carry out. How long the refusals take, at 10x and 100x
//! the size, is measured in `benches/check.rs`, not asserted here.

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

#[test]
fn deeply_nested_yaml_is_refused_everywhere_naming_the_limit() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let deep = "[".repeat(200 * 1024);
    let mut t = Transcript::new(&env);
    t.note("each file nests 204,800 levels deep");
    // A result file.
    write(&repo.join("deep.yaml"), &format!("status: {deep}\n"));
    let _ = t
        .run(&repo, &["ultraplan", "result", "check", "deep.yaml"])
        .expect_code(1);
    // Front matter and a Manifest.
    write(
        &repo.join("front.md"),
        &format!(
            "---\nphase: {deep}\n---\n<task type=\"auto\">\n<name>Task 1: A</name>\n<verify>true</verify>\n</task>\n"
        ),
    );
    write(
        &repo.join("manifest.md"),
        &format!("# P\n\n## Implementation Plan\n\n### Step 1: A\n- **Files:** `a`\n- **Verify:** `true`\n- **Manifest:**\n  ```yaml\n  expected_paths: {deep}\n  ```\n"),
    );
    let _ = t.run(&repo, &["ultraplan", "check", "front.md"]).expect_code(1);
    let _ = t.run(&repo, &["ultraplan", "check", "manifest.md"]).expect_code(1);
    // Executor stdout: the claim is unreadable, so ultraplan's own Verify decides.
    env.git(&repo, &["commit", "-q", "--allow-empty", "-m", "base"]);
    write(
        &repo.join("plan.md"),
        "# P\n\n## Implementation Plan\n\n### Step 1: A\n- **Files:** `a.txt`\n- **Verify:** `test -f a.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"feat: a\"`\n",
    );
    write(
        &env.root().join("agent.sh"),
        &format!("echo a > a.txt\necho '```yaml'\necho 'status: {deep}'\necho '```'\n"),
    );
    t.note("an executor whose result block nests as deep: its claim is unreadable, so ultraplan's own Verify decides");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--executor", "sh ../agent.sh", "plan.md"])
        .expect_code(0);
    let _ = t.run(&repo, &["log", "--oneline"]).expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    assert_transcript!(t, "deeply_nested_yaml_is_refused_everywhere_naming_the_limit");
}

#[test]
fn check_never_says_ready_for_a_plan_run_cannot_carry_out() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let step = |n: u32, body: &str| {
        format!(
            "### Step {n}: S{n}\n- **Files:** `f{n}.txt`\n{body}- **On failure:** revert\n- **Checkpoint:** none\n\n"
        )
    };
    let cases = [
        ("empty-verify.md", step(1, "- **Verify:**\n"), "step 1: Verify is empty"),
        (
            "nan.md",
            step(1, "- **Verify:** `wc -l < f1.txt` → expected: `>= NaN`\n"),
            "expected '`>= NaN`' compares with something that is not a finite number",
        ),
        (
            "newline-path.md",
            "### Step 1: S1\n- **Files:** `f1\n  .txt`\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** none\n\n".to_owned(),
            "has an unmatched backtick; a path cannot span lines",
        ),
        (
            "fence.md",
            step(1, "- **Changes:**\n  ```sh\n  echo a > f1.txt\n- **Verify:** `true`\n") + &step(2, "- **Verify:** `true`\n"),
            "code fence is never closed; it swallows what follows",
        ),
    ];
    let mut t = Transcript::new(&env);
    for (name, steps, message) in cases {
        write(&repo.join(name), &format!("# P\n\n## Implementation Plan\n\n{steps}"));
        let out = t.run(&repo, &["ultraplan", "check", name]).expect_code(1);
        assert!(out.stdout.contains(message), "{name}: {out}");
        // And run refuses it before doing anything.
        let out = t.run(&repo, &["ultraplan", "run", name]).expect_code(128);
        assert!(out.stderr.contains(message), "{name}: {out}");
    }
    assert_transcript!(t, "check_never_says_ready_for_a_plan_run_cannot_carry_out");
    assert_eq!(env.git(&repo, &["for-each-ref", "refs/ultraplan"]), "");
}

/// Thousands of tasks, each with problems and warnings: line numbers and the
/// Issues column were quadratic (4,000 tasks took 74 s). Here: every task's
/// issues come out, at the right line, for 8,000 tasks; the time at 800,
/// 8,000 and 80,000 tasks is `benches/check.rs`'s.
#[test]
fn a_plan_with_thousands_of_tasks_is_checked_whole() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let task = |i: usize| {
        format!(
            "<task type=\"auto\">\n  <name>Build page {i}</name>\n  <files>src/a{i}.ts, src/b.ts</files>\n  <read_first>src/x.ts</read_first>\n  <action>Create src/a{i}.ts.</action>\n  <verify>README contains the section; user can follow it</verify>\n  <acceptance_criteria>\n    - src/a{i}.ts contains 'x'\n    - it works\n  </acceptance_criteria>\n</task>\n"
        )
    };
    let tasks: String = (0..8000).map(task).collect();
    write(
        &repo.join("01-01-PLAN.md"),
        &format!("---\nphase: 01-x\nplan: 01\n---\n<objective>\nBig.\n</objective>\n<tasks>\n{tasks}</tasks>\n"),
    );
    let whole = env
        .run(&repo, &["ultraplan", "check", "--executor", "claude", "01-01-PLAN.md"])
        .expect_code(0);
    // The same plan cut to its first two tasks gives the first lines whole;
    // the 8,000 tasks give the same lines for each of them, numbered on.
    let two: String = (0..2).map(task).collect();
    write(
        &repo.join("02-01-PLAN.md"),
        &format!("---\nphase: 01-x\nplan: 01\n---\n<objective>\nBig.\n</objective>\n<tasks>\n{two}</tasks>\n"),
    );
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "check", "--executor", "claude", "02-01-PLAN.md"])
        .expect_code(0);
    assert_transcript!(t, "a_plan_with_thousands_of_tasks_is_checked_whole");
    assert!(whole.stdout.contains("Steps: 8000"), "{}", &whole.stdout[..500]);
    // Each task is 11 lines; task 1's <verify> is line 14.
    let last = format!("  line {}: task 8000: <verify> is prose", 14 + 11 * 7999);
    assert!(
        whole.stdout.contains(&last),
        "the last task is named at its line ({last}):\n{}",
        &whole.stdout[whole.stdout.len().saturating_sub(3000)..]
    );
}
