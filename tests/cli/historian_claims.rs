//! git-historian decides ties by elimination (issue 15, item 1): a part
//! sharing as many words with two subjects of a squash, one of which
//! another part already answers to, is the other subject's work; it stays
//! a commit of its own however small, rather than riding along.

use crate::historian::{assert_same_tree, commit_all, explained_items, field, planned, planned_sorted};
use crate::support::*;

#[test]
fn a_part_tied_between_subjects_takes_the_one_nothing_else_answers_to() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let cases = |name: &str, extra: &str| format!("#!/bin/sh\n. ./harness.sh\n\ncheck_{name} 'a' 'a'\n{extra}");
    write(&repo.join("tests/app.sh"), &cases("app", ""));
    write(&repo.join("tests/range.sh"), &cases("range", ""));
    write(
        &repo.join("tests/harness.sh"),
        "#!/bin/sh\nexpect() { test \"$1\" = \"$2\"; }\n",
    );
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    let mut lexer = String::from("#!/bin/sh\n. ./harness.sh\n\n");
    for token in [
        "word", "number", "string", "comment", "operator", "newline", "space", "quote",
    ] {
        lexer.push_str(&format!("lexer_tokens '{token}' | expect '{token}'\n"));
        lexer.push_str(&format!("lexer_tokens '{token} {token}' | expect '{token} {token}'\n"));
    }
    write(&repo.join("tests/lexer.sh"), &lexer);
    write(&repo.join("tests/app.sh"), &cases("app", "check_app 'b' 'b'\n"));
    write(
        &repo.join("tests/range.sh"),
        &cases("range", "check_range '1-2' '1 2'\n"),
    );
    commit_all(
        &env,
        &repo,
        "tests: cover the lexer's tokens\n\ntests: add more various cases\n",
    );
    assert_eq!(
        planned_sorted(&env, &repo),
        [
            planned("test(lexer): cover the lexer's tokens", &["tests/lexer.sh"]),
            planned("test: add more various cases", &["tests/app.sh", "tests/range.sh"]),
        ]
    );
    // The explanation says how, in words and data.
    let explained = env.run(&repo, &["historian", "plan", "--explain"]).expect_code(0);
    assert!(
        explained
            .stdout
            .contains("answers to the subject 'tests: add more various cases' by elimination"),
        "{explained}"
    );
    for item in explained_items(&env, &repo) {
        let eliminated = item["item"] != "tests/lexer.sh";
        assert_eq!(item["subject_by_elimination"], eliminated, "{item}");
    }
    let out = env.run(&repo, &["historian", "clean"]).expect_code(0);
    assert_same_tree(&env, &repo, "feature", &field(&out, "Clean branch"));
}
