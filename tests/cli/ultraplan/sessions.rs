//! Session specs and `--session N`: scope fences, entry and exit conditions,
//! Step 0's sandbox convention; task plans: checkbox sync.

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

fn spec(entry: &str, step0_verify: &str, step_script: &str, exit_check: &str) -> String {
    format!(
        "# Session 2: Server\n\n## Dependencies\n\n- **Depends on:** none\n- **Entry condition:** `{entry}` passes\n\n\
         ## Scope Fence\n\n- **Touch:** `src/server/**`\n- **Never touch:** `src/cli.rs`\n\n\
         ## Steps\n\n### Step 0: Sandbox pre-flight\n\n- **Files:** none\n- **Changes:** none\n- **Verify:**\n  ```bash\n  {step0_verify}\n  ```\n  → expected: non-77 exit code\n- **On failure:** `escalate` — 77 means no sandbox\n- **Checkpoint:** none\n\n\
         ### Step 3: Handler\n\n- **Files:** `src/server/status.rs`\n- **Changes:**\n  ```sh\n  {step_script}\n  ```\n- **Verify:** `test -f src/server/status.rs`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"feat(server): status\"`\n\n\
         ## Exit Condition\n\n- [ ] `{exit_check}` → expected: `ok`\n- [ ] All changes committed\n"
    )
}

fn repo(env: &TestEnv) -> std::path::PathBuf {
    let repo = env.repo("repo");
    write(&repo.join("src/cli.rs"), "cli\n");
    env.git(&repo, &["add", "."]);
    env.git(&repo, &["commit", "-q", "-m", "cli"]);
    repo
}

const WRITE: &str = "mkdir -p src/server && echo status > src/server/status.rs";

#[test]
fn a_session_spec_runs_inside_its_fence_with_its_conditions() {
    let env = TestEnv::new();
    let repo = repo(&env);
    write(&repo.join("spec.md"), &spec("true", "exit 0", WRITE, "echo ok"));
    let out = env
        .run(&repo, &["ultraplan", "run", "--json", "spec.md"])
        .expect_code(0);
    let s = &out.json()["ultraexecute_summary"];
    assert_eq!(s["plan_type"], "session-spec");
    assert_eq!(s["exit_condition"], "pass");
    assert_eq!(s["steps_passed"], 2);
    assert_eq!(env.subjects(&repo)[0], "feat(server): status");
    let progress = env.progress(&repo, "refs/ultraplan/spec/run");
    assert!(progress.contains("\"entry_condition_checked\": true"), "{progress}");
    assert!(progress.contains("\"exit_condition_checked\": true"), "{progress}");
}

#[test]
fn never_touch_changes_are_restored_and_fail_the_attempt() {
    let env = TestEnv::new();
    let repo = repo(&env);
    let script = format!("{WRITE}; echo hacked > src/cli.rs; echo stray > outside.txt");
    write(&repo.join("spec.md"), &spec("true", "exit 0", &script, "echo ok"));
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "spec.md"])
        .expect_code(1);
    assert_transcript!(t, "never_touch_changes_are_restored_and_fail_the_attempt");
    assert_eq!(
        read(&repo.join("src/cli.rs")),
        "cli\n",
        "the never-touch file is restored"
    );
    assert!(!repo.join("outside.txt").exists());
    assert!(
        !repo.join("src/server/status.rs").exists(),
        "revert after the last attempt"
    );
}

#[test]
fn declared_never_touch_files_escalate_before_anything_runs() {
    let env = TestEnv::new();
    let repo = repo(&env);
    let body = spec("true", "exit 0", "touch ran.marker", "echo ok")
        .replace("- **Verify:** `test -f src/server/status.rs`", "- **Verify:** `true`");
    let body = body.replace(
        "- **Files:** `src/server/status.rs`",
        "- **Files:** `src/server/status.rs`, `src/cli.rs`",
    );
    write(&repo.join("spec.md"), &body);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "check", "spec.md"]).expect_code(0);
    assert_transcript!(t, "declared_never_touch_files_escalate_before_anything_runs");
    // Step 0 runs; step 3 escalates before its executor runs, touching nothing.
    let out = env
        .run(&repo, &["ultraplan", "run", "--json", "spec.md"])
        .expect_code(3);
    let s = &out.json()["ultraexecute_summary"];
    assert_eq!(s["steps"][0]["result"], "passed");
    assert_eq!(s["steps"][1]["result"], "escalated");
    // Every step is counted once: an escalated step counts as failed.
    assert_eq!(
        (s["steps_passed"].as_u64(), s["steps_failed"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        (s["steps_skipped"].as_u64(), s["steps_not_reached"].as_u64()),
        (Some(0), Some(0))
    );
    assert!(!repo.join("ran.marker").exists(), "the executor never ran");
    // Resuming does not let it through: the declared file is still fenced off.
    let out = env
        .run(&repo, &["ultraplan", "run", "--resume", "--json", "spec.md"])
        .expect_code(3);
    assert_eq!(out.json()["ultraexecute_summary"]["steps"][1]["result"], "escalated");
    assert!(!repo.join("ran.marker").exists());
}

#[test]
fn entry_condition_and_step_zero_can_stop_a_session() {
    let env = TestEnv::new();
    let repo = repo(&env);
    write(&repo.join("spec.md"), &spec("false", "exit 0", WRITE, "echo ok"));
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "spec.md"]).expect_code(3);
    assert_transcript!(t, "entry_condition_and_step_zero_can_stop_a_session");
    assert!(!repo.join("src/server").exists());

    write(&repo.join("spec.md"), &spec("true", "exit 77", WRITE, "echo ok"));
    let out = env
        .run(&repo, &["ultraplan", "run", "--json", "spec.md"])
        .expect_code(3);
    let s = &out.json()["ultraexecute_summary"];
    assert_eq!(s["steps"][0]["result"], "blocked");
    assert_eq!(s["result"], "stopped");
    assert!(!repo.join("src/server").exists());

    write(&repo.join("spec.md"), &spec("true", "exit 0", WRITE, "echo nope"));
    let out = env
        .run(&repo, &["ultraplan", "run", "--json", "spec.md"])
        .expect_code(1);
    assert_eq!(out.json()["ultraexecute_summary"]["exit_condition"], "fail");
}

#[test]
fn session_mode_enforces_the_session_fence() {
    let env = TestEnv::new();
    let repo = repo(&env);
    let body = "# Two sessions\n\n## Implementation Plan\n\n\
        ### Step 1: Server\n- **Files:** `src/server/a.rs`\n- **Changes:**\n  ```sh\n  mkdir -p src/server && echo a > src/server/a.rs && echo x > src/cli.rs\n  ```\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"server\"`\n\n\
        ### Step 2: Cli\n- **Files:** `src/cli.rs`\n- **Changes:**\n  ```sh\n  echo cli2 > src/cli.rs\n  ```\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"cli\"`\n\n\
        ## Execution Strategy\n\n### Session 1: Server\n- **Steps:** 1\n- **Wave:** 1\n- **Scope fence:** Touch: `src/server/**` — Never touch: `src/cli.rs`\n\n\
        ### Session 2: Cli\n- **Steps:** 2\n- **Wave:** 1\n- **Scope fence:** Touch: `src/cli.rs`\n";
    write(&repo.join("plan.md"), body);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--session", "1", "--max-attempts", "1", "plan.md"],
        )
        .expect_code(1);
    assert_transcript!(t, "session_mode_enforces_the_session_fence");
    assert_eq!(read(&repo.join("src/cli.rs")), "cli\n");
    assert!(env
        .git(&repo, &["for-each-ref", "--format=%(refname)", "refs/ultraplan/"])
        .contains("refs/ultraplan/plan/session-1"));
    let _ = env
        .run(&repo, &["ultraplan", "run", "--session", "2", "plan.md"])
        .expect_code(0);
    assert_eq!(env.subjects(&repo)[0], "cli");
    // --fg runs every step here, each inside its own session's fence.
    let out = env
        .run(
            &repo,
            &["ultraplan", "run", "--fg", "--max-attempts", "1", "--json", "plan.md"],
        )
        .expect_code(1);
    assert_eq!(out.json()["ultraexecute_summary"]["steps"][0]["result"], "failed");
    assert_eq!(
        read(&repo.join("src/cli.rs")),
        "cli2\n",
        "session 2's commit is untouched"
    );
}

#[test]
fn a_single_session_strategy_still_fences_its_steps() {
    let env = TestEnv::new();
    let repo = repo(&env);
    let body = "# One session\n\n## Implementation Plan\n\n\
        ### Step 1: Server\n- **Files:** `src/server/a.rs`\n- **Changes:**\n  ```sh\n  mkdir -p src/server secret && echo a > src/server/a.rs && echo key > secret/key.txt\n  ```\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"server\"`\n\n\
        ## Execution Strategy\n\n### Session 1: Server\n- **Steps:** 1\n- **Wave:** 1\n- **Scope fence:** Touch: `src/**` — Never touch: `secret/**`\n";
    write(&repo.join("plan.md"), body);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "plan.md"])
        .expect_code(1);
    assert_transcript!(t, "a_single_session_strategy_still_fences_its_steps");
    assert!(!repo.join("secret/key.txt").exists());
    assert_eq!(env.subjects(&repo)[0], "cli", "nothing committed");
}

#[test]
fn task_plan_checkboxes_are_committed_with_the_checkpoint() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let body = "---\nphase: 03-exec\nplan: 01\n---\n\n<tasks>\n<task type=\"auto\">\n  <name>Task 1: Create the file</name>\n  <files>made.txt</files>\n  <action>Create it.\n  ```sh\n  echo made > made.txt\n  ```\n  </action>\n  <verify>grep -q made made.txt</verify>\n  <done>It exists.</done>\n</task>\n</tasks>\n\n<success_criteria>\n- [ ] Task 1: Create the file\n</success_criteria>\n";
    write(&repo.join("03-01-PLAN.md"), body);
    env.git(&repo, &["add", "03-01-PLAN.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    let out = env
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--executor",
                "echo made > made.txt",
                "03-01-PLAN.md",
            ],
        )
        .expect_code(0);
    assert!(out.stdout.contains("COMPLETED"), "{out}");
    assert_eq!(env.subjects(&repo)[0], "03-01 Task 1: Create the file");
    assert_eq!(
        env.git(&repo, &["show", "--name-only", "--format=", "HEAD"]),
        "03-01-PLAN.md\nmade.txt\n"
    );
    let committed = env.git(&repo, &["show", "HEAD:03-01-PLAN.md"]);
    assert!(
        committed.contains("- [x] Task 1: Create the file (completed 20"),
        "{committed}"
    );
    assert!(
        committed.contains("<task type=\"auto\" status=\"completed\" completed_at=\"20"),
        "{committed}"
    );
    assert_eq!(
        env.git(&repo, &["status", "--porcelain"]),
        "",
        "the plan on disk is what was committed"
    );
    assert_eq!(
        env.git(&repo, &["diff-files", "--name-only"]),
        "",
        "and its index entry is fresh"
    );
}

#[test]
fn the_shell_executor_runs_the_fenced_blocks_of_a_task_action() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let body = "---\nphase: 03-exec\nplan: 01\n---\n\n<tasks>\n<task type=\"auto\">\n  <name>Task 1: Create the file</name>\n  <files>made.txt</files>\n  <action>Create it.\n  ```sh\n  echo made > made.txt\n  ```\n  </action>\n  <verify>grep -q made made.txt</verify>\n  <done>It exists.</done>\n</task>\n<task type=\"auto\">\n  <name>Task 2: Append</name>\n  <files>made.txt</files>\n  <action>\n  ```bash\n  echo more >> made.txt\n  ```\n  </action>\n  <verify>grep -q more made.txt</verify>\n</task>\n</tasks>\n\n<success_criteria>\n- [ ] Task 1: Create the file\n- [ ] Task 2: Append\n</success_criteria>\n";
    write(&repo.join("03-01-PLAN.md"), body);
    env.git(&repo, &["add", "03-01-PLAN.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    let out = env.run(&repo, &["ultraplan", "run", "03-01-PLAN.md"]).expect_code(0);
    assert!(out.stdout.contains("COMPLETED"), "{out}");
    assert_eq!(
        env.subjects(&repo)[..2],
        ["03-01 Task 2: Append", "03-01 Task 1: Create the file"]
    );
    assert_eq!(env.git(&repo, &["show", "HEAD:made.txt"]), "made\nmore\n");
    let plan = read(&repo.join("03-01-PLAN.md"));
    assert!(plan.contains("- [x] Task 2: Append (completed 20"), "{plan}");
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");
    assert_eq!(env.git(&repo, &["diff-files", "--name-only"]), "");
}

#[test]
fn a_session_run_resumes_with_resume_and_session() {
    let env = TestEnv::new();
    let repo = repo(&env);
    let body = |verify: &str| {
        format!(
            "# Two sessions\n\n## Implementation Plan\n\n\
        ### Step 1: One\n- **Files:** `src/server/a.rs`\n- **Changes:**\n  ```sh\n  mkdir -p src/server && echo a > src/server/a.rs\n  ```\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"one\"`\n\n\
        ### Step 2: Two\n- **Files:** `src/server/b.rs`\n- **Changes:**\n  ```sh\n  echo b > src/server/b.rs\n  ```\n- **Verify:** `{verify}`\n- **On failure:** escalate\n- **Checkpoint:** `git commit -m \"two\"`\n\n\
        ### Step 3: Cli\n- **Files:** `src/cli.rs`\n- **Changes:**\n  ```sh\n  echo cli2 > src/cli.rs\n  ```\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"cli\"`\n\n\
        ## Execution Strategy\n\n### Session 1: Server\n- **Steps:** 1, 2\n- **Wave:** 1\n- **Scope fence:** Touch: `src/server/**`\n\n\
        ### Session 2: Cli\n- **Steps:** 3\n- **Wave:** 1\n- **Scope fence:** Touch: `src/cli.rs`\n"
        )
    };
    write(&repo.join("plan.md"), &body("grep -q B src/server/b.rs"));
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--session", "1", "plan.md"])
        .expect_code(3);
    // The person fixes the file; resume verifies it and does not run step 1 again.
    write(&repo.join("src/server/b.rs"), "B\n");
    let out = env
        .run(
            &repo,
            &["ultraplan", "run", "--resume", "--session", "1", "--json", "plan.md"],
        )
        .expect_code(0);
    let s = &out.json()["ultraexecute_summary"];
    assert_eq!(s["mode"], "resume session 1");
    assert_eq!(s["steps_total"], 2, "only session 1's steps");
    assert_eq!(env.subjects(&repo)[..3], ["two", "one", "cli"]);
    assert_eq!(env.git(&repo, &["show", "HEAD:src/server/b.rs"]), "B\n");
    let progress = env.progress(&repo, "refs/ultraplan/plan/session-1");
    assert!(progress.contains("\"status\": \"completed\""), "{progress}");
    assert_eq!(
        env.git(&repo, &["for-each-ref", "refs/ultraplan/plan/run"]),
        "",
        "the session's own state only"
    );
    // Bad combinations are usage errors.
    let _ = t
        .run(&repo, &["ultraplan", "run", "--step", "1", "--session", "1", "plan.md"])
        .expect_code(129);
    assert_transcript!(t, "a_session_run_resumes_with_resume_and_session");
}
