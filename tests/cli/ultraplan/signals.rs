//! Signals (DESIGN §2 invariant 5): a killed run takes its executor down with
//! it, SIGINT stops cleanly (also while the executor is being started, and
//! when the executor ignores it: SIGTERM, then SIGKILL follow) and a resume
//! finishes the run.

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

use super::crash::{slow_plan, spawn_slow_once, spawn_slow_once_after};

/// An executor dies with a run killed by SIGKILL, before anything resumes:
/// the kernel's parent-death signal, asked for by the launcher our binary
/// starts every step's children through (no fork of the run's memory).
#[test]
#[cfg(target_os = "linux")]
fn a_killed_run_takes_its_executor_down_with_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let pid_file = env.root().join("executor.pid");
    let body = format!(
        "# Hang\n\n## Implementation Plan\n\n### Step 1: Hang\n\n- **Files:** `a.txt`\n- **Changes:**\n  ```sh\n  echo $$ > {pid}.tmp && mv {pid}.tmp {pid}\n  sleep 60\n  ```\n- **Verify:** `true`\n- **Checkpoint:** `git commit -m \"hang\"`\n",
        pid = pid_file.display()
    );
    write(&repo.join("plan.md"), &body);
    let child = env.spawn_ultraplan(&repo, &["run", "plan.md"]);
    wait_for(std::slice::from_ref(&pid_file));
    let executor = read(&pid_file).trim().to_owned();
    let _ = signal(child, "-9");
    let gone = |pid: &str| match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // A zombie waiting for its new parent to reap it is dead too.
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !gone(&executor) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(gone(&executor), "the executor {executor} outlived the killed run");
}

/// Ctrl-C reaches the running executor; the run records where it stopped,
/// releases its lock, exits 130, and `--resume` finishes it.
#[test]
fn sigint_stops_cleanly_and_resume_finishes() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let child = spawn_slow_once(&env, &repo, 60);
    // Timed from the signal, with room for a loaded machine: the executor
    // sleeps a minute, so anything well under that means it was stopped.
    let start = std::time::Instant::now();
    let out = signal(child, "-INT");
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        start.elapsed() < std::time::Duration::from_secs(45),
        "the sleeping executor was interrupted too"
    );
    let progress = env.progress(&repo, "refs/ultraplan/plan/run");
    assert!(progress.contains("\"status\": \"stopped\""), "{progress}");
    assert_eq!(
        env.git(&repo, &["for-each-ref", "refs/ultraplan/plan/lock"]),
        "",
        "lock released"
    );
    let _ = env
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    assert_eq!(env.subjects(&repo)[0], "slow");
}

/// A Ctrl-C that comes after the executor started but before the run knows
/// its process group (a loaded machine: the run is paused there by
/// `ULTRAPLAN_TEST_SPAWN_PAUSE_MS`) still stops the executor: the run
/// forwards it once it knows the group, rather than wait out the step.
#[test]
fn sigint_while_the_executor_is_being_started_still_stops_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let marker = env.root().join("started");
    let body = slow_plan(
        &format!("touch {marker}; sleep 60; echo done > a.txt", marker = marker.display()),
        "test -f a.txt",
    );
    write(&repo.join("plan.md"), &body);
    let child = env
        .command(bin_dir().join("git-ultraplan"), &repo)
        .args(["run", "plan.md"])
        .env("ULTRAPLAN_TEST_SPAWN_PAUSE_MS", "3000")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The executor runs while the run still pauses after starting it.
    wait_for(std::slice::from_ref(&marker));
    let start = std::time::Instant::now();
    let out = signal(child, "-INT");
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        start.elapsed() < std::time::Duration::from_secs(45),
        "the executor was left to sleep out its minute"
    );
    let progress = env.progress(&repo, "refs/ultraplan/plan/run");
    assert!(progress.contains("\"status\": \"stopped\""), "{progress}");
}

/// An executor that does not stop for Ctrl-C (it ignores SIGINT, as a
/// script trapping it does, or a shell between two commands) gets SIGTERM
/// a few seconds later, then SIGKILL: the run still stops, records where,
/// and a resume finishes the step.
#[test]
fn an_executor_ignoring_ctrl_c_is_stopped_harder() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut t = Transcript::new(&env);
    t.note("the step's command ignores SIGINT and sleeps a minute; Ctrl-C once it runs");
    let child = spawn_slow_once_after(&env, &repo, "trap '' INT;", 60);
    let start = std::time::Instant::now();
    let out = Output::from(signal(child, "-INT"));
    t.ran(&repo, "git ultraplan run plan.md  # Ctrl-C", &out);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(45),
        "the executor ignoring SIGINT was left to sleep out its minute"
    );
    let progress = env.progress(&repo, "refs/ultraplan/plan/run");
    assert!(progress.contains("\"status\": \"stopped\""), "{progress}");
    let _ = t.run(&repo, &["ultraplan", "run", "--resume", "plan.md"]);
    let _ = t.run(&repo, &["log", "--format=%s", "-1"]);
    assert_transcript!(t, "an_executor_ignoring_ctrl_c_is_stopped_harder");
}
