//! Nothing is trusted from a remote (issue 36, items 9-11): `sync` checks
//! every reference, record and note it fetched before it merges any, refuses
//! what is not what its name says — naming it, keeping ours, exit 1 — and
//! reads every note through the one bounded YAML reader. Each remote here is
//! made hostile in the test, with plain git from another clone.

use std::path::Path;

use crate::harness::shared::Shared;
use crate::harness::support::*;

/// A blob holding `text`, written into `repo`'s object database.
fn blob(s: &Shared, repo: &Path, text: &str) -> String {
    let file = s.env.root().join("blob.txt");
    write(&file, text);
    s.env
        .git(repo, &["hash-object", "-w", file.to_str().unwrap()])
        .trim()
        .to_owned()
}

/// Pushes `files` (path, contents) as the remote's outcomes chain: one
/// orphan commit, made with plain git.
fn push_outcomes(s: &Shared, files: &[(&str, &str)]) {
    let dir = s.env.root().join("forge");
    let _ = std::fs::remove_dir_all(&dir);
    s.env.git(s.env.root(), &["init", "-q", dir.to_str().unwrap()]);
    for (path, text) in files {
        write(&dir.join(path), text);
    }
    s.env.git(&dir, &["add", "-A"]);
    s.env.git(&dir, &["commit", "-q", "-m", "outcomes"]);
    s.env.git(
        &dir,
        &[
            "push",
            "-q",
            "-f",
            s.remote.to_str().unwrap(),
            "HEAD:refs/ultraplan-shared/outcomes",
        ],
    );
}

#[test]
fn a_remote_notes_reference_that_is_a_blob_is_refused_and_ours_are_kept() {
    let s = Shared::new();
    s.run_plan(&s.a);
    let _ = s.env.run(&s.a, &["ultraplan", "sync", "--setup"]).expect_code(0);
    // Another clone points the remote's notes at a blob.
    let id = blob(&s, &s.b, "not a notes tree\n");
    s.env.git(
        &s.b,
        &["push", "-q", "-f", "origin", &format!("{id}:refs/notes/ultraplan")],
    );
    let notes_before = s.rev(&s.a, "refs/notes/ultraplan");

    let out = s.sync(&s.a).expect_code(1);
    assert!(
        out.stderr.contains(
            "error: 'refs/notes/ultraplan' on 'origin' is refused: it points at a blob, not a commit; ours is kept"
        ),
        "{out}"
    );
    assert!(out.stdout.contains("notes: refused (ours are kept)"), "{out}");
    assert_eq!(s.rev(&s.a, "refs/notes/ultraplan"), notes_before);
    // No copy of it is left where notes.displayRef would make git read it.
    let copies = s.env.git(&s.a, &["for-each-ref", "refs/notes/remotes/"]);
    assert!(!copies.contains(&id), "{copies}");
    let log = s.env.run(&s.a, &["log", "-1"]).expect_code(0);
    assert!(log.stdout.contains("Notes (ultraplan)"), "{log}");
    // Plain git, set up by --setup, fetches it again; the next sync says so
    // again and puts git log right again.
    s.env.git(&s.a, &["fetch", "-q", "origin"]);
    let _ = s.sync(&s.a).expect_code(1);
    let _ = s.env.run(&s.a, &["log", "-1"]).expect_code(0);
    // The states still travelled.
    assert_eq!(
        s.rev(&s.remote, "refs/ultraplan/plan/run"),
        s.rev(&s.a, "refs/ultraplan/plan/run")
    );
}

#[test]
fn outcome_records_that_are_not_records_are_refused_before_anything_is_merged() {
    let s = Shared::new();
    let _ = s
        .env
        .run(
            &s.a,
            &[
                "ultraplan",
                "outcome",
                "log",
                "--agent",
                "ci",
                "--task",
                "ours",
                "--success",
            ],
        )
        .expect_code(0);
    let ours_before = s.rev(&s.a, "refs/ultraplan-outcomes");
    let record = s
        .env
        .git(&s.a, &["ls-tree", "-r", "--name-only", "refs/ultraplan-outcomes"]);
    let record = record.lines().find(|l| l.starts_with("outcomes/")).unwrap().to_owned();
    let text = s.env.git(&s.a, &["show", &format!("refs/ultraplan-outcomes:{record}")]);
    let id = record.rsplit('/').next().unwrap().trim_end_matches(".yaml");
    // A remote whose chain holds a record under a path no store writes, one
    // whose id is not its name, and a file that is no record at all.
    push_outcomes(
        &s,
        &[
            ("outcomes/..x/outcome_..x_12345678.yaml", text.as_str()),
            ("outcomes/ci/outcome_ci_0badf00d.yaml", text.as_str()),
            ("outcomes/ci/notes.txt", "hello\n"),
        ],
    );
    let remote_before = s.rev(&s.remote, "refs/ultraplan-shared/outcomes");

    let out = s.sync(&s.a).expect_code(1);
    for expected in [
        "error: outcome file 'outcomes/..x/outcome_..x_12345678.yaml' from 'origin' is refused: the agent name '..x' cannot start with '.', hold '..' or end in '.lock'",
        &format!("error: outcome file 'outcomes/ci/outcome_ci_0badf00d.yaml' from 'origin' is refused: it holds outcome '{id}', not the one its name says ('outcome_ci_0badf00d')"),
        "error: outcome file 'outcomes/ci/notes.txt' from 'origin' is refused: it is not a .yaml file",
        "hint: nothing was taken from 'origin''s outcomes",
    ] {
        assert!(out.stderr.contains(expected), "{expected}\n{out}");
    }
    // Nothing taken, nothing spread: ours as it was, the remote's as it was.
    assert_eq!(s.rev(&s.a, "refs/ultraplan-outcomes"), ours_before);
    assert_eq!(s.rev(&s.remote, "refs/ultraplan-shared/outcomes"), remote_before);
    let _ = s.env.run(&s.a, &["ultraplan", "outcome", "list"]).expect_code(0);
    let _ = s
        .env
        .run(&s.a, &["ultraplan", "outcome", "search", "ours"])
        .expect_code(0);
    let json = s.env.run(&s.a, &["ultraplan", "sync", "--json"]).expect_code(1).json();
    assert_eq!(json["outcomes_refused"].as_array().map(Vec::len), Some(3), "{json}");
}

#[test]
fn a_history_that_drops_our_records_is_refused() {
    let s = Shared::new();
    let _ = s
        .env
        .run(
            &s.a,
            &[
                "ultraplan",
                "outcome",
                "log",
                "--agent",
                "ci",
                "--task",
                "ours",
                "--success",
            ],
        )
        .expect_code(0);
    let _ = s.sync(&s.a).expect_code(0);
    // Another clone continues the chain with a commit that removes it all.
    s.env.git(
        &s.b,
        &["fetch", "-q", "origin", "refs/ultraplan-shared/outcomes:refs/theirs"],
    );
    let empty = s.env.git(&s.b, &["hash-object", "-t", "tree", "/dev/null"]);
    let emptied = s.env.git(
        &s.b,
        &[
            "commit-tree",
            empty.trim(),
            "-p",
            "refs/theirs",
            "-m",
            "drop everything",
        ],
    );
    s.env.git(
        &s.b,
        &[
            "push",
            "-q",
            "origin",
            &format!("{}:refs/ultraplan-shared/outcomes", emptied.trim()),
        ],
    );
    let ours_before = s.rev(&s.a, "refs/ultraplan-outcomes");
    let out = s.sync(&s.a).expect_code(1);
    assert!(
        out.stderr.contains("their history removes this record of ours"),
        "{out}"
    );
    assert_eq!(s.rev(&s.a, "refs/ultraplan-outcomes"), ours_before);
}

#[test]
fn notes_nested_deeper_than_the_limit_are_refused_by_sync_and_by_the_gate() {
    let s = Shared::new();
    s.run_plan(&s.a);
    let _ = s.sync(&s.a).expect_code(0);
    // 100,000 levels: quadratic for the YAML parser (8 s in a debug build).
    s.env.git(
        &s.b,
        &["fetch", "-q", "origin", "refs/notes/ultraplan:refs/notes/ultraplan"],
    );
    let first = s.rev(&s.b, "HEAD");
    let deep = "[".repeat(100_000) + "\n";
    let file = s.env.root().join("deep.yaml");
    write(&file, &deep);
    s.env.git(
        &s.b,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-f",
            "-F",
            file.to_str().unwrap(),
            &first,
        ],
    );
    s.env.git(&s.b, &["push", "-q", "origin", "refs/notes/ultraplan"]);
    let out = s.sync(&s.a).expect_code(1);
    assert!(
        out.stderr.contains(&format!(
            "error: skipped the note on {first} from 'origin': the note is not YAML: YAML nested more than 64 levels deep (the limit) at line 1"
        )),
        "{out}"
    );
    // The gate reads a pushed checkpoint's note the same way: 50,000 levels
    // of flow brackets refuse the push at once.
    let _ = s.env.run(&s.b, &["ultraplan", "hook", "install"]).expect_code(0);
    s.env.git(&s.b, &["commit", "-q", "--allow-empty", "-m", "new"]);
    let head = s.rev(&s.b, "HEAD");
    write(&file, &("[".repeat(50_000) + "\n"));
    s.env.git(
        &s.b,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-f",
            "-F",
            file.to_str().unwrap(),
            &head,
        ],
    );
    let out = s.env.run(&s.b, &["push", "origin", "main"]);
    assert_ne!(out.code, 0, "{out}");
    assert!(out.stderr.contains("nested more than 64 levels deep"), "{out}");
}
