//! A messy branch (`wip`, `more`, `fix`: messages that say nothing) still
//! says which lines were written together: git-historian reads which
//! commit wrote each hunk as evidence that they belong together, and a
//! `fix` rewriting a `wip` commit's lines as evidence that the fix's work
//! goes with it (issue 39, the messy branch).

use crate::harness::historian::{assert_same_tree, commit_all, commit_files, record_clean, repo_holding};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// Four files nothing in their text or their history links: the cache's
/// eviction and the store's shrinking written in one `wip`, the retry's
/// backoff and the clock's pause in another, and a `fix` rewriting the
/// eviction's line. The clean branch has two commits, one per piece of
/// work the `wip` commits wrote; the same change squashed into one `wip`
/// commit (its writing then says nothing) is planned file by file.
#[test]
fn a_messy_branch_is_split_along_what_each_wip_commit_wrote() {
    let env = TestEnv::new();
    let base = [
        (
            "src/cache.rs",
            "pub fn lookup(key: &str) -> Option<String> {\n    None\n}\n",
        ),
        ("src/store.rs", "pub struct Store;\n"),
        ("src/retry.rs", "pub fn send() -> bool {\n    true\n}\n"),
        ("src/clock.rs", "pub struct Clock;\n"),
    ];
    // In the first commit: no history behind the base links them or keeps
    // them apart.
    let repo = repo_holding(&env, &base);
    let evict = |line: &str| {
        format!("pub fn lookup(key: &str) -> Option<String> {{\n    None\n}}\n\npub fn evict(oldest: usize) -> usize {{\n    {line}\n}}\n")
    };
    let (first, fixed) = (evict("oldest"), evict("oldest.saturating_sub(1)"));
    let wip_cache = [
        ("src/cache.rs", first.as_str()),
        (
            "src/store.rs",
            "pub struct Store;\n\npub fn shrink(slots: &mut Vec<u8>) {\n    slots.truncate(16);\n}\n",
        ),
    ];
    let wip_retry = [
        ("src/retry.rs", "pub fn send() -> bool {\n    true\n}\n\npub fn backoff(attempt: u32) -> u32 {\n    attempt * 2\n}\n"),
        ("src/clock.rs", "pub struct Clock;\n\npub fn pause(millis: u64) {\n    std::thread::sleep(std::time::Duration::from_millis(millis));\n}\n"),
    ];
    let fix_cache = [("src/cache.rs", fixed.as_str())];
    env.git(&repo, &["checkout", "-q", "-b", "messy", "main"]);
    commit_files(&env, &repo, &wip_cache, "wip");
    commit_files(&env, &repo, &wip_retry, "more");
    commit_files(&env, &repo, &fix_cache, "fix");
    let mut t = Transcript::new(&env);
    let _ = t
        .run(
            &repo,
            &["log", "--reverse", "--format=%s", "--name-only", "main..messy"],
        )
        .expect_code(0);
    let _ = t.run(&repo, &["historian", "plan", "--explain"]).expect_code(0);
    let clean = record_clean(&mut t, &repo, "messy", &[]);
    assert_same_tree(&env, &repo, "messy", &clean);
    // The same work as one `wip` commit: nothing to read from its writing.
    env.git(&repo, &["checkout", "-q", "-b", "squashed", "main"]);
    env.git(&repo, &["checkout", "-q", "messy", "--", "."]);
    commit_all(&env, &repo, "wip");
    assert_same_tree(&env, &repo, "messy", "squashed");
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    assert_transcript!(t, "a_messy_branch_is_split_along_what_each_wip_commit_wrote");
}
