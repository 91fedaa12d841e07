//! Bad input, fast (issue 9, items 12 and 13): deeply nested YAML is refused
//! in well under a second wherever YAML is read, naming the limit; and
//! `check` never says READY for a plan `run` cannot carry out.

use std::time::{Duration, Instant};

use crate::support::*;
use crate::transcript::Transcript;

/// Generous for a loaded machine; the judgement itself takes milliseconds.
const FAST: Duration = Duration::from_secs(2);

#[test]
fn deeply_nested_yaml_is_refused_fast_everywhere() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let deep = "[".repeat(200 * 1024);
    // A result file.
    write(&repo.join("deep.yaml"), &format!("status: {deep}\n"));
    let started = Instant::now();
    let out = env
        .run(&repo, &["ultraplan", "result", "check", "deep.yaml"])
        .expect_code(1);
    assert!(started.elapsed() < FAST, "{:?}", started.elapsed());
    assert!(
        out.stdout.contains("nested more than 64 levels deep (the limit)"),
        "{out}"
    );
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
    for (plan, line) in [
        ("front.md", "line 2: front matter is not valid YAML"),
        ("manifest.md", "line 10: step 1: Manifest is not valid YAML"),
    ] {
        let started = Instant::now();
        let out = env.run(&repo, &["ultraplan", "check", plan]).expect_code(1);
        assert!(started.elapsed() < FAST, "{plan}: {:?}", started.elapsed());
        assert!(out.stdout.contains(line), "{out}");
        assert!(out.stdout.contains("the limit"), "{out}");
    }
    // Executor stdout: the claim is unreadable, so ultraplan's own Verify decides.
    env.git(&repo, &["commit", "-q", "--allow-empty", "-m", "base"]);
    write(
        &repo.join("plan.md"),
        "# P\n\n## Implementation Plan\n\n### Step 1: A\n- **Files:** `a.txt`\n- **Verify:** `test -f a.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"feat: a\"`\n",
    );
    let agent = env.root().join("agent.sh");
    write(
        &agent,
        &format!("echo a > a.txt\necho '```yaml'\necho 'status: {deep}'\necho '```'\n"),
    );
    let executor = format!("sh {}", agent.display());
    let started = Instant::now();
    let out = env
        .run(&repo, &["ultraplan", "run", "--executor", &executor, "plan.md"])
        .expect_code(0);
    assert!(started.elapsed() < FAST * 5, "{:?}", started.elapsed());
    assert!(out.stdout.contains("Result: COMPLETED"), "{out}");
    let note = env.git(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"]);
    assert!(note.contains("the limit"), "{note}");
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
/// Issues column were quadratic (4,000 tasks took 74 s); now linear.
#[test]
fn a_plan_with_thousands_of_tasks_is_checked_in_linear_time() {
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
    let started = Instant::now();
    let out = env
        .run(&repo, &["ultraplan", "check", "--executor", "claude", "01-01-PLAN.md"])
        .expect_code(0);
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    assert!(out.stdout.contains("Steps: 8000"), "{}", &out.stdout[..500]);
}
