//! `git ultraplan sync`: results and run states travel between two clones
//! through a bare remote, with real `git fetch`/`git push`, and nothing is lost.

use crate::harness::shared::{note_yaml, Shared};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

#[test]
fn results_made_in_one_clone_are_read_in_the_other() {
    let s = Shared::new();
    s.run_plan(&s.a);
    let checkpoint = s.rev(&s.a, "HEAD");
    s.env.git(&s.a, &["push", "-q", "origin", "main"]);
    let mut t = Transcript::new(&s.env);
    let _ = t.run(&s.a, &["ultraplan", "sync"]).expect_code(0);
    // The remote holds the notes and the run state, never the lock.
    assert!(s.note(&s.remote, &checkpoint).is_some());
    s.env
        .git(&s.remote, &["rev-parse", "--verify", "refs/ultraplan/plan/run"]);

    s.env.git(&s.b, &["pull", "-q", "--ff-only"]);
    assert!(s.note(&s.b, &checkpoint).is_none());
    let _ = t.run(&s.b, &["ultraplan", "sync"]).expect_code(0);
    assert_eq!(s.note(&s.b, &checkpoint), s.note(&s.a, &checkpoint));
    let _ = t
        .run(&s.b, &["notes", "--ref=ultraplan", "show", &checkpoint])
        .expect_code(0);
    let log = s.env.run(&s.b, &["ultraplan", "log", "--json"]).expect_code(0).json();
    assert_eq!(log["runs"][0]["attempts"][1]["commit"], checkpoint.as_str(), "{log}");
    let _ = t.run(&s.b, &["ultraplan", "status"]).expect_code(0);
    // The same report as data: a second run in B (nothing left to commit)
    // continues the state it took, so that state is pushed. (Asked for:
    // the plan's recorded run completed.)
    let _ = s
        .env
        .run(&s.b, &["ultraplan", "run", "--again", "plan.md"])
        .expect_code(0);
    let json = s.env.run(&s.b, &["ultraplan", "sync", "--json"]).expect_code(0).json();
    assert_eq!(json["remote"], "origin");
    assert_eq!(json["notes"], "same", "{json}");
    assert_eq!(json["states"][0]["ref"], "refs/ultraplan/plan/run");
    assert_eq!(json["states"][0]["action"], "push");
    // The run also recorded its outcome (DESIGN §17), which travels too.
    assert_eq!(
        json["pushed"],
        serde_json::json!(["refs/ultraplan-shared/outcomes", "refs/ultraplan/plan/run"])
    );
    assert_eq!(json["push_refused"], serde_json::Value::Null);
    assert_eq!(
        s.rev(&s.remote, "refs/ultraplan/plan/run"),
        s.rev(&s.b, "refs/ultraplan/plan/run")
    );
    // Nothing new: a second sync on either side moves nothing.
    let before = s.refs(&s.b);
    t.note("nothing new: a second sync moves nothing");
    let _ = t.run(&s.b, &["ultraplan", "sync"]).expect_code(0);
    assert_transcript!(t, "results_made_in_one_clone_are_read_in_the_other");
    assert_eq!(s.refs(&s.b), before);
    s.env.assert_fsck(&s.b);
    s.env.assert_fsck(&s.remote);
}

/// Commits in clone A a plan whose step 2 can only pass once the returned
/// flag file exists (it escalates until then).
fn plan_needing_a_flag(s: &Shared) -> std::path::PathBuf {
    let flag = s.env.root().join("flag");
    let plan = crate::harness::plans::plan(&[
        crate::harness::plans::StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        crate::harness::plans::StepSpec::new(2, "`b.txt`", "echo b > b.txt", &format!("test -f {}", flag.display()))
            .policy("escalate"),
    ]);
    write(&s.a.join("plan.md"), &plan);
    s.env.git(&s.a, &["commit", "-q", "-am", "plan needs a flag"]);
    flag
}

#[test]
fn a_run_stopped_in_one_clone_is_resumed_in_the_other() {
    let s = Shared::new();
    let flag = plan_needing_a_flag(&s);
    let _ = s.env.run(&s.a, &["ultraplan", "run", "plan.md"]).expect_code(3);
    s.env.git(&s.a, &["push", "-q", "origin", "main"]);
    let _ = s.sync(&s.a).expect_code(0);

    s.env.git(&s.b, &["pull", "-q", "--ff-only"]);
    let mut t = Transcript::new(&s.env);
    let _ = t.run(&s.b, &["ultraplan", "sync"]).expect_code(0);
    let _ = t.run(&s.b, &["ultraplan", "status", "plan.md"]).expect_code(0);
    // B leaves b.txt where the escalated attempt did, as a person would find it.
    write(&flag, "");
    write(&s.b.join("b.txt"), "b\n");
    let _ = s
        .env
        .run(&s.b, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    s.env.git(&s.b, &["push", "-q", "origin", "main"]);
    t.note("B resumed and finished the run");
    let _ = t.run(&s.b, &["ultraplan", "sync"]).expect_code(0);
    let _ = t.run(&s.a, &["ultraplan", "sync"]).expect_code(0);
    assert_eq!(
        s.rev(&s.a, "refs/ultraplan/plan/run"),
        s.rev(&s.b, "refs/ultraplan/plan/run")
    );
    let _ = t.run(&s.a, &["ultraplan", "status", "plan.md"]).expect_code(0);
    assert_transcript!(t, "a_run_stopped_in_one_clone_is_resumed_in_the_other");
    // A drops what its escalated attempt left and takes B's checkpoint.
    std::fs::remove_file(s.a.join("b.txt")).unwrap();
    s.env.git(&s.a, &["pull", "-q", "--ff-only"]);
    let head = s.rev(&s.a, "HEAD");
    assert!(s.note(&s.a, &head).unwrap().contains("task_index: 2"));
}

/// A resume goes on from the passed steps' checkpoints: in a clone whose
/// HEAD lacks them (the run's branch not fetched, or another branch
/// checked out) it is refused, naming the step, and writes nothing;
/// on the run's branch it finishes.
#[test]
fn a_resume_where_head_lacks_the_passed_checkpoints_is_refused() {
    let s = Shared::new();
    let flag = plan_needing_a_flag(&s);
    s.env.git(&s.a, &["push", "-q", "origin", "main"]);
    s.env.git(&s.a, &["switch", "-q", "-c", "feature"]);
    let _ = s.env.run(&s.a, &["ultraplan", "run", "plan.md"]).expect_code(3);
    let checkpoint = s.rev(&s.a, "HEAD");
    let _ = s.sync(&s.a).expect_code(0);

    s.env.git(&s.b, &["pull", "-q", "--ff-only"]);
    let _ = s.sync(&s.b).expect_code(0);
    write(&flag, "");
    let before = s.refs(&s.b);
    let resume = ["ultraplan", "run", "--resume", "plan.md"];
    let mut t = Transcript::new(&s.env);
    t.note("the run's branch is not here yet");
    let _ = t.run(&s.b, &resume).expect_code(128);
    s.env.git(&s.a, &["push", "-q", "origin", "feature"]);
    s.env.git(&s.b, &["fetch", "-q"]);
    t.note("fetched, but HEAD is still main");
    let _ = t.run(&s.b, &resume).expect_code(128);
    t.note("on the run's branch, but reset to before its work");
    s.env.git(&s.b, &["switch", "-q", "-c", "reset", "origin/feature"]);
    s.env.git(&s.b, &["reset", "-q", "--hard", "HEAD~1"]);
    let _ = t.run(&s.b, &resume).expect_code(128);
    s.env.git(&s.b, &["switch", "-q", "main"]);
    s.env.git(&s.b, &["branch", "-q", "-D", "reset"]);
    assert_transcript!(t, "a_resume_where_head_lacks_the_passed_checkpoints_is_refused");
    let fetched: String = s
        .refs(&s.b)
        .lines()
        .filter(|l| !l.starts_with("refs/remotes/origin/feature "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(fetched, before, "a refused resume wrote a reference");
    s.env.git(&s.b, &["switch", "-q", "feature"]);
    // A checkpoint amended (its message reworded) still holds the work.
    s.env.git(&s.b, &["commit", "-q", "--amend", "-m", "step 1, reworded"]);
    // As a person would find it after the escalated attempt.
    write(&s.b.join("b.txt"), "b\n");
    let _ = s.env.run(&s.b, &resume).expect_code(0);
    assert_eq!(
        s.env.git(&s.b, &["log", "-1", "--format=%s", "HEAD~1"]),
        "step 1, reworded\n"
    );
    assert_ne!(s.rev(&s.b, "HEAD~1"), checkpoint);
    assert!(s.b.join("a.txt").exists() && s.b.join("b.txt").exists());
}

#[test]
fn diverged_runs_are_kept_side_by_side_and_two_notes_become_a_stream() {
    let s = Shared::new();
    // The same plan run in both clones: same checkpoint commits (fixed dates),
    // different run states and notes.
    s.run_plan(&s.a);
    s.run_plan(&s.b);
    let checkpoint = s.rev(&s.a, "HEAD");
    assert_eq!(checkpoint, s.rev(&s.b, "HEAD"));
    assert_ne!(s.note(&s.a, &checkpoint), s.note(&s.b, &checkpoint));
    let ours = s.rev(&s.b, "refs/ultraplan/plan/run");
    let _ = s.sync(&s.a).expect_code(0);
    let mut t = Transcript::new(&s.env);
    let _ = t.run(&s.b, &["ultraplan", "sync"]).expect_code(0);
    // Ours is untouched, theirs kept beside it.
    assert_eq!(s.rev(&s.b, "refs/ultraplan/plan/run"), ours);
    assert_eq!(
        s.rev(&s.b, "refs/ultraplan-remotes/origin/ultraplan/plan/run"),
        s.rev(&s.a, "refs/ultraplan/plan/run")
    );
    let _ = t.run(&s.b, &["ultraplan", "status"]).expect_code(0);
    let log = s.env.run(&s.b, &["ultraplan", "log", "--json"]).expect_code(0).json();
    let states: Vec<&str> = log["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert!(states.contains(&"refs/ultraplan/plan/run"), "{log}");
    assert!(
        states.contains(&"refs/ultraplan-remotes/origin/ultraplan/plan/run"),
        "{log}"
    );

    // The checkpoint's two notes: one YAML stream, ordered by logged_at, both kept.
    let note = s.note(&s.b, &checkpoint).unwrap();
    assert_eq!(note.matches("run_id:").count(), 2, "{note}");
    let shown = s
        .env
        .run(&s.b, &["ultraplan", "show", &checkpoint, "--json"])
        .expect_code(0)
        .json();
    let docs = shown.as_array().expect("a stream shows as an array");
    assert_eq!(docs.len(), 2);
    assert!(docs[0]["logged_at"].as_str() <= docs[1]["logged_at"].as_str());
    // The merged notes reached the remote, and A takes them as a fast-forward.
    t.note("the merged notes reached the remote, and A takes them as a fast-forward");
    let _ = t.run(&s.a, &["ultraplan", "sync"]).expect_code(0);
    assert_transcript!(t, "diverged_runs_are_kept_side_by_side_and_two_notes_become_a_stream");
    assert_eq!(s.note(&s.a, &checkpoint), Some(note.clone()));
    assert_eq!(s.note(&s.remote, &checkpoint), Some(note));
    // Syncing again changes nothing: no ping-pong of merge commits.
    let before = s.refs(&s.b);
    let _ = s.sync(&s.b).expect_code(0);
    assert_eq!(s.refs(&s.b), before);
}

#[test]
fn concurrent_syncs_from_two_clones_lose_nothing() {
    let s = Shared::new();
    // Forty commits both clones have, to annotate.
    for i in 0..40 {
        s.env
            .git(&s.a, &["commit", "-q", "--allow-empty", "-m", &format!("c{i}")]);
    }
    s.env.git(&s.a, &["push", "-q", "origin", "main"]);
    s.env.git(&s.b, &["pull", "-q", "--ff-only"]);
    let commits: Vec<String> = s
        .env
        .git(&s.a, &["rev-list", "-40", "HEAD"])
        .lines()
        .map(String::from)
        .collect();
    let mut retried = 0;
    for round in 0..20 {
        for (clone, commit) in [(&s.a, &commits[2 * round]), (&s.b, &commits[2 * round + 1])] {
            let yaml = note_yaml(&format!("2026-01-01T00:00:{round:02}Z"), "VALID", "success");
            s.env
                .git(clone, &["notes", "--ref=ultraplan", "add", "-m", &yaml, commit]);
        }
        let children: Vec<_> = [&s.a, &s.b]
            .iter()
            .map(|clone| {
                s.env
                    .command("git", clone)
                    .args(["ultraplan", "sync"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            retried += usize::from(String::from_utf8_lossy(&out.stdout).contains("retried: "));
        }
    }
    // The two really raced: some pushes lost and were retried (never an error).
    assert!(retried > 0, "no sync ever had to retry: the race was not exercised");
    let _ = s.sync(&s.a).expect_code(0);
    let _ = s.sync(&s.b).expect_code(0);
    for repo in [&s.a, &s.b, &s.remote] {
        let listed = s.env.git(repo, &["notes", "--ref=ultraplan", "list"]);
        assert_eq!(listed.lines().count(), 40, "{}: {listed}", repo.display());
        for commit in &commits {
            let note = s.note(repo, commit).unwrap();
            assert_eq!(note.matches("logged_at").count(), 1, "{note}");
        }
    }
    s.env.assert_fsck(&s.remote);
}

#[test]
fn setup_makes_plain_git_carry_and_keep_results() {
    let s = Shared::new();
    for clone in [&s.a, &s.b] {
        let out = s.env.run(clone, &["ultraplan", "sync", "--setup"]).expect_code(0);
        // The remote has no notes yet: a plain fetch must still work.
        s.env.git(clone, &["fetch", "-q"]);
        assert!(
            out.stdout
                .contains("set remote.origin.fetch = +refs/notes/ultraplan*:refs/notes/remotes/origin/ultraplan*"),
            "{out}"
        );
        // No notes here yet: plain git reads the configuration quietly.
        let log = s.env.run(clone, &["log", "-1"]).expect_code(0);
        assert_eq!(log.stderr, "", "{log}");
    }
    // Idempotent.
    let out = s.env.run(&s.a, &["ultraplan", "sync", "--setup"]).expect_code(0);
    assert_eq!(out.stdout, "nothing to change: 'origin' is already set up\n");
    // The exact name an earlier version set (which made git warn) is replaced.
    s.env
        .git(&s.a, &["config", "--add", "notes.displayRef", "refs/notes/ultraplan"]);
    let out = s.env.run(&s.a, &["ultraplan", "sync", "--setup"]).expect_code(0);
    assert!(out.stdout.contains("(was refs/notes/ultraplan)"), "{out}");
    let shown = s.env.git(&s.a, &["config", "--get-all", "notes.displayRef"]);
    assert_eq!(shown, "refs/notes/ultraplan*\nrefs/notes/remotes/*/ultraplan\n");
    let fetch = s.env.git(&s.a, &["config", "--get-all", "remote.origin.fetch"]);
    assert_eq!(fetch.lines().count(), 2, "{fetch}");
    // Never a push refspec.
    assert!(s.env.run(&s.a, &["config", "--get-all", "remote.origin.push"]).code != 0);

    s.run_plan(&s.a);
    let checkpoint = s.rev(&s.a, "HEAD");
    s.env.git(&s.a, &["push", "-q", "origin", "main"]);
    let _ = s.sync(&s.a).expect_code(0);
    // A plain fetch brings the notes; git log and show read them.
    s.env.git(&s.b, &["fetch", "-q"]);
    let remote_note = s
        .env
        .git(&s.b, &["notes", "--ref=remotes/origin/ultraplan", "show", &checkpoint]);
    assert!(remote_note.contains("status: success"));
    let log = s.env.git(&s.b, &["log", "-1", "origin/main"]);
    assert!(log.contains("Notes (remotes/origin/ultraplan):"), "{log}");
    let shown = s.env.run(&s.b, &["ultraplan", "show", &checkpoint]).expect_code(0);
    assert_eq!(shown.stdout, remote_note);

    // Amend keeps the note.
    let before = s.note(&s.a, "HEAD").unwrap();
    s.env.git(&s.a, &["commit", "-q", "--amend", "-m", "step 2, reworded"]);
    assert_ne!(s.rev(&s.a, "HEAD"), checkpoint);
    assert_eq!(s.note(&s.a, "HEAD"), Some(before));
    // Rebase -i onto a new base keeps both checkpoints' notes.
    s.env.git(&s.a, &["checkout", "-q", "-b", "base", "HEAD~2"]);
    write(&s.a.join("upstream.txt"), "u\n");
    s.env.git(&s.a, &["add", "upstream.txt"]);
    s.env.git(&s.a, &["commit", "-q", "-m", "upstream work"]);
    s.env.git(&s.a, &["checkout", "-q", "main"]);
    let notes_before: Vec<String> = ["HEAD", "HEAD~1"].iter().map(|r| s.note(&s.a, r).unwrap()).collect();
    let out = s.env.run_with(
        &s.a,
        &["rebase", "-q", "-i", "base"],
        &[("GIT_SEQUENCE_EDITOR", "true")],
    );
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(
        s.env.git(&s.a, &["log", "-1", "--format=%s", "HEAD~2"]).trim(),
        "upstream work"
    );
    let notes_after: Vec<String> = ["HEAD", "HEAD~1"].iter().map(|r| s.note(&s.a, r).unwrap()).collect();
    assert_eq!(notes_after, notes_before);

    // --unset takes back exactly what --setup added.
    let out = s.env.run(&s.a, &["ultraplan", "sync", "--unset"]).expect_code(0);
    assert!(
        out.stdout.contains("unset notes.rewriteRef = refs/notes/ultraplan"),
        "{out}"
    );
    let fetch = s.env.git(&s.a, &["config", "--get-all", "remote.origin.fetch"]);
    assert_eq!(fetch.trim(), "+refs/heads/*:refs/remotes/origin/*");
    assert!(s.env.run(&s.a, &["config", "--get-all", "notes.displayRef"]).code != 0);
}

/// Commits `files` (path → text) onto `refs/ultraplan-outcomes` of `repo`.
#[test]
fn outcomes_merge_as_a_union() {
    let s = Shared::new();
    // Real records (sync refuses files that are not): one logged in each clone.
    for (repo, task) in [(&s.a, "in a"), (&s.b, "in b")] {
        let _ = s
            .env
            .run(
                repo,
                &[
                    "ultraplan",
                    "outcome",
                    "log",
                    "--agent",
                    "agent",
                    "--task",
                    task,
                    "--success",
                ],
            )
            .expect_code(0);
    }
    let _ = s.sync(&s.a).expect_code(0);
    let out = s.sync(&s.b).expect_code(0);
    assert!(out.stdout.contains(" taken"), "{out}");
    let _ = s.sync(&s.a).expect_code(0);
    // On remotes the chain has a two-level name (receive-pack refuses one-level ones).
    let files: Vec<String> = [
        (&s.a, "refs/ultraplan-outcomes"),
        (&s.b, "refs/ultraplan-outcomes"),
        (&s.remote, "refs/ultraplan-shared/outcomes"),
    ]
    .iter()
    .map(|(repo, name)| s.env.git(repo, &["ls-tree", "-r", "--name-only", name]))
    .collect();
    assert_eq!(
        files[0].lines().filter(|l| l.starts_with("outcomes/agent/")).count(),
        2,
        "{}",
        files[0]
    );
    assert_eq!(files[0], files[1]);
    assert_eq!(files[0], files[2]);
}
