//! The first scan taken ahead is the one a run's first scan returns only
//! when nothing it read changed since; whatever changed, the first scan
//! returns what looking at everything again returns.

use std::path::Path;

use super::*;
use crate::git::testing::{files, fixture, git, open};

const BOUND: IgnoredBound = IgnoredBound {
    bytes: 1 << 20,
    files: 10,
};

/// A worktree with a change of each kind: modified, untracked (at the top
/// and in a folder), ignored (a file, and one in an ignored folder).
fn dirty(root: &Path) {
    std::fs::write(root.join("a.txt"), "changed\n").unwrap();
    std::fs::write(root.join("new.txt"), "new\n").unwrap();
    std::fs::write(root.join("src/new.rs"), "new\n").unwrap();
    std::fs::write(root.join(".gitignore"), "ignored/\n*.log\n").unwrap();
    std::fs::write(root.join("build.log"), "built\n").unwrap();
    std::fs::create_dir(root.join("ignored")).unwrap();
    std::fs::write(root.join("ignored/x"), "x\n").unwrap();
}

/// The first scan of a run whose scan was taken ahead, after `meanwhile`
/// changed something once the scan ahead was over: whether it took the
/// scan ahead, and that it agrees with looking at everything afresh (the
/// snapshot and the ignored files).
fn first_scan_after(meanwhile: impl FnOnce(&Path)) -> bool {
    let f = fixture();
    dirty(&f.path);
    let repo = open(&f.path);
    let ahead = repo.scan_ahead().unwrap();
    while !ahead.is_finished() {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    meanwhile(&f.path);
    let mut tracker = Tracker::ahead(Some(ahead));
    let first = repo.scan(&mut tracker).unwrap();
    let ignored = repo.ignored_files(BOUND, &mut tracker).unwrap();
    let fresh = open(&f.path);
    let mut afresh = Tracker::default();
    assert_eq!(
        files(&repo, first.tree),
        files(&fresh, fresh.scan(&mut afresh).unwrap().tree)
    );
    let fresh_ignored = fresh.ignored_files(BOUND, &mut afresh).unwrap();
    assert_eq!(files(&repo, ignored.tree), files(&fresh, fresh_ignored.tree));
    assert_eq!(ignored.dirs, fresh_ignored.dirs);
    assert_eq!(first.head, repo.head().unwrap().commit);
    assert_eq!(repo.index_tree().unwrap(), fresh.index_tree().unwrap());
    tracker.taken_ahead
}

#[test]
fn a_scan_taken_ahead_is_the_first_scan_when_nothing_changed() {
    let taken = first_scan_after(|_| {});
    #[cfg(target_os = "linux")]
    assert!(taken);
    let _ = taken;
}

#[test]
fn a_scan_taken_ahead_is_not_taken_when_the_worktree_changed() {
    // A tracked file, an untracked one in a folder, a new folder.
    assert!(!first_scan_after(
        |root| std::fs::write(root.join("a.txt"), "again\n").unwrap()
    ));
    assert!(!first_scan_after(|root| std::fs::write(
        root.join("src/more.rs"),
        "more\n"
    )
    .unwrap()));
    assert!(!first_scan_after(
        |root| std::fs::create_dir_all(root.join("d/e")).unwrap()
    ));
    // An ignored file: not in the snapshot, but in the ignored files kept.
    assert!(!first_scan_after(|root| std::fs::write(
        root.join("more.log"),
        "more\n"
    )
    .unwrap()));
    // The same size and modification time: only the watches can tell.
    assert!(!first_scan_after(|root| {
        let path = root.join("src/lib.rs");
        let time = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::write(&path, "LIB\n").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(time)
            .unwrap();
    }));
}

#[test]
fn a_scan_taken_ahead_is_not_taken_when_git_changed_what_counts() {
    // The index: a file in an ignored folder staged (no event in the
    // worktree: the folder is not watched), and one unstaged.
    assert!(!first_scan_after(|root| {
        git(root, &["add", "-f", "ignored/x"]);
    }));
    assert!(!first_scan_after(|root| {
        git(root, &["rm", "-q", "--cached", "src/lib.rs"]);
    }));
    // HEAD moved by a commit made elsewhere.
    assert!(!first_scan_after(|root| {
        git(root, &["commit", "-q", "--allow-empty", "-m", "elsewhere"]);
    }));
    // The repository's own ignore rules.
    assert!(!first_scan_after(|root| {
        std::fs::create_dir_all(root.join(".git/info")).unwrap();
        std::fs::write(root.join(".git/info/exclude"), "new.txt\n").unwrap();
    }));
}
