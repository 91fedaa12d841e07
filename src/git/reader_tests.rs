//! The loose-object reader against gix, on loose, large and packed
//! objects (`objects::loose`).

use super::testing::{fixture, git, open};
use super::{EntryKind, Repo, TreeEdit};

/// The reader reads what gix reads: loose objects itself, and a large
/// blob, a packed object or a missing path as gix does.
#[test]
fn reads_what_gix_reads_loose_large_or_packed() {
    let f = fixture();
    let repo = open(&f.path);
    let small = repo.write_blob("{\"1\":{}}\n").unwrap();
    let large: String = (0..40_000).map(|i| format!("{i:x}")).collect();
    let large_id = repo.write_blob(&large).unwrap();
    let edits = [
        TreeEdit::Blob {
            path: "steps/0/steps.json".into(),
            id: small,
            executable: false,
        },
        TreeEdit::Blob {
            path: "steps/0/large.txt".into(),
            id: large_id,
            executable: false,
        },
    ];
    let tree = repo.edit_tree(None, &edits).unwrap();
    let check = |repo: &Repo| {
        let mut reader = repo.object_reader();
        for path in [
            "steps/0/steps.json",
            "steps/0/large.txt",
            "steps/0/none",
            "steps/0/steps.json/x",
        ] {
            assert_eq!(
                reader.read_path(tree, path).unwrap(),
                repo.read_path(tree, path).unwrap(),
                "{path}"
            );
        }
        assert_eq!(
            reader.tree_entry(tree, "steps").unwrap(),
            repo.tree_entry(tree, "steps").unwrap()
        );
        let (steps, kind) = reader.tree_entry(tree, "steps/0").unwrap().unwrap();
        assert_eq!(kind, EntryKind::Tree);
        assert_eq!(reader.list_tree(steps).unwrap(), repo.list_tree(steps).unwrap());
        // A blob asked for as a tree is refused, as gix refuses it.
        assert!(reader.list_tree(small).is_err());
    };
    check(&repo);
    let commit = repo.write_commit(tree, &[], "state").unwrap();
    git(&f.path, &["update-ref", "refs/ultraplan/x/run", &commit.to_string()]);
    git(&f.path, &["repack", "-adq"]);
    git(&f.path, &["prune-packed"]);
    check(&open(&f.path));
}
