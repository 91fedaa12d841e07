//! Linked worktrees against the real `git`: added side by side, each
//! reporting its own result; added, removed and pruned by two processes of
//! one clone at once; pruned only when a registration is stale.

use super::testing::{fixture, git, open};
use super::*;

/// Creates `refs/heads/ultraplan-work/plan/session-<n>` at HEAD for each of
/// `sessions`, and returns where each session's worktree goes.
fn session_branches(
    repo: &Repo,
    path: &std::path::Path,
    sessions: std::ops::RangeInclusive<u32>,
) -> std::path::PathBuf {
    let base = repo.head().unwrap().commit.unwrap();
    for n in sessions {
        repo.create_branch(&format!("refs/heads/ultraplan-work/plan/session-{n}"), base)
            .unwrap();
    }
    path.join(".git/ultraplan/work/plan")
}

#[test]
fn worktrees_added_side_by_side_report_each_their_own_result() {
    let f = fixture();
    let repo = open(&f.path);
    let base = repo.head().unwrap().commit.unwrap();
    let dir = f.path.join(".git/ultraplan/worktrees/plan");
    let (one, two, three) = (dir.join("session-1"), dir.join("session-2"), dir.join("session-3"));
    for n in 1..=3 {
        repo.create_branch(&format!("refs/heads/ultraplan/plan/session-{n}"), base)
            .unwrap();
    }
    // Something is already at the second path: only that one fails.
    std::fs::create_dir_all(&two).unwrap();
    std::fs::write(two.join("mine.txt"), "not yours\n").unwrap();
    let results = repo.add_worktrees(&[
        (&one, "refs/heads/ultraplan/plan/session-1"),
        (&two, "refs/heads/ultraplan/plan/session-2"),
        (&three, "refs/heads/ultraplan/plan/session-3"),
    ]);
    assert!(results[0].is_ok() && results[2].is_ok(), "{results:?}");
    let error = format!("{:#}", results[1].as_ref().unwrap_err());
    assert!(
        error.starts_with(&format!("cannot add a worktree at '{}': ", two.display()))
            && error.contains("already exists"),
        "{error}"
    );
    let list = git(&f.path, &["worktree", "list", "--porcelain"]);
    assert!(
        list.contains("session-1") && list.contains("session-3") && !list.contains("session-2"),
        "{list}"
    );
    assert_eq!(std::fs::read_to_string(three.join("a.txt")).unwrap(), "a\n");
    assert_eq!(std::fs::read_to_string(two.join("mine.txt")).unwrap(), "not yours\n");
    // Not a local branch: refused before git runs.
    let refused = repo.add_worktrees(&[(&dir.join("session-4"), "main")]);
    assert_eq!(
        format!("{:#}", refused[0].as_ref().unwrap_err()),
        "invalid branch name 'main': not a local branch"
    );
}

/// Two processes of one clone adding, removing and pruning worktrees side
/// by side (a worker's jobs): each add succeeds, though `git worktree
/// prune` deletes `.git/worktrees` once it is empty, and an entry an add has
/// only begun, under the feet of the other process.
#[test]
fn worktrees_are_added_and_removed_side_by_side() {
    let f = fixture();
    let repo = open(&f.path);
    let dir = session_branches(&repo, &f.path, 1..=2);
    let cycle = |n: usize| {
        let repo = open(&f.path);
        for _ in 0..150 {
            let path = dir.join(format!("session-{n}"));
            repo.add_worktree(&path, &format!("refs/heads/ultraplan-work/plan/session-{n}"))
                .unwrap();
            repo.remove_worktree(&path).unwrap();
            repo.prune_worktrees().unwrap();
        }
    };
    std::thread::scope(|scope| {
        let other = scope.spawn(|| cycle(2));
        cycle(1);
        other.join().unwrap();
    });
    assert_eq!(
        git(&f.path, &["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
}

/// A prune forgets the registration whose directory is gone, and touches
/// nothing when none is (git's own would delete an empty `.git/worktrees`).
#[test]
fn a_prune_forgets_only_what_is_gone() {
    let f = fixture();
    let repo = open(&f.path);
    let dir = session_branches(&repo, &f.path, 1..=2);
    for n in 1..=2 {
        repo.add_worktree(
            &dir.join(format!("session-{n}")),
            &format!("refs/heads/ultraplan-work/plan/session-{n}"),
        )
        .unwrap();
    }
    std::fs::remove_dir_all(dir.join("session-1")).unwrap();
    repo.prune_worktrees().unwrap();
    let list = git(&f.path, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains("session-1") && list.contains("session-2"), "{list}");
    repo.remove_worktree(&dir.join("session-2")).unwrap();
    std::fs::create_dir_all(f.path.join(".git/worktrees")).unwrap();
    repo.prune_worktrees().unwrap();
    assert!(
        f.path.join(".git/worktrees").is_dir(),
        "nothing was stale: nothing is touched"
    );
}
