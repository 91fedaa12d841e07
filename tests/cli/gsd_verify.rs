//! A GSD `<verify>` written with the Markdown format's `→ expected:`: the
//! expectation is checked against the command's output, never dropped and
//! never run as a command of its own.

use crate::gsd::{gsd_plan, setup, shell_task};
use crate::support::*;

#[test]
fn an_expected_literal_in_a_gsd_verify_is_checked_not_run() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let witness = env.root().join("ran");
    // Were the expectation run, `touch` would leave the witness.
    let verify = format!("`cat ok.txt` → expected: `touch {}`", witness.display());
    write(
        &repo.join("04-02-PLAN.md"),
        &gsd_plan(&shell_task("Task 1: Say ok", "ok.txt", "echo ok > ok.txt", &verify)),
    );
    let check = env
        .run(&repo, &["ultraplan", "check", "--json", "04-02-PLAN.md"])
        .expect_code(0)
        .json();
    assert_eq!(check["steps"][0]["verify"]["command"], "cat ok.txt", "{check}");
    assert_eq!(
        check["steps"][0]["verify"]["expected"],
        format!("touch {}", witness.display()),
        "{check}"
    );
    let out = env.run(&repo, &["ultraplan", "run", "04-02-PLAN.md"]).expect_code(1);
    assert!(out.stdout.contains("Result: FAILED at step 1"), "{out}");
    assert!(!witness.exists(), "the expectation was run as a command");

    // The output it names passes.
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("04-02-PLAN.md"),
        &gsd_plan(&shell_task(
            "Task 1: Say ok",
            "ok.txt",
            "echo ok > ok.txt",
            "`cat ok.txt` → expected: `ok`",
        )),
    );
    let out = env.run(&repo, &["ultraplan", "run", "04-02-PLAN.md"]).expect_code(0);
    assert!(out.stdout.contains("Result: COMPLETED"), "{out}");
}
