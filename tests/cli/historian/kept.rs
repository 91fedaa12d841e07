//! A branch already cut into commits with messages of their own: each
//! commit naming one piece of work is the author's cut, and git-historian
//! splits it only where its parts are clearly apart. The same commit alone
//! on a branch (or squashed under a `wip`) is split by its content as
//! before.

use crate::harness::historian::{commit_files, repo_holding};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// The cache's eviction and the store's shrinking share no name and no
/// history (their chance of one piece of work is the affinity's intercept
/// alone, about 0.32): committed together as "Evict the oldest entries"
/// beside a second described commit, they stay one commit; the same commit
/// alone on a branch is planned file by file.
#[test]
fn a_described_commit_on_a_described_branch_is_kept_whole() {
    let env = TestEnv::new();
    let base = [
        (
            "src/cache.rs",
            "pub fn lookup(key: &str) -> Option<String> {\n    None\n}\n",
        ),
        ("src/store.rs", "pub struct Store;\n"),
        ("src/retry.rs", "pub fn send() -> bool {\n    true\n}\n"),
    ];
    // In the first commit: no history behind the base links them or keeps
    // them apart.
    let repo = repo_holding(&env, &base);
    let evict = [
        (
            "src/cache.rs",
            "pub fn lookup(key: &str) -> Option<String> {\n    None\n}\n\npub fn evict(oldest: usize) -> usize {\n    oldest\n}\n",
        ),
        (
            "src/store.rs",
            "pub struct Store;\n\npub fn shrink(slots: &mut Vec<u8>) {\n    slots.truncate(16);\n}\n",
        ),
    ];
    let backoff = [(
        "src/retry.rs",
        "pub fn send() -> bool {\n    true\n}\n\npub fn backoff(attempt: u32) -> u32 {\n    attempt * 2\n}\n",
    )];
    env.git(&repo, &["checkout", "-q", "-b", "described", "main"]);
    commit_files(&env, &repo, &evict, "Evict the oldest entries");
    commit_files(&env, &repo, &backoff, "Double the wait between retries");
    env.git(&repo, &["checkout", "-q", "-b", "alone", "main"]);
    commit_files(&env, &repo, &evict, "Evict the oldest entries");
    let mut t = Transcript::new(&env);
    for branch in ["described", "alone"] {
        env.git(&repo, &["checkout", "-q", branch]);
        let _ = t
            .run(
                &repo,
                &[
                    "log",
                    "--reverse",
                    "--format=%s",
                    "--name-only",
                    &format!("main..{branch}"),
                ],
            )
            .expect_code(0);
        let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    }
    assert_transcript!(t, "a_described_commit_on_a_described_branch_is_kept_whole");
}

/// A commit the author cut, split where its parts are clearly apart but
/// not surely (two families of twelve files, each last written by its own
/// past commit): `clean` asks, and the question names the threshold the
/// call was measured against, the author's cut's.
#[test]
fn an_unsure_split_of_a_described_commit_names_its_threshold() {
    let env = TestEnv::new();
    let repo = repo_holding(&env, &[("notes.md", "# Notes\n")]);
    let family = |stem: &str, value: u32| -> Vec<(String, String)> {
        (0..12)
            .map(|k| {
                (
                    format!("src/{stem}_{k}.rs"),
                    format!("pub fn {stem}_{k}() -> u32 {{\n    {value}\n}}\n"),
                )
            })
            .collect()
    };
    let commit = |files: &[(String, String)], message: &str| {
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        commit_files(&env, &repo, &files, message);
    };
    // Each family last written by its own past commit (not the root,
    // whose lines say nothing).
    commit(&family("cache", 1), "Add the caches");
    commit(&family("wire", 1), "Add the wires");
    env.git(&repo, &["checkout", "-q", "-b", "feature", "main"]);
    let mut raised = family("cache", 2);
    raised.extend(family("wire", 2));
    commit(&raised, "Raise the limits");
    commit(
        &[("notes.md".to_owned(), "# Notes\n\nThe limits are two.\n".to_owned())],
        "Note the limits",
    );
    let mut t = Transcript::new(&env);
    let asked = t.run(&repo, &["historian", "clean"]).expect_code(3);
    assert!(asked.stdout.contains("against a threshold of 0.25"), "{asked}");
    assert_transcript!(t, "an_unsure_split_of_a_described_commit_names_its_threshold");
}
