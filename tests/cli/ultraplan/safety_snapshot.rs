//! What a step's snapshot holds and a restore puts back (DESIGN §2 invariant
//! 3): a `.git` spelling is a scope violation, an executor's result file with a
//! byte order mark, what the snapshot cannot hold is named, git's own files and
//! ignored files up to a bound.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

use super::safety::setup;

#[test]
fn a_step_that_makes_a_dot_git_spelling_is_a_scope_violation_and_the_run_goes_on() {
    let env = TestEnv::new();
    let counter = env.root().join("counter");
    let script = format!(
        "n=$(cat {c} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {c}\necho c > c.txt\n\
         if [ $n = 1 ]; then mkdir -p .Git sub/.GIT; echo x > .Git/config; echo y > sub/.GIT/HEAD; fi",
        c = counter.display()
    );
    let body = plan(&[StepSpec::new(1, "`c.txt`", &script, "test -f c.txt")]);
    let repo = setup(&env, "plan.md", &body);
    // The user's own odd directory, there before the run, is left alone.
    std::fs::create_dir_all(repo.join("keep/.GIT")).unwrap();
    write(&repo.join("keep/.GIT/mine"), "the user's\n");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let _ = t
        .run(&repo, &["log", "--format=%s", "refs/ultraplan/plan/run"])
        .expect_code(0);
    let _ = t.run(&repo, &["show", "--format=%s", "--stat", "HEAD"]).expect_code(0);
    let _ = t
        .run(&repo, &["status", "--short", "--untracked-files=all"])
        .expect_code(0);
    assert_transcript!(
        t,
        "a_step_that_makes_a_dot_git_spelling_is_a_scope_violation_and_the_run_goes_on"
    );
    assert!(!repo.join(".Git").exists() && !repo.join("sub").exists());
    assert_eq!(read(&repo.join("keep/.GIT/mine")), "the user's\n");
    env.assert_fsck(&repo);
}

#[test]
fn an_executors_result_file_with_a_byte_order_mark_is_read() {
    let env = TestEnv::new();
    let repo = setup(
        &env,
        "plan.md",
        &plan(&[StepSpec::new(1, "`a.txt`", "", "test -f a.txt")]),
    );
    write(
        &env.root().join("agent.sh"),
        "echo a > a.txt\nprintf '\\357\\273\\277status: success\\ntask_name: \"Task 1: Step 1\"\\nevidence: wrote a.txt with a BOM\\n' > \"$ULTRAPLAN_RESULT_FILE\"\n",
    );
    let mut t = Transcript::new(&env);
    let _ = t
        .run(
            &repo,
            &["ultraplan", "-q", "run", "--executor", "sh ../agent.sh", "plan.md"],
        )
        .expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    assert_transcript!(t, "an_executors_result_file_with_a_byte_order_mark_is_read");
}

#[test]
fn what_the_snapshot_cannot_hold_is_said_not_dropped() {
    let env = TestEnv::new();
    let body = plan(&[
        StepSpec::new(1, "`u.txt`", "rm u.txt", "test ! -e u.txt"),
        StepSpec::new(2, "`sub`", "git init -q sub\necho f > sub/f.txt", "test -d sub/.git"),
        StepSpec::new(3, "`link`", "ln -s ../outside.txt link\necho x > link", "test -L link"),
    ]);
    let repo = setup(&env, "plan.md", &body);
    write(&repo.join("u.txt"), "the user's untracked file\n");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["log", "--oneline"]).expect_code(0);
    assert_transcript!(t, "what_the_snapshot_cannot_hold_is_said_not_dropped");
}

#[test]
fn changes_to_gits_own_files_are_named_and_a_restore_puts_them_back() {
    let env = TestEnv::new();
    let script = "git config core.fsmonitor ./spy.sh\nprintf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit\nchmod +x .git/hooks/pre-commit\necho '*.secret' >> .git/info/exclude";
    let body = plan(&[
        StepSpec::new(1, "`a.txt`", script, "false"),
        StepSpec::new(
            2,
            "`b.txt`",
            "echo b > b.txt\ngit config core.hooksPath /tmp/elsewhere",
            "test -f b.txt",
        ),
    ]);
    let repo = setup(&env, "plan.md", &body);
    let git_dir = repo.join(".git");
    let config = std::fs::read(git_dir.join("config")).unwrap();
    let exclude = std::fs::read(git_dir.join("info/exclude")).unwrap();
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(1);
    t.note("put back: no fsmonitor, no new hook");
    let _ = t.run(&repo, &["config", "--get", "core.fsmonitor"]).expect_code(1);
    assert_eq!(std::fs::read(git_dir.join("config")).unwrap(), config);
    assert_eq!(std::fs::read(git_dir.join("info/exclude")).unwrap(), exclude);
    assert!(!git_dir.join("hooks/pre-commit").exists());
    t.note("a step that passes keeps what it did, named");
    let _ = t
        .run(&repo, &["ultraplan", "-q", "run", "--step", "2", "plan.md"])
        .expect_code(0);
    let _ = t.run(&repo, &["config", "--get", "core.hooksPath"]).expect_code(0);
    assert_transcript!(t, "changes_to_gits_own_files_are_named_and_a_restore_puts_them_back");
}

#[test]
fn ignored_files_are_part_of_the_snapshot_up_to_a_bound_and_the_rest_is_named() {
    let env = TestEnv::new();
    let script = "rm .env\necho changed > local.db\necho new > new.db\necho more >> big.bin\nrm -rf node_modules\nmkdir -p build && echo o > build/out.o";
    let body = plan(&[StepSpec::new(1, "`a.txt`", script, "false")]);
    let repo = setup(&env, "plan.md", &body);
    write(&repo.join(".gitignore"), ".env\n*.db\nbig.bin\nnode_modules/\nbuild/\n");
    env.git(&repo, &["add", ".gitignore"]);
    env.git(&repo, &["commit", "-q", "-m", "ignore"]);
    let secret = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n";
    write(&repo.join(".env"), secret);
    write(&repo.join("local.db"), "rows\n");
    write(&repo.join("big.bin"), &"x".repeat(4096));
    write(&repo.join("node_modules/pkg/index.js"), "module.exports = 1;\n");
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["config", "ultraplan.snapshotIgnoredMax", "1k"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["ultraplan", "-q", "run", "--max-attempts", "1", "plan.md"])
        .expect_code(1);
    t.note("the ignored files the snapshot held are back; an ignored file the step made is removed");
    let _ = t
        .run(&repo, &["status", "--short", "--ignored", "--untracked-files=all"])
        .expect_code(0);
    t.file(&repo.join("local.db"));
    t.note("the state keeps the ignored file, redacted");
    let _ = t
        .run(
            &repo,
            &["show", "refs/ultraplan/plan/run:steps/0/0/0/1/ignored/files/.env"],
        )
        .expect_code(0);
    assert_transcript!(
        t,
        "ignored_files_are_part_of_the_snapshot_up_to_a_bound_and_the_rest_is_named"
    );
    assert_eq!(read(&repo.join(".env")), secret);
    env.assert_fsck(&repo);
}
