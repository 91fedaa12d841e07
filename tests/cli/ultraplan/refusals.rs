//! What `run` refuses before it writes anything: a Files path leading out
//! of the repository through a symbolic link already there (as `check`
//! reports it), an executor naming a program that is nowhere, no attempt at
//! all, and steps without a Verify when --allow-unverified is not given.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// A repository with a one-step plan (untracked).
fn one_step(env: &TestEnv) -> std::path::PathBuf {
    let repo = env.repo("repo");
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")]),
    );
    repo
}

/// The worktree as it was, and no reference but the branch.
fn assert_nothing_written(
    env: &TestEnv,
    repo: &std::path::Path,
    before: &std::collections::BTreeMap<std::path::PathBuf, Vec<u8>>,
) {
    assert_eq!(&tree_state(repo), before, "run wrote in the worktree");
    assert_eq!(
        env.git(repo, &["for-each-ref", "--format=%(refname)"]),
        "refs/heads/main\n"
    );
}

#[test]
fn a_files_path_through_a_symbolic_link_out_of_the_repository_is_refused_before_anything_runs() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let outside = env.root().join("outside");
    std::fs::create_dir(&outside).unwrap();
    // A link to a directory outside, and one to a file outside not made yet.
    std::os::unix::fs::symlink(&outside, repo.join("link")).unwrap();
    std::os::unix::fs::symlink(outside.join("f.txt"), repo.join("linkfile")).unwrap();
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(1, "`link/out.txt`", "echo hi > link/out.txt", "true"),
            StepSpec::new(2, "`linkfile`", "echo hi > linkfile", "true"),
        ]),
    );
    env.git(&repo, &["add", "."]);
    env.git(&repo, &["commit", "-q", "-m", "links and a plan"]);
    let before = tree_state(&repo);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(128);
    let _ = t.run(&repo, &["ultraplan", "check", "plan.md"]).expect_code(1);
    assert_transcript!(
        t,
        "a_files_path_through_a_symbolic_link_out_of_the_repository_is_refused_before_anything_runs"
    );
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "written outside");
    assert_nothing_written(&env, &repo, &before);
}

#[test]
fn an_executor_naming_no_program_is_refused_before_anything_is_written() {
    let env = TestEnv::new();
    let repo = one_step(&env);
    let before = tree_state(&repo);
    let mut t = Transcript::new(&env);
    for executor in ["claud", "./agents/missing.sh --fast", "MODEL=x no-such-agent run"] {
        let _ = t
            .run(&repo, &["ultraplan", "run", "--executor", executor, "plan.md"])
            .expect_code(128);
    }
    assert_transcript!(t, "an_executor_naming_no_program_is_refused_before_anything_is_written");
    assert_nothing_written(&env, &repo, &before);
    // A program found on PATH or by its path runs as before.
    write(&repo.join("agent.sh"), "#!/bin/sh\necho a > a.txt\n");
    let _ = env
        .run(&repo, &["ultraplan", "run", "--executor", "sh ./agent.sh", "plan.md"])
        .expect_code(0);
    assert_eq!(env.subjects(&repo)[0], "step 1");
}

/// A NUL byte (no variable or argument can carry one), an escape or a mark
/// reordering text on screen, and a Verify longer than one command line may
/// be are problems `check` names by line, and
/// `run` refuses them before it writes anything, not half-way through.
#[test]
fn what_cannot_reach_sh_is_a_problem_named_by_its_line() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let nul = plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")])
        .replace("Step 1: Step 1", "Step 1: On\0e");
    write(&repo.join("nul.md"), &nul);
    let long = "true && ".repeat(20_000) + "true";
    write(
        &repo.join("long.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", &long)]),
    );
    // An escape recolours the report's screen; U+202E makes text read
    // other than it runs.
    let escape = plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")])
        .replace("Step 1: Step 1", "Step 1: \u{1b}[31mRED\u{1b}[0m \u{202e}evil");
    write(&repo.join("escape.md"), &escape);
    let before = tree_state(&repo);
    let mut t = Transcript::new(&env);
    for name in ["nul.md", "long.md", "escape.md"] {
        let _ = t.run(&repo, &["ultraplan", "run", name]).expect_code(128);
        let check = env
            .run(&repo, &["ultraplan", "check", "--json", name])
            .expect_code(1)
            .json();
        assert_eq!(check["problems"].as_array().map(Vec::len), Some(1), "{name}: {check}");
        assert_eq!(check["problems"][0]["line"], 5, "{name}: {check}");
    }
    assert_transcript!(t, "what_cannot_reach_sh_is_a_problem_named_by_its_line");
    assert_nothing_written(&env, &repo, &before);
}

/// `--max-attempts 0` (or `ultraplan.maxAttempts` 0 or below) would let no
/// step pass; it is refused, not read as 1.
#[test]
fn no_attempt_at_all_is_refused_before_anything_is_written() {
    let env = TestEnv::new();
    let repo = one_step(&env);
    let before = tree_state(&repo);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--max-attempts", "0", "plan.md"])
        .expect_code(129);
    for value in ["0", "-1"] {
        let key = format!("ultraplan.maxAttempts={value}");
        let _ = t
            .run(&repo, &["-c", &key, "ultraplan", "run", "plan.md"])
            .expect_code(128);
    }
    assert_transcript!(t, "no_attempt_at_all_is_refused_before_anything_is_written");
    assert_nothing_written(&env, &repo, &before);
}

/// Steps without a Verify: run refuses before it starts, naming the steps
/// this run would run — a resume not those its recorded run passed, `--step
/// N` only step N — and the command with the flag; what the flag lets pass
/// is then verified only by the executor's word.
#[test]
fn steps_without_a_verify_are_named_for_the_run_asked_for() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let unverified = |n: u32, file: &str| {
        format!(
            "### Step {n}: S{n}\n- **Files:** `{file}`\n- **Changes:**\n  ```sh\n  echo {n} > {file}\n  ```\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"s{n}\"`\n\n"
        )
    };
    let verified = "### Step 2: S2\n- **Files:** `b.txt`\n- **Changes:**\n  ```sh\n  echo 2 > b.txt\n  ```\n- **Verify:** `test -f ok`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"s2\"`\n\n";
    write(
        &repo.join("plan.md"),
        &format!(
            "# P\n\n## Implementation Plan\n\n{}{verified}{}",
            unverified(1, "a.txt"),
            unverified(3, "c.txt")
        ),
    );
    write(&repo.join(".git/info/exclude"), "ok\n");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(128);
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--step", "2", "--max-attempts", "1", "plan.md"],
        )
        .expect_code(1);
    t.note("step 1 passes on the executor's word; step 2's Verify fails");
    let _ = env
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--allow-unverified",
                "--max-attempts",
                "1",
                "plan.md",
            ],
        )
        .expect_code(1);
    write(&repo.join("ok"), "");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(128);
    assert_transcript!(t, "steps_without_a_verify_are_named_for_the_run_asked_for");
    let _ = env
        .run(
            &repo,
            &["ultraplan", "run", "--resume", "--allow-unverified", "plan.md"],
        )
        .expect_code(0);
    assert_eq!(env.subjects(&repo)[..3], ["s3", "s2", "s1"]);
}
