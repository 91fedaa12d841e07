//! `git ultraplan run`: the step lifecycle through the real `git`, checked
//! with the real `git` (log, show, notes, status, fsck).

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

pub(super) fn setup(env: &TestEnv) -> std::path::PathBuf {
    let repo = env.repo("repo");
    write(&repo.join("tracked.txt"), "original\n");
    env.git(&repo, &["add", "tracked.txt"]);
    env.git(&repo, &["commit", "-q", "-m", "tracked"]);
    repo
}

#[test]
fn demo_plan_runs_and_everything_reads_back_with_git() {
    let env = TestEnv::new();
    let repo = setup(&env);
    std::fs::copy(repo_root().join("examples/demo-plan.md"), repo.join("plan.md")).unwrap();
    // The user's own work: a modified tracked file and an untracked one.
    write(&repo.join("tracked.txt"), "my local edit\n");
    write(&repo.join("scratch.txt"), "my notes\n");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    // Notes and state read back with plain git.
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["log", "--format=%s", "refs/ultraplan/plan/run"])
        .expect_code(0);
    assert_transcript!(t, "demo_plan_runs_and_everything_reads_back_with_git");
    assert_eq!(
        env.subjects(&repo),
        vec![
            "docs: explain the greeting script",
            "feat: add greeting script",
            "tracked",
            "initial"
        ]
    );
    assert_eq!(
        env.git(&repo, &["show", "--name-only", "--format=", "HEAD~1"]),
        "greet.sh\n"
    );
    assert_eq!(
        env.git(&repo, &["show", "--name-only", "--format=", "HEAD"]),
        "GREETING.md\n"
    );
    // The user's files are untouched and uncommitted.
    assert_eq!(read(&repo.join("tracked.txt")), "my local edit\n");
    assert_eq!(
        env.git(&repo, &["status", "--porcelain"]),
        " M tracked.txt\n?? plan.md\n?? scratch.txt\n"
    );
    let progress: serde_json::Value = serde_json::from_str(&env.progress(&repo, "refs/ultraplan/plan/run")).unwrap();
    assert_eq!(progress["status"], "completed");
    assert_eq!(progress["steps"]["1"]["status"], "passed");
    assert_eq!(progress["steps"]["2"]["commit"], serde_json::Value::Null);
    assert_eq!(progress["steps"]["3"]["attempts"], 1);
    assert_eq!(
        progress["steps"]["3"]["commit"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "HEAD"]).trim()
    );
    assert_eq!(
        env.git(&repo, &["for-each-ref", "--format=%(refname)", "refs/ultraplan/"]),
        "refs/ultraplan/plan/run\n"
    );
    env.assert_fsck(&repo);
}

#[test]
fn retry_feeds_back_and_records_every_attempt() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let counter = env.root().join("counter");
    let script = format!(
        "n=$(cat {c} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {c}\nif [ $n -ge 2 ]; then echo good > a.txt; else echo bad > a.txt; fi",
        c = counter.display()
    );
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", &script, "grep -q good a.txt").policy("retry — try again")]),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    for attempt in ["attempt-1.yaml", "attempt-2.feedback"] {
        let object = format!("refs/ultraplan/plan/run:steps/0/0/0/1/{attempt}");
        let _ = t.run(&repo, &["show", &object]).expect_code(0);
    }
    assert_transcript!(t, "retry_feeds_back_and_records_every_attempt");
    assert_eq!(read(&repo.join("a.txt")), "good\n");
    env.assert_fsck(&repo);
}

#[test]
fn revert_restores_the_worktree_exactly_and_fails_after_the_last_attempt() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(&repo.join("tracked.txt"), "user's uncommitted edit\n");
    write(&repo.join("untracked.txt"), "user's untracked file\n");
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(
            1,
            "`tracked.txt`, `new/file.txt`",
            "echo broken > tracked.txt\nmkdir -p new && echo x > new/file.txt\nrm untracked.txt",
            "false",
        )
        .policy("revert — put it back")]),
    );
    let before = worktree_files(&repo);
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(1);
    assert_transcript!(
        t,
        "revert_restores_the_worktree_exactly_and_fails_after_the_last_attempt"
    );
    assert_eq!(
        worktree_files(&repo),
        before,
        "the worktree is exactly as before the step"
    );
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head);
    // Nothing is lost: every attempt's tree is kept in the run state.
    let attempt = env.git(
        &repo,
        &[
            "show",
            "refs/ultraplan/plan/run:steps/0/0/0/1/attempt-3.tree/files/new/file.txt",
        ],
    );
    assert_eq!(attempt, "x\n");
    let progress = env.progress(&repo, "refs/ultraplan/plan/run");
    assert!(progress.contains("\"status\": \"failed\""), "{progress}");
    env.assert_fsck(&repo);
}

#[test]
fn skip_restores_and_the_run_continues() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(1, "`one.txt`", "echo 1 > one.txt", "test -f one.txt"),
            StepSpec::new(2, "`two.txt`", "echo 2 > two.txt", "false").policy("skip — optional"),
            StepSpec::new(3, "`three.txt`", "echo 3 > three.txt", "test -f three.txt"),
        ]),
    );
    let out = env
        .run(&repo, &["ultraplan", "run", "--json", "plan.md"])
        .expect_code(0);
    let summary = &out.json()["ultraexecute_summary"];
    assert_eq!(summary["result"], "completed");
    assert_eq!(summary["steps_passed"], 2);
    assert_eq!(summary["steps_skipped"], 1);
    assert_eq!(summary["steps"][1]["result"], "skipped");
    assert_eq!(summary["steps"][1]["attempts"], 1, "skip does not retry");
    assert!(!repo.join("two.txt").exists());
    assert_eq!(env.subjects(&repo)[..2], ["step 3", "step 1"]);
}

#[test]
fn escalation_leaves_the_changes_and_resume_verifies_the_fix() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(
                1,
                "`config.txt`",
                "echo 'mode = wrong' > config.txt",
                "grep -q 'mode = right' config.txt",
            )
            .policy("escalate — a person must decide"),
            StepSpec::new(2, "`after.txt`", "echo after > after.txt", "test -f after.txt"),
        ]),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(3);
    assert_eq!(read(&repo.join("config.txt")), "mode = wrong\n", "left for the person");
    t.note("the person fixes it and resumes: the worktree is verified, not re-executed");
    write(&repo.join("config.txt"), "mode = right\n");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD~1"])
        .expect_code(0);
    assert_transcript!(t, "escalation_leaves_the_changes_and_resume_verifies_the_fix");
    assert_eq!(read(&repo.join("config.txt")), "mode = right\n");
    assert_eq!(env.subjects(&repo)[..2], ["step 2", "step 1"]);
    assert_eq!(env.git(&repo, &["show", "HEAD~1:config.txt"]), "mode = right\n");
}

#[test]
fn a_person_fixing_the_plan_of_an_escalated_step_is_not_a_violation() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let steps = |verify: &'static str| {
        plan(&[
            StepSpec::new(1, "`a.txt`", "echo a > a.txt", verify).policy("escalate"),
            StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
        ])
    };
    write(&repo.join("plan.md"), &steps("test -f wrong.txt"));
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(3);
    // The person sees the Verify was wrong and fixes the plan, not the code.
    write(&repo.join("plan.md"), &steps("test -f a.txt"));
    let out = env
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    assert!(!out.stdout.contains("scope violation"), "{out}");
    assert_eq!(
        read(&repo.join("plan.md")),
        steps("test -f a.txt"),
        "the person's fix stays"
    );
    assert_eq!(env.subjects(&repo)[..2], ["step 2", "step 1"]);
    assert_eq!(
        env.git(&repo, &["show", "--name-only", "--format=", "HEAD~1"]),
        "a.txt\n"
    );
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "?? plan.md\n");
}

#[test]
fn a_failed_run_resumes_at_the_failed_step_with_the_fixed_plan() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let steps = |verify: &'static str| {
        plan(&[
            StepSpec::new(1, "`one.txt`", "echo 1 > one.txt", "test -f one.txt"),
            StepSpec::new(2, "`two.txt`", "echo 2 > two.txt", verify),
        ])
    };
    write(&repo.join("plan.md"), &steps("grep -q 3 two.txt"));
    let _ = env
        .run(
            &repo,
            &["ultraplan", "--quiet", "run", "--max-attempts", "1", "plan.md"],
        )
        .expect_code(1);
    write(&repo.join("plan.md"), &steps("grep -q 2 two.txt"));
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    assert_transcript!(t, "a_failed_run_resumes_at_the_failed_step_with_the_fixed_plan");
    assert_eq!(
        env.subjects(&repo)[..2],
        ["step 2", "step 1"],
        "step 1 is not run again"
    );
}

#[test]
fn verify_expectations_decide_with_the_exit_code() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let body = "# T\n\n## Implementation Plan\n\n\
        ### Step 1: Literal\n- **Files:** `a.txt`\n- **Changes:**\n  ```sh\n  echo hello > a.txt\n  ```\n\
        - **Verify:** `cat a.txt` → expected: `goodbye`\n- **On failure:** revert\n- **Checkpoint:** none\n";
    write(&repo.join("plan.md"), body);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "plan.md"])
        .expect_code(1);
    assert_transcript!(t, "verify_expectations_decide_with_the_exit_code");
    let count = body
        .replace(
            "`cat a.txt` → expected: `goodbye`",
            "`wc -l < a.txt` → expected: `>= 1`",
        )
        .replace("Literal", "Count");
    write(&repo.join("plan.md"), &count);
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
}

#[test]
fn a_plan_with_a_step_without_verify_is_refused_unless_allowed() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("plan.md"),
        "# T\n\n## Implementation Plan\n\n### Step 1: Unverified\n- **Files:** `a.txt`\n- **Changes:**\n  ```sh\n  echo a > a.txt\n  ```\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"unverified\"`\n",
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "check", "plan.md"]).expect_code(1);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "check", "--allow-unverified", "plan.md"])
        .expect_code(0);
    assert_transcript!(t, "a_plan_with_a_step_without_verify_is_refused_unless_allowed");
    // No attempt could pass, so run refused before anything ran or was written.
    assert!(!repo.join("a.txt").exists());
    assert_eq!(env.git(&repo, &["for-each-ref", "refs/ultraplan"]), "");
    let _ = env
        .run(&repo, &["ultraplan", "run", "--allow-unverified", "plan.md"])
        .expect_code(0);
    assert_eq!(env.subjects(&repo)[0], "unverified");
}

#[test]
fn plans_with_problems_and_multi_session_plans_need_a_mode() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("bad.md"),
        "# T\n\n## Implementation Plan\n\n### Step 1: A\n- **Files:** `/etc/passwd`\n- **Verify:** `true`\n",
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "bad.md"]).expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--dry-run", "bad.md"])
        .expect_code(1);
    assert_transcript!(t, "plans_with_problems_and_multi_session_plans_need_a_mode");
    assert_eq!(
        env.git(&repo, &["for-each-ref", "refs/ultraplan/"]),
        "",
        "nothing written"
    );
}

#[test]
fn step_mode_runs_one_step() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(1, "`one.txt`", "echo 1 > one.txt", "test -f one.txt"),
            StepSpec::new(2, "`two.txt`", "echo 2 > two.txt", "test -f two.txt"),
        ]),
    );
    let out = env
        .run(&repo, &["ultraplan", "run", "--step", "2", "--json", "plan.md"])
        .expect_code(0);
    assert_eq!(out.json()["ultraexecute_summary"]["mode"], "step 2");
    assert!(!repo.join("one.txt").exists());
    assert_eq!(env.subjects(&repo)[0], "step 2");
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    assert_transcript!(t, "step_mode_runs_one_step");
    assert_eq!(env.subjects(&repo)[..2], ["step 1", "step 2"]);
    let _ = env
        .run(&repo, &["ultraplan", "run", "--step", "9", "plan.md"])
        .expect_code(128);
    let _ = env
        .run(&repo, &["ultraplan", "run", "--step", "1", "--resume", "plan.md"])
        .expect_code(129);
}

/// The README's first command ends in examples/demo.sh: it must keep working.
#[test]
fn the_demo_script_shows_pass_retry_revert_and_skip() {
    let env = TestEnv::new();
    let mut cmd = env.command("bash", env.root());
    cmd.arg(repo_root().join("examples/demo.sh")).env("TMPDIR", env.root());
    let out = capture(cmd).expect_code(0);
    assert!(out.stdout.contains("Verdict: READY"), "{out}");
    assert!(out.stdout.contains("Result: COMPLETED"), "{out}");
    assert!(out.stdout.contains("Passed: 3/4"), "{out}");
    assert!(out.stdout.contains("Skipped: 1"), "{out}");
    assert!(out.stdout.contains("step 2   attempt 1  failure"), "{out}");
    assert!(out.stdout.contains("step 3   attempt 2  success"), "{out}");
    assert!(out.stdout.contains("task_index: 2"), "the note is shown: {out}");
    assert!(out.stdout.contains("feat: add farewell script"), "{out}");
}
