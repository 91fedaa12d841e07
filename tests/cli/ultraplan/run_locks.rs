//! `git ultraplan run`'s lock: a live lock is refused and a stale one taken
//! over, and a ref lock a killed run left is removed when its lock is taken
//! over.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

use super::run::setup;

#[test]
fn a_live_lock_is_refused_and_a_stale_one_taken_over() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "true")]),
    );
    let lock = |pid: u32| write_lock(&env, &repo, pid);
    let mut t = Transcript::new(&env);
    t.replace(format!("pid {} on", std::process::id()), "pid <PID> on");
    t.note("the lock of a live process (this test's)");
    lock(std::process::id());
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(128);
    let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "clean", "plan.md"]).expect_code(1);
    t.note("the lock of a process that is gone");
    lock(999_999_999);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert_transcript!(t, "a_live_lock_is_refused_and_a_stale_one_taken_over");
    assert_eq!(
        env.git(&repo, &["for-each-ref", "refs/ultraplan/plan/lock"]),
        "",
        "released"
    );
    lock(999_999_999);
    let out = env.run(&repo, &["ultraplan", "clean", "--json"]).expect_code(0);
    assert_eq!(out.json()["removed"][0]["ref"], "refs/ultraplan/plan/lock");
}

/// Writes the lock of `plan.md` as a run of `pid` on this host holds it.
fn write_lock(env: &TestEnv, repo: &std::path::Path, pid: u32) {
    let hostname = String::from_utf8(std::process::Command::new("uname").arg("-n").output().unwrap().stdout).unwrap();
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let blob = format!(
        "pid: {pid}\nhost: {}\nstarted_at: {now}\nheartbeat_at: {now}\ncommand: git ultraplan run plan.md\n",
        hostname.trim()
    );
    let path = env.root().join("lock.txt");
    write(&path, &blob);
    let id = env.git(repo, &["hash-object", "-w", path.to_str().unwrap()]);
    env.git(repo, &["update-ref", "refs/ultraplan/plan/lock", id.trim()]);
}

/// A run killed while it updated one of its refs leaves that ref's `.lock`
/// file: the run taking over its lock removes it, or every update of that
/// ref would fail ("session 2 crashed" in a wave run after a SIGKILL).
#[test]
fn a_ref_lock_left_by_a_killed_run_is_removed_when_its_lock_is_taken_over() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "true")]),
    );
    write_lock(&env, &repo, 999_999_999);
    let stale = repo.join(".git/refs/ultraplan/plan/run.lock");
    write(&stale, "");
    let out = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert!(
        out.stderr.contains(&format!(
            "removed the stale lock file '{}' (the run that wrote it is gone)",
            stale.display()
        )),
        "{out}"
    );
    assert!(!stale.exists());
    assert!(env
        .git(&repo, &["show", "refs/ultraplan/plan/run:run.json"])
        .contains("completed"));
}
