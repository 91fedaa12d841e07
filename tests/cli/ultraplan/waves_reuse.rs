//! Worktrees reused from session to session (issue 17): a session that
//! starts in a worktree another session used finds it exactly as a new one
//! — on its own branch, at its wave's base, with nothing left over, not even
//! ignored files — while the files that did not change are not written
//! again. Removed worktrees leave git's list at once and their files are
//! deleted in the background; `clean` deletes what such a deletion did not
//! finish. A wave the disk cannot hold is refused before it starts.

use std::path::Path;

use crate::harness::plans::StepSpec;
use crate::harness::sessions::{assert_clean, plan, setup, wait_for_trash, Sess};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// What a step leaves for the test to read: the inode of `shared.txt` (the
/// same inode means the same worktree, its unchanged file not written
/// again), the directory it ran in, and what it found of earlier sessions.
fn witness(markers: &Path, n: u32) -> String {
    let m = markers.display();
    format!(
        "ls -i shared.txt | cut -d' ' -f1 > {m}/inode-{n} && pwd > {m}/pwd-{n} && \
         (LC_ALL=C ls -A build 2>/dev/null || true; LC_ALL=C ls -A) > {m}/found-{n}"
    )
}

fn session(n: u32, wave: u32, deps: &'static str, touch: &'static str) -> Sess<'static> {
    Sess {
        n,
        title: ["", "One", "Two", "Three"][n as usize],
        wave,
        deps,
        touch,
    }
}

fn ignoring_build(env: &TestEnv, body: &str) -> std::path::PathBuf {
    let repo = setup(env, body);
    write(&repo.join(".gitignore"), "build/\n");
    env.git(&repo, &["add", ".gitignore", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "ignore build output"]);
    repo
}

#[test]
fn the_next_wave_reuses_a_worktree_proved_clean() {
    let env = TestEnv::new();
    let markers = env.root().join("markers");
    std::fs::create_dir_all(&markers).unwrap();
    let step = |n: u32, make: &str| -> String {
        format!(
            "{make} && mkdir -p build && echo leftover > build/out-{n} && {}",
            witness(&markers, n)
        )
    };
    let (s1, s2, s3) = (
        step(1, "echo one > a.txt"),
        step(2, "echo two > b.txt"),
        format!("cat a.txt b.txt > c.txt && {}", witness(&markers, 3)),
    );
    let body = plan(
        &[
            StepSpec::new(1, "`a.txt`", &s1, "test -f a.txt"),
            StepSpec::new(2, "`b.txt`", &s2, "test -f b.txt"),
            StepSpec::new(3, "`c.txt`", &s3, "test ! -e build"),
        ],
        &[
            session(1, 1, "none", "`a.txt`"),
            session(2, 1, "none", "`b.txt`"),
            session(3, 2, "Sessions 1, 2", "`c.txt`"),
        ],
        "",
    );
    let repo = ignoring_build(&env, &body);
    let out = env
        .run(&repo, &["ultraplan", "run", "--json", "plan.md"])
        .expect_code(0);
    assert_eq!(out.json()["ultraexecute_summary"]["result"], "completed", "{out}");
    let marker = |name: &str| read(&markers.join(name)).trim().to_owned();
    // Session 3 ran in one of wave 1's worktrees, moved to its own path…
    assert!(
        [marker("inode-1"), marker("inode-2")].contains(&marker("inode-3")),
        "session 3 got a new worktree: {} {} {}",
        marker("inode-1"),
        marker("inode-2"),
        marker("inode-3")
    );
    assert!(marker("pwd-3").ends_with("/plan/session-3"), "{}", marker("pwd-3"));
    // …and found none of what wave 1 left there, ignored files included.
    assert_eq!(
        marker("found-3"),
        ".git\n.gitignore\nREADME.md\na.txt\nb.txt\nc.txt\nplan.md\nshared.txt",
        "what session 3 found"
    );
    assert_eq!(env.git(&repo, &["show", "HEAD:c.txt"]), "one\ntwo\n");
    assert_clean(&env, &repo);
}

#[test]
fn one_job_runs_a_wave_in_one_worktree_one_session_after_another() {
    let env = TestEnv::new();
    let markers = env.root().join("markers");
    std::fs::create_dir_all(&markers).unwrap();
    let steps: Vec<String> = (1..=3)
        .map(|n| {
            format!(
                "echo {n} > f{n}.txt && mkdir -p build && echo x > build/out-{n} && {}",
                witness(&markers, n)
            )
        })
        .collect();
    let body = plan(
        &[
            StepSpec::new(1, "`f1.txt`", &steps[0], "test -f f1.txt"),
            StepSpec::new(2, "`f2.txt`", &steps[1], "test -f f2.txt && test ! -e f1.txt"),
            StepSpec::new(3, "`f3.txt`", &steps[2], "test -f f3.txt && test ! -e f2.txt"),
        ],
        &[
            session(1, 1, "none", "`f1.txt`"),
            session(2, 1, "none", "`f2.txt`"),
            session(3, 1, "none", "`f3.txt`"),
        ],
        "",
    );
    let repo = ignoring_build(&env, &body);
    let out = env
        .run(&repo, &["ultraplan", "run", "--json", "--jobs", "1", "plan.md"])
        .expect_code(0);
    let sessions = out.json()["ultraexecute_summary"]["sessions"].clone();
    for n in 0..3 {
        assert_eq!(sessions[n]["merged"], true, "{out}");
    }
    let inodes: Vec<String> = (1..=3).map(|n| read(&markers.join(format!("inode-{n}")))).collect();
    assert!(inodes[0] == inodes[1] && inodes[1] == inodes[2], "{inodes:?}");
    for n in 1..=3 {
        // Each found only the base's files and its own: no earlier session's
        // file, tracked on its branch or ignored.
        assert_eq!(
            read(&markers.join(format!("found-{n}"))),
            format!("out-{n}\n.git\n.gitignore\nREADME.md\nbuild\nf{n}.txt\nplan.md\nshared.txt\n")
        );
    }
    assert_eq!(env.git(&repo, &["show", "HEAD:f3.txt"]), "3\n");
    assert_clean(&env, &repo);
}

#[test]
fn a_wave_the_disk_cannot_hold_is_refused_before_it_starts() {
    let env = TestEnv::new();
    let body = plan(
        &[
            StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
            StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
        ],
        &[session(1, 1, "none", "`a.txt`"), session(2, 1, "none", "`b.txt`")],
        "",
    );
    let repo = setup(&env, &body);
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    let mut t = Transcript::new(&env);
    let full = [("ULTRAPLAN_TEST_DISK_FREE", "1000")];
    let _ = t
        .run_with(&repo, &["ultraplan", "run", "plan.md"], &full, None)
        .expect_code(128);
    assert_transcript!(t, "a_wave_the_disk_cannot_hold_is_refused");
    // Not one worktree or session branch was made, and nothing is locked.
    assert_eq!(env.git(&repo, &["worktree", "list"]).lines().count(), 1);
    assert_eq!(env.git(&repo, &["branch", "--list", "ultraplan/*"]), "");
    assert!(!repo.join(".git/ultraplan/worktrees/plan").exists());
    // With room again, the run goes on from where it stopped.
    let out = env
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    assert!(out.stdout.contains("Result: COMPLETED"), "{out}");
    assert_eq!(env.git(&repo, &["show", "HEAD^2:b.txt"]), "b\n");
    assert_clean(&env, &repo);
}

#[test]
fn clean_deletes_what_a_background_deletion_did_not_finish() {
    let env = TestEnv::new();
    let body = plan(
        &[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")],
        &[session(1, 1, "none", "`a.txt`")],
        "",
    );
    let repo = setup(&env, &body);
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    wait_for_trash(&repo);
    // As if the machine stopped while a removed worktree was being deleted.
    let trash = repo.join(".git/ultraplan/worktrees/.trash-plan-session-1-4242-0-0");
    write(&trash.join("src/deep/file.txt"), "half deleted\n");
    let out = env.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    assert!(!trash.exists(), "{out}");
    assert_eq!(env.git(&repo, &["worktree", "list"]).lines().count(), 1);
    env.assert_fsck(&repo);
}
