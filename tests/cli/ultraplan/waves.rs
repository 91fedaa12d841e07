//! Parallel sessions: waves of worktrees, `--no-ff` merges one at a time,
//! what every worktree is given, resuming a run in waves, and cleanup when the
//! run ends — checked with `git worktree list`, `git branch --list
//! 'ultraplan/*'` and `git fsck` (what is refused and changes nothing:
//! `waves_refused`; interruptions from outside: `waves_outside`).

use std::process::Command;

use crate::harness::plans::StepSpec;
use crate::harness::sessions::*;
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

pub(crate) fn three_sessions() -> String {
    plan(
        &[
            StepSpec::new(
                1,
                "`config.txt`",
                "echo port=8080 > config.txt",
                "grep -q port config.txt",
            ),
            StepSpec::new(
                2,
                "`server/main.txt`",
                "mkdir -p server && echo serve > server/main.txt",
                "test -f server/main.txt",
            ),
            StepSpec::new(
                3,
                "`tests/check.txt`",
                "mkdir -p tests && cat config.txt server/main.txt > tests/check.txt",
                "grep -q serve tests/check.txt",
            ),
        ],
        &[
            Sess {
                n: 1,
                title: "Config",
                wave: 1,
                deps: "none",
                touch: "`config.txt`",
            },
            Sess {
                n: 2,
                title: "Server",
                wave: 1,
                deps: "none",
                touch: "`server/**`",
            },
            Sess {
                n: 3,
                title: "Tests",
                wave: 2,
                deps: "Sessions 1, 2",
                touch: "`tests/**`",
            },
        ],
        "## Verification\n\n- `cat tests/check.txt` → expected: `port=8080`\n",
    )
}

#[test]
fn three_sessions_in_two_waves_merge_one_at_a_time() {
    let env = TestEnv::new();
    let repo = setup(&env, &three_sessions());
    write(&repo.join("notes.txt"), "untracked, mine\n");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    t.note("the plan committed alone, then one --no-ff merge per session; wave 2 read wave 1's merged work");
    show_outcome(&mut t, &repo);
    let _ = t.run(&repo, &["show", "HEAD:tests/check.txt"]).expect_code(0);
    let _ = t
        .run(&repo, &["show", "--name-only", "--format=%s", "HEAD~1^2"])
        .expect_code(0);
    t.note("each session's own state and notes are in git");
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD^2"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["for-each-ref", "--format=%(refname)", "refs/ultraplan/"])
        .expect_code(0);
    assert_transcript!(t, "three_sessions_in_two_waves_merge_one_at_a_time");
    let session2 = env.progress(&repo, "refs/ultraplan/plan/session-2");
    assert!(session2.contains("\"status\": \"completed\""), "{session2}");
    let log_file = repo.join(".git/ultraplan/logs/plan/session-1.log");
    assert!(read(&log_file).contains("Ultraplan run complete"));
    assert_clean(&env, &repo);
}

#[test]
fn a_failed_session_stops_before_merging() {
    let env = TestEnv::new();
    let body = three_sessions().replace("test -f server/main.txt", "false");
    let repo = setup(&env, &body);
    let mut t = Transcript::new(&env);
    t.note("no merge of a wave with a failed session; later waves do not run");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "plan.md"])
        .expect_code(1);
    show_outcome(&mut t, &repo);
    assert_transcript!(t, "a_failed_session_stops_before_merging");
    assert!(!repo.join("config.txt").exists());
    assert_clean(&env, &repo);
}

#[test]
fn include_files_and_setup_reach_every_worktree() {
    let env = TestEnv::new();
    let body = plan(
        &[
            StepSpec::new(
                1,
                "`a.txt`",
                "cat .env > a.txt",
                "grep -q SECRET_CONFIG a.txt && test -f .setup-ran",
            ),
            StepSpec::new(
                2,
                "`b.txt`",
                "cat .env.local config/app.local > b.txt",
                "test -f .setup-ran",
            ),
        ],
        &side_by_side(),
        "",
    );
    let repo = setup(&env, &body);
    write(&repo.join(".gitignore"), ".env*\n*.local\n.setup-ran\n");
    env.git(&repo, &["add", ".gitignore", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "ignore"]);
    write(&repo.join(".env"), "SECRET_CONFIG=1\n");
    write(&repo.join(".env.local"), "LOCAL=1\n");
    write(&repo.join("config/app.local"), "APP=1\n");
    write(&repo.join("config/other.local"), "not included\n");
    let mut t = Transcript::new(&env);
    t.note("literal names and globs, ignored files included");
    let _ = t
        .run(&repo, &["config", "ultraplan.worktreeInclude", ".env"])
        .expect_code(0);
    let _ = t
        .run(
            &repo,
            &["config", "--add", "ultraplan.worktreeInclude", ".env.* config/app.*"],
        )
        .expect_code(0);
    let _ = t
        .run(&repo, &["config", "ultraplan.worktreeSetup", "touch .setup-ran"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["ultraplan", "-q", "run", "--jobs", "1", "plan.md"])
        .expect_code(0);
    let _ = t.run(&repo, &["show", "HEAD:a.txt"]).expect_code(0);
    let _ = t.run(&repo, &["show", "HEAD:b.txt"]).expect_code(0);
    show_outcome(&mut t, &repo);
    assert_transcript!(t, "include_files_and_setup_reach_every_worktree");
    assert_clean(&env, &repo);
}

/// A claude stand-in that writes `claude-<worktree name>.txt` and reports a
/// success in claude's JSON.
fn session_claude_stub(env: &TestEnv) -> std::path::PathBuf {
    let bin = env.root().join("stub-bin");
    write(
        &bin.join("claude"),
        "#!/bin/sh\necho by-claude > \"claude-$(basename \"$PWD\").txt\"\n\
         echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"Done.\",\"total_cost_usd\":0.01}'\n",
    );
    Command::new("chmod")
        .args(["+x", bin.join("claude").to_str().unwrap()])
        .status()
        .unwrap();
    bin
}

#[test]
fn billing_is_asked_once_before_any_session_starts() {
    let mut env = TestEnv::new();
    let bin = session_claude_stub(&env);
    env.set(
        "PATH",
        format!(
            "{}:{}:{}",
            bin_dir().display(),
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    );
    env.set("ANTHROPIC_API_KEY", "sk-ant-api03-not-a-real-key-000000000000000000");
    let body = plan(
        &[
            StepSpec::new(1, "`claude-session-1.txt`", "write it", "test -f claude-session-1.txt"),
            StepSpec::new(2, "`claude-session-2.txt`", "write it", "test -f claude-session-2.txt"),
        ],
        &[
            Sess {
                n: 1,
                title: "One",
                wave: 1,
                deps: "none",
                touch: "`claude-session-1.txt`",
            },
            Sess {
                n: 2,
                title: "Two",
                wave: 1,
                deps: "none",
                touch: "`claude-session-2.txt`",
            },
        ],
        "",
    );
    let repo = setup(&env, &body);
    let mut t = Transcript::new(&env);
    t.note("not confirmed and nobody to ask: stopped before any worktree or commit");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--executor", "claude", "plan.md"])
        .expect_code(3);
    let _ = t.run(&repo, &["for-each-ref", "refs/ultraplan/"]).expect_code(0);
    show_outcome(&mut t, &repo);
    t.note("confirmed once: no session asks again");
    let _ = t
        .run(
            &repo,
            &["ultraplan", "-q", "run", "--executor", "claude", "--yes", "plan.md"],
        )
        .expect_code(0);
    show_outcome(&mut t, &repo);
    let _ = t.run(&repo, &["show", "HEAD:claude-session-2.txt"]).expect_code(0);
    assert_transcript!(t, "billing_is_asked_once_before_any_session_starts");
    assert_clean(&env, &repo);
}

#[test]
fn resume_keeps_merged_sessions_and_runs_the_rest_with_the_fixed_plan() {
    let env = TestEnv::new();
    let broken = three_sessions().replace("grep -q serve tests/check.txt", "grep -q nothing tests/check.txt");
    let repo = setup(&env, &broken);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "-q", "run", "--max-attempts", "1", "plan.md"])
        .expect_code(1);
    show_outcome(&mut t, &repo);
    assert_clean(&env, &repo);
    // A person fixes the Verify in the plan (tracked now) and resumes.
    write(&repo.join("plan.md"), &three_sessions());
    t.note("a person fixes the Verify in the plan (tracked now) and resumes: wave 1 is not run again");
    let _ = t
        .run(&repo, &["ultraplan", "-q", "run", "--resume", "plan.md"])
        .expect_code(0);
    show_outcome(&mut t, &repo);
    let _ = t.run(&repo, &["show", "HEAD:tests/check.txt"]).expect_code(0);
    let _ = t
        .run(&repo, &["log", "--format=%s", "refs/ultraplan/plan/run"])
        .expect_code(0);
    assert_transcript!(t, "resume_keeps_merged_sessions_and_runs_the_rest_with_the_fixed_plan");
    assert_clean(&env, &repo);
}

/// A kill at each point of a merge, then `--resume`: every session is
/// merged exactly once and the result is the uninterrupted run's.
#[test]
fn a_kill_during_a_merge_resumes_without_merging_twice() {
    let env = TestEnv::new();
    let expected = {
        let repo = setup(&env, &three_sessions());
        let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
        let tree = env.git(&repo, &["rev-parse", "HEAD^{tree}"]);
        std::fs::rename(&repo, env.root().join("baseline")).unwrap();
        tree
    };
    let mut t = Transcript::new(&env);
    for (i, point) in [
        "merge-recorded",
        "merge-checked-out",
        "merge-committed",
        "merge-committed:2",
    ]
    .iter()
    .enumerate()
    {
        let repo = setup(&env, &three_sessions());
        let mut cmd = env.command(bin_dir().join("git-ultraplan"), &repo);
        cmd.args(["run", "plan.md"]).env("ULTRAPLAN_TEST_FAULT", point);
        let killed = capture(cmd);
        assert_eq!(killed.code, -1, "{point}: {killed}");
        t.note(&format!("killed at {point}; every session is merged exactly once"));
        let _ = t
            .run(&repo, &["ultraplan", "-q", "run", "--resume", "plan.md"])
            .expect_code(0);
        show_outcome(&mut t, &repo);
        assert_eq!(env.git(&repo, &["rev-parse", "HEAD^{tree}"]), expected, "{point}");
        assert_clean(&env, &repo);
        std::fs::rename(&repo, env.root().join(format!("killed-{i}"))).unwrap();
    }
    assert_transcript!(t, "a_kill_during_a_merge_resumes_without_merging_twice");
}

#[test]
fn a_session_that_did_not_run_is_never_reported_completed() {
    let env = TestEnv::new();
    let repo = setup(&env, &three_sessions());
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    // Another plan with the same file name is refused before anything.
    std::fs::create_dir_all(repo.join("docs")).unwrap();
    write(&repo.join("docs/plan.md"), &three_sessions());
    env.git(&repo, &["add", "docs/plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "docs plan"]);
    let mut t = Transcript::new(&env);
    t.note("another plan with the same file name is refused before anything");
    let _ = t.run(&repo, &["ultraplan", "run", "docs/plan.md"]).expect_code(128);
    env.git(&repo, &["reset", "-q", "--hard", head.trim()]);
    // A session whose own lock is held elsewhere cannot run: it is not completed.
    let hostname = String::from_utf8(Command::new("uname").arg("-n").output().unwrap().stdout).unwrap();
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let lock = env.root().join("lock");
    write(
        &lock,
        &format!(
            "pid: {}\nhost: {}\nstarted_at: {now}\nheartbeat_at: {now}\ncommand: x\n",
            std::process::id(),
            hostname.trim()
        ),
    );
    let id = env.git(&repo, &["hash-object", "-w", lock.to_str().unwrap()]);
    env.git(&repo, &["update-ref", "refs/ultraplan/plan/lock-session-1", id.trim()]);
    t.note("session 1's own lock is held by a live process: it cannot run, and is not completed");
    let _ = t
        .run(&repo, &["ultraplan", "-q", "run", "--again", "plan.md"])
        .expect_code(1);
    let _ = t.run(&repo, &["log", "--oneline", "-1"]).expect_code(0);
    env.git(&repo, &["update-ref", "-d", "refs/ultraplan/plan/lock-session-1"]);
    t.note("a failing setup is logged, and its sessions are not completed either");
    let _ = t
        .run(
            &repo,
            &[
                "-c",
                "ultraplan.worktreeSetup=echo setting up; exit 3",
                "ultraplan",
                "-q",
                "run",
                "plan.md",
            ],
        )
        .expect_code(1);
    show_outcome(&mut t, &repo);
    assert_transcript!(t, "a_session_that_did_not_run_is_never_reported_completed");
    let log = read(&repo.join(".git/ultraplan/logs/plan/session-1.log"));
    assert!(
        log.contains("--- ultraplan.worktreeSetup: echo setting up; exit 3 (exit 3)\nsetting up"),
        "{log}"
    );
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head, "nothing merged");
    assert_clean(&env, &repo);
}

#[test]
fn a_steps_changes_without_a_commit_are_kept_by_its_session() {
    let env = TestEnv::new();
    let body = plan(
        &[
            StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt").checkpoint("none"),
            StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
        ],
        &side_by_side(),
        "",
    );
    let repo = setup(&env, &body);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(0);
    t.note("session 1's branch holds a commit of step 1's changes, merged like any other");
    show_outcome(&mut t, &repo);
    let _ = t
        .run(&repo, &["show", "--name-only", "--format=%s", "HEAD~1^2"])
        .expect_code(0);
    let log = read(&repo.join(".git/ultraplan/logs/plan/session-1.log"));
    assert!(log.contains("step 1 passed without committing a.txt"), "{log}");
    assert_clean(&env, &repo);
    t.note("the manual executor needs the worktree it stopped in: refused here");
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--again", "--executor", "manual", "plan.md"],
        )
        .expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--jobs", "0", "plan.md"])
        .expect_code(129);
    assert_transcript!(t, "a_steps_changes_without_a_commit_are_kept_by_its_session");
}

#[test]
fn resume_without_a_recorded_run_runs_the_sessions() {
    let env = TestEnv::new();
    let repo = setup(&env, &three_sessions());
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "-q", "run", "--resume", "plan.md"])
        .expect_code(0);
    show_outcome(&mut t, &repo);
    assert_transcript!(t, "resume_without_a_recorded_run_runs_the_sessions");
    assert_clean(&env, &repo);
}
