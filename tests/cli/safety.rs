//! Nothing a step does costs the user a byte (DESIGN §2 invariant 3): the
//! index, HEAD and the branch, a stash, ignored files and git's own files are
//! part of what a restore puts back; a resume keeps a person's edits; odd
//! plan names and paths never wedge a run.

use std::path::{Path, PathBuf};

use crate::plans::{plan, StepSpec};
use crate::support::*;

fn setup(env: &TestEnv, name: &str, body: &str) -> PathBuf {
    let repo = env.repo("repo");
    write(&repo.join(name), body);
    env.git(&repo, &["add", name]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    repo
}

fn two_sessions() -> String {
    let steps = [
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
    ];
    let body: String = steps.iter().map(StepSpec::render).collect();
    format!(
        "# Two\n\n## Implementation Plan\n\n{body}## Execution Strategy\n\n\
         ### Session 1: A\n- **Steps:** 1\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `a.txt`\n\n\
         ### Session 2: B\n- **Steps:** 2\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `b.txt`\n\n"
    )
}

#[test]
fn plans_named_after_windows_devices_run_and_list() {
    let env = TestEnv::new();
    let repo = setup(&env, "con.md", &two_sessions());
    let single = plan(&[StepSpec::new(1, "`x.txt`", "echo x > x.txt", "test -f x.txt")]);
    write(&repo.join("AUX.md"), &single);
    write(&repo.join("lpt1.v2.md"), &single.replace("x.txt", "y.txt"));
    env.git(&repo, &["add", "AUX.md", "lpt1.v2.md"]);
    env.git(&repo, &["commit", "-q", "-m", "more plans"]);
    env.run(&repo, &["ultraplan", "run", "con.md"]).expect_code(0);
    env.run(&repo, &["ultraplan", "run", "AUX.md"]).expect_code(0);
    env.run(&repo, &["ultraplan", "run", "lpt1.v2.md"]).expect_code(0);
    let refs = env.git(&repo, &["for-each-ref", "--format=%(refname)", "refs/ultraplan/"]);
    assert_eq!(
        refs,
        "refs/ultraplan/plan-AUX/run\nrefs/ultraplan/plan-con/run\nrefs/ultraplan/plan-con/session-1\n\
         refs/ultraplan/plan-con/session-2\nrefs/ultraplan/plan-lpt1.v2/run\n"
    );
    for r in refs.lines() {
        env.git(&repo, &["check-ref-format", r]);
    }
    let status = env.run(&repo, &["ultraplan", "status"]).expect_code(0);
    for plan in ["con.md", "AUX.md", "lpt1.v2.md"] {
        assert!(status.stdout.contains(plan), "{status}");
    }
    env.run(&repo, &["ultraplan", "log", "con.md"]).expect_code(0);
    env.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    env.assert_fsck(&repo);
}

#[test]
fn one_unreadable_ref_does_not_hide_every_other_plan() {
    let env = TestEnv::new();
    let repo = setup(
        &env,
        "plan.md",
        &plan(&[StepSpec::new(1, "`x.txt`", "echo x > x.txt", "test -f x.txt")]),
    );
    env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    // Another tool made a reference gix refuses to list.
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    env.git(&repo, &["update-ref", "refs/ultraplan/nul/run", head.trim()]);
    let status = env.run(&repo, &["ultraplan", "status"]).expect_code(0);
    assert!(status.stdout.contains("plan.md"), "{status}");
    env.run(&repo, &["ultraplan", "log"]).expect_code(0);
    env.run(&repo, &["ultraplan", "clean"]).expect_code(0);
}

/// Writes a lock blob by hand under `refs/ultraplan/plan/lock`.
fn plant_lock(env: &TestEnv, repo: &Path, pid: u32, pid_start: Option<u64>) {
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let start = pid_start.map(|t| format!("pid_start: {t}\n")).unwrap_or_default();
    let blob_text = format!(
        "pid: {pid}\nhost: {}\nstarted_at: {now}\nheartbeat_at: {now}\n{start}command: git ultraplan run plan.md\n",
        hostname.trim()
    );
    let tmp = env.root().join("lock.txt");
    std::fs::write(&tmp, blob_text).unwrap();
    let blob = env.git(repo, &["hash-object", "-w", tmp.to_str().unwrap()]);
    env.git(repo, &["update-ref", "refs/ultraplan/plan/lock", blob.trim()]);
}

fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.split_whitespace().nth(19)?.parse().ok()
}

#[test]
fn a_lock_whose_pid_was_reused_or_just_killed_is_stale() {
    if !Path::new("/proc/self/stat").exists() {
        eprintln!("skipped: no /proc to read process start times from");
        return;
    }
    let env = TestEnv::new();
    let repo = setup(
        &env,
        "plan.md",
        &plan(&[StepSpec::new(1, "`x.txt`", "echo x > x.txt", "test -f x.txt")]),
    );
    // A live process holds the pid now, but it is not the one that locked.
    let mut other = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let ticks = start_ticks(other.id()).unwrap();
    plant_lock(&env, &repo, other.id(), Some(ticks + 7));
    let out = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert!(out.stderr.contains("took over a stale lock"), "{out}");
    // The same pid with its own start time is live: refused.
    env.git(&repo, &["update-ref", "-d", "refs/ultraplan/plan/lock"]);
    plant_lock(&env, &repo, other.id(), Some(ticks));
    let out = env
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(128);
    assert!(out.stderr.contains("another git ultraplan holds"), "{out}");
    // Killed and not yet reaped: not alive.
    other.kill().unwrap();
    let out = env.run(&repo, &["ultraplan", "run", "--resume", "plan.md"]);
    assert!(out.stderr.contains("took over a stale lock"), "{out}");
    let _ = other.wait();
}
