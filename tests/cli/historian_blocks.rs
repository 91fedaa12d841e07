//! git-historian cuts a hunk into its blocks (issue 15, item 1): two
//! entries of one table written by two commits, or named by two subjects
//! of a squash, are two items, each in its own clean commit, and the clean
//! branch still ends at the original tree.

use crate::historian::{assert_clean_keeps_tree, assert_same_tree, commit_all, field, planned_items as planned};
use crate::support::*;

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
    assert_eq!(
        planned(&env, &repo),
        [
            (
                "feat(types): add the AIDL file type".to_owned(),
                vec!["src/types.rs#1".to_owned()]
            ),
            (
                "feat(types): add the makefile type".to_owned(),
                vec!["src/types.rs#2".to_owned()]
            ),
        ]
    );
    let out = env.run(&repo, &["historian", "clean"]).expect_code(0);
    let clean = field(&out, "Clean branch");
    assert_same_tree(&env, &repo, "feature", &clean);
    assert_eq!(
        env.git(&repo, &["show", &format!("{clean}~1:src/types.rs")]),
        types_with(&["(\"aidl\", \"*.aidl\"),"])
    );
    env.git(&repo, &["fsck", "--strict"]);
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
    let plan = planned(&env, &repo);
    let items: Vec<&Vec<String>> = plan.iter().map(|(_, items)| items).collect();
    assert_eq!(items, [&["src/types.rs#1"], &["src/types.rs#2"]], "{plan:?}");
    assert!(plan[0].0.contains("aidl") && plan[1].0.contains("makefile"), "{plan:?}");
    assert_clean_keeps_tree(&env, &repo, "feature");
}
