//! References, merges, linked worktrees and diffs against the real `git`:
//! compare-and-swap refuses a stale expectation, notes read as git reads
//! them, merges change nothing when they conflict or an untracked file is in
//! the way, a patch applies through the one git runner (objects and trees:
//! `objects_tests.rs`).

use std::time::Duration;

use super::testing::{fixture, git, open};
use super::*;

#[test]
fn refs_compare_and_swap_and_notes() {
    let f = fixture();
    let repo = open(&f.path);
    let blob = repo.write_blob("one").unwrap();
    let other = repo.write_blob("two").unwrap();
    repo.update_ref("refs/ultraplan/x/lock", blob, Expect::Absent, "lock")
        .unwrap();
    let again = repo
        .update_ref("refs/ultraplan/x/lock", blob, Expect::Absent, "lock")
        .unwrap_err();
    assert!(again.downcast_ref::<RefConflict>().is_some(), "{again:#}");
    let stale = repo
        .update_ref("refs/ultraplan/x/lock", other, Expect::Value(other), "x")
        .unwrap_err();
    assert!(stale.downcast_ref::<RefConflict>().is_some(), "{stale:#}");
    repo.update_ref("refs/ultraplan/x/lock", other, Expect::Value(blob), "x")
        .unwrap();
    assert_eq!(repo.read_ref("refs/ultraplan/x/lock").unwrap(), Some(other));
    repo.delete_ref("refs/ultraplan/x/lock", Some(other)).unwrap();
    assert_eq!(repo.read_ref("refs/ultraplan/x/lock").unwrap(), None);

    let head = repo.head().unwrap().commit.unwrap();
    repo.set_note("refs/notes/ultraplan", head, "status: success\n")
        .unwrap();
    assert_eq!(
        git(&f.path, &["notes", "--ref=ultraplan", "show", "HEAD"]),
        "status: success\n"
    );
    assert_eq!(
        repo.note("refs/notes/ultraplan", head).unwrap().as_deref(),
        Some("status: success\n")
    );
    git(&f.path, &["fsck", "--strict"]);
}

#[test]
fn worktrees_branches_and_merges() {
    let f = fixture();
    let repo = open(&f.path);
    let base = repo.head().unwrap().commit.unwrap();
    let wt = f.path.join(".git/ultraplan/worktrees/plan/session-1");
    repo.create_branch("refs/heads/ultraplan/plan/session-1", base).unwrap();
    repo.add_worktree(&wt, "refs/heads/ultraplan/plan/session-1").unwrap();
    assert!(git(&f.path, &["worktree", "list"]).contains("session-1"));
    assert_eq!(std::fs::read_to_string(wt.join("a.txt")).unwrap(), "a\n");
    let linked = repo.linked_worktrees().unwrap();
    assert_eq!(linked.len(), 1);
    assert_eq!(linked[0].branch.as_deref(), Some("refs/heads/ultraplan/plan/session-1"));

    // The session commits in its worktree; the main branch moves on too.
    std::fs::write(wt.join("b.txt"), "from the session\n").unwrap();
    git(&wt, &["add", "b.txt"]);
    git(&wt, &["commit", "-q", "-m", "session work"]);
    std::fs::write(f.path.join("c.txt"), "main work\n").unwrap();
    git(&f.path, &["add", "c.txt"]);
    git(&f.path, &["commit", "-q", "-m", "main work"]);
    let ours = repo.head().unwrap().commit.unwrap();
    let theirs = repo.read_ref("refs/heads/ultraplan/plan/session-1").unwrap().unwrap();
    let MergePlan::Clean(merge) = repo
        .plan_merge(ours, theirs, "session-1", "merge: ultraplan session 1 — S")
        .unwrap()
    else {
        panic!("expected a clean merge")
    };
    assert_eq!(repo.apply_merge(ours, merge, "merge: session 1").unwrap(), Ok(()));
    assert_eq!(
        git(&f.path, &["log", "-1", "--format=%p"]).split_whitespace().count(),
        2,
        "two parents"
    );
    assert_eq!(
        git(&f.path, &["log", "-1", "--format=%s"]),
        "merge: ultraplan session 1 — S\n"
    );
    assert_eq!(
        std::fs::read_to_string(f.path.join("b.txt")).unwrap(),
        "from the session\n"
    );
    assert_eq!(git(&f.path, &["status", "--porcelain"]), "");

    repo.remove_worktree(&wt).unwrap();
    repo.delete_ref("refs/heads/ultraplan/plan/session-1", None).unwrap();
    repo.prune_worktrees().unwrap();
    assert!(!wt.exists());
    assert_eq!(git(&f.path, &["worktree", "list"]).lines().count(), 1);
    git(&f.path, &["fsck", "--strict"]);
}

#[test]
fn conflicts_and_untracked_files_change_nothing() {
    let f = fixture();
    let repo = open(&f.path);
    let base = repo.head().unwrap().commit.unwrap();
    git(&f.path, &["checkout", "-q", "-b", "other"]);
    std::fs::write(f.path.join("a.txt"), "theirs\n").unwrap();
    std::fs::write(f.path.join("new.txt"), "theirs new\n").unwrap();
    git(&f.path, &["add", "."]);
    git(&f.path, &["commit", "-q", "-m", "theirs"]);
    let theirs = repo.head().unwrap().commit.unwrap();
    git(&f.path, &["checkout", "-q", "main"]);
    std::fs::write(f.path.join("a.txt"), "ours\n").unwrap();
    git(&f.path, &["commit", "-q", "-am", "ours"]);
    let ours = repo.head().unwrap().commit.unwrap();
    assert_eq!(
        repo.plan_merge(ours, theirs, "other", "m").unwrap(),
        MergePlan::Conflicts(vec!["a.txt".into()])
    );
    assert_eq!(git(&f.path, &["status", "--porcelain"]), "");

    // No conflict, but an untracked file stands where the merge writes.
    git(&f.path, &["reset", "-q", "--hard", &base.to_string()]);
    std::fs::write(f.path.join("new.txt"), "mine, untracked\n").unwrap();
    let before = std::fs::read(f.path.join(".git/index")).unwrap();
    let MergePlan::Clean(merge) = repo.plan_merge(base, theirs, "other", "m").unwrap() else {
        panic!()
    };
    let refused = repo.apply_merge(base, merge, "m").unwrap().unwrap_err();
    assert!(refused.contains("new.txt"), "{refused}");
    assert_eq!(
        std::fs::read_to_string(f.path.join("new.txt")).unwrap(),
        "mine, untracked\n"
    );
    assert_eq!(std::fs::read_to_string(f.path.join("a.txt")).unwrap(), "a\n");
    assert_eq!(repo.head().unwrap().commit, Some(base));
    assert_eq!(
        std::fs::read(f.path.join(".git/index")).unwrap(),
        before,
        "the index is untouched"
    );
    assert!(!f.path.join(".git/MERGE_HEAD").exists());
}

#[test]
fn diff_stat_and_dirt() {
    let f = fixture();
    let repo = open(&f.path);
    let before = repo.commit_tree(repo.head().unwrap().commit.unwrap()).unwrap();
    std::fs::write(f.path.join("a.txt"), "a\nb\nc\n").unwrap();
    std::fs::write(f.path.join("bin"), [0u8, 1, 2]).unwrap();
    std::fs::write(f.path.join("untracked.txt"), "u").unwrap();
    git(&f.path, &["add", "a.txt", "bin"]);
    let dirt = repo.dirt().unwrap();
    assert_eq!(dirt.tracked, vec!["a.txt", "bin"]);
    assert_eq!(dirt.untracked, vec!["untracked.txt"]);
    git(&f.path, &["commit", "-q", "-m", "x"]);
    let after = repo.commit_tree(repo.head().unwrap().commit.unwrap()).unwrap();
    assert_eq!(
        repo.diff_stat(before, after).unwrap(),
        (2, 2),
        "two files, two added lines, binary counts none"
    );
}

#[test]
fn a_patch_applies_to_the_working_tree_and_a_stale_one_is_refused() {
    let f = fixture();
    let patch = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+patched\n";
    let env = vec![("PATCH_TEST".to_owned(), "1".to_owned())];
    let done = apply_patch(&f.path, patch, env.clone(), Duration::from_secs(30), 1 << 16).unwrap();
    assert!(done.ending.success(), "{}", done.output());
    assert_eq!(std::fs::read_to_string(f.path.join("a.txt")).unwrap(), "patched\n");
    assert_eq!(
        git(&f.path, &["status", "--porcelain"]),
        " M a.txt\n",
        "the index is not touched"
    );
    // The same patch again no longer applies: git says why, nothing changes.
    let again = apply_patch(&f.path, patch, env, Duration::from_secs(30), 1 << 16).unwrap();
    assert!(!again.ending.success());
    assert!(again.stderr.contains("a.txt"), "{}", again.stderr);
    assert_eq!(std::fs::read_to_string(f.path.join("a.txt")).unwrap(), "patched\n");
}

#[test]
fn shorts_are_each_ids_short_prefix() {
    let f = fixture();
    let repo = open(&f.path);
    let ids: Vec<Oid> = (0..40)
        .map(|i| repo.write_blob(format!("blob {i}\n")).unwrap())
        .collect();
    let one_by_one: Vec<String> = ids.iter().map(|id| repo.short(*id)).collect();
    assert_eq!(repo.shorts(&ids), one_by_one);
    assert!(one_by_one
        .iter()
        .zip(&ids)
        .all(|(s, id)| id.to_string().starts_with(s.as_str()) && s.len() >= 7));
    assert!(repo.shorts(&[]).is_empty());
}

#[test]
fn revisions_that_name_no_commit_say_why_in_plain_words() {
    let f = fixture();
    let repo = open(&f.path);
    let message = |spec: &str| format!("{:#}", repo.rev_parse_commit(spec).unwrap_err());
    for (spec, said) in [
        ("nosuch", "'nosuch' is not a commit here: no such branch, tag or commit"),
        ("HEAD~5", "'HEAD~5' is not a commit here: it has no 5th ancestor"),
        ("HEAD^{tree}", "'HEAD^{tree}' is not a commit here: it names a tree"),
        ("HEAD:a.txt", "'HEAD:a.txt' is not a commit here: it names a blob"),
        (
            "HEAD:none.txt",
            "'HEAD:none.txt' is not a commit here: no such path in that commit",
        ),
        ("HEAD^3", "'HEAD^3' is not a commit here: that commit has"),
    ] {
        let text = message(spec);
        assert!(text.starts_with(said), "{spec}: {text}");
        assert!(!text.contains("delegate"), "{spec}: {text}");
    }
    assert!(repo.rev_parse_commit("HEAD").is_ok());
}

/// Each commit of a handle is dated when it is made (gix reads the time
/// with the identity, once per handle) — unless GIT_COMMITTER_DATE says
/// otherwise: see tests/cli/ultraplan/recovery.rs.
#[test]
fn each_commit_is_dated_when_it_is_made() {
    let f = fixture();
    let repo = open(&f.path);
    let tree = repo.empty_tree();
    let first = repo.write_commit(tree, &[], "first").unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    let second = repo.write_commit(tree, &[first], "second").unwrap();
    let (a, b) = (
        repo.commit_info(first).unwrap().time,
        repo.commit_info(second).unwrap().time,
    );
    assert!(b > a, "{a} then {b}");
}
