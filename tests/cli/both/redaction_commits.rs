//! No secret reaches a commit ultraplan writes: a checkpoint's message and a
//! session's title (in its `--no-ff` merge) come from the plan and pass the
//! one redaction function, as everything written to git does (DESIGN §11).
//! Checked in every commit message and reflog entry of the repository.

use crate::harness::plans::StepSpec;
use crate::harness::sessions::{plan as sessions_plan, setup, side_by_side, Sess};
use crate::harness::support::*;

const TOKEN: &str = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB";

/// Every commit message and reflog entry of `repo`.
fn messages_and_reflogs(env: &TestEnv, repo: &std::path::Path) -> String {
    let messages = env.git(repo, &["log", "--all", "--format=%B"]);
    let reflogs = env.git(repo, &["log", "-g", "--all", "--format=%gs"]);
    format!("{messages}\n{reflogs}")
}

#[test]
fn a_checkpoint_message_is_committed_redacted() {
    let env = TestEnv::new();
    let checkpoint = format!("`git commit -m \"feat: call the API with {TOKEN}\"`");
    let body = crate::harness::plans::plan(&[
        StepSpec::new(1, "`api.txt`", "echo call > api.txt", "test -f api.txt").checkpoint(&checkpoint)
    ]);
    let repo = setup(&env, &body);
    let out = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert!(
        out.stderr
            .contains("step 1: the checkpoint message holds a secret; it is committed redacted"),
        "{out}"
    );
    assert_eq!(
        env.git(&repo, &["log", "-1", "--format=%s"]),
        "feat: call the API with [REDACTED:github-token]\n"
    );
    let written = messages_and_reflogs(&env, &repo);
    assert!(!written.contains(TOKEN), "{written}");
    env.assert_fsck(&repo);
}

#[test]
fn a_session_title_is_merged_redacted() {
    let env = TestEnv::new();
    let title = format!("Deploy with {TOKEN}");
    let [a, b] = side_by_side();
    let body = sessions_plan(
        &[
            StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
            StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
        ],
        &[Sess { title: &title, ..a }, b],
        "",
    );
    let repo = setup(&env, &body);
    // A plan holding a secret is committed by its author, never by the run.
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "add the plan"]);
    let out = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let merges = env.git(&repo, &["log", "--merges", "--format=%s"]);
    assert!(
        merges.contains("merge: ultraplan session 1 — Deploy with [REDACTED:github-token]"),
        "{merges}\n{out}"
    );
    let written = messages_and_reflogs(&env, &repo);
    assert!(!written.contains(TOKEN), "{written}");
    crate::harness::sessions::assert_clean(&env, &repo);
}
