//! `git ultraplan result check`: the fixtures' outcomes, exit statuses and
//! output through `git`.

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

fn setup(env: &TestEnv) -> std::path::PathBuf {
    let repo = env.repo("repo");
    std::fs::create_dir_all(repo.join(".claude/agents")).unwrap();
    std::fs::write(repo.join(".claude/agents/ultraplan-executor.md"), "model: sonnet\n").unwrap();
    std::fs::copy(fixture("plans/03-01-PLAN.md"), repo.join("03-01-PLAN.md")).unwrap();
    repo
}

fn result_path(name: &str) -> String {
    fixture(&format!("results/{name}")).display().to_string()
}

#[test]
fn fixtures_outcomes_and_exit_statuses() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let mut t = Transcript::new(&env);
    for (name, outcome, code) in [
        ("success.yaml", "VALID", 0),
        ("blocked.yaml", "VALID_WITH_WARNINGS", 0),
        ("failure.yaml", "VALID_WITH_WARNINGS", 0),
        ("warnings-extra-fields.yaml", "VALID_WITH_WARNINGS", 0),
        ("invalid-success-nonzero.yaml", "INVALID", 1),
        ("invalid-unknown-task.yaml", "INVALID", 1),
    ] {
        let out = t
            .run(
                &repo,
                &[
                    "ultraplan",
                    "result",
                    "check",
                    "--plan",
                    "03-01-PLAN.md",
                    &result_path(name),
                ],
            )
            .expect_code(code);
        assert_eq!(out.stdout.lines().next(), Some(outcome), "{name}: {out}");
    }
    assert_transcript!(t, "fixtures_outcomes_and_exit_statuses");
}

#[test]
fn violations_and_warnings_follow_the_outcome() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let out = env
        .run(
            &repo,
            &[
                "ultraplan",
                "result",
                "check",
                &result_path("invalid-success-nonzero.yaml"),
            ],
        )
        .expect_code(1);
    assert_eq!(
        out.stdout,
        "INVALID\ncritical: line 7: status is 'success' but verification.exit_code is 1, not 0\n\
         warning: missing optional field 'metadata' (duration_ms, attempt, executor_id)\n"
    );
    let mut t = Transcript::new(&env);
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "result",
                "check",
                "--plan",
                "03-01-PLAN.md",
                &result_path("warnings-extra-fields.yaml"),
            ],
        )
        .expect_code(0);
    assert_transcript!(t, "violations_and_warnings_follow_the_outcome");
}

#[test]
fn plan_matching_rejects_unknown_tasks() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let text = std::fs::read_to_string(fixture("results/success.yaml"))
        .unwrap()
        .replace("Task 2:", "Task 9:");
    std::fs::write(repo.join("r.yaml"), text).unwrap();
    let mut t = Transcript::new(&env);
    let _ = t
        .run(
            &repo,
            &["ultraplan", "result", "check", "--plan", "03-01-PLAN.md", "r.yaml"],
        )
        .expect_code(1);
    t.note("without the plan, the name's form is all that can be checked");
    let _ = t.run(&repo, &["ultraplan", "result", "check", "r.yaml"]).expect_code(0);
    assert_transcript!(t, "plan_matching_rejects_unknown_tasks");
}

#[test]
fn json_output() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let out = env
        .run(
            &repo,
            &[
                "ultraplan",
                "result",
                "check",
                "--json",
                "--plan",
                "03-01-PLAN.md",
                &result_path("invalid-unknown-task.yaml"),
            ],
        )
        .expect_code(1);
    let j = out.json();
    assert_eq!(j["outcome"], "INVALID");
    assert_eq!(j["violations"][0]["field"], "task_name");
    assert_eq!(j["violations"][0]["line"], 2);
    assert_eq!(j["task"], serde_json::Value::Null);
    let j = env
        .run(
            &repo,
            &[
                "ultraplan",
                "result",
                "check",
                "--json",
                "--plan",
                "03-01-PLAN.md",
                &result_path("success.yaml"),
            ],
        )
        .expect_code(0)
        .json();
    assert_eq!(j["outcome"], "VALID");
    assert_eq!(
        j["task"],
        serde_json::json!({"number": 2, "name": "Task 2: Add execution protocol section", "match": "exact"})
    );
}

#[test]
fn unreadable_inputs_are_fatal_and_stdin_works() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let out = env
        .run(&repo, &["ultraplan", "result", "check", "missing.yaml"])
        .expect_code(128);
    assert_eq!(
        out.stderr,
        "fatal: cannot read result 'missing.yaml': No such file or directory\n"
    );
    let out = env
        .run(
            &repo,
            &[
                "ultraplan",
                "result",
                "check",
                "--plan",
                "nope.md",
                &result_path("success.yaml"),
            ],
        )
        .expect_code(128);
    assert_eq!(
        out.stderr,
        "fatal: cannot read plan 'nope.md': No such file or directory\n"
    );
    let mut cmd = env.command("git", &repo);
    cmd.args(["ultraplan", "result", "check", "-"])
        .stdin(std::fs::File::open(fixture("results/success.yaml")).unwrap());
    let out = capture(cmd).expect_code(0);
    assert_eq!(out.stdout, "VALID\n");
}

#[test]
fn a_result_file_starting_with_a_byte_order_mark_parses() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let mut bytes = "\u{feff}".as_bytes().to_vec();
    bytes.extend(std::fs::read(fixture("results/success.yaml")).unwrap());
    let path = env.root().join("bom.yaml");
    std::fs::write(&path, bytes).unwrap();
    let path = path.display().to_string();
    let out = env
        .run(
            &repo,
            &["ultraplan", "result", "check", "--plan", "03-01-PLAN.md", &path],
        )
        .expect_code(0);
    assert_eq!(out.stdout.lines().next(), Some("VALID"), "{out}");
}
