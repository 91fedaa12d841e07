//! `git ultraplan sync` when something is wrong: a remote that refuses
//! pushes, does not exist or cannot be reached, holds a note that is not YAML
//! or references that are not ours; a shallow clone; and a dry run. Each says
//! what happened and leaves local state as it was.

use crate::harness::shared::{note_yaml, Shared};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

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
    let mut t = Transcript::new(&s.env);
    let _ = t.run(&s.a, &["ultraplan", "sync"]).expect_code(1);
    t.note("nothing of ours moved; the remote got nothing");
    let _ = t
        .run(&s.remote, &["for-each-ref", "--format=%(refname)"])
        .expect_code(0);
    assert_transcript!(t, "a_read_only_remote_is_reported_and_nothing_is_half_done");
    assert_eq!(s.refs(&s.a), before);
}

#[test]
fn dry_run_writes_nothing() {
    let s = Shared::new();
    s.run_plan(&s.a);
    s.env.git(&s.a, &["push", "-q", "origin", "main"]);
    let remote_before = s.refs(&s.remote);
    let local_before = s.refs(&s.a);
    let mut t = Transcript::new(&s.env);
    let _ = t.run(&s.a, &["ultraplan", "sync", "--dry-run"]).expect_code(0);
    t.note("named as a real push names them: the outcomes by their remote name");
    let _ = t
        .run(&s.a, &["ultraplan", "sync", "--dry-run", "--json"])
        .expect_code(0);
    assert_eq!(s.refs(&s.remote), remote_before);
    assert_eq!(s.refs(&s.a), local_before);
    let _ = s.sync(&s.a).expect_code(0);
    let before = s.refs(&s.b);
    t.note("B has not got A's notes: a dry run there cannot tell how they relate");
    let _ = t.run(&s.b, &["ultraplan", "sync", "--dry-run"]).expect_code(0);
    assert_transcript!(t, "dry_run_writes_nothing");
    assert_eq!(s.refs(&s.b), before);
}

#[test]
fn remotes_that_do_not_exist_or_cannot_be_reached_are_fatal() {
    let s = Shared::new();
    s.run_plan(&s.a);
    let before = s.refs(&s.a);
    let mut t = Transcript::new(&s.env);
    let _ = t.run(&s.a, &["ultraplan", "sync", "nowhere"]).expect_code(128);
    let _ = t
        .run(&s.a, &["remote", "add", "gone", "../no-such-repo"])
        .expect_code(0);
    let _ = t.run(&s.a, &["ultraplan", "sync", "gone"]).expect_code(128);
    assert_transcript!(t, "remotes_that_do_not_exist_or_cannot_be_reached_are_fatal");
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
    let mut t = Transcript::new(&s.env);
    t.note("clone b pushed a note that is not YAML on the first commit; a has a new note of its own");
    let _ = t.run(&s.a, &["ultraplan", "sync"]).expect_code(1);
    t.note("nothing else of theirs was new: ours stay as they were, not pushed");
    let _ = t.run(&s.a, &["notes", "--ref=ultraplan", "list"]).expect_code(0);
    assert_transcript!(t, "a_note_on_the_remote_that_is_not_yaml_is_named_and_skipped");
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
    let mut t = Transcript::new(&s.env);
    t.note("clone b pushed a plain commit where a run state would be, and a stray name");
    let _ = t.run(&s.a, &["ultraplan", "sync"]).expect_code(0);
    let _ = t
        .run(&s.a, &["for-each-ref", "--format=%(refname)", "refs/ultraplan/"])
        .expect_code(0);
    let _ = t.run(&s.a, &["ultraplan", "status"]).expect_code(0);
    assert_transcript!(t, "references_under_refs_ultraplan_that_are_not_ours_are_left_alone");
}

#[test]
fn a_shallow_clone_syncs_results_for_commits_it_lacks() {
    let s = Shared::new();
    s.run_plan(&s.a);
    let first_checkpoint = s.rev(&s.a, "HEAD~1");
    s.env.git(&s.a, &["push", "-q", "origin", "main"]);
    let _ = s.sync(&s.a).expect_code(0);
    let url = format!("file://{}", s.remote.display());
    let mut t = Transcript::new(&s.env);
    let _ = t
        .run(s.env.root(), &["clone", "-q", "--depth", "1", &url, "shallow"])
        .expect_code(0);
    let shallow = s.env.root().join("shallow");
    let _ = t.run(&shallow, &["ultraplan", "sync"]).expect_code(0);
    t.note("the note of the first checkpoint is there although its commit is not");
    let _ = t.run(&shallow, &["cat-file", "-e", &first_checkpoint]).expect_code(1);
    let _ = t.run(&shallow, &["notes", "--ref=ultraplan", "list"]).expect_code(0);
    assert_transcript!(t, "a_shallow_clone_syncs_results_for_commits_it_lacks");
}

#[test]
fn a_server_without_atomic_pushes_still_gets_everything() {
    let s = Shared::new();
    s.env.git(&s.remote, &["config", "receive.advertiseAtomic", "false"]);
    s.run_plan(&s.a);
    let mut t = Transcript::new(&s.env);
    let _ = t.run(&s.a, &["ultraplan", "sync"]).expect_code(0);
    assert_transcript!(t, "a_server_without_atomic_pushes_still_gets_everything");
    assert_eq!(
        s.rev(&s.remote, "refs/notes/ultraplan"),
        s.rev(&s.a, "refs/notes/ultraplan")
    );
    assert_eq!(
        s.rev(&s.remote, "refs/ultraplan/plan/run"),
        s.rev(&s.a, "refs/ultraplan/plan/run")
    );
}
