//! After a kill (issues 36 and 44): git's `.lock` files a killed writer
//! left are removed by `clean` and by the run that takes its lock over,
//! named, when their writer is provably gone — and kept, naming the
//! process, when a live git process may hold one; the historian's
//! `--verify-each` worktree of a killed run is found from git's worktree
//! list; every commit is dated when it is made.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::harness::plans::{self, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// The lock files of issue 36 (and 44's `packed-refs.lock`), as a kill
/// during their update leaves them: relative to `.git`.
pub(crate) const LEFT_BY_KILLS: [&str; 7] = [
    "refs/notes/ultraplan.lock",
    "index.lock",
    "refs/ultraplan/plan/run.lock",
    "refs/heads/ultraplan/plan/session-1.lock",
    "refs/ultraplan-outcomes.lock",
    "packed-refs.lock",
    "refs/heads/main.lock",
];

/// Writes each of `names` (relative to `.git`) as an empty lock file.
pub(crate) fn plant(repo: &Path, names: &[&str]) {
    for name in names {
        write(&repo.join(".git").join(name), "");
    }
}

/// Every `.lock` file under `.git`, relative to it.
pub(crate) fn lock_files(repo: &Path) -> Vec<String> {
    let git = repo.join(".git");
    let mut out: Vec<String> = tree_state(&git)
        .into_keys()
        .filter(|p| p.extension().is_some_and(|e| e == "lock"))
        .map(|p| p.display().to_string())
        .collect();
    out.sort();
    out
}

/// A live git process working in `repo` (it waits for input until dropped).
struct LiveGit(std::process::Child);

impl LiveGit {
    fn start(env: &TestEnv, repo: &Path) -> LiveGit {
        let child = env
            .command("git", repo)
            .args(["hash-object", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        // Its start lies well before anything planted after this.
        std::thread::sleep(Duration::from_millis(100));
        LiveGit(child)
    }
}

impl Drop for LiveGit {
    fn drop(&mut self) {
        drop(self.0.stdin.take());
        let _ = self.0.wait();
    }
}

/// A three-step plan; step 3 fails its first attempt.
fn three_steps(dir: &Path) -> String {
    let counter = dir.join("counter").display().to_string();
    plans::plan(&[
        StepSpec::new(1, "`one.txt`", "echo one > one.txt", "test -f one.txt"),
        StepSpec::new(2, "`two.txt`", "echo two > two.txt", "test -f two.txt"),
        StepSpec::new(
            3,
            "`three.txt`",
            &format!("n=$(cat {counter} 2>/dev/null || echo 0); echo $((n+1)) > {counter}; echo three > three.txt"),
            &format!("test $(cat {counter}) -ge 2"),
        )
        .policy("retry"),
    ])
}

/// A repository with the plan, killed by `fault` during its first run.
fn killed(env: &TestEnv, name: &str, fault: &str) -> PathBuf {
    let repo = env.repo(name);
    let dir = env.root().join(format!("{name}-files"));
    std::fs::create_dir_all(&dir).unwrap();
    write(&repo.join("plan.md"), &three_steps(&dir));
    let mut cmd = env.command(bin_dir().join("git-ultraplan"), &repo);
    cmd.args(["run", "plan.md"]).env("ULTRAPLAN_TEST_FAULT", fault);
    let out = capture(cmd);
    assert_eq!(out.code, -1, "{fault}: {out}");
    repo
}

fn finished(env: &TestEnv, repo: &Path) -> (Vec<String>, String) {
    (env.subjects(repo), env.git(repo, &["rev-parse", "HEAD^{tree}"]))
}

#[test]
fn clean_removes_the_lock_files_a_killed_run_left_and_resume_finishes() {
    let env = TestEnv::new();
    let baseline = {
        let repo = env.repo("baseline");
        let dir = env.root().join("baseline-files");
        std::fs::create_dir_all(&dir).unwrap();
        write(&repo.join("plan.md"), &three_steps(&dir));
        let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
        finished(&env, &repo)
    };
    let repo = killed(&env, "repo", "after-executor:3");
    plant(&repo, &LEFT_BY_KILLS);
    let lock = env.git(&repo, &["cat-file", "-p", "refs/ultraplan/plan/lock"]);
    let dead = lock.lines().find_map(|l| l.strip_prefix("pid: ")).unwrap().to_owned();
    let mut t = Transcript::new(&env);
    t.replace(format!("pid {dead} "), "pid <KILLED> ");
    t.replace(format!("process {dead} "), "process <KILLED> ");
    t.note("killed after step 3's executor, with git's lock files left as kills leave them");
    let _ = t.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    assert_eq!(lock_files(&repo), Vec::<String>::new());
    t.note("nothing left the second time");
    let _ = t.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    let _ = t
        .run(&repo, &["ultraplan", "-q", "run", "--resume", "plan.md"])
        .expect_code(0);
    let _ = t.run(&repo, &["log", "--oneline"]).expect_code(0);
    t.note("plain git works again: notes and the index");
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "add", "-m", "x", "HEAD~3"])
        .expect_code(0);
    let _ = t.run(&repo, &["status", "--short"]).expect_code(0);
    assert_transcript!(t, "clean_removes_the_lock_files_a_killed_run_left_and_resume_finishes");
    assert_eq!(finished(&env, &repo).1, baseline.1);
    assert_eq!(finished(&env, &repo).0[..3], baseline.0[..3]);
    assert_eq!(lock_files(&repo), Vec::<String>::new());
    env.assert_fsck(&repo);
}

#[test]
fn resume_takes_the_dead_runs_lock_over_and_removes_its_lock_files() {
    let env = TestEnv::new();
    let repo = killed(&env, "repo", "after-record:2");
    let names = [
        "refs/ultraplan/plan/run.lock",
        "refs/ultraplan/plan/lock.lock",
        "refs/notes/ultraplan.lock",
        "index.lock",
    ];
    let lock = env.git(&repo, &["cat-file", "-p", "refs/ultraplan/plan/lock"]);
    let dead = lock.lines().find_map(|l| l.strip_prefix("pid: ")).unwrap().to_owned();
    // A git process that started before them and still works here (a
    // pager, an editor's `git commit`) may hold the shared ones: the plan's
    // own are the dead run's all the same.
    let live = LiveGit::start(&env, &repo);
    plant(&repo, &names);
    let mut t = Transcript::new(&env);
    t.replace(format!("pid {dead} "), "pid <KILLED> ");
    t.replace(format!("process {dead} "), "process <KILLED> ");
    t.replace(format!("(pid {})", live.0.id()), "(pid <LIVE>)");
    t.note("killed after recording step 2; a live git process works here");
    t.note("the plan's own lock files are the dead run's; the shared ones are kept, and git cannot write the index while index.lock is there");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(128);
    drop(live);
    t.note("once that process is gone, the next resume finds them stale");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    let _ = t.run(&repo, &["log", "--oneline"]).expect_code(0);
    assert_transcript!(t, "resume_takes_the_dead_runs_lock_over_and_removes_its_lock_files");
    assert_eq!(lock_files(&repo), Vec::<String>::new());
}

#[test]
fn a_lock_file_a_live_git_process_may_hold_is_kept_and_named() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    // Left by a process killed a minute ago.
    let stale = repo.join(".git/packed-refs.lock");
    write(&stale, "");
    let file = std::fs::File::options().write(true).open(&stale).unwrap();
    file.set_modified(std::time::SystemTime::now() - Duration::from_secs(60))
        .unwrap();
    let live = LiveGit::start(&env, &repo);
    let held = repo.join(".git/index.lock");
    write(&held, "");
    let mut t = Transcript::new(&env);
    t.replace(format!("(pid {})", live.0.id()), "(pid <LIVE>)");
    t.note("packed-refs.lock is a minute old; index.lock was written after a live git process started");
    let _ = t.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    assert!(held.exists());
    drop(live);
    t.note("that process is gone");
    let _ = t.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    let _ = t.run(&repo, &["status", "--short"]).expect_code(0);
    assert_transcript!(t, "a_lock_file_a_live_git_process_may_hold_is_kept_and_named");
    assert_eq!(lock_files(&repo), Vec::<String>::new());
}

/// A killed `sync` leaves `packed-refs.lock` (issue 44 item 4): the next
/// run removes it as it takes its lock, and goes on.
#[test]
fn a_run_after_a_killed_sync_is_not_wedged_by_packed_refs_lock() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("plan.md"),
        &plans::plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")]),
    );
    env.git(&repo, &["pack-refs", "--all"]);
    plant(&repo, &["packed-refs.lock"]);
    let mut t = Transcript::new(&env);
    t.note("a killed sync left packed-refs.lock");
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(0);
    t.note("git can pack references again");
    let _ = t.run(&repo, &["pack-refs", "--all"]).expect_code(0);
    let _ = t.run(&repo, &["log", "--oneline"]).expect_code(0);
    assert_transcript!(t, "a_run_after_a_killed_sync_is_not_wedged_by_packed_refs_lock");
}

/// Each commit of a run carries the time it is made: checkpoints, notes
/// and run-state commits of a run whose steps take a second each — unless
/// GIT_COMMITTER_DATE / GIT_AUTHOR_DATE say otherwise, as for git.
#[test]
fn every_commit_is_dated_when_it_is_made() {
    let plan = plans::plan(&[
        StepSpec::new(1, "`one.txt`", "sleep 1.1; echo one > one.txt", "test -f one.txt"),
        StepSpec::new(2, "`two.txt`", "sleep 1.1; echo two > two.txt", "test -f two.txt"),
    ]);
    let times = |env: &TestEnv, repo: &Path, rev: &str, format: &str| -> Vec<i64> {
        env.git(repo, &["log", &format!("--format={format}"), rev])
            .lines()
            .map(|l| l.parse().unwrap())
            .collect()
    };
    let mut env = TestEnv::new();
    env.unset("GIT_COMMITTER_DATE");
    env.unset("GIT_AUTHOR_DATE");
    let repo = env.repo("repo");
    write(&repo.join("plan.md"), &plan);
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    for format in ["%ct", "%at"] {
        let commits = times(&env, &repo, "HEAD", format);
        assert!(
            commits[0] > commits[1] && commits[1] > commits[2],
            "{format}: {commits:?}"
        );
    }
    let notes = times(&env, &repo, "refs/notes/ultraplan", "%ct");
    assert!(notes[0] > notes[1], "{notes:?}");
    let states = times(&env, &repo, "refs/ultraplan/plan/run", "%ct");
    assert!(states.first() > states.last(), "{states:?}");
    // With the dates fixed, every commit has them.
    let env = TestEnv::new();
    let repo = env.repo("fixed");
    write(&repo.join("plan.md"), &plan);
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let fixed = "2026-01-02T03:04:05Z";
    let expected = chrono::DateTime::parse_from_rfc3339(fixed).unwrap().timestamp();
    for rev in ["HEAD", "refs/notes/ultraplan", "refs/ultraplan/plan/run"] {
        for format in ["%ct", "%at"] {
            let all = times(&env, &repo, rev, format);
            assert!(all.iter().all(|t| *t == expected), "{rev} {format}: {all:?}");
        }
    }
}

/// A historian run killed with SIGKILL during `--verify-each` whose process
/// nobody reaped (its parent died too, and in a container nothing reaps
/// orphans): its worktree is found from git's worktree list and removed by
/// `abort`, by a new `clean` and by `resume`; a live one is named instead.
#[test]
fn the_verify_worktree_of_a_killed_unreaped_historian_goes() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    for n in 1..=3 {
        write(&repo.join(format!("f{n}.txt")), &format!("{n}\n"));
        env.git(&repo, &["add", "."]);
        env.git(&repo, &["commit", "-q", "-m", &format!("add f{n}")]);
    }
    for (case, command) in [
        ("abort", &["historian", "abort"][..]),
        ("clean", &["historian", "clean", "--verify-each", "true"][..]),
    ] {
        let marker = env.root().join(format!("verifying-{case}"));
        let verify = format!("touch {}; sleep 30", marker.display());
        let mut child = env.spawn_historian(&repo, &["clean", "--verify-each", &verify]);
        wait_for(std::slice::from_ref(&marker));
        // While it runs, `abort` names it rather than saying nothing is pending.
        if case == "abort" {
            let out = env.run(&repo, &["historian", "abort"]).expect_code(128);
            assert!(
                out.stderr.contains(&format!(
                    "a git historian run (pid {}) is verifying commits",
                    child.id()
                )),
                "{out}"
            );
        }
        let path = repo.join(format!(".git/historian/verify-{}", child.id()));
        assert!(path.exists());
        // Killed, not reaped: a zombie until `child.wait()` below.
        let _ = std::process::Command::new("kill")
            .args(["-9", &child.id().to_string()])
            .status();
        let out = env.run(&repo, command).expect_code(0);
        assert!(
            out.stderr
                .contains(&format!("removed the --verify-each worktree '{}'", path.display())),
            "{case}: {out}"
        );
        assert_eq!(env.git(&repo, &["worktree", "list"]).lines().count(), 1, "{case}");
        assert!(!path.exists(), "{case}");
        let _ = child.wait();
    }
    env.assert_fsck(&repo);
}
