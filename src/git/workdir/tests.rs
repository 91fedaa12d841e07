//! The working tree against the real `git`: snapshots see dirty and
//! untracked files (not ignored ones), restores bring back exactly a
//! snapshot, staging and committing given paths leave `git status` clean for
//! them and everything else as it was, and incremental scans agree with full
//! ones.

use std::path::Path;

use super::*;
use crate::git::testing::{files, fixture, git, open};
use crate::git::RefConflict;

#[test]
fn snapshot_sees_dirty_and_untracked_but_not_ignored() {
    let f = fixture();
    let repo = open(&f.path);
    let clean = repo.snapshot().unwrap();
    assert_eq!(clean.tree, repo.commit_tree(clean.head.unwrap()).unwrap());

    std::fs::write(f.path.join("a.txt"), "changed\n").unwrap();
    std::fs::write(f.path.join("new.txt"), "new\n").unwrap();
    std::fs::remove_file(f.path.join("src/lib.rs")).unwrap();
    std::fs::create_dir(f.path.join("ignored")).unwrap();
    std::fs::write(f.path.join("ignored/x"), "x").unwrap();
    let dirty = repo.snapshot().unwrap();
    assert_eq!(files(&repo, dirty.tree), vec![".gitignore", "a.txt", "new.txt"]);
    let changes = repo.changes(clean.tree, dirty.tree).unwrap();
    let paths: Vec<_> = changes.iter().map(|c| (c.path.as_str(), c.new.is_some())).collect();
    assert_eq!(paths, vec![("a.txt", true), ("new.txt", true), ("src/lib.rs", false)]);
    assert_eq!(repo.read_path(dirty.tree, "a.txt").unwrap().unwrap(), b"changed\n");
}

#[test]
fn restore_brings_back_a_snapshot_exactly() {
    let f = fixture();
    let repo = open(&f.path);
    std::fs::write(f.path.join("dirty.txt"), "user's work\n").unwrap();
    let before = repo.snapshot().unwrap();
    // A step makes a mess.
    std::fs::write(f.path.join("a.txt"), "broken\n").unwrap();
    std::fs::remove_file(f.path.join("dirty.txt")).unwrap();
    std::fs::create_dir_all(f.path.join("deep/er")).unwrap();
    std::fs::write(f.path.join("deep/er/junk.txt"), "junk").unwrap();
    std::fs::create_dir(f.path.join("ignored")).unwrap();
    std::fs::write(f.path.join("ignored/build.log"), "ignored: left alone").unwrap();
    let after = repo.snapshot().unwrap();
    let restored = repo.restore(&after, before.tree, None).unwrap();
    assert_eq!(restored, vec!["deep/er/junk.txt", "a.txt", "dirty.txt"]);
    assert_eq!(std::fs::read_to_string(f.path.join("a.txt")).unwrap(), "a\n");
    assert_eq!(
        std::fs::read_to_string(f.path.join("dirty.txt")).unwrap(),
        "user's work\n"
    );
    assert!(!f.path.join("deep").exists(), "emptied directories are removed");
    assert!(
        f.path.join("ignored/build.log").exists(),
        "ignored files are never touched"
    );
    assert_eq!(repo.snapshot().unwrap().tree, before.tree);
}

#[test]
fn restore_only_given_paths() {
    let f = fixture();
    let repo = open(&f.path);
    let before = repo.snapshot().unwrap();
    std::fs::write(f.path.join("a.txt"), "x\n").unwrap();
    std::fs::write(f.path.join("src/lib.rs"), "y\n").unwrap();
    let after = repo.snapshot().unwrap();
    let only: std::collections::BTreeSet<String> = ["src/lib.rs".to_owned()].into();
    repo.restore(&after, before.tree, Some(&only)).unwrap();
    assert_eq!(std::fs::read_to_string(f.path.join("src/lib.rs")).unwrap(), "lib\n");
    assert_eq!(std::fs::read_to_string(f.path.join("a.txt")).unwrap(), "x\n");
}

#[test]
fn stage_and_commit_exactly_the_given_paths() {
    let f = fixture();
    let repo = open(&f.path);
    // The user has something staged and something untracked before the step.
    std::fs::write(f.path.join("staged.txt"), "staged by the user\n").unwrap();
    git(&f.path, &["add", "staged.txt"]);
    std::fs::write(f.path.join("untracked.txt"), "mine\n").unwrap();
    let before = repo.snapshot().unwrap();
    // The step changes a.txt, adds src/new.rs, deletes src/lib.rs.
    std::fs::write(f.path.join("a.txt"), "step\n").unwrap();
    std::fs::write(f.path.join("src/new.rs"), "new\n").unwrap();
    std::fs::remove_file(f.path.join("src/lib.rs")).unwrap();
    let after = repo.snapshot().unwrap();
    let changes = repo.changes(before.tree, after.tree).unwrap();
    assert_eq!(changes.len(), 3);
    let head = repo.head().unwrap().commit;
    let commit = repo.commit_changes(head, &changes, "feat: the step").unwrap();
    repo.advance_head(head, commit, "commit: feat: the step").unwrap();
    repo.stage(&changes, &after).unwrap();

    assert_eq!(git(&f.path, &["log", "-1", "--format=%s"]), "feat: the step\n");
    assert_eq!(
        git(&f.path, &["show", "--name-status", "--format=", "HEAD"]),
        "M\ta.txt\nD\tsrc/lib.rs\nA\tsrc/new.rs\n"
    );
    // What the user had stays as it was: staged stays staged, untracked stays untracked.
    assert_eq!(
        git(&f.path, &["status", "--porcelain"]),
        "A  staged.txt\n?? untracked.txt\n"
    );
    assert_eq!(
        git(&f.path, &["reflog", "-1", "--format=%gs", "main"]),
        "commit: feat: the step\n"
    );
    git(&f.path, &["fsck", "--strict"]);
    // A stale expectation loses.
    let err = repo.advance_head(head, commit, "again").unwrap_err();
    assert!(err.downcast_ref::<RefConflict>().is_some(), "{err:#}");
}

/// A small deterministic random source for the operation sequences.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Applies one random file-system operation inside the worktree.
fn random_op(root: &Path, rng: &mut Lcg) -> String {
    let dirs = ["", "src", "src/deep", "docs", "ignored", "newdir", "newdir/sub"];
    let names = ["a.txt", "b.rs", "c", "x.log"];
    let dir = dirs[rng.next(dirs.len())];
    let name = names[rng.next(names.len())];
    let rel = if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    };
    let path = root.join(&rel);
    let op = rng.next(9);
    let _ = std::fs::create_dir_all(path.parent().unwrap());
    match op {
        0 | 1 => {
            if path.is_dir() {
                let _ = std::fs::remove_dir_all(&path);
            }
            let _ = std::fs::write(&path, format!("content {}\n", rng.next(1000)));
            format!("write {rel}")
        }
        2 => {
            let _ = std::fs::remove_file(&path);
            format!("rm {rel}")
        }
        3 => {
            let target = root.join(dirs[rng.next(dirs.len())]).join(names[rng.next(names.len())]);
            let _ = std::fs::create_dir_all(target.parent().unwrap());
            let _ = std::fs::rename(&path, &target);
            format!("mv {rel} {}", target.strip_prefix(root).unwrap().display())
        }
        4 => {
            let d = root.join(dir);
            if !dir.is_empty() && dir != "src" {
                let _ = std::fs::remove_dir_all(&d);
            }
            format!("rm -r {dir}")
        }
        5 => {
            use std::os::unix::fs::PermissionsExt;
            if let Ok(meta) = std::fs::metadata(&path) {
                let mut p = meta.permissions();
                p.set_mode(p.mode() ^ 0o111);
                let _ = std::fs::set_permissions(&path, p);
            }
            format!("chmod {rel}")
        }
        6 => {
            let _ = std::fs::remove_file(&path);
            let _ = std::os::unix::fs::symlink("a.txt", &path);
            format!("ln -s {rel}")
        }
        7 => {
            // A file replaced by a directory with something in it.
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::create_dir_all(&path);
            let _ = std::fs::write(path.join("inner.txt"), "inner\n");
            format!("file->dir {rel}")
        }
        _ => {
            let from = root.join("newdir");
            let to = root.join(format!("moved{}", rng.next(3)));
            let _ = std::fs::remove_dir_all(&to);
            let _ = std::fs::rename(&from, &to);
            format!("mv newdir {}", to.strip_prefix(root).unwrap().display())
        }
    }
}

#[test]
fn incremental_scans_agree_with_full_scans() {
    for seed in [7, 11, 23] {
        incremental_with_seed(seed, 100);
    }
}

/// Random file operations; after each batch the incremental scan must give
/// exactly the tree a full scan gives.
fn incremental_with_seed(seed: u64, rounds: usize) {
    let f = fixture();
    let repo = open(&f.path);
    std::fs::create_dir_all(f.path.join("src/deep")).unwrap();
    std::fs::write(f.path.join("src/deep/tracked.rs"), "t\n").unwrap();
    std::fs::write(f.path.join(".gitignore"), "ignored/\n*.log\n").unwrap();
    git(&f.path, &["add", "."]);
    git(&f.path, &["commit", "-q", "-m", "more"]);
    let mut tracker = Tracker::default();
    let mut rng = Lcg(seed);
    let mut history = Vec::new();
    for round in 0..rounds {
        for _ in 0..=rng.next(3) {
            history.push(random_op(&f.path, &mut rng));
        }
        let scanned = repo.scan(&mut tracker).unwrap();
        let full = repo.snapshot().unwrap();
        assert_eq!(
            files(&repo, scanned.tree),
            files(&repo, full.tree),
            "seed {seed} round {round} after: {:?}",
            &history[history.len().saturating_sub(8)..]
        );
        assert_eq!(scanned.tree, full.tree, "seed {seed} round {round}");
    }
    #[cfg(target_os = "linux")]
    assert!(
        tracker.incremental_scans > rounds * 3 / 4,
        "{} incremental scans",
        tracker.incremental_scans
    );
}

#[test]
fn ignore_rule_changes_and_foreign_head_moves_force_a_full_scan() {
    let f = fixture();
    let repo = open(&f.path);
    let mut tracker = Tracker::default();
    std::fs::write(f.path.join("debug.log"), "x\n").unwrap();
    let first = repo.scan(&mut tracker).unwrap();
    assert!(files(&repo, first.tree).contains(&"debug.log".to_owned()));
    // A new ignore rule changes what counts, though debug.log did not change.
    std::fs::write(f.path.join(".gitignore"), "ignored/\n*.log\n").unwrap();
    let second = repo.scan(&mut tracker).unwrap();
    assert!(!files(&repo, second.tree).contains(&"debug.log".to_owned()));
    assert_eq!(second.tree, repo.snapshot().unwrap().tree);
    // Someone else commits: HEAD moves, the next scan looks at everything.
    std::fs::write(f.path.join("a.txt"), "committed elsewhere\n").unwrap();
    git(&f.path, &["commit", "-q", "-am", "elsewhere"]);
    let third = repo.scan(&mut tracker).unwrap();
    assert_eq!(third.tree, repo.snapshot().unwrap().tree);
    assert_eq!(third.head, repo.head().unwrap().commit);
}

/// What a run's scans give over a step that changes a tracked file and
/// makes ignored build output: the first and second snapshots' trees, the
/// ignored files kept, and how many scans were incremental.
fn scans_over_a_step(trusting: bool) -> (Vec<String>, Vec<String>, Vec<String>, usize) {
    let f = fixture();
    let repo = open(&f.path);
    let head = repo.head().unwrap().commit.unwrap();
    std::fs::write(f.path.join("old.log"), "ignored, from before\n").unwrap();
    std::fs::write(f.path.join(".gitignore"), "ignored/\n*.log\n").unwrap();
    git(&f.path, &["commit", "-q", "-am", "ignore logs"]);
    let head_now = repo.head().unwrap().commit.unwrap();
    assert_ne!(head, head_now);
    std::fs::remove_file(f.path.join("old.log")).unwrap();
    let mut tracker = match trusting {
        true => Tracker::trusting_clean(Some(head_now)),
        false => Tracker::default(),
    };
    let bound = IgnoredBound {
        bytes: 1 << 20,
        files: 10,
    };
    let first = repo.scan(&mut tracker).unwrap();
    let _ = repo.ignored_files(bound, &mut tracker).unwrap();
    std::fs::write(f.path.join("a.txt"), "changed\n").unwrap();
    std::fs::write(f.path.join("build.log"), "built\n").unwrap();
    std::fs::create_dir_all(f.path.join("ignored")).unwrap();
    std::fs::write(f.path.join("ignored/out"), "built\n").unwrap();
    let second = repo.scan(&mut tracker).unwrap();
    assert_eq!(second.tree, repo.snapshot().unwrap().tree);
    let ignored = repo.ignored_files(bound, &mut tracker).unwrap();
    (
        files(&repo, first.tree),
        files(&repo, second.tree),
        files(&repo, ignored.tree),
        tracker.incremental_scans,
    )
}

#[test]
fn a_worktree_trusted_clean_is_not_looked_at_but_its_changes_are_seen() {
    let f = fixture();
    let repo = open(&f.path);
    let head = repo.head().unwrap().commit.unwrap();
    // Trusted only at HEAD: at another commit, the first scan looks at
    // everything and sees the untracked file.
    std::fs::write(f.path.join("before.txt"), "was here first\n").unwrap();
    let mut elsewhere = Tracker::trusting_clean(Some(repo.commit_tree(head).unwrap()));
    let seen = repo.scan(&mut elsewhere).unwrap();
    assert!(files(&repo, seen.tree).contains(&"before.txt".to_owned()));
    // At HEAD, a clean worktree's scans give what looking at everything
    // gives, the first one without looking.
    let trusted = scans_over_a_step(true);
    assert_eq!(trusted, scans_over_a_step(false));
    assert!(trusted.1.contains(&"a.txt".to_owned()), "{trusted:?}");
    assert_eq!(trusted.2, ["build.log"]);
    #[cfg(target_os = "linux")]
    assert_eq!(trusted.3, 1);
}

#[test]
fn an_index_rewritten_within_one_tick_of_the_clock_is_read_as_it_is() {
    let fx = fixture();
    let repo = open(&fx.path);
    let index_path = fx.path.join(".git/index");
    let head_tree = repo.commit_tree(repo.head().unwrap().commit.unwrap()).unwrap();
    // gix's shared index is read once...
    assert_eq!(repo.index_tree().unwrap(), Some(head_tree));
    let _ = repo.inner.index_or_empty().unwrap();
    let before = std::fs::metadata(&index_path).unwrap().modified().unwrap();
    // ...then the index is rewritten (a file staged) and, as happens when two
    // writes fall within one tick of the kernel's clock, keeps its time.
    std::fs::write(fx.path.join("a.txt"), "changed\n").unwrap();
    git(&fx.path, &["add", "a.txt"]);
    std::fs::File::options()
        .write(true)
        .open(&index_path)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let staged = repo.index_tree().unwrap().unwrap();
    assert_ne!(staged, head_tree, "the staged change is seen");
    assert_eq!(repo.read_path(staged, "a.txt").unwrap().unwrap(), b"changed\n");
    // A status and the stat refresh it writes back keep the staged change.
    let _ = repo.snapshot().unwrap();
    assert_eq!(git(&fx.path, &["diff", "--cached", "--name-only"]), "a.txt\n");
}
