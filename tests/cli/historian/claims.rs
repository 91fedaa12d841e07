//! git-historian decides ties by elimination (issue 15, item 1): a part
//! sharing as many words with two subjects of a squash, one of which
//! another part already answers to, is the other subject's work; it stays
//! a commit of its own however small, rather than riding along. So is a
//! whole cluster answering to no subject when exactly one subject has no
//! other cluster answering to it.

use crate::harness::historian::{commit_all, explained_items, record_clean};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

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
    // The explanation says how, in words (the transcript) and in data.
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan", "--explain"]).expect_code(0);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_part_tied_between_subjects_takes_the_one_nothing_else_answers_to");
    for item in explained_items(&env, &repo) {
        let eliminated = item["item"] != "tests/lexer.sh";
        assert_eq!(item["subject_by_elimination"], eliminated, "{item}");
    }
}

/// `deps: update regex` is answered by the manifests; the code beside them
/// shares no word with `make clippy happy`, but that subject has no other
/// work, so the code is its commit rather than riding with the manifests.
#[test]
fn a_cluster_answering_to_no_subject_is_the_work_of_the_one_left() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let lock = |version: &str| {
        let crates = [
            "aho-corasick",
            "memchr",
            "regex",
            "regex-automata",
            "regex-syntax",
            "utf8-ranges",
        ];
        crates
            .iter()
            .map(|name| format!("[[package]]\nname = \"{name}\"\nversion = \"{version}.0\"\nsource = \"registry\"\n\n"))
            .collect::<String>()
    };
    let manifest = |version: &str| format!("[package]\nname = \"grep\"\n\n[dependencies]\nregex = \"{version}\"\n");
    let search = "pub fn fill(buf: &mut Vec<u8>, n: usize) -> usize {\n    let mut read = 0;\n    while read < n {\n        buf.push(0);\n        read = read + 1;\n    }\n    return read;\n}\n";
    write(&repo.join("Cargo.toml"), &manifest("1.4"));
    write(&repo.join("Cargo.lock"), &lock("1.4"));
    write(&repo.join("src/search.rs"), search);
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("Cargo.toml"), &manifest("1.5"));
    write(&repo.join("Cargo.lock"), &lock("1.5"));
    write(
        &repo.join("src/search.rs"),
        &search
            .replace("read = read + 1;", "read += 1;")
            .replace("return read;", "read"),
    );
    commit_all(
        &env,
        &repo,
        "deps: update to the latest regex crate\n\ncouple of trivial fixes to make clippy a bit more happy\n",
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan", "--explain"]).expect_code(0);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_cluster_answering_to_no_subject_is_the_work_of_the_one_left");
    for item in explained_items(&env, &repo) {
        let eliminated = item["item"].as_str().is_some_and(|i| i.starts_with("src/"));
        assert_eq!(item["subject_by_elimination"], eliminated, "{item}");
    }
}
