//! git-historian names a commit of a squash by elimination (issue 15,
//! item 1): a commit no part of which shares a word with any subject of
//! the squash says the one subject no other commit answers to, rather than
//! another's.

use crate::harness::historian::{commit_all, explained_items, record_clean};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// `deps: update regex` is answered by the manifests; the code beside them
/// shares no word with `make clippy happy`, but that subject has no other
/// work, so the code's commit says it.
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
