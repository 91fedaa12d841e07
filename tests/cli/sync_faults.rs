//! `git ultraplan sync` when something is wrong: a remote that refuses
//! pushes, does not exist or cannot be reached, holds a note that is not YAML
//! or references that are not ours; a shallow clone; and a dry run. Each says
//! what happened and leaves local state as it was.

use crate::shared::{note_yaml, Shared};
use crate::support::*;

#[test]
fn a_read_only_remote_is_reported_and_nothing_is_half_done() {
    let s = Shared::new();
    s.run_plan(&s.a);
    write(
        &s.remote.join("hooks/pre-receive"),
        "#!/bin/sh\necho 'this remote is read-only' >&2\nexit 1\n",
    );
    std::process::Command::new("chmod")
        .args(["+x", s.remote.join("hooks/pre-receive").to_str().unwrap()])
        .status()
        .unwrap();
    let before = s.refs(&s.a);
    let out = s.sync(&s.a).expect_code(1);
    assert!(out.stderr.contains("error: 'origin' refused the push"), "{out}");
    assert!(out.stderr.contains("this remote is read-only"), "{out}");
    assert!(!out.stderr.contains("retried"), "{out}");
    // Nothing of ours moved; the remote got nothing.
    assert_eq!(s.refs(&s.a), before);
    let remote_refs = s.refs(&s.remote);
    assert!(!remote_refs.contains("refs/notes/ultraplan"), "{remote_refs}");
    assert!(!remote_refs.contains("refs/ultraplan/"), "{remote_refs}");
}

#[test]
fn dry_run_writes_nothing() {
    let s = Shared::new();
    s.run_plan(&s.a);
    s.env.git(&s.a, &["push", "-q", "origin", "main"]);
    let remote_before = s.refs(&s.remote);
    let local_before = s.refs(&s.a);
    let out = s.env.run(&s.a, &["ultraplan", "sync", "--dry-run"]).expect_code(0);
    assert!(out.stdout.contains("(dry run)"), "{out}");
    assert!(out.stdout.contains("refs/notes/ultraplan"), "{out}");
    assert_eq!(s.refs(&s.remote), remote_before);
    assert_eq!(s.refs(&s.a), local_before);
    let json = s
        .env
        .run(&s.a, &["ultraplan", "sync", "--dry-run", "--json"])
        .expect_code(0)
        .json();
    assert_eq!(json["dry_run"], true);
    assert_eq!(json["pushed"][0], "refs/notes/ultraplan");
    // Named as a real push names them: the outcomes by their remote name.
    let pushed = json["pushed"].to_string();
    assert!(
        pushed.contains("refs/ultraplan-shared/outcomes") && !pushed.contains("refs/ultraplan-outcomes"),
        "{pushed}"
    );
    // B has not got A's notes: a dry run there cannot tell how they relate.
    let _ = s.sync(&s.a).expect_code(0);
    let before = s.refs(&s.b);
    let out = s.env.run(&s.b, &["ultraplan", "sync", "--dry-run"]).expect_code(0);
    assert!(out.stdout.contains("notes: not here yet"), "{out}");
    assert!(
        out.stdout
            .contains("fetched: refs/notes/ultraplan, refs/ultraplan-shared/outcomes, refs/ultraplan/plan/run"),
        "{out}"
    );
    assert_eq!(s.refs(&s.b), before);
}

#[test]
fn remotes_that_do_not_exist_or_cannot_be_reached_are_fatal() {
    let s = Shared::new();
    s.run_plan(&s.a);
    let before = s.refs(&s.a);
    let out = s.env.run(&s.a, &["ultraplan", "sync", "nowhere"]).expect_code(128);
    assert!(
        out.stderr
            .contains("fatal: 'nowhere' is not a remote of this repository"),
        "{out}"
    );
    assert!(out.stderr.contains("hint: 'git remote -v' lists the remotes"), "{out}");
    s.env.git(
        &s.a,
        &[
            "remote",
            "add",
            "gone",
            s.env.root().join("no-such-repo").to_str().unwrap(),
        ],
    );
    let out = s.env.run(&s.a, &["ultraplan", "sync", "gone"]).expect_code(128);
    assert!(out.stderr.starts_with("fatal: cannot reach 'gone': "), "{out}");
    let after = s.refs(&s.a);
    assert_eq!(after, before);
}

#[test]
fn a_note_on_the_remote_that_is_not_yaml_is_named_and_skipped() {
    let s = Shared::new();
    s.run_plan(&s.a);
    let _ = s.sync(&s.a).expect_code(0);
    // Another clone writes a broken note and pushes it with plain git.
    let first = s.rev(&s.b, "HEAD");
    s.env.git(
        &s.b,
        &["notes", "--ref=ultraplan", "add", "-m", "key: [unclosed", &first],
    );
    s.env.git(
        &s.b,
        &["fetch", "-q", "origin", "refs/notes/ultraplan:refs/notes/theirs"],
    );
    s.env
        .git(&s.b, &["notes", "--ref=ultraplan", "merge", "-q", "refs/notes/theirs"]);
    s.env.git(&s.b, &["push", "-q", "origin", "refs/notes/ultraplan"]);

    s.env.git(&s.a, &["commit", "-q", "--allow-empty", "-m", "more"]);
    let head = s.rev(&s.a, "HEAD");
    s.env.git(
        &s.a,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-m",
            &note_yaml("2026-01-03T00:00:00Z", "VALID", "success"),
            &head,
        ],
    );
    let notes_before = s.rev(&s.a, "refs/notes/ultraplan");
    let out = s.sync(&s.a).expect_code(1);
    let short = &first[..7];
    assert!(
        out.stderr.contains(&format!("error: skipped the note on {first}")) || out.stderr.contains(short),
        "{out}"
    );
    assert!(out.stderr.contains("from 'origin': the note is not YAML"), "{out}");
    assert!(out.stderr.contains("hint: the other notes were taken"), "{out}");
    // Nothing else of theirs was new: ours stay as they were, not pushed.
    assert_eq!(s.rev(&s.a, "refs/notes/ultraplan"), notes_before);
}

#[test]
fn references_under_refs_ultraplan_that_are_not_ours_are_left_alone() {
    let s = Shared::new();
    let head = s.rev(&s.b, "HEAD");
    // A plain commit where a run state would be, and a stray name.
    s.env.git(
        &s.b,
        &[
            "push",
            "-q",
            "origin",
            &format!("{head}:refs/ultraplan/x/run"),
            &format!("{head}:refs/ultraplan/stray"),
        ],
    );
    s.run_plan(&s.a);
    let out = s.sync(&s.a).expect_code(0);
    assert!(
        out.stderr
            .contains("warning: 'refs/ultraplan/stray' on 'origin' is not a git-ultraplan run state; left alone"),
        "{out}"
    );
    assert!(
        out.stderr
            .contains("warning: 'refs/ultraplan/x/run' on 'origin' is not a git-ultraplan run state"),
        "{out}"
    );
    let refs = s.refs(&s.a);
    assert!(!refs.contains("refs/ultraplan/x/"), "{refs}");
    assert!(!refs.contains("stray"), "{refs}");
    assert!(!refs.contains("lock"), "{refs}");
    assert!(refs.contains("refs/ultraplan/plan/run"), "{refs}");
    let _ = s.env.run(&s.a, &["ultraplan", "status"]).expect_code(0);
}

#[test]
fn a_shallow_clone_syncs_results_for_commits_it_lacks() {
    let s = Shared::new();
    s.run_plan(&s.a);
    let first_checkpoint = s.rev(&s.a, "HEAD~1");
    s.env.git(&s.a, &["push", "-q", "origin", "main"]);
    let _ = s.sync(&s.a).expect_code(0);
    let shallow = s.env.root().join("shallow");
    s.env.git(
        s.env.root(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            &format!("file://{}", s.remote.display()),
            shallow.to_str().unwrap(),
        ],
    );
    let out = s.sync(&shallow).expect_code(0);
    assert!(out.stdout.contains("notes: 2 taken"), "{out}");
    // The note is there although its commit is not.
    assert!(s.env.run(&shallow, &["cat-file", "-e", &first_checkpoint]).code != 0);
    let listed = s.env.git(&shallow, &["notes", "--ref=ultraplan", "list"]);
    assert!(listed.contains(&first_checkpoint), "{listed}");
}

#[test]
fn a_server_without_atomic_pushes_still_gets_everything() {
    let s = Shared::new();
    s.env.git(&s.remote, &["config", "receive.advertiseAtomic", "false"]);
    s.run_plan(&s.a);
    let out = s.sync(&s.a).expect_code(0);
    assert!(
        out.stdout
            .contains("pushed: refs/notes/ultraplan, refs/ultraplan/plan/run"),
        "{out}"
    );
    assert_eq!(
        s.rev(&s.remote, "refs/notes/ultraplan"),
        s.rev(&s.a, "refs/notes/ultraplan")
    );
    assert_eq!(
        s.rev(&s.remote, "refs/ultraplan/plan/run"),
        s.rev(&s.a, "refs/ultraplan/plan/run")
    );
}
