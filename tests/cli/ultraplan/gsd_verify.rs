//! A GSD `<verify>` written with the Markdown format's `→ expected:`: the
//! expectation is checked against the command's output, never dropped and
//! never run as a command of its own. And a TDD RED step must write its
//! test.

use crate::harness::support::*;
use crate::ultraplan::gsd::{gsd_plan, setup, shell_task};

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

/// A TDD plan's RED step writes the test: an executor that wrote nothing
/// does not pass it, though the test command fails (there is no test).
#[test]
fn a_red_step_that_wrote_no_test_fails() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("02-01-PLAN.md"),
        "---\nphase: 02-api\nplan: 01\ntype: tdd\n---\n<objective>\nparseDuration, test first.\n</objective>\n<feature>\n  <name>parseDuration</name>\n  <files>src/duration.js, src/duration.test.js</files>\n  <behavior>\"1h30m\" is 5400</behavior>\n  <implementation>Scan number-unit pairs</implementation>\n</feature>\n<verification>test -f src/duration.test.js && grep -q 5400 src/duration.js</verification>\n",
    );
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    let out = env
        .run(&repo, &["ultraplan", "run", "--executor", "true", "02-01-PLAN.md"])
        .expect_code(1);
    assert!(out.stdout.contains("Result: FAILED at step 1"), "{out}");
    assert!(out.stdout.contains("0 file(s) changed, at least 1 expected"), "{out}");
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head, "a commit was made: {out}");
}
