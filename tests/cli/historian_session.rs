//! git-historian's questions and sessions: an oversized commit stops with a
//! QUESTION offering splits (most split first, "Keep as one commit" last),
//! the session lives in refs/historian/<branch>, `resume --answer`
//! continues it and refuses stale answers, `abort` removes it and the
//! partial clean branch; the commit writer's questions are wrapped in
//! historian's own; `--verify-each` reports the failing commit.

use std::path::{Path, PathBuf};

use crate::historian::{assert_same_tree, commit_all, field, refs, subjects_of, user_state};
use crate::support::*;

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

fn options(out: &Output) -> Vec<String> {
    out.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("Option "))
        .map(|l| l.split_once(": ").map(|(_, t)| t.to_owned()).unwrap_or_default())
        .collect()
}

/// The number of commits an option names (`Three commits by …` → 3).
fn commits_named(option: &str) -> usize {
    let word = option.split_whitespace().next().unwrap_or("");
    [
        "Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve",
    ]
    .iter()
    .position(|w| *w == word)
    .or_else(|| word.parse().ok())
    .unwrap_or(1)
}

#[test]
fn an_oversized_commit_asks_and_resume_applies_the_split() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let before = user_state(&env, &repo, "feature");
    let out = env.run(&repo, &["historian", "clean"]).expect_code(3);
    assert!(
        out.stdout.starts_with("RESULT: QUESTION\nContext: Executing commit plan - commit 2 of 2\nResume State:\n  - Step: 5 (Execute Plan)\n  - Original branch: feature\n"),
        "{out}"
    );
    assert!(out.stdout.contains("  - Commits completed: 1\n"), "{out}");
    assert!(out.stdout.contains("is too large: 20 files and 80 lines"), "{out}");
    assert!(out.stdout.ends_with("\nWhat should I do?\n"), "{out}");
    assert!(
        out.stderr
            .contains("hint: answer with: git historian resume --answer <N> feature"),
        "{out}"
    );
    let options = options(&out);
    assert!(options.len() >= 3, "{options:?}");
    assert_eq!(options.last().unwrap(), "Keep as one commit");
    // Concrete splits, each naming its commits, most split first.
    let counts: Vec<usize> = options[..options.len() - 1].iter().map(|o| commits_named(o)).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{options:?}");
    assert!(counts.iter().all(|&c| c >= 2), "{options:?}");
    for o in &options[..options.len() - 1] {
        assert!(o.contains(" - (1) ") && o.contains(", (2) "), "{o}");
    }
    // The session and the partial clean branch are in git.
    let clean = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("  - Clean branch: "))
        .unwrap()
        .to_owned();
    let session = env.git(&repo, &["rev-parse", "refs/historian/feature"]);
    let partial = env.git(&repo, &["rev-parse", &clean]);
    assert_eq!(
        env.git(&repo, &["rev-list", "--count", &format!("main..{clean}")])
            .trim(),
        "1"
    );
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
    assert!(
        env.run(&repo, &["merge-base", "--is-ancestor", partial.trim(), session.trim()])
            .code
            == 0
    );
    env.assert_fsck(&repo);

    // status shows it again, as text and JSON.
    let status = env.run(&repo, &["historian", "status"]).expect_code(0);
    assert!(
        status.stdout.contains("Session refs/historian/feature for 'feature'"),
        "{status}"
    );
    assert!(status.stdout.contains(&out.stdout), "{status}");
    let json = env.run(&repo, &["historian", "status", "--json"]).expect_code(0).json();
    assert_eq!(
        json["sessions"][0]["question"]["options"].as_array().unwrap().len(),
        options.len()
    );
    assert_eq!(json["sessions"][0]["commits_completed"], 1);

    // The most split option.
    let out = env.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(0);
    assert!(
        out.stdout.starts_with("RESULT: SUCCESS\nOriginal branch: feature\n"),
        "{out}"
    );
    assert_eq!(field(&out, "Clean branch"), clean);
    assert_eq!(field(&out, "Commits created"), (1 + counts[0]).to_string());
    assert_same_tree(&env, &repo, "feature", &clean);
    assert_eq!(env.git(&repo, &["for-each-ref", "refs/historian/"]), "");
    // Every commit of the clean branch reads apart from the others.
    let subjects = env.git(&repo, &["log", "--format=%s", &format!("main..{clean}")]);
    let distinct: std::collections::BTreeSet<&str> = subjects.lines().collect();
    assert_eq!(distinct.len(), subjects.lines().count(), "{subjects}");
    assert!(!subjects.contains(") ("), "{subjects}");
    let mut after = user_state(&env, &repo, "feature");
    after.branches = before.branches.clone();
    assert_eq!(before, after);
    env.assert_fsck(&repo);
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
            &format!("pub const W{n}: u32 = {n};\n"),
        );
    }
    commit_all(&env, &repo, "Add widgets");
    let out = env
        .run(&repo, &["historian", "clean", "--max-files", "4"])
        .expect_code(3);
    let options = options(&out);
    let most = commits_named(&options[0]);
    assert!(most >= 3, "{options:?}");
    let out = env.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(0);
    let clean = field(&out, "Clean branch");
    assert_same_tree(&env, &repo, "feature", &clean);
    let subjects = env.git(&repo, &["log", "--reverse", "--format=%s", &format!("main..{clean}")]);
    let expected: Vec<String> = (1..=most)
        .map(|k| format!("feat(widgets): add widgets (part {k} of {most})"))
        .collect();
    assert_eq!(subjects.lines().collect::<Vec<_>>(), expected, "{out}");
}

#[test]
fn keep_as_one_commit_by_its_label() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let _ = env.run(&repo, &["historian", "clean", "--json"]).expect_code(3);
    let out = env
        .run(&repo, &["historian", "resume", "--answer", "keep", "--json"])
        .expect_code(0);
    let json = out.json();
    assert_eq!(json["result"], "SUCCESS");
    assert_eq!(json["commits_created"], 2);
    assert_eq!(json["commits"][1]["files"], 20);
    assert_same_tree(&env, &repo, "feature", json["clean_branch"].as_str().unwrap());
}

#[test]
fn question_json_and_limits_from_options_and_config() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    // Over the configured limit is a question; a larger limit is not.
    let out = env
        .run(&repo, &["-c", "historian.maxFiles=30", "historian", "plan"])
        .expect_code(0);
    assert!(!out.stdout.contains("over the limits"), "{out}");
    let out = env.run(&repo, &["historian", "plan"]).expect_code(0);
    assert!(
        out.stdout.contains("over the limits of 15 files and 500 lines"),
        "{out}"
    );
    let out = env
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
    let json = out.json();
    assert_eq!(json["result"], "QUESTION");
    assert_eq!(json["session"], "refs/historian/feature");
    assert_eq!(json["resume_state"]["step"], "5 (Execute Plan)");
    assert_eq!(json["resume_state"]["current_commit"], "2");
    assert_eq!(
        json["options"].as_array().unwrap().last().unwrap(),
        "Keep as one commit"
    );
    assert!(json["question"]
        .as_str()
        .unwrap()
        .contains("the limits are 30 files and 40 lines"));
    // A pending session blocks a new clean of that branch.
    let out = env.run(&repo, &["historian", "clean"]).expect_code(1);
    assert!(out.stdout.starts_with("RESULT: ERROR\nStep: 1 (Validate)\n"), "{out}");
    assert!(
        out.stdout.contains("a historian session is pending for 'feature'"),
        "{out}"
    );
    assert!(out.stderr.contains("git historian abort feature"), "{out}");
}

#[test]
fn bad_answers_are_refused_and_the_session_stays() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let _ = env.run(&repo, &["historian", "clean"]).expect_code(3);
    let refs_before = refs(&env, &repo);
    let out = env
        .run(&repo, &["historian", "resume", "--answer", "9"])
        .expect_code(128);
    assert!(
        out.stderr.starts_with("fatal: there is no option 9: the question has"),
        "{out}"
    );
    assert!(out.stderr.contains("hint:   1: "), "{out}");
    let out = env
        .run(&repo, &["historian", "resume", "--answer", "banana"])
        .expect_code(128);
    assert!(
        out.stderr.starts_with("fatal: 'banana' is not one of the options"),
        "{out}"
    );
    let out = env
        .run(&repo, &["historian", "resume", "--answer", "commits"])
        .expect_code(128);
    assert!(out.stderr.contains("matches several options"), "{out}");
    assert_eq!(refs_before, refs(&env, &repo));
    let out = env
        .run(&repo, &["historian", "resume", "--answer", "Option 2"])
        .expect_code(0);
    assert!(out.stdout.starts_with("RESULT: SUCCESS"), "{out}");
}

#[test]
fn a_stale_answer_is_refused_when_the_branch_moved() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let out = env.run(&repo, &["historian", "clean"]).expect_code(3);
    let old_tip = env.git(&repo, &["rev-parse", "--short", "feature"]);
    write(&repo.join("late.txt"), "late\n");
    commit_all(&env, &repo, "A late commit");
    let new_tip = env.git(&repo, &["rev-parse", "--short", "feature"]);
    let refs_before = refs(&env, &repo);
    let answer = env
        .run(&repo, &["historian", "resume", "--answer", "1"])
        .expect_code(128);
    assert_eq!(
        answer.stderr.lines().next().unwrap(),
        format!(
            "fatal: the answer is stale: 'feature' moved from {} to {} since the question",
            old_tip.trim(),
            new_tip.trim()
        ),
        "{answer}"
    );
    assert!(
        answer.stderr.contains("hint:   git historian abort feature"),
        "{answer}"
    );
    assert_eq!(refs_before, refs(&env, &repo), "a stale answer writes nothing");
    // abort drops the session and the partial clean branch, nothing else.
    let clean = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("  - Clean branch: "))
        .unwrap()
        .to_owned();
    let tip = env.git(&repo, &["rev-parse", "feature"]);
    let out = env.run(&repo, &["historian", "abort"]).expect_code(0);
    assert_eq!(
        out.stdout,
        format!("Dropped the historian session of 'feature' and the partial branch '{clean}'.\n")
    );
    assert_eq!(
        env.git(
            &repo,
            &["for-each-ref", "refs/historian/", &format!("refs/heads/{clean}")]
        ),
        ""
    );
    assert_eq!(env.git(&repo, &["rev-parse", "feature"]), tip);
    env.assert_fsck(&repo);
    // And clean starts afresh.
    let out = env
        .run(&repo, &["historian", "clean", "--max-files", "50"])
        .expect_code(0);
    assert_same_tree(&env, &repo, "feature", &field(&out, "Clean branch"));
}

#[test]
fn a_stale_answer_is_refused_when_the_base_moved() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    // origin/main appears at the fork point: the same base, not stale.
    let _ = env.run(&repo, &["historian", "clean"]).expect_code(3);
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main"]);
    let out = env.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(0);
    assert!(
        out.stdout.starts_with("RESULT: SUCCESS"),
        "same fork point, not stale: {out}"
    );

    let _ = env.run(&repo, &["historian", "clean"]).expect_code(3);
    // The base's source (origin/main) moved behind the fork point.
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main~1"]);
    let out = env
        .run(&repo, &["historian", "resume", "--answer", "1"])
        .expect_code(128);
    assert!(
        out.stderr
            .starts_with("fatal: the answer is stale: the base of 'feature'"),
        "{out}"
    );
    let _ = env
        .run(&repo, &["historian", "abort", "feature", "--json"])
        .expect_code(0);
}

#[test]
fn resume_recreates_a_partial_branch_deleted_by_hand_and_abort_spares_a_moved_one() {
    let env = TestEnv::new();
    let repo = big_repo(&env);
    let out = env.run(&repo, &["historian", "clean"]).expect_code(3);
    let clean = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("  - Clean branch: "))
        .unwrap()
        .to_owned();
    env.git(&repo, &["branch", "-D", "-q", &clean]);
    let out = env
        .run(&repo, &["historian", "resume", "--answer", "keep"])
        .expect_code(0);
    assert_same_tree(&env, &repo, "feature", &field(&out, "Clean branch"));

    let out = env.run(&repo, &["historian", "clean"]).expect_code(3);
    let clean = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("  - Clean branch: "))
        .unwrap()
        .to_owned();
    env.git(&repo, &["branch", "-f", &clean, "main"]);
    let out = env.run(&repo, &["historian", "abort", "--json"]).expect_code(0);
    assert_eq!(out.json()["kept_branch"], clean.as_str());
    assert!(out.stderr.contains("warning:"), "{out}");
    assert_eq!(
        env.git(&repo, &["rev-parse", &clean]),
        env.git(&repo, &["rev-parse", "main"])
    );
    assert_eq!(env.git(&repo, &["for-each-ref", "refs/historian/"]), "");
}

fn writer_script(env: &TestEnv) -> PathBuf {
    let path = env.root().join("writer.sh");
    write(
        &path,
        r#"#!/bin/sh
input=$(cat)
printf '%s\n' "$input" >> "$WRITER_LOG"
if [ "$HISTORIAN_COMMIT" = 1 ] && [ -z "$HISTORIAN_ANSWER" ]; then
  cat <<'EOF'
Thinking about the message...
RESULT: QUESTION
Context: Writing the message of commit 1
Resume State:
  - Commit: 1
  - Token: ghp_abcdefghijklmnopqrstuvwxyz0123456789AB

Which tone should the message take?

Option 1: Terse
Option 2: Detailed

What approach should I take?
EOF
  exit 0
fi
if [ "$HISTORIAN_COMMIT" = 3 ]; then
  printf 'RESULT: ERROR\nDescription: cannot describe commit 3\nDetails: the diff is too strange\n'
  exit 1
fi
echo "RESULT: SUCCESS"
echo "Message: custom: commit $HISTORIAN_COMMIT of $HISTORIAN_COMMITS${HISTORIAN_ANSWER:+ ($HISTORIAN_ANSWER)}"
"#,
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn two_commit_repo(env: &TestEnv) -> PathBuf {
    let repo = env.repo("repo");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("Cargo.toml"), "[package]\nname = \"demo\"\n");
    commit_all(env, &repo, "Add the manifest");
    write(&repo.join("src/lib.rs"), "pub fn answer() -> u32 {\n    42\n}\n");
    commit_all(env, &repo, "Add the answer");
    repo
}

#[test]
fn the_commit_writer_writes_messages_and_its_question_is_nested() {
    let mut env = TestEnv::new();
    let script = writer_script(&env);
    let log = env.root().join("writer.log");
    env.set("WRITER_LOG", log.display().to_string());
    let repo = two_commit_repo(&env);
    let writer = format!("historian.commitWriter={}", script.display());
    let out = env.run(&repo, &["-c", &writer, "historian", "clean"]).expect_code(3);
    assert!(
        out.stdout.contains("  - Commit-writer question:\n    RESULT: QUESTION\n    Context: Writing the message of commit 1\n    Resume State:\n      - Commit: 1\n"),
        "{out}"
    );
    assert!(!out.stdout.contains("ghp_abcdefghij"), "the token is redacted: {out}");
    assert!(out.stdout.contains("[REDACTED:github-token]"), "{out}");
    let stored = env.git(&repo, &["show", "refs/historian/feature:question.txt"]);
    assert!(!stored.contains("ghp_abcdefghij"), "{stored}");
    assert!(
        out.stdout
            .contains("Option 1: Terse\nOption 2: Detailed\n\nWhat should I do?\n"),
        "{out}"
    );
    assert!(out.stdout.contains("The commit writer asks about commit 1"), "{out}");
    // The writer got the commit on stdin.
    let request: serde_json::Value = serde_json::from_str(read(&log).lines().next().unwrap()).unwrap();
    assert_eq!(request["branch"], "feature");
    assert_eq!(request["commit"]["number"], 1);
    assert_eq!(request["commit"]["of"], 2);
    assert!(
        request["commit"]["diff"].as_str().unwrap().contains("+[package]"),
        "{request}"
    );
    assert!(request["resume"].is_null());

    let out = env
        .run(&repo, &["-c", &writer, "historian", "resume", "--answer", "detailed"])
        .expect_code(0);
    let clean = field(&out, "Clean branch");
    assert_eq!(
        subjects_of(&env, &repo, &format!("main..{clean}")),
        vec!["custom: commit 1 of 2 (Detailed)", "custom: commit 2 of 2"]
    );
    // On resume the writer got its own question back with the answer.
    let resumed: serde_json::Value = serde_json::from_str(read(&log).lines().nth(1).unwrap()).unwrap();
    assert_eq!(resumed["resume"]["answer"], "Detailed");
    assert!(resumed["resume"]["prompt"]
        .as_str()
        .unwrap()
        .starts_with("Resume the commit-writer process.\n\nResume State:\n  - Commit: 1\n"));
    assert_same_tree(&env, &repo, "feature", &clean);
}

#[test]
fn a_commit_writer_error_is_an_error_that_leaves_nothing() {
    let mut env = TestEnv::new();
    let script = writer_script(&env);
    env.set("WRITER_LOG", env.root().join("writer.log").display().to_string());
    let repo = two_commit_repo(&env);
    write(&repo.join("README.md"), "# demo\n\nMore.\n");
    commit_all(&env, &repo, "Describe the demo");
    let writer = format!("historian.commitWriter={}", script.display());
    let _ = env.run(&repo, &["-c", &writer, "historian", "clean"]).expect_code(3);
    let out = env
        .run(&repo, &["-c", &writer, "historian", "resume", "--answer", "1"])
        .expect_code(1);
    assert!(
        out.stdout.starts_with("RESULT: ERROR\nStep: 5 (Execute Plan)\n"),
        "{out}"
    );
    assert!(
        out.stdout
            .contains("Description: the commit writer failed on commit 3: cannot describe commit 3"),
        "{out}"
    );
    assert!(out.stdout.contains("Details: the diff is too strange"), "{out}");
    // Nothing is left: no session, no partial branch.
    let refs_now = refs(&env, &repo);
    assert!(!refs_now.contains("refs/historian/"), "{refs_now}");
    assert!(!refs_now.contains("-clean "), "{refs_now}");
    env.assert_fsck(&repo);
}

#[test]
fn a_commit_writers_message_with_control_characters_is_an_error_that_leaves_nothing() {
    let env = TestEnv::new();
    let script = env.root().join("escapes.sh");
    write(
        &script,
        "#!/bin/sh\ncat > /dev/null\nprintf 'RESULT: SUCCESS\\nMessage: a \\033[31mred\\033[0m subject\\n'\n",
    );
    let repo = two_commit_repo(&env);
    let writer = format!("historian.commitWriter=sh {}", script.display());
    let out = env.run(&repo, &["-c", &writer, "historian", "clean"]).expect_code(1);
    assert!(
        out.stdout.contains(
            "Description: the commit writer failed on commit 1: the commit writer's message holds the control character U+001B"
        ),
        "{out}"
    );
    assert!(!out.stdout.contains('\u{1b}'), "no escape reaches the terminal: {out}");
    let refs_now = refs(&env, &repo);
    assert!(!refs_now.contains("refs/historian/"), "{refs_now}");
    assert!(!refs_now.contains("-clean "), "{refs_now}");
    env.assert_fsck(&repo);
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

#[test]
fn verify_each_runs_every_commit_in_a_worktree_and_names_the_first_failure() {
    let mut env = TestEnv::new();
    let seen = env.root().join("seen.txt");
    env.set("SEEN", seen.display().to_string());
    let repo = two_commit_repo(&env);
    let plan = plan_of_two(&env, &repo);
    let before = user_state(&env, &repo, "feature");
    // Passing: the command runs once per commit, at that commit, elsewhere.
    let out = env
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
    assert_eq!(
        env.git(&repo, &["worktree", "list"]).lines().count(),
        1,
        "the worktree is gone"
    );

    // Failing: commit 1 has no src/lib.rs.
    let refs_before = refs(&env, &repo);
    let out = env
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
    assert!(
        out.stdout
            .starts_with("RESULT: ERROR\nStep: 6 (Verify Result)\nOriginal branch: feature\nCommit: 1 ("),
        "{out}"
    );
    assert!(
        out.stdout
            .contains("Description: commit 1 of 2 fails the verify command (exit 4)"),
        "{out}"
    );
    assert!(
        out.stdout.contains("Details: checking\n  src/lib.rs is missing\n"),
        "{out}"
    );
    assert!(out.stderr.contains("hint: edit the plan"), "{out}");
    assert_eq!(refs_before, refs(&env, &repo), "no clean branch is left");
    assert_eq!(
        env.git(&repo, &["worktree", "list"]).lines().count(),
        1,
        "the worktree is gone"
    );
    assert!(!repo
        .join(".git/historian")
        .read_dir()
        .map(|mut d| d.next().is_some())
        .unwrap_or(false));
    let mut after = user_state(&env, &repo, "feature");
    after.branches = before.branches.clone();
    assert_eq!(before, after);
    env.assert_fsck(&repo);
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
    let _ = env.run(&repo, &["-c", &writer, "historian", "clean"]).expect_code(3);
    write(&marker, "once\n");
    let killed = env.run(&repo, &["-c", &writer, "historian", "resume", "--answer", "2"]);
    assert!(killed.code != 0 && killed.code != 1 && killed.code != 3, "{killed}");
    assert!(!marker.exists());
    // The session is still there, and answering again finishes the run.
    assert_ne!(env.git(&repo, &["for-each-ref", "refs/historian/"]), "");
    let out = env
        .run(&repo, &["-c", &writer, "historian", "resume", "--answer", "2"])
        .expect_code(0);
    let clean = field(&out, "Clean branch");
    assert_eq!(
        subjects_of(&env, &repo, &format!("main..{clean}")),
        vec!["custom: commit 1 of 2 (Detailed)", "custom: commit 2 of 2"]
    );
    assert_same_tree(&env, &repo, "feature", &clean);
    assert_eq!(env.git(&repo, &["for-each-ref", "refs/historian/"]), "");
    env.assert_fsck(&repo);
}
