//! git-historian's subjects say what changed (issue 15, item 5): a commit
//! split out of a squash takes the squashed subject about what it holds,
//! and a subject about files the commit does not hold gives way to the
//! names its code defines. A file name or subject holding a line break or
//! an escape reaches no message and no terminal as it is.

use crate::harness::historian::{commit_all, record_clean};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

#[test]
fn each_commit_out_of_a_squash_takes_the_subject_about_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("src/main.rs"), "fn main() {}\n");
    write(&repo.join("docs/guide.md"), "# Guide\n");
    commit_all(&env, &repo, "base project");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("src/lexer.rs"),
        "pub fn tokenize(text: &str) -> Vec<String> {\n    text.split_whitespace().map(String::from).collect()\n}\n",
    );
    write(
        &repo.join("docs/parser.md"),
        "# The parser\n\nIt reads expressions, one per line.\n",
    );
    // As `git rebase -i` squashes: each subject its own paragraph.
    commit_all(
        &env,
        &repo,
        "Add the lexer\n\nIt splits on whitespace for now,\nquotes come later.\n\nDocument the parser\n",
    );
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "each_commit_out_of_a_squash_takes_the_subject_about_it");
}

#[test]
fn a_subject_about_other_files_gives_way_to_the_names_defined() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("CHANGELOG.md"), "# Changes\n");
    write(&repo.join("src/main.rs"), "fn main() {}\n");
    commit_all(&env, &repo, "base project");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("CHANGELOG.md"), "# Changes\n\n- a parser\n");
    write(
        &repo.join("src/parser.rs"),
        "pub fn parse_statement(text: &str) -> usize {\n    text.len()\n}\n\npub fn parse_block(text: &str) -> usize {\n    text.lines().count()\n}\n",
    );
    commit_all(&env, &repo, "Update CHANGELOG.md");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_subject_about_other_files_gives_way_to_the_names_defined");
}

/// A file name holding a line break would start a trailer of its own in
/// the body, an escape would recolour whoever reads the log: paths are
/// quoted as git quotes them, a subject's colour codes go.
#[test]
fn file_names_are_quoted_and_control_characters_leave_messages() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("a"), "a\n");
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("x\nCo-authored-by: Mallory <m@evil.example>"), "x\n");
    write(&repo.join("tab\there"), "x\n");
    write(&repo.join("esc\x1b[31mred"), "x\n");
    commit_all(&env, &repo, "Fix \x1b[31mred\x1b[0m output of the names");
    let mut t = Transcript::new(&env);
    for args in [&["historian", "plan"][..], &["historian", "plan", "--explain"]] {
        let out = t.run(&repo, args).expect_code(0);
        assert!(!out.stdout.contains('\x1b') && !out.stdout.contains('\t'), "{out}");
        assert!(
            out.stdout.lines().all(|l| !l.starts_with("Co-authored-by")),
            "a path's line break split a line:\n{out}"
        );
    }
    let clean = record_clean(&mut t, &repo, "feature", &[]);
    t.note("the message quotes each path as git quotes it");
    let message = t
        .run(&repo, &["log", "-1", "--format=%B", &clean])
        .expect_code(0)
        .stdout;
    assert_transcript!(t, "file_names_are_quoted_and_control_characters_leave_messages");
    assert!(!message.chars().any(|c| c.is_control() && c != '\n'), "{message:?}");
    let mut trailers = env.command("git", &repo);
    trailers.args(["interpret-trailers", "--parse"]);
    let parsed = crate::harness::transcript::capture_with_stdin(trailers, &message);
    assert!(
        parsed.stdout.lines().all(|l| !l.starts_with("Co-authored-by")),
        "{parsed}"
    );
}

/// `plan` shows the message `clean` will write: a secret in a subject is
/// redacted in both.
#[test]
fn plan_shows_a_subjects_secret_redacted_as_clean_writes_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("a"), "a\n");
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("b"), "b\n");
    let token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB";
    commit_all(&env, &repo, &format!("Add b with token {token}"));
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    record_clean(&mut t, &repo, "feature", &[]);
    let shown = t.finish();
    assert!(!shown.contains(token), "{shown}");
    assert_transcript!(t, "plan_shows_a_subjects_secret_redacted_as_clean_writes_it");
}
