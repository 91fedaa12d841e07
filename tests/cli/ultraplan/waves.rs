//! Parallel sessions: waves of worktrees, `--no-ff` merges one at a time, a
//! conflict or an untracked file in the way changing nothing, pre-flight, and
//! cleanup when the run ends — checked with `git worktree list`,
//! `git branch --list 'ultraplan/*'` and `git fsck` (interruptions from
//! outside: `waves_outside`).

use std::process::Command;

use crate::harness::plans::StepSpec;
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

pub(crate) struct Sess<'a> {
    pub n: u32,
    pub title: &'a str,
    pub wave: u32,
    pub deps: &'a str,
    pub touch: &'a str,
}

/// Two sessions of one wave: A touches `a.txt` (step 1), B `b.txt` (step 2).
pub(crate) fn side_by_side() -> [Sess<'static>; 2] {
    [
        Sess {
            n: 1,
            title: "A",
            wave: 1,
            deps: "none",
            touch: "`a.txt`",
        },
        Sess {
            n: 2,
            title: "B",
            wave: 1,
            deps: "none",
            touch: "`b.txt`",
        },
    ]
}

pub(crate) fn plan(steps: &[StepSpec<'_>], sessions: &[Sess<'_>], verification: &str) -> String {
    let body: String = steps.iter().map(StepSpec::render).collect();
    let mut strategy = String::from("## Execution Strategy\n\n");
    for s in sessions {
        strategy.push_str(&format!(
            "### Session {}: {}\n- **Steps:** {}\n- **Wave:** {}\n- **Depends on:** {}\n{}\n",
            s.n,
            s.title,
            s.n,
            s.wave,
            s.deps,
            if s.touch.is_empty() {
                String::new()
            } else {
                format!("- **Scope fence:** Touch: {}\n", s.touch)
            }
        ));
    }
    format!("# Sessions\n\n## Implementation Plan\n\n{body}{strategy}{verification}")
}

pub(crate) fn setup(env: &TestEnv, body: &str) -> std::path::PathBuf {
    let repo = env.repo("repo");
    write(&repo.join("shared.txt"), "one\ntwo\nthree\n");
    env.git(&repo, &["add", "shared.txt"]);
    env.git(&repo, &["commit", "-q", "-m", "shared"]);
    write(&repo.join("plan.md"), body);
    repo
}

/// Nothing of the run is left: one worktree, no session branch, no lock,
/// and — once the background deletion is done — no worktree files at all.
pub(crate) fn assert_clean(env: &TestEnv, repo: &std::path::Path) {
    wait_for_trash(repo);
    assert_eq!(
        env.git(repo, &["worktree", "list"]).lines().count(),
        1,
        "only the main worktree"
    );
    assert_eq!(
        env.git(repo, &["branch", "--list", "ultraplan/*"]),
        "",
        "no session branch"
    );
    assert!(
        !repo.join(".git/ultraplan/worktrees/plan").exists(),
        "no worktree directory"
    );
    assert_eq!(
        env.git(repo, &["for-each-ref", "refs/ultraplan/plan/lock"]),
        "",
        "no lock"
    );
    env.assert_fsck(repo);
}

/// What a user looks at after a run, recorded: the history, the worktrees,
/// the session branches and the working tree (once the background deletion
/// of removed worktrees is done).
pub(crate) fn show_outcome(t: &mut Transcript<'_>, repo: &std::path::Path) {
    wait_for_trash(repo);
    let _ = t.run(repo, &["log", "--graph", "--format=%h %s"]).expect_code(0);
    let _ = t.run(repo, &["worktree", "list"]).expect_code(0);
    let _ = t.run(repo, &["branch", "--list", "ultraplan/*"]).expect_code(0);
    let _ = t.run(repo, &["status", "--short"]).expect_code(0);
}

/// Waits (up to 30 s) until the worktrees the run deleted in the
/// background are gone.
pub(crate) fn wait_for_trash(repo: &std::path::Path) {
    let dir = repo.join(".git/ultraplan/worktrees");
    let trash = || {
        std::fs::read_dir(&dir).map_or(0, |entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(".trash-"))
                .count()
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while trash() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "removed worktrees are still not deleted"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn three_sessions() -> String {
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

fn conflicting() -> String {
    plan(
        &[
            StepSpec::new(
                1,
                "`shared.txt`",
                "sed -i 's/two/TWO from one/' shared.txt",
                "grep -q TWO shared.txt",
            ),
            StepSpec::new(
                2,
                "`shared.txt`",
                "sed -i 's/two/2 from two/' shared.txt",
                "grep -q 2 shared.txt",
            ),
        ],
        &[
            Sess {
                n: 1,
                title: "One",
                wave: 1,
                deps: "none",
                touch: "",
            },
            Sess {
                n: 2,
                title: "Two",
                wave: 1,
                deps: "none",
                touch: "",
            },
        ],
        "",
    )
}

#[test]
fn a_conflicting_merge_changes_nothing() {
    let env = TestEnv::new();
    let repo = setup(&env, &conflicting());
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    write(&repo.join("untracked.txt"), "mine\n");
    let summary_file = env.root().join("summary.json");
    let mut t = Transcript::new(&env);
    t.note("the summary, as one line of JSON, goes to the file (never after the report)");
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--summary-file", "../summary.json", "plan.md"],
        )
        .expect_code(1);
    t.note("session 1 stays merged; what session 2 would have done is nowhere: HEAD, index and working tree are exactly session 1's merge");
    show_outcome(&mut t, &repo);
    let _ = t.run(&repo, &["diff", "HEAD", "--stat"]).expect_code(0);
    let _ = t.run(&repo, &["ls-files", "--unmerged"]).expect_code(0);
    t.file(&repo.join("shared.txt"));
    assert_transcript!(t, "a_conflicting_merge_changes_nothing");
    let summary: serde_json::Value = serde_json::from_str(&read(&summary_file)).unwrap();
    let s = &summary["ultraexecute_summary"];
    assert_eq!(s["sessions"][1]["result"], "merge-failed");
    // Half a run merged is no result to act on.
    assert_eq!(s["risk"]["action"], "none yet: the run did not complete");
    // Session 2's work is kept (its branch goes with the run), to merge by hand.
    let tip = s["conflicts"][0]["tip"].as_str().unwrap().to_owned();
    assert_eq!(
        s["conflicts"],
        serde_json::json!([{"session": 2, "paths": ["shared.txt"], "tip": tip}])
    );
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    assert_eq!(s["sessions"][0]["merge_commit"].as_str().unwrap(), head.trim());
    assert!(!repo.join(".git/MERGE_HEAD").exists() && !repo.join(".git/MERGE_MSG").exists());
    assert_clean(&env, &repo);
    // No reflog, no branch holds it: the run state does, through `git gc`.
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["reflog", "expire", "--expire=now", "--all"])
        .expect_code(0);
    let _ = t.run(&repo, &["gc", "-q", "--prune=now"]).expect_code(0);
    let _ = t
        .run(&repo, &["cat-file", "-t", &format!("{tip}^{{commit}}")])
        .expect_code(0);
    t.note("a person merges it by hand, conflict and all");
    let _ = t.run(&repo, &["merge", "--no-ff", "--no-edit", &tip]).expect_code(1);
    assert_transcript!(t, "a_conflicting_merge_kept_the_sessions_work_through_gc");
}

#[test]
fn an_untracked_file_in_the_way_refuses_the_merge() {
    let env = TestEnv::new();
    let body = plan(
        &[
            StepSpec::new(1, "`out.txt`", "echo from the session > out.txt", "test -f out.txt"),
            StepSpec::new(2, "`other.txt`", "echo other > other.txt", "true"),
        ],
        &[
            Sess {
                n: 1,
                title: "Out",
                wave: 1,
                deps: "none",
                touch: "`out.txt`",
            },
            Sess {
                n: 2,
                title: "Other",
                wave: 1,
                deps: "none",
                touch: "`other.txt`",
            },
        ],
        "",
    );
    let repo = setup(&env, &body);
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    write(&repo.join("out.txt"), "the user's own, untracked\n");
    let index = std::fs::read(repo.join(".git/index")).unwrap();
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(1);
    t.note("nothing merged: HEAD, the user's file and the index are as they were");
    show_outcome(&mut t, &repo);
    t.file(&repo.join("out.txt"));
    assert_transcript!(t, "an_untracked_file_in_the_way_refuses_the_merge");
    assert_eq!(std::fs::read(repo.join(".git/index")).unwrap(), index);
    assert_clean(&env, &repo);
}

#[test]
fn preflight_refuses_tracked_changes_and_a_live_lock_changing_nothing() {
    let env = TestEnv::new();
    let repo = setup(&env, &three_sessions());
    write(&repo.join("shared.txt"), "edited\n");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(128);
    t.note("nothing committed, no state");
    let _ = t.run(&repo, &["log", "--oneline"]).expect_code(0);
    let _ = t.run(&repo, &["for-each-ref", "refs/ultraplan/"]).expect_code(0);
    let _ = t.run(&repo, &["status", "--short"]).expect_code(0);
    env.git(&repo, &["checkout", "--", "shared.txt"]);
    // A plan under way elsewhere holds the lock.
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
    env.git(&repo, &["update-ref", "refs/ultraplan/plan/lock", id.trim()]);
    t.replace(format!("pid {}", std::process::id()), "pid <TESTPID>");
    t.note("a plan under way elsewhere holds the lock");
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(128);
    let _ = t.run(&repo, &["log", "--oneline"]).expect_code(0);
    assert_transcript!(t, "preflight_refuses_tracked_changes_and_a_live_lock_changing_nothing");
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

#[test]
fn a_touch_overlap_within_a_wave_is_refused_before_anything() {
    let env = TestEnv::new();
    let body = plan(
        &[
            StepSpec::new(1, "`shared.txt`", "echo a > shared.txt", "true"),
            StepSpec::new(2, "`shared.txt`", "echo b > shared.txt", "true"),
        ],
        &[
            Sess {
                n: 1,
                title: "A",
                wave: 1,
                deps: "none",
                touch: "`*.txt`",
            },
            Sess {
                n: 2,
                title: "B",
                wave: 1,
                deps: "none",
                touch: "`shared.txt`",
            },
        ],
        "",
    );
    let repo = setup(&env, &body);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(128);
    t.note("the plan was not committed; no state");
    let _ = t.run(&repo, &["for-each-ref", "refs/ultraplan/"]).expect_code(0);
    show_outcome(&mut t, &repo);
    assert_transcript!(t, "a_touch_overlap_within_a_wave_is_refused_before_anything");
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
