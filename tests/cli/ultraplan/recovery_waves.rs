//! After a kill, parallel runs (issues 36 and 44): a multi-session run
//! killed at any of its fault points — the orchestrator between merges, or
//! a session anywhere in its step — then `clean` once and `--resume`, ends
//! with the very commits of an uninterrupted run (a session run again
//! starts from its wave's base, not from what its wave merged meanwhile),
//! with no worktree, branch or `.lock` file left; and `clean` right after a
//! killed parallel run stops and waits for what it left before judging it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::harness::plans::StepSpec;
use crate::harness::sessions::{assert_clean, plan, setup, Sess};
use crate::harness::support::*;
use crate::ultraplan::recovery::{lock_files, plant, LEFT_BY_KILLS};

/// Sessions 1 and 2 (wave 1) write `a.txt` and `b.txt`; session 3 (wave 2)
/// joins them. Each step first runs `before` (with `{n}` its number).
fn two_waves(before: &str) -> String {
    let step = |n: u32, rest: &str| format!("{}{rest}", before.replace("{n}", &n.to_string()));
    let (s1, s2, s3) = (
        step(1, "echo alpha > a.txt"),
        step(2, "echo beta > b.txt"),
        step(3, "cat a.txt b.txt > c.txt"),
    );
    plan(
        &[
            StepSpec::new(1, "`a.txt`", &s1, "test -s a.txt"),
            StepSpec::new(2, "`b.txt`", &s2, "test -s b.txt"),
            StepSpec::new(3, "`c.txt`", &s3, "grep -q beta c.txt"),
        ],
        &[
            Sess {
                n: 1,
                title: "Alpha",
                wave: 1,
                deps: "none",
                touch: "`a.txt`",
            },
            Sess {
                n: 2,
                title: "Beta",
                wave: 1,
                deps: "none",
                touch: "`b.txt`",
            },
            Sess {
                n: 3,
                title: "Both",
                wave: 2,
                deps: "Sessions 1, 2",
                touch: "`c.txt`",
            },
        ],
        "",
    )
}

/// The commits and the tree a run ended with.
fn end(env: &TestEnv, repo: &Path) -> (String, String) {
    (
        env.git(repo, &["rev-parse", "HEAD"]),
        env.git(repo, &["log", "--graph", "--format=%s"]),
    )
}

/// Where each fault point is reached: the orchestrator's merges, and every
/// point of a session's one step (each session process dies there).
const POINTS: [&str; 13] = [
    "merge-recorded",
    "merge-checked-out",
    "merge-committed",
    "merge-committed:2",
    "merge-committed:3",
    "step-start",
    "after-snapshot",
    "after-executor",
    "after-verify",
    "after-record",
    "checkpoint-pending",
    "branch-moved",
    "note-written",
];

#[test]
fn parallel_runs_killed_at_every_fault_point_resume_to_the_same_commits() {
    let env = TestEnv::new();
    let body = two_waves("");
    let baseline = {
        let repo = setup(&env, &body);
        let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
        let done = end(&env, &repo);
        std::fs::rename(&repo, env.root().join("baseline")).unwrap();
        done
    };
    for (i, point) in POINTS.iter().enumerate() {
        let repo = setup(&env, &body);
        let mut cmd = env.command(bin_dir().join("git-ultraplan"), &repo);
        cmd.args(["run", "plan.md"]).env("ULTRAPLAN_TEST_FAULT", point);
        let killed = capture(cmd);
        assert_ne!(killed.code, 0, "{point}: the run (or a session) dies there: {killed}");
        // Every other case also finds the lock files a kill can leave.
        if i % 2 == 1 {
            plant(&repo, &LEFT_BY_KILLS);
        }
        let cleaned = env.run(&repo, &["ultraplan", "clean"]).expect_code(0);
        let resumed = env.run(&repo, &["ultraplan", "run", "--resume", "plan.md"]);
        assert_eq!(resumed.code, 0, "{point}: {cleaned}\n{resumed}");
        assert_eq!(end(&env, &repo), baseline, "{point}: {resumed}");
        assert_eq!(env.git(&repo, &["status", "--porcelain"]), "", "{point}");
        assert_eq!(lock_files(&repo), Vec::<String>::new(), "{point}");
        assert_clean(&env, &repo);
        std::fs::rename(&repo, env.root().join(format!("killed-{i}"))).unwrap();
    }
}

/// Issue 44 item 5 on its own: killed after the first merge of a wave, the
/// resumed run starts the wave's other session from the wave's base — its
/// commit has the parent and the files it has in an uninterrupted run.
#[test]
fn a_session_run_again_starts_from_its_waves_base() {
    let env = TestEnv::new();
    let repo = setup(&env, &two_waves(""));
    let mut cmd = env.command(bin_dir().join("git-ultraplan"), &repo);
    cmd.args(["run", "plan.md"])
        .env("ULTRAPLAN_TEST_FAULT", "merge-committed:1");
    assert_eq!(capture(cmd).code, -1);
    let merged_first = env.git(&repo, &["rev-parse", "HEAD"]);
    let base = env.git(&repo, &["rev-parse", "HEAD^1"]);
    let _ = env
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    let second = env.git(&repo, &["rev-parse", "HEAD~1"]);
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD~1^1"]), merged_first);
    let session_two = env.git(&repo, &["rev-parse", &format!("{}^2", second.trim())]);
    assert_eq!(
        env.git(&repo, &["rev-parse", &format!("{}^", session_two.trim())]),
        base,
        "session 2's commit starts from the wave's base"
    );
    assert_eq!(
        env.git(&repo, &["show", "--format=", "--name-only", session_two.trim()]),
        "b.txt\n",
        "and holds only its own file"
    );
}

/// `clean` right after a parallel run was killed mid-wave (its sessions get
/// SIGTERM and are still stopping): it stops them, waits, and leaves
/// nothing — in every trial.
#[test]
fn clean_right_after_a_killed_parallel_run_leaves_nothing() {
    let env = TestEnv::new();
    let markers = env.root().join("markers");
    std::fs::create_dir_all(&markers).unwrap();
    let block = markers.join("block");
    let before = format!(
        "touch {m}/started-{{n}}; while [ -f {b} ]; do sleep 0.05; done; ",
        m = markers.display(),
        b = block.display()
    );
    for trial in 0..3 {
        let repo = setup(&env, &two_waves(&before));
        write(&block, "");
        for n in 1..=2 {
            let _ = std::fs::remove_file(markers.join(format!("started-{n}")));
        }
        let run = env.spawn_ultraplan(&repo, &["run", "plan.md"]);
        let started: Vec<PathBuf> = (1..=2).map(|n| markers.join(format!("started-{n}"))).collect();
        wait_for(&started);
        let _ = signal(run, "-9");
        let out = env.run(&repo, &["ultraplan", "clean"]);
        assert_eq!(out.code, 0, "trial {trial}: {out}");
        assert!(out.stdout.contains("removed lock refs/ultraplan/plan/lock"), "{out}");
        assert_eq!(
            env.git(&repo, &["for-each-ref", "refs/ultraplan/plan/"])
                .lines()
                .filter(|l| l.contains("/lock"))
                .count(),
            0,
            "trial {trial}: no lock left: {out}"
        );
        assert_eq!(lock_files(&repo), Vec::<String>::new(), "trial {trial}");
        assert_clean(&env, &repo);
        let _ = std::fs::remove_file(&block);
        let _ = env
            .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
            .expect_code(0);
        assert_eq!(read(&repo.join("c.txt")), "alpha\nbeta\n");
        std::thread::sleep(Duration::from_millis(10));
        std::fs::rename(&repo, env.root().join(format!("trial-{trial}"))).unwrap();
    }
}
