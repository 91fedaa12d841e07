//! Tests of `line_history`: blame at the base, for the lines hunks touch,
//! on a tiny repository made with the real `git`.

use super::*;
use crate::git::testing::{fixture, git, open};

/// `lines` as a file's text, one line each.
fn text(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn each_hunk_is_read_back_to_the_commits_that_wrote_its_lines() {
    let f = fixture();
    let p = &f.path;
    let mut lines = vec!["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    let commit = |lines: &[&str], message: &str| {
        std::fs::write(p.join("m.txt"), text(lines)).unwrap();
        git(p, &["commit", "-qam", message]);
        git(p, &["rev-parse", "HEAD"]).trim().to_owned()
    };
    std::fs::write(p.join("m.txt"), text(&lines)).unwrap();
    git(p, &["add", "m.txt"]);
    commit(&lines, "x");
    lines[2] = "c2";
    let _y = commit(&lines, "y");
    lines[7] = "h2";
    std::fs::write(p.join("other.txt"), "o\n").unwrap();
    git(p, &["add", "other.txt"]);
    let _z = commit(&lines, "z");
    // The branch: edits line 3 (y's), line 5 (x's), line 8 (z's), and
    // inserts after the last line (x's `i`, `j` and z's `h2` around it).
    lines[2] = "c3";
    lines[4] = "e3";
    lines[7] = "h3";
    lines.push("k");
    let tip = commit(&lines, "branch");
    let repo = open(p);
    let base = repo.rev_parse("HEAD~1").unwrap();
    let changes = ChangeSet::analyse(&repo, base, repo.rev_parse(&tip).unwrap()).unwrap();
    assert_eq!(changes.items.len(), 4, "four hunks");
    let history = read(&repo, &changes, 10).unwrap();
    // Commits met, newest first: z, y, x.
    assert_eq!(history.commits, 3);
    let (z, y, x) = (0, 1, 2);
    assert_eq!(history.items[0], [y]);
    assert_eq!(history.items[1], [x]);
    assert_eq!(history.items[2], [z]);
    // The insertion at the end: `h2`, `i`, `j` before it, nothing after.
    assert_eq!(history.items[3], [z, x]);
    // Hunks of one past commit have a writer in common; of different
    // ones, not.
    assert_eq!(history.in_common(&[1], &[3]), Some(true));
    assert_eq!(history.in_common(&[2], &[3]), Some(true));
    assert_eq!(history.in_common(&[0], &[1]), Some(false));
    // Read no further than the limit: x's lines are unknown.
    let near = read(&repo, &changes, 2).unwrap();
    assert!(near.items[1].is_empty());
    assert_eq!(near.in_common(&[1], &[0]), None);
    assert_eq!(read(&repo, &changes, 0).unwrap().items[0], Vec::<u32>::new());
}

#[test]
fn a_file_created_in_a_commit_was_written_there() {
    let f = fixture();
    let p = &f.path;
    std::fs::write(p.join("n.txt"), text(&["1", "2", "3"])).unwrap();
    git(p, &["add", "n.txt"]);
    git(p, &["commit", "-qm", "add n"]);
    std::fs::write(p.join("n.txt"), text(&["1", "two", "3"])).unwrap();
    git(p, &["commit", "-qam", "edit n"]);
    let repo = open(p);
    let (base, tip) = (repo.rev_parse("HEAD~1").unwrap(), repo.rev_parse("HEAD").unwrap());
    let changes = ChangeSet::analyse(&repo, base, tip).unwrap();
    let history = read(&repo, &changes, 100).unwrap();
    // `add n` (one file), then the fixture's root commit ends the walk.
    assert_eq!(history.commits, 1);
    assert_eq!(history.items[0], [0]);
}
