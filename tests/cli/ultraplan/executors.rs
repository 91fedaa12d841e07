//! Executors: the command protocol, the manual executor, a stub `claude`
//! speaking the real CLI's headless JSON, billing safety, timeouts.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

fn repo_with_plan(env: &TestEnv, body: &str) -> std::path::PathBuf {
    let repo = env.repo("repo");
    write(&repo.join("plan.md"), body);
    repo
}

fn one_step() -> String {
    plan(&[StepSpec::new(1, "`a.txt`", "echo from-shell > a.txt", "test -f a.txt").policy("retry — look again")])
}

#[test]
fn the_command_protocol_gets_json_and_variables_and_its_result_is_recorded() {
    let env = TestEnv::new();
    let repo = repo_with_plan(&env, &one_step());
    let seen = env.root().join("seen");
    let agent = env.root().join("agent.sh");
    write(
        &agent,
        &format!(
            "#!/bin/sh\ncat > {s}.json\nenv | grep ^ULTRAPLAN_ | sort > {s}.env\necho agent-wrote > a.txt\n\
             cat > \"$ULTRAPLAN_RESULT_FILE\" <<EOF\nstatus: success\ntask_name: \"$ULTRAPLAN_TASK_NAME\"\nfiles_modified: [a.txt, ghost.txt]\n\
             verification: {{command: \"test -f a.txt\", exit_code: 0, output_summary: ok}}\ndone_criteria_met: true\n\
             evidence: \"wrote a.txt with care\"\nerror: null\nEOF\n",
            s = seen.display()
        ),
    );
    let executor = format!("sh {}", agent.display());
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--executor", &executor, "plan.md"])
        .expect_code(0);
    // Its own result is judged apart from ultraplan's (executor_result).
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    assert_transcript!(
        t,
        "the_command_protocol_gets_json_and_variables_and_its_result_is_recorded"
    );
    let request: serde_json::Value = serde_json::from_str(&read(&seen.with_extension("json"))).unwrap();
    assert_eq!(request["plan"], "plan.md");
    assert_eq!(request["task_name"], "Task 1: Step 1");
    assert_eq!(request["step"]["number"], 1);
    assert_eq!(request["step"]["files"], serde_json::json!(["a.txt"]));
    assert_eq!(request["step"]["verify"]["command"], "test -f a.txt");
    assert_eq!(request["step"]["on_failure"]["action"], "retry");
    assert_eq!(request["attempt"], 1);
    assert_eq!(request["max_attempts"], 3);
    let vars = read(&seen.with_extension("env"));
    for var in [
        "ULTRAPLAN_ATTEMPT=1",
        "ULTRAPLAN_PLAN=plan.md",
        "ULTRAPLAN_STEP=1",
        "ULTRAPLAN_TASK_NAME=Task 1: Step 1",
    ] {
        assert!(vars.contains(var), "{var} in {vars}");
    }
    assert!(
        vars.contains("ULTRAPLAN_RESULT_FILE=") && vars.contains("ULTRAPLAN_WORKTREE="),
        "{vars}"
    );
    assert_eq!(read(&repo.join("a.txt")), "agent-wrote\n");
    assert!(
        !std::fs::read_dir(repo.join(".git/ultraplan/tmp"))
            .unwrap()
            .any(|_| true),
        "no result file left"
    );
}

#[test]
fn yaml_on_stdout_and_results_from_exit_codes() {
    let env = TestEnv::new();
    let repo = repo_with_plan(&env, &one_step());
    let printer =
        "echo done > a.txt; printf 'working\\n```yaml\\nstatus: success\\nevidence: printed on stdout\\n```\\n'";
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--executor", printer, "plan.md"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    // No result at all: one is made from the exit code; the executor's word is not trusted.
    let liar = "echo claims-success > other.txt; exit 0";
    let out = env.run(
        &repo,
        &[
            "ultraplan",
            "run",
            "--again",
            "--max-attempts",
            "1",
            "--executor",
            liar,
            "plan.md",
        ],
    );
    let _ = out.expect_code(0); // a.txt still exists from before, so Verify passes
    let failing = "exit 7";
    write(
        &repo.join("plan.md"),
        &one_step().replace("test -f a.txt", "test -f never.txt"),
    );
    t.note("an executor that fails, with a Verify that fails too");
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--again",
                "--max-attempts",
                "1",
                "--executor",
                failing,
                "plan.md",
            ],
        )
        .expect_code(1);
    let _ = t
        .run(&repo, &["show", "refs/ultraplan/plan/run:steps/0/0/0/1/attempt-1.yaml"])
        .expect_code(0);
    assert_transcript!(t, "yaml_on_stdout_and_results_from_exit_codes");
}

#[test]
fn an_executor_past_its_timeout_is_killed_with_its_children() {
    let env = TestEnv::new();
    let repo = repo_with_plan(&env, &one_step());
    env.git(&repo, &["config", "ultraplan.executorTimeout", "1s"]);
    let start = std::time::Instant::now();
    let out = env
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--max-attempts",
                "1",
                "--executor",
                "sleep 60 & sleep 60",
                "plan.md",
            ],
        )
        .expect_code(1);
    // Well under the executor's minute, with room for a loaded machine.
    assert!(
        start.elapsed() < std::time::Duration::from_secs(45),
        "{:?}",
        start.elapsed()
    );
    let log = env.git(&repo, &["show", "refs/ultraplan/plan/run:steps/0/0/0/1/attempt-1.yaml"]);
    assert!(
        log.contains("the executor said: the executor command ended with timed out"),
        "{log}\n{out}"
    );
}

#[test]
fn the_manual_executor_waits_for_a_person() {
    let env = TestEnv::new();
    let repo = repo_with_plan(
        &env,
        &plan(&[
            StepSpec::new(1, "`a.txt`", "echo from-shell > a.txt", "test -f a.txt"),
            StepSpec::new(2, "`b.txt`", "echo from-shell > b.txt", "test -f b.txt"),
        ]),
    );
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--executor", "manual", "plan.md"])
        .expect_code(3);
    let progress: serde_json::Value = serde_json::from_str(&env.progress(&repo, "refs/ultraplan/plan/run")).unwrap();
    assert_eq!(progress["status"], "waiting");
    t.note("resumed before the person did it: still waiting");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(3);
    write(&repo.join("a.txt"), "made by hand\n");
    t.note("resumed, the run stays manual: step 2 waits for the person too");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(3);
    assert_transcript!(t, "the_manual_executor_waits_for_a_person");
    assert!(!repo.join("b.txt").exists(), "the shell block did not run");
    assert_eq!(env.git(&repo, &["show", "HEAD:a.txt"]), "made by hand\n");
    write(&repo.join("b.txt"), "also by hand\n");
    let _ = env
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    assert_eq!(env.git(&repo, &["show", "HEAD:b.txt"]), "also by hand\n");
}

/// A stand-in for the Claude Code CLI: edits the file it is asked for and
/// prints the headless JSON report with cost and usage.
fn install_claude_stub(env: &TestEnv) -> std::path::PathBuf {
    let bin = env.root().join("stub-bin");
    write(
        &bin.join("claude"),
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args.txt\"\necho by-claude > a.txt\n\
         echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"duration_ms\":1200,\"num_turns\":3,\"result\":\"Done.\",\"session_id\":\"abc\",\"total_cost_usd\":0.0123,\"usage\":{\"input_tokens\":100,\"cache_read_input_tokens\":20,\"output_tokens\":30}}'\n",
    );
    std::process::Command::new("chmod")
        .args(["+x", bin.join("claude").to_str().unwrap()])
        .status()
        .unwrap();
    bin
}

#[test]
fn the_claude_executor_records_cost_and_tokens() {
    let mut env = TestEnv::new();
    let bin = install_claude_stub(&env);
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    env.set("PATH", format!("{}:{path}", bin_dir().display()));
    let repo = repo_with_plan(&env, &one_step());
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--executor", "claude", "plan.md"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    t.file(&bin.join("args.txt"));
    assert_transcript!(t, "the_claude_executor_records_cost_and_tokens");
    assert_eq!(env.git(&repo, &["show", "HEAD:a.txt"]), "by-claude\n");
}

#[test]
fn billing_safety_stops_a_non_interactive_run_unless_confirmed() {
    let mut env = TestEnv::new();
    let bin = install_claude_stub(&env);
    env.set(
        "PATH",
        format!(
            "{}:{}:{}",
            bin_dir().display(),
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    );
    env.set("ANTHROPIC_API_KEY", "sk-ant-api03-not-a-real-key-000000000000000000");
    let repo = repo_with_plan(&env, &one_step());
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--executor", "claude", "plan.md"])
        .expect_code(3);
    assert_transcript!(t, "billing_safety_stops_a_non_interactive_run_unless_confirmed");
    assert_eq!(
        env.git(&repo, &["for-each-ref", "refs/ultraplan/"]),
        "",
        "nothing ran, nothing written"
    );
    assert!(!repo.join("a.txt").exists());
    // The shell executor is not billed: no question.
    let _ = env
        .run(&repo, &["ultraplan", "run", "--step", "1", "plan.md"])
        .expect_code(0);
    let _ = env
        .run(&repo, &["ultraplan", "run", "--executor", "claude", "--yes", "plan.md"])
        .expect_code(0);
    let _ = env
        .run(
            &repo,
            &[
                "-c",
                "ultraplan.allowApiBilling=true",
                "ultraplan",
                "run",
                "--executor",
                "claude",
                "plan.md",
            ],
        )
        .expect_code(0);
}

/// DESIGN §5.2: a step whose Changes the shell executor cannot run (prose,
/// no `sh` block) is `blocked` even when its Verify passes already: nothing
/// was done, so nothing is committed or reported as passed. A step without
/// Changes only checks, and its Verify decides.
#[test]
fn a_step_in_prose_is_blocked_for_the_shell_executor_even_when_verify_passes() {
    let env = TestEnv::new();
    let repo = repo_with_plan(
        &env,
        "# P\n\n## Implementation Plan\n\n### Step 1: Check\n- **Files:** `notes.txt`\n- **Verify:** `test -f notes.txt`\n- **On failure:** revert\n- **Checkpoint:** none\n\n\
         ### Step 2: Greet\n- **Files:** `notes.txt`\n- **Changes:** add a line saying hello to notes.txt\n- **Verify:** `test -f notes.txt`\n- **On failure:** retry\n- **Checkpoint:** `git commit -m \"greet\"`\n",
    );
    write(&repo.join("notes.txt"), "notes\n");
    env.git(&repo, &["add", "plan.md", "notes.txt"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(3);
    assert_transcript!(
        t,
        "a_step_in_prose_is_blocked_for_the_shell_executor_even_when_verify_passes"
    );
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head, "no commit");
    let j = env
        .run(&repo, &["ultraplan", "status", "--json", "plan.md"])
        .expect_code(0)
        .json();
    let steps = &j["plans"][0]["states"][0]["progress"]["steps"];
    assert_eq!(steps["1"]["status"], "passed", "{j}");
    assert_eq!(steps["2"]["status"], "blocked", "{j}");
    // As the error says: a person who did the step before has it verified.
    let _ = env
        .run(
            &repo,
            &["ultraplan", "run", "--resume", "--executor", "manual", "plan.md"],
        )
        .expect_code(3);
    let _ = env
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
}
