//! Every `git historian` command as a user sees it: its happy path and its
//! main refusals, each a whole-output transcript (`tests/cli/snapshots/
//! historian_commands/`), with the state in git checked beside it.

use crate::historian::{assert_same_tree, field, make_dirty, messy_repo, refs, user_state};
use crate::historian_session::big_repo;
use crate::support::*;
use crate::transcript::Transcript;

#[test]
fn plan_then_clean_a_messy_branch() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    make_dirty(&repo);
    let before = user_state(&env, &repo, "feature");
    let status = env.git(&repo, &["status", "--porcelain"]);
    let tip = env.git(&repo, &["rev-parse", "HEAD"]);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    assert_eq!(user_state(&env, &repo, "feature"), before, "plan wrote something");
    let out = t.run(&repo, &["historian", "clean"]).expect_code(0);
    let _ = t.run(&repo, &["historian", "status"]).expect_code(0);
    assert_transcript!(t, "plan_then_clean_a_messy_branch");
    let clean = field(&out, "Clean branch");
    assert_same_tree(&env, &repo, "feature", &clean);
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD", "feature"]), format!("{tip}{tip}"));
    assert_eq!(
        env.git(&repo, &["status", "--porcelain"]),
        status,
        "clean touched the user's files"
    );
    env.assert_fsck(&repo);
}

#[test]
fn clean_and_plan_refusals() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let not_a_repo = env.root().join("elsewhere");
    std::fs::create_dir_all(&not_a_repo).unwrap();
    let before = refs(&env, &repo);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan", "no-such-branch"]);
    let _ = t.run(&repo, &["historian", "clean", "main"]);
    let _ = t.run(&repo, &["historian", "clean", "--base", "nowhere"]);
    let _ = t.run(&repo, &["historian", "clean", "--plan", "missing.txt"]);
    let _ = t
        .run(&repo, &["historian", "clean", "--max-files", "0"])
        .expect_code(129);
    let _ = t.run(&not_a_repo, &["historian", "clean"]).expect_code(128);
    assert_transcript!(t, "clean_and_plan_refusals");
    assert_eq!(refs(&env, &repo), before, "a refusal wrote a ref");
}

#[test]
fn a_question_then_status_resume_and_abort() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "clean"]).expect_code(3);
    let _ = t.run(&repo, &["historian", "status"]).expect_code(0);
    let _ = t.run(&repo, &["historian", "resume", "--answer", "9"]);
    let _ = t.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(0);
    let _ = t.run(&repo, &["historian", "status"]).expect_code(0);
    t.note("asked again, and this time the session is dropped");
    let _ = t.run(&repo, &["historian", "clean"]).expect_code(3);
    let _ = t.run(&repo, &["historian", "abort"]).expect_code(0);
    let _ = t.run(&repo, &["historian", "status"]).expect_code(0);
    assert_transcript!(t, "a_question_then_status_resume_and_abort");
    assert_eq!(env.git(&repo, &["for-each-ref", "refs/historian/"]), "");
}

#[test]
fn resume_and_abort_without_a_session() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "resume", "--answer", "1"]);
    let _ = t.run(&repo, &["historian", "abort"]);
    let _ = t.run(&repo, &["historian", "status"]).expect_code(0);
    assert_transcript!(t, "resume_and_abort_without_a_session");
}
