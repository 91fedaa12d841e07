//! Every `git historian` command as a user sees it: its happy path and its
//! main refusals, each a whole-output transcript (`tests/cli/snapshots/
//! historian/commands/`), with the state in git checked beside it.

use crate::harness::historian::{assert_same_tree, field, make_dirty, messy_repo, record_clean, refs, user_state};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;
use crate::historian::session::big_repo;

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

#[test]
fn plan_explain_says_why_each_item_is_where_it_is() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let before = user_state(&env, &repo, "feature");
    let plain = env.run(&repo, &["historian", "plan"]).expect_code(0);
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "plan", "--explain"]).expect_code(0);
    assert_transcript!(t, "plan_explain_says_why_each_item_is_where_it_is");
    assert_eq!(user_state(&env, &repo, "feature"), before, "plan wrote something");
    // The plain plan's lines, in order, with a `why` line per item added.
    let added: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| !plain.stdout.lines().any(|p| p == *l))
        .collect();
    assert!(added.iter().all(|l| l.starts_with("   why ")), "{added:?}");
    let kept: Vec<&str> = out.stdout.lines().filter(|l| !l.starts_with("   why ")).collect();
    assert_eq!(kept, plain.stdout.lines().collect::<Vec<_>>());
    let items = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0).json();
    let named: usize = items["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["files"].as_array().unwrap().len() + c["hunks"].as_array().unwrap().len())
        .sum();
    assert!(added.len() >= named, "{added:?}");
}

#[test]
fn plan_explain_lists_a_questions_candidates_and_json_carries_it_all() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "plan", "--explain"]).expect_code(0);
    assert_transcript!(t, "plan_explain_lists_a_questions_candidates_and_json_carries_it_all");
    // The candidates are the options clean asks with.
    let asked = env.run(&repo, &["historian", "clean"]).expect_code(3);
    let options: Vec<&str> = asked.stdout.lines().filter(|l| l.starts_with("Option ")).collect();
    let listed: Vec<&str> = out
        .stdout
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("Option "))
        .collect();
    assert_eq!(
        listed,
        options
            .iter()
            .map(|o| o.strip_prefix("Option ").unwrap())
            .collect::<Vec<_>>()
    );
    let _ = env.run(&repo, &["historian", "abort"]).expect_code(0);

    // JSON: the plan file plus its explanation, one entry per item.
    let plain = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0).json();
    assert!(plain.get("explanation").is_none(), "{plain}");
    let out = env
        .run(&repo, &["historian", "plan", "--json", "--explain"])
        .expect_code(0);
    let json = out.json();
    assert_eq!(json["commits"], plain["commits"]);
    let items = json["explanation"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 21, "{json}");
    for item in items {
        let deciding = &item["deciding"];
        assert!(deciding["signal"].is_string(), "{item}");
        assert!(["share", "chance", "rule"].contains(&deciding["measure"].as_str().unwrap()));
        assert!(item["commit"].as_u64().unwrap() >= 1);
    }
    let questions = json["explanation"]["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 1);
    assert_eq!(questions[0]["commit"], 2);
    assert_eq!(
        questions[0]["candidates"].as_array().unwrap().last().unwrap(),
        "Keep as one commit"
    );
    // Given back as it is, it builds (the explanation is ignored).
    write(&repo.join("plan.json"), &out.stdout);
    let built = env
        .run(
            &repo,
            &["historian", "clean", "--plan", "plan.json", "--max-files", "50"],
        )
        .expect_code(0);
    assert_same_tree(&env, &repo, "feature", &field(&built, "Clean branch"));
    // A plan file's items are where it lists them.
    let out = env
        .run(&repo, &["historian", "plan", "--plan", "plan.json", "--explain"])
        .expect_code(0);
    let why: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("   why ")).collect();
    assert_eq!(why.len(), 21, "{out}");
    assert!(
        why.iter().all(|l| l.ends_with(": listed here by the plan file")),
        "{out}"
    );
}

/// One file from one branch commit, over the line limit: no split makes two
/// commits, so `plan` says clean writes it as it is (not that clean will
/// ask), `--explain` lists no question, and `clean` writes it.
#[test]
fn an_oversized_commit_nothing_splits_is_written_as_it_is() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    let table: String = (0..600).map(|n| format!("pub const C{n}: u32 = {n};\n")).collect();
    write(&repo.join("src/table.rs"), &table);
    crate::harness::historian::commit_all(&env, &repo, "Add the constant table");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "an_oversized_commit_nothing_splits_is_written_as_it_is");
    let out = env
        .run(&repo, &["historian", "plan", "--json", "--explain"])
        .expect_code(0);
    assert_eq!(out.json()["explanation"]["questions"], serde_json::json!([]), "{out}");
}

/// A repository missing a blob the branch changed (a damaged or partial
/// clone): plan and clean stop with a fatal error naming the object and
/// its path, and write nothing.
#[test]
fn a_missing_object_is_named_and_nothing_is_written() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("README.md"), "# demo, changed\n");
    write(&repo.join("c.txt"), "new\n");
    crate::harness::historian::commit_all(&env, &repo, "Change the readme and add c");
    let blob = env.git(&repo, &["rev-parse", "HEAD:c.txt"]);
    let blob = blob.trim();
    std::fs::remove_file(repo.join(".git/objects").join(&blob[..2]).join(&blob[2..])).unwrap();
    let before = user_state(&env, &repo, "feature");
    let refs_before = refs(&env, &repo);
    let mut t = Transcript::new(&env);
    t.replace(blob, "<MISSING BLOB>");
    for command in ["plan", "clean"] {
        let _ = t.run(&repo, &["historian", command]).expect_code(128);
    }
    assert_transcript!(t, "a_missing_object_is_named_and_nothing_is_written");
    assert_eq!(user_state(&env, &repo, "feature"), before);
    assert_eq!(refs(&env, &repo), refs_before);
}

/// Ctrl-C while `--verify-each` runs its command: the command is stopped,
/// its worktree removed, nothing is written, and the exit is 130.
#[test]
fn an_interrupted_verify_each_leaves_no_worktree_and_writes_nothing() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let refs_before = refs(&env, &repo);
    let marker = env.root().join("verifying");
    let command = format!("touch {}; sleep 60", marker.display());
    let child = env.spawn_historian(&repo, &["clean", "--verify-each", &command]);
    wait_for(std::slice::from_ref(&marker));
    let out = Output::from(signal(child, "-INT"));
    let mut t = Transcript::new(&env);
    t.note("run in the background, interrupted (SIGINT, as Ctrl-C sends) while the verify command runs");
    t.ran(&repo, &format!("git historian clean --verify-each '{command}'"), &out);
    t.note("the verify worktree is gone and nothing is written");
    let _ = t.run(&repo, &["worktree", "list", "--porcelain"]).expect_code(0);
    let _ = t.run(&repo, &["for-each-ref", "--format=%(refname)"]).expect_code(0);
    let _ = t
        .run(&repo, &["fsck", "--strict", "--no-progress", "--no-dangling"])
        .expect_code(0);
    assert_transcript!(t, "an_interrupted_verify_each_leaves_no_worktree_and_writes_nothing");
    assert_eq!(refs(&env, &repo), refs_before, "nothing written");
}

/// A text file too large to diff line by line (over 8 MiB) is one item,
/// counted all the same: its lines reach the size class and the limits.
#[test]
fn a_text_file_too_large_to_diff_still_counts_its_lines() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("a"), "a\n");
    crate::harness::historian::commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    let huge: String = (0..1_000_000).map(|n| format!("{n:08}\n")).collect();
    write(&repo.join("huge.txt"), &huge);
    crate::harness::historian::commit_all(&env, &repo, "Add the huge table");
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "plan"]).expect_code(0);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_text_file_too_large_to_diff_still_counts_its_lines");
    // The transcript reads a seven-digit number as an abbreviated id.
    assert!(out.stdout.contains("[large: 1 file, 1000000 lines]"), "{out}");
    assert!(out.stdout.contains("A huge.txt (+1000000)"), "{out}");
}

/// A run killed with SIGKILL during `--verify-each` (no handler runs)
/// leaves its worktree registered and no session: `abort` removes it.
#[test]
fn abort_removes_the_verify_worktree_a_killed_run_left() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("a"), "a\n");
    crate::harness::historian::commit_all(&env, &repo, "base");
    // A process that is gone: its pid names the worktree.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    let path = repo.join(format!(".git/historian/verify-{pid}"));
    env.git(&repo, &["worktree", "add", "-q", "--detach", path.to_str().unwrap()]);
    let mut t = Transcript::new(&env);
    t.replace(format!("verify-{pid}"), "verify-<PID>");
    let _ = t.run(&repo, &["worktree", "list", "--porcelain"]).expect_code(0);
    let _ = t.run(&repo, &["historian", "abort"]).expect_code(0);
    let _ = t.run(&repo, &["worktree", "list", "--porcelain"]).expect_code(0);
    assert!(!path.exists());
    t.note("nothing left: abort says so, as before");
    let _ = t.run(&repo, &["historian", "abort"]).expect_code(128);
    let _ = t
        .run(&repo, &["fsck", "--strict", "--no-progress", "--no-dangling"])
        .expect_code(0);
    assert_transcript!(t, "abort_removes_the_verify_worktree_a_killed_run_left");
}
