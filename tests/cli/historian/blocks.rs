//! git-historian cuts a hunk into its blocks (issue 15, item 1): two
//! entries of one table written by two commits, or named by two subjects
//! of a squash, are two items, each in its own clean commit, and the clean
//! branch still ends at the original tree.

use crate::harness::historian::{commit_all, record_clean, show_patches};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

const TYPES: &str = "pub const TYPES: &[(&str, &str)] = &[\n    (\"c\", \"*.c\"),\n    (\"rust\", \"*.rs\"),\n];\n";

/// `TYPES` with `rows` added after its opening line.
fn types_with(rows: &[&str]) -> String {
    let (head, rest) = TYPES.split_once('\n').unwrap();
    let added: String = rows.iter().map(|r| format!("    {r}\n")).collect();
    format!("{head}\n{added}{rest}")
}

/// Two commits each add a row of one table, on adjacent lines (one hunk
/// against the base): each clean commit adds its own row, and the second
/// commit's tree is the tip's.
#[test]
fn adjacent_rows_from_two_commits_go_to_their_own_commits() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("src/types.rs"), TYPES);
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("src/types.rs"), &types_with(&["(\"aidl\", \"*.aidl\"),"]));
    commit_all(&env, &repo, "Add the AIDL file type");
    write(
        &repo.join("src/types.rs"),
        &types_with(&["(\"aidl\", \"*.aidl\"),", "(\"make\", \"*.mk\"),"]),
    );
    commit_all(&env, &repo, "Add the makefile type");
    // Each clean commit adds its own row; the second ends at the tip.
    let mut t = Transcript::new(&env);
    let clean = record_clean(&mut t, &repo, "feature", &[]);
    show_patches(&mut t, &repo, &clean);
    assert_transcript!(t, "adjacent_rows_from_two_commits_go_to_their_own_commits");
}

/// A squash whose two subjects each name one of two adjacent rows: the
/// rows are two blocks, one per commit.
#[test]
fn a_squash_naming_two_adjacent_rows_is_cut_between_them() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("src/types.rs"), TYPES);
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("src/types.rs"),
        &types_with(&["(\"aidl\", \"*.aidl\"),", "(\"makefile\", \"*.mk\"),"]),
    );
    commit_all(&env, &repo, "Add the aidl file type\n\nAdd the makefile file type\n");
    let mut t = Transcript::new(&env);
    let clean = record_clean(&mut t, &repo, "feature", &[]);
    show_patches(&mut t, &repo, &clean);
    assert_transcript!(t, "a_squash_naming_two_adjacent_rows_is_cut_between_them");
}
