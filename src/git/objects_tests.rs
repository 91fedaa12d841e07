//! Objects and trees against the real `git`: state trees hold subtrees, tree
//! edits check what they bring in, held objects are one pack git reads, packs
//! git adds under us are found past 32, a tree's links are read by path.

use super::testing::{fixture, git, open};
use super::*;

#[test]
fn state_trees_hold_subtrees() {
    let f = fixture();
    let repo = open(&f.path);
    let snapshot = repo.snapshot().unwrap();
    let blob = repo.write_blob("{}").unwrap();
    let tree = repo
        .edit_tree(
            None,
            &[
                TreeEdit::Blob {
                    path: "progress.json".into(),
                    id: blob,
                    executable: false,
                },
                TreeEdit::Tree {
                    path: "steps/1/snapshot".into(),
                    id: snapshot.tree,
                },
            ],
        )
        .unwrap();
    assert_eq!(
        repo.tree_entry(tree, "steps/1/snapshot").unwrap().unwrap().0,
        snapshot.tree
    );
    assert_eq!(repo.read_path(tree, "steps/1/snapshot/a.txt").unwrap().unwrap(), b"a\n");
    let commit = repo.write_commit(tree, &[], "state").unwrap();
    repo.update_ref("refs/ultraplan/x/run", commit, Expect::Absent, "state")
        .unwrap();
    git(&f.path, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn tree_edits_check_what_they_bring_in_and_keep_the_rest() {
    let f = fixture();
    let repo = open(&f.path);
    let blob = repo.write_blob("x").unwrap();
    let put = |path: &str, id: Oid| TreeEdit::Blob {
        path: path.into(),
        id,
        executable: false,
    };
    let base = repo.edit_tree(None, &[put("keep/a.txt", blob)]).unwrap();
    for (path, id, why) in [
        (".git/hooks/pre-push", blob, "not a valid name"),
        ("keep/.GIT", blob, "not a valid name"),
        ("keep/b/../c", blob, "not a valid name"),
        ("keep/b.txt", Oid::null(gix::hash::Kind::Sha1), "does not exist"),
    ] {
        let err = repo.edit_tree(Some(base), &[put(path, id)]).unwrap_err();
        assert!(format!("{err:#}").contains(why), "{path}: {err:#}");
    }
    let tree = repo
        .edit_tree(
            Some(base),
            &[
                put("keep/b.txt", blob),
                TreeEdit::Remove {
                    path: "nothing/there".into(),
                },
            ],
        )
        .unwrap();
    let files: Vec<String> = repo.tree_files(tree).unwrap().into_iter().map(|(p, ..)| p).collect();
    assert_eq!(files, ["keep/a.txt", "keep/b.txt"]);
    let commit = repo.write_commit(tree, &[], "edited").unwrap();
    repo.update_ref("refs/heads/edited", commit, Expect::Absent, "edited")
        .unwrap();
    git(&f.path, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn held_objects_are_one_pack_git_reads_before_a_reference_points_at_them() {
    let f = fixture();
    let repo = open(&f.path);
    let head = repo.head().unwrap().commit.unwrap();
    let holding = repo.holding_objects();
    // A large blob (an entry size of several bytes), a small one, a tree and a commit.
    let large: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let blob = holding.write_blob(&large).unwrap();
    let small = holding.write_blob("small\n").unwrap();
    let tree = holding
        .build_tree(
            repo.commit_tree(head).unwrap(),
            &[
                (
                    "big.txt".into(),
                    Some(Entry {
                        id: blob,
                        kind: EntryKind::Blob,
                    }),
                ),
                (
                    "dir/small.txt".into(),
                    Some(Entry {
                        id: small,
                        kind: EntryKind::Blob,
                    }),
                ),
            ],
        )
        .unwrap();
    let commit = holding.write_commit(tree, &[head], "held\n").unwrap();
    // Only this handle sees them, and nothing is on disk yet.
    assert_eq!(holding.commit_tree(commit).unwrap(), tree);
    assert!(!repo.has_object(commit));
    let packs = |ext: &str| {
        std::fs::read_dir(f.path.join(".git/objects/pack"))
            .map(|d| {
                d.filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == ext))
                    .count()
            })
            .unwrap_or(0)
    };
    assert_eq!(packs("pack"), 0);
    holding
        .update_ref("refs/heads/held", commit, Expect::Absent, "test")
        .unwrap();
    assert_eq!((packs("pack"), packs("idx")), (1, 1));
    assert_eq!(git(&f.path, &["cat-file", "-p", "held:big.txt"]), large);
    assert_eq!(git(&f.path, &["cat-file", "-p", "held:dir/small.txt"]), "small\n");
    assert_eq!(git(&f.path, &["log", "-1", "--format=%s", "held"]), "held\n");
    git(&f.path, &["fsck", "--full", "--strict"]);
    let listed = git(
        &f.path,
        &["verify-pack", "-v", &glob_one(&f.path.join(".git/objects/pack"), "idx")],
    );
    assert!(listed.contains(&commit.to_string()), "{listed}");
    // Nothing is held any more; the next write is held again, and written once.
    holding.write_held_objects().unwrap();
    assert_eq!(packs("pack"), 1);
    let later = holding.write_blob("later\n").unwrap();
    assert!(!repo.has_object(later));
    holding.write_held_objects().unwrap();
    assert_eq!(git(&f.path, &["cat-file", "-p", &later.to_string()]), "later\n");
    assert_eq!(packs("pack"), 2);
}

fn glob_one(dir: &std::path::Path, ext: &str) -> String {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == ext))
        .unwrap()
        .display()
        .to_string()
}

/// git adds packs under a long run (`git gc --auto` writes one each time
/// loose objects pile up): past gix's default 32 index slots every lookup in
/// a new pack failed, and a run took its own checkpoint for a missing commit.
#[test]
fn objects_in_packs_git_adds_under_us_are_found_past_32_packs() {
    let f = fixture();
    let repo = open(&f.path);
    let mut older = Vec::new();
    for n in 0..60 {
        let blob = repo.write_blob(format!("pack {n}")).unwrap();
        repo.update_ref(&format!("refs/ultraplan/x/p{n}"), blob, Expect::Absent, "keep")
            .unwrap();
        git(&f.path, &["repack", "-dq"]);
        assert_eq!(repo.read_blob(blob).unwrap(), format!("pack {n}").as_bytes());
        older.push(blob);
    }
    let blob = repo.write_blob("loose, then packed by git").unwrap();
    repo.update_ref("refs/ultraplan/x/keep", blob, Expect::Absent, "keep")
        .unwrap();
    assert!(repo.has_object(blob));
    git(
        &f.path,
        &[
            "-c",
            "gc.autoDetach=false",
            "-c",
            "gc.autoPackLimit=1",
            "gc",
            "--auto",
            "--quiet",
        ],
    );
    let packs = std::fs::read_dir(f.path.join(".git/objects/pack")).unwrap().count();
    assert!(
        repo.has_object(blob),
        "a packed object is not seen ({packs} pack files)"
    );
    for b in older {
        assert!(
            repo.has_object(b),
            "an object of a deleted pack is not seen in the new one"
        );
    }
}

#[test]
fn a_trees_links_are_read_from_its_trees_by_path() {
    let f = fixture();
    let repo = open(&f.path);
    let (file, out, up) = (
        repo.write_blob("text").unwrap(),
        repo.write_blob("../elsewhere").unwrap(),
        repo.write_blob("/etc").unwrap(),
    );
    let blob = |path: &str| TreeEdit::Blob {
        path: path.into(),
        id: file,
        executable: false,
    };
    let link = |path: &str, id| TreeEdit::Link { path: path.into(), id };
    let tree = repo
        .edit_tree(
            None,
            &[
                blob("a.txt"),
                link("z", up),
                blob("d/b.txt"),
                link("d/out", out),
                link("d/e/deep", up),
                blob("d/e/f.txt"),
            ],
        )
        .unwrap();
    let links = repo.tree_links(tree).unwrap();
    assert_eq!(
        links,
        [
            ("d/e/deep".to_owned(), up),
            ("d/out".to_owned(), out),
            ("z".to_owned(), up)
        ]
    );
    let listed: Vec<(String, Oid)> = repo
        .tree_files(tree)
        .unwrap()
        .into_iter()
        .filter(|(_, _, kind)| *kind == EntryKind::Link)
        .map(|(path, id, _)| (path, id))
        .collect();
    assert_eq!(links, listed);
}
