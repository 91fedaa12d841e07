//! A run's own outcome (DESIGN §17): recorded when a run finishes or fails
//! (recording never fails the run), one per session of a multi-session run,
//! one per step with `ultraplan.outcomes=steps`.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

const REF: &str = "refs/ultraplan-outcomes";

#[test]
fn a_finished_run_records_its_outcome() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
            StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
        ]),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "outcome", "list"]).expect_code(0);
    let list = t.run(&repo, &["ultraplan", "outcome", "list", "--json"]).expect_code(0);
    assert_transcript!(t, "a_finished_run_records_its_outcome");
    let stored: serde_json::Value = serde_json::from_str(list.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(
        stored["outcome"]["context"]["commit"],
        env.git(&repo, &["rev-parse", "HEAD"]).trim()
    );
}

#[test]
fn a_failed_run_records_a_failure_and_recording_never_fails_a_run() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "false")]),
    );
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "-q", "run", "plan.md", "--max-attempts", "1"])
        .expect_code(1);
    let _ = t
        .run(&repo, &["ultraplan", "outcome", "list", "--failure", "--json"])
        .expect_code(0);

    // ultraplan.outcomes=off records nothing.
    let other = env.repo("other");
    write(
        &other.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "true")]),
    );
    t.note("ultraplan.outcomes=off records nothing");
    let _ = t
        .run(
            &other,
            &["-c", "ultraplan.outcomes=off", "ultraplan", "-q", "run", "plan.md"],
        )
        .expect_code(0);
    let _ = t.run(&other, &["for-each-ref", REF]).expect_code(0);

    // A store that cannot be written (the ref holds a blob): a warning, the run still passes.
    let third = env.repo("third");
    write(
        &third.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "true")]),
    );
    let blob = env.git(&third, &["hash-object", "-w", "README.md"]);
    env.git(&third, &["update-ref", REF, blob.trim()]);
    t.note("a store that cannot be written (the ref holds a blob): a warning, the run still passes");
    let _ = t.run(&third, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let _ = t.run(&third, &["log", "--oneline"]).expect_code(0);
    assert_transcript!(t, "a_failed_run_records_a_failure_and_recording_never_fails_a_run");
}

#[test]
fn each_session_of_a_multi_session_run_records_its_own_outcome() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let steps: String = [
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
    ]
    .iter()
    .map(StepSpec::render)
    .collect();
    let mut strategy = String::from("## Execution Strategy\n\n");
    for (n, file) in [(1, "a.txt"), (2, "b.txt")] {
        strategy.push_str(&format!(
            "### Session {n}: S{n}\n- **Steps:** {n}\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `{file}`\n\n"
        ));
    }
    write(
        &repo.join("plan.md"),
        &format!("# Sessions\n\n## Implementation Plan\n\n{steps}{strategy}"),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(0);
    // The sessions record theirs as they finish, in either order: sorted here.
    let list = env.run(&repo, &["ultraplan", "outcome", "list"]).expect_code(0);
    let mut lines: Vec<&str> = list.stdout.lines().collect();
    lines.sort_by_key(|l| l.rsplit("  ").next().unwrap_or_default().to_owned());
    t.note(&format!("git ultraplan outcome list, by task:\n{}", lines.join("\n")));
    assert_transcript!(t, "each_session_of_a_multi_session_run_records_its_own_outcome");
    assert_eq!(lines.len(), 3, "{list}");
    env.assert_fsck(&repo);
}

#[test]
fn with_outcomes_steps_each_step_records_one_too() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
            StepSpec::new(2, "`b.txt`", "echo b > b.txt", "false"),
        ]),
    );
    let mut t = Transcript::new(&env);
    let _ = t
        .run(
            &repo,
            &[
                "-c",
                "ultraplan.outcomes=steps",
                "ultraplan",
                "-q",
                "run",
                "plan.md",
                "--max-attempts",
                "1",
            ],
        )
        .expect_code(1);
    let _ = t.run(&repo, &["ultraplan", "outcome", "list"]).expect_code(0);
    let list = env
        .run(&repo, &["ultraplan", "outcome", "list", "--json"])
        .expect_code(0);
    let outcomes: Vec<serde_json::Value> = list
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["outcome"].clone())
        .collect();
    assert_eq!(outcomes.len(), 3, "{list}");
    let step = |n: u64| {
        outcomes
            .iter()
            .find(|o| o["context"]["step"] == n)
            .unwrap_or_else(|| panic!("{list}"))
    };
    assert_eq!(step(1)["success"], true);
    assert_eq!(step(2)["success"], false);
    assert!(
        step(2)["error_message"].as_str().is_some_and(|e| !e.is_empty()),
        "{list}"
    );
    t.note("a bad ultraplan.outcomes does not stop reading, nor a run");
    let _ = t
        .run(
            &repo,
            &["-c", "ultraplan.outcomes=sometimes", "ultraplan", "outcome", "list"],
        )
        .expect_code(0);
    let other = env.repo("other");
    write(
        &other.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "true")]),
    );
    let _ = t
        .run(
            &other,
            &["-c", "ultraplan.outcomes=sometimes", "ultraplan", "run", "plan.md"],
        )
        .expect_code(0);
    assert_transcript!(t, "with_outcomes_steps_each_step_records_one_too");
}
