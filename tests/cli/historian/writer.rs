//! git-historian's commit writer (`historian.commitWriter`): it writes the
//! messages and its question is nested in historian's own; an error, or a
//! message with control characters, is an error that leaves nothing.

use std::path::PathBuf;

use crate::harness::historian::{commit_all, field, refs, show_outcome};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

use super::session::two_commit_repo;

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

#[test]
fn the_commit_writer_writes_messages_and_its_question_is_nested() {
    let mut env = TestEnv::new();
    let script = writer_script(&env);
    let log = env.root().join("writer.log");
    env.set("WRITER_LOG", log.display().to_string());
    let repo = two_commit_repo(&env);
    let writer = format!("historian.commitWriter={}", script.display());
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["-c", &writer, "historian", "clean"]).expect_code(3);
    assert!(!out.stdout.contains("ghp_abcdefghij"), "the token is redacted: {out}");
    let stored = env.git(&repo, &["show", "refs/historian/feature:question.txt"]);
    assert!(!stored.contains("ghp_abcdefghij"), "{stored}");
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

    let out = t
        .run(&repo, &["-c", &writer, "historian", "resume", "--answer", "detailed"])
        .expect_code(0);
    show_outcome(&mut t, &repo, "feature", &field(&out, "Clean branch"));
    assert_transcript!(t, "the_commit_writer_writes_messages_and_its_question_is_nested");
    // On resume the writer got its own question back with the answer.
    let resumed: serde_json::Value = serde_json::from_str(read(&log).lines().nth(1).unwrap()).unwrap();
    assert_eq!(resumed["resume"]["answer"], "Detailed");
    assert!(resumed["resume"]["prompt"]
        .as_str()
        .unwrap()
        .starts_with("Resume the commit-writer process.\n\nResume State:\n  - Commit: 1\n"));
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
    let before = refs(&env, &repo);
    let _ = env.run(&repo, &["-c", &writer, "historian", "clean"]).expect_code(3);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["-c", &writer, "historian", "resume", "--answer", "1"])
        .expect_code(1);
    t.note("nothing is left: no session, no partial branch");
    let _ = t.run(&repo, &["for-each-ref", "--format=%(refname)"]).expect_code(0);
    let _ = t
        .run(&repo, &["fsck", "--strict", "--no-progress", "--no-dangling"])
        .expect_code(0);
    assert_transcript!(t, "a_commit_writer_error_is_an_error_that_leaves_nothing");
    assert_eq!(refs(&env, &repo), before);
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
    let before = refs(&env, &repo);
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["-c", &writer, "historian", "clean"]).expect_code(1);
    assert!(!out.stdout.contains('\u{1b}'), "no escape reaches the terminal: {out}");
    let _ = t.run(&repo, &["for-each-ref", "--format=%(refname)"]).expect_code(0);
    let _ = t
        .run(&repo, &["fsck", "--strict", "--no-progress", "--no-dangling"])
        .expect_code(0);
    assert_transcript!(
        t,
        "a_commit_writers_message_with_control_characters_is_an_error_that_leaves_nothing"
    );
    assert_eq!(refs(&env, &repo), before, "nothing is left");
}
