//! git-historian's questions and sessions: an oversized commit stops with a
//! QUESTION offering splits (most split first, "Keep as one commit" last),
//! the session lives in refs/historian/<branch>, `resume --answer`
//! continues it and refuses stale answers, `abort` removes it and the
//! partial clean branch; `--verify-each` reports the failing commit (the
//! commit writer's questions: `writer.rs`).

use std::path::{Path, PathBuf};

use crate::harness::historian::{commit_all, field, refs, show_outcome, user_state};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// A branch whose second commit edits 20 files that always changed
/// together before (so they plan as one commit, over the 15-file limit),
/// after a small dependency change.
pub fn big_repo(env: &TestEnv) -> PathBuf {
    let repo = env.repo("repo");
    write(&repo.join("Cargo.toml"), "[package]\nname = \"demo\"\n");
    let paths: Vec<String> = (0..20)
        .map(|n| match n {
            0..=7 => format!("src/widgets/w{n}.rs"),
            8..=13 => format!("src/gadgets/g{n}.rs"),
            _ => format!("tests/widget_{n}.rs"),
        })
        .collect();
    for round in ["first", "second"] {
        for (n, path) in paths.iter().enumerate() {
            write(
                &repo.join(path),
                &format!("pub fn setup_{n}() -> u32 {{\n    // {round}\n    {n}\n}}\n"),
            );
        }
        commit_all(env, &repo, &format!("Widgets, {round} version"));
    }
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("Cargo.toml"),
        "[package]\nname = \"demo\"\n\n[dependencies]\nserde = \"1\"\n",
    );
    commit_all(env, &repo, "Depend on serde");
    for (n, path) in paths.iter().enumerate() {
        write(
            &repo.join(path),
            &format!("pub fn setup_{n}() -> u32 {{\n    // third\n    {n} + 1\n}}\n"),
        );
    }
    commit_all(env, &repo, "Widgets, third version");
    repo
}

/// The clean branch a QUESTION names in its resume state.
fn partial_branch(out: &Output) -> String {
    out.stdout
        .lines()
        .find_map(|l| l.strip_prefix("  - Clean branch: "))
        .unwrap_or_else(|| panic!("no clean branch in:\n{out}"))
        .to_owned()
}

/// The QUESTION (its options most split first, "Keep as one commit" last,
/// each split naming its commits), `status` showing it again, and the
/// answer built; the session and the partial branch in git meanwhile.
#[test]
fn an_oversized_commit_asks_and_resume_applies_the_split() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let before = user_state(&env, &repo, "feature");
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "clean"]).expect_code(3);
    // The session and the partial clean branch are in git.
    let clean = partial_branch(&out);
    let _ = t
        .run(&repo, &["log", "--format=%s", &format!("main..{clean}")])
        .expect_code(0);
    let stored = env.git(&repo, &["show", "refs/historian/feature:question.txt"]);
    assert_eq!(stored, out.stdout);
    let state: serde_json::Value =
        serde_json::from_str(&env.git(&repo, &["show", "refs/historian/feature:session.json"])).unwrap();
    assert_eq!(state["branch"], "feature");
    assert_eq!(state["current"], 1);
    assert_eq!(
        state["original_tip"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "feature"]).trim()
    );
    // The partial branch stays reachable from the session.
    let _ = t
        .run(
            &repo,
            &["merge-base", "--is-ancestor", &clean, "refs/historian/feature"],
        )
        .expect_code(0);
    let _ = t
        .run(&repo, &["fsck", "--strict", "--no-progress", "--no-dangling"])
        .expect_code(0);

    // status shows it again, as text and JSON.
    let _ = t.run(&repo, &["historian", "status"]).expect_code(0);
    let json = env.run(&repo, &["historian", "status", "--json"]).expect_code(0).json();
    let options = out.stdout.lines().filter(|l| l.starts_with("Option ")).count();
    assert_eq!(
        json["sessions"][0]["question"]["options"].as_array().unwrap().len(),
        options
    );
    assert_eq!(json["sessions"][0]["commits_completed"], 1);

    t.note("the most split option");
    let _ = t.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(0);
    show_outcome(&mut t, &repo, "feature", &clean);
    let _ = t.run(&repo, &["for-each-ref", "refs/historian/"]).expect_code(0);
    assert_transcript!(t, "an_oversized_commit_asks_and_resume_applies_the_split");
    let mut after = user_state(&env, &repo, "feature");
    after.branches = before.branches.clone();
    assert_eq!(before, after);
}

#[test]
fn the_parts_of_a_split_commit_are_numbered() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("README.md"), "widgets\n");
    commit_all(&env, &repo, "Initial commit");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    for n in 0..10 {
        write(
            &repo.join(format!("src/widgets/w{n}.rs")),
            &format!("pub const W{n}: u32 = BASE + {n};\n"),
        );
    }
    commit_all(&env, &repo, "Add widgets");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "clean", "--max-files", "4"]).expect_code(3);
    let out = t.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(0);
    show_outcome(&mut t, &repo, "feature", &field(&out, "Clean branch"));
    assert_transcript!(t, "the_parts_of_a_split_commit_are_numbered");
}

#[test]
fn keep_as_one_commit_by_its_label() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "clean", "--json"]).expect_code(3);
    let out = t
        .run(&repo, &["historian", "resume", "--answer", "keep", "--json"])
        .expect_code(0);
    show_outcome(&mut t, &repo, "feature", out.json()["clean_branch"].as_str().unwrap());
    assert_transcript!(t, "keep_as_one_commit_by_its_label");
}

#[test]
fn question_json_and_limits_from_options_and_config() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let mut t = Transcript::new(&env);
    t.note("over the configured limit is a question; a larger limit is not");
    let _ = t
        .run(&repo, &["-c", "historian.maxFiles=30", "historian", "plan"])
        .expect_code(0);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    t.note("an option beats the configuration");
    let _ = t
        .run(
            &repo,
            &[
                "-c",
                "historian.maxFiles=30",
                "historian",
                "clean",
                "--max-lines",
                "40",
                "--json",
            ],
        )
        .expect_code(3);
    t.note("a pending session blocks a new clean of that branch");
    let _ = t.run(&repo, &["historian", "clean"]).expect_code(1);
    assert_transcript!(t, "question_json_and_limits_from_options_and_config");
}

#[test]
fn bad_answers_are_refused_and_the_session_stays() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let _ = env.run(&repo, &["historian", "clean"]).expect_code(3);
    let refs_before = refs(&env, &repo);
    let mut t = Transcript::new(&env);
    for answer in ["9", "banana", "commits"] {
        let _ = t
            .run(&repo, &["historian", "resume", "--answer", answer])
            .expect_code(128);
    }
    assert_eq!(refs_before, refs(&env, &repo));
    t.note("the session stays: an answer in the option's own words");
    let out = t
        .run(&repo, &["historian", "resume", "--answer", "Option 2"])
        .expect_code(0);
    show_outcome(&mut t, &repo, "feature", &field(&out, "Clean branch"));
    assert_transcript!(t, "bad_answers_are_refused_and_the_session_stays");
}

#[test]
fn a_stale_answer_is_refused_when_the_branch_moved() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "clean"]).expect_code(3);
    let old_tip = env.git(&repo, &["rev-parse", "--short", "feature"]);
    t.note("a late commit on feature");
    write(&repo.join("late.txt"), "late\n");
    commit_all(&env, &repo, "A late commit");
    let new_tip = env.git(&repo, &["rev-parse", "--short", "feature"]);
    let refs_before = refs(&env, &repo);
    let answer = t.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(128);
    // The transcript hides ids: these are the two tips.
    assert_eq!(
        answer.stderr.lines().next().unwrap(),
        format!(
            "fatal: the answer is stale: 'feature' moved from {} to {} since the question",
            old_tip.trim(),
            new_tip.trim()
        ),
        "{answer}"
    );
    assert_eq!(refs_before, refs(&env, &repo), "a stale answer writes nothing");
    t.note("abort drops the session and the partial clean branch, nothing else");
    let clean = partial_branch(&out);
    let tip = env.git(&repo, &["rev-parse", "feature"]);
    let _ = t.run(&repo, &["historian", "abort"]).expect_code(0);
    let _ = t
        .run(
            &repo,
            &["for-each-ref", "refs/historian/", &format!("refs/heads/{clean}")],
        )
        .expect_code(0);
    assert_eq!(env.git(&repo, &["rev-parse", "feature"]), tip);
    t.note("and clean starts afresh");
    let out = t
        .run(&repo, &["historian", "clean", "--max-files", "50"])
        .expect_code(0);
    show_outcome(&mut t, &repo, "feature", &field(&out, "Clean branch"));
    assert_transcript!(t, "a_stale_answer_is_refused_when_the_branch_moved");
}

#[test]
fn a_stale_answer_is_refused_when_the_base_moved() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "clean"]).expect_code(3);
    t.note("origin/main appears at the fork point: the same base, not stale");
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main"]);
    let _ = t.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(0);

    let _ = t.run(&repo, &["historian", "clean"]).expect_code(3);
    t.note("the base's source (origin/main) moved behind the fork point");
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main~1"]);
    let _ = t.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(128);
    let _ = t
        .run(&repo, &["historian", "abort", "feature", "--json"])
        .expect_code(0);
    assert_transcript!(t, "a_stale_answer_is_refused_when_the_base_moved");
}

#[test]
fn resume_recreates_a_partial_branch_deleted_by_hand_and_abort_spares_a_moved_one() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "clean"]).expect_code(3);
    let clean = partial_branch(&out);
    let _ = t.run(&repo, &["branch", "-D", "-q", &clean]).expect_code(0);
    let out = t
        .run(&repo, &["historian", "resume", "--answer", "keep"])
        .expect_code(0);
    show_outcome(&mut t, &repo, "feature", &field(&out, "Clean branch"));

    t.note("asked again; the partial branch moved by hand is spared");
    let out = t.run(&repo, &["historian", "clean"]).expect_code(3);
    let clean = partial_branch(&out);
    let _ = t.run(&repo, &["branch", "-f", &clean, "main"]).expect_code(0);
    let _ = t.run(&repo, &["historian", "abort", "--json"]).expect_code(0);
    assert_eq!(
        env.git(&repo, &["rev-parse", &clean]),
        env.git(&repo, &["rev-parse", "main"])
    );
    let _ = t.run(&repo, &["for-each-ref", "refs/historian/"]).expect_code(0);
    assert_transcript!(
        t,
        "resume_recreates_a_partial_branch_deleted_by_hand_and_abort_spares_a_moved_one"
    );
}

fn plan_of_two(env: &TestEnv, repo: &Path) -> PathBuf {
    let plan = env.root().join("two.yaml");
    let _ = repo;
    write(
        &plan,
        "commits:\n  - message: \"build: the manifest\"\n    files: [Cargo.toml]\n  - message: \"feat: the answer\"\n    files: [src/lib.rs]\n",
    );
    plan
}

pub(super) fn two_commit_repo(env: &TestEnv) -> PathBuf {
    let repo = env.repo("repo");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("Cargo.toml"), "[package]\nname = \"demo\"\n");
    commit_all(env, &repo, "Add the manifest");
    write(&repo.join("src/lib.rs"), "pub fn answer() -> u32 {\n    42\n}\n");
    commit_all(env, &repo, "Add the answer");
    repo
}

#[test]
fn verify_each_runs_every_commit_in_a_worktree_and_names_the_first_failure() {
    let mut env = TestEnv::new();
    let seen = env.root().join("seen.txt");
    env.set("SEEN", seen.display().to_string());
    let repo = two_commit_repo(&env);
    let plan = plan_of_two(&env, &repo);
    let before = user_state(&env, &repo, "feature");
    // Passing: the command runs once per commit, at that commit, elsewhere.
    let mut t = Transcript::new(&env);
    let out = t
        .run(
            &repo,
            &[
                "historian",
                "clean",
                "--plan",
                plan.to_str().unwrap(),
                "--verify-each",
                "git rev-parse HEAD >> \"$SEEN\"; pwd >> \"$SEEN\"; test -f Cargo.toml",
            ],
        )
        .expect_code(0);
    let clean = field(&out, "Clean branch");
    let ids = env.git(&repo, &["rev-list", "--reverse", &format!("main..{clean}")]);
    let record = read(&seen);
    let heads: Vec<&str> = record.lines().step_by(2).collect();
    assert_eq!(heads, ids.lines().collect::<Vec<_>>());
    assert!(
        record.lines().nth(1).unwrap().contains("/historian/verify-"),
        "{record}"
    );
    show_outcome(&mut t, &repo, "feature", &clean);
    t.note("the verify worktree is gone");
    let _ = t.run(&repo, &["worktree", "list"]).expect_code(0);

    t.note("failing: commit 1 has no src/lib.rs");
    let refs_before = refs(&env, &repo);
    let _ = t
        .run(
            &repo,
            &[
                "historian",
                "clean",
                "--plan",
                plan.to_str().unwrap(),
                "--verify-each",
                "echo checking; test -f src/lib.rs || { echo 'src/lib.rs is missing'; exit 4; }",
            ],
        )
        .expect_code(1);
    let _ = t.run(&repo, &["worktree", "list"]).expect_code(0);
    assert_transcript!(
        t,
        "verify_each_runs_every_commit_in_a_worktree_and_names_the_first_failure"
    );
    assert_eq!(refs_before, refs(&env, &repo), "no clean branch is left");
    assert!(!repo
        .join(".git/historian")
        .read_dir()
        .map(|mut d| d.next().is_some())
        .unwrap_or(false));
    let mut after = user_state(&env, &repo, "feature");
    after.branches = before.branches.clone();
    assert_eq!(before, after);
}

#[test]
fn a_resume_killed_midway_finishes_with_the_same_result_when_run_again() {
    let mut env = TestEnv::new();
    let script = env.root().join("killer.sh");
    write(
        &script,
        r#"#!/bin/sh
cat > /dev/null
if [ "$HISTORIAN_COMMIT" = 1 ] && [ -z "$HISTORIAN_ANSWER" ]; then
  printf 'RESULT: QUESTION\nContext: c\nResume State:\n  - Commit: 1\n\nWhich tone?\n\nOption 1: Terse\nOption 2: Detailed\n\nWhat approach should I take?\n'
  exit 0
fi
if [ "$HISTORIAN_COMMIT" = 2 ] && [ -f "$KILL_ONCE" ]; then
  rm -f "$KILL_ONCE"
  pid=$$
  while [ "$pid" -gt 1 ] && [ "$(cat /proc/$pid/comm)" != git-historian ]; do
    pid=$(awk '{print $4}' /proc/$pid/stat)
  done
  kill -9 "$pid"
  sleep 5
fi
echo "RESULT: SUCCESS"
echo "Message: custom: commit $HISTORIAN_COMMIT of $HISTORIAN_COMMITS${HISTORIAN_ANSWER:+ ($HISTORIAN_ANSWER)}"
"#,
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let marker = env.root().join("kill-once");
    env.set("KILL_ONCE", marker.display().to_string());
    let repo = two_commit_repo(&env);
    let writer = format!("historian.commitWriter={}", script.display());
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["-c", &writer, "historian", "clean"]).expect_code(3);
    write(&marker, "once\n");
    // Killed by SIGKILL while the writer works on commit 2: no handler
    // runs, so its output says nothing worth keeping but its exit.
    let killed = env.run(&repo, &["-c", &writer, "historian", "resume", "--answer", "2"]);
    assert!(killed.code != 0 && killed.code != 1 && killed.code != 3, "{killed}");
    assert!(!marker.exists());
    t.note("resume --answer 2 was killed (SIGKILL) while the writer wrote commit 2");
    t.note("the session is still there, and answering again finishes the run");
    let _ = t
        .run(&repo, &["for-each-ref", "--format=%(refname)", "refs/historian/"])
        .expect_code(0);
    let out = t
        .run(&repo, &["-c", &writer, "historian", "resume", "--answer", "2"])
        .expect_code(0);
    show_outcome(&mut t, &repo, "feature", &field(&out, "Clean branch"));
    let _ = t.run(&repo, &["for-each-ref", "refs/historian/"]).expect_code(0);
    assert_transcript!(t, "a_resume_killed_midway_finishes_with_the_same_result_when_run_again");
}
