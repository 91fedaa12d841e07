//! The commands that read a plan's record — `status`, `log`, `show`,
//! `report` — asked about what is not there: a step the plan does not have,
//! a plan that has not run, a path that is no plan or does not exist. Each
//! says which, naming the plan, with the exit code of DESIGN §3.3.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// `show --step N` for a step the plan does not have says so, with the
/// plan's step count (from the plan file, else from its recorded run); a
/// step the plan has but the run did not reach "has not run".
#[test]
fn show_names_a_step_the_plan_does_not_have() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
            StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
        ]),
    );
    write(
        &repo.join("one.md"),
        &plan(&[StepSpec::new(1, "`c.txt`", "echo c > c.txt", "test -f c.txt")]),
    );
    let _ = env.run(&repo, &["ultraplan", "run", "one.md"]).expect_code(0);
    let _ = env
        .run(&repo, &["ultraplan", "run", "--step", "1", "plan.md"])
        .expect_code(0);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "show", "one.md", "--step", "9"])
        .expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "show", "plan.md", "--step", "2"])
        .expect_code(128);
    std::fs::remove_file(repo.join("one.md")).unwrap();
    t.note("one.md deleted: its recorded run still knows its steps");
    let _ = t
        .run(&repo, &["ultraplan", "show", "one.md", "--step", "9"])
        .expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "show", "one.md", "--step", "1"])
        .expect_code(0);
    assert_transcript!(t, "show_names_a_step_the_plan_does_not_have");
}

/// A plan that has not run: `status` and `log` say so and exit 0 (an empty
/// listing); `show` and `report`, with nothing to show, fail (128). A path
/// that does not exist, or a file that is no plan, is an error in all four
/// (128), also with --json — unless runs of it are recorded (a plan file
/// deleted after its run), which are shown.
#[test]
fn status_log_show_and_report_of_a_plan_not_run_or_not_there() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")]),
    );
    write(&repo.join("notes.txt"), "just words\n");
    let mut t = Transcript::new(&env);
    t.note("a plan that has not run");
    let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "log", "plan.md"]).expect_code(0);
    let _ = t
        .run(&repo, &["ultraplan", "show", "plan.md", "--step", "1"])
        .expect_code(128);
    let _ = t.run(&repo, &["ultraplan", "report", "plan.md"]).expect_code(128);
    t.note("a path that does not exist");
    for args in [
        &["ultraplan", "status", "nope.md"][..],
        &["ultraplan", "log", "nope.md"],
        &["ultraplan", "status", "--json", "nope.md"],
        &["ultraplan", "show", "nope.md", "--step", "1"],
        &["ultraplan", "report", "nope.md"],
    ] {
        let _ = t.run(&repo, args).expect_code(128);
    }
    t.note("a file that is no plan");
    let _ = t.run(&repo, &["ultraplan", "log", "notes.txt"]).expect_code(128);
    t.note("a plan deleted after its run: its run is shown");
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    std::fs::remove_file(repo.join("plan.md")).unwrap();
    let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    assert_transcript!(t, "status_log_show_and_report_of_a_plan_not_run_or_not_there");
    assert_eq!(
        env.git(&repo, &["for-each-ref", "refs/ultraplan/nope", "refs/ultraplan/notes"]),
        "",
        "nothing written"
    );
}
