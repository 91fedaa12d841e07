//! After a kill, distributed runs (issue 36 items 3, 5 and 15, issue 44
//! item 7): `clean` removes a killed worker's place; a claim closed as
//! completed without the branch to merge is a failed session that a resumed
//! run runs again, with the check that failed named; a resumed run goes on
//! through its remote after the remote was renamed.

use std::time::Duration;

use crate::harness::support::*;
use crate::ultraplan::distribute::{assert_worker_clean, cluster, finish, merges};

#[test]
fn clean_removes_the_place_of_a_killed_worker() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a", "b"], false);
    let (a, b) = (env.root().join("a"), env.root().join("b"));
    c.block(1);
    let orchestrator = env.spawn_ultraplan(&a, &["run", "--distribute", "plan.md"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    let doomed = env.spawn_ultraplan(&b, &["work", "--once", "--plan", "plan"]);
    let place = b.join(".git/ultraplan/work/plan/session-1");
    c.wait_for_ref(&env, "refs/ultraplan/plan/claims/session-1");
    wait_for(&[place.join(".git")]);
    std::thread::sleep(Duration::from_millis(300));
    let _ = signal(doomed, "-KILL");
    assert_eq!(
        env.git(&b, &["worktree", "list"]).lines().count(),
        2,
        "the place is left"
    );
    let out = env.run(&b, &["ultraplan", "clean"]).expect_code(0);
    assert!(
        out.stdout.contains(&format!("removed worktree {}", place.display())),
        "{out}"
    );
    assert!(
        out.stdout.contains("removed branch ultraplan-work/plan/session-1"),
        "{out}"
    );
    assert!(
        out.stdout.contains("removed lock refs/ultraplan/plan/lock-work-1"),
        "{out}"
    );
    assert_worker_clean(&env, &b);
    assert!(!place.exists());
    // The session is taken over once its claim expires, and the run ends.
    c.unblock(1);
    std::thread::sleep(Duration::from_millis(2500));
    let _ = env.run(&b, &["ultraplan", "work"]).expect_code(0);
    let out = finish(orchestrator);
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(merges(&env, &a).len(), 3);
    assert_worker_clean(&env, &b);
}

/// A claim as a worker closes it, written straight into the remote.
fn plant_claim(env: &TestEnv, remote: &std::path::Path, work: &str, n: u32, result: &str) {
    let now = chrono::Utc::now().timestamp();
    let text = format!(
        "work: {work}\nsession: {n}\nhost: elsewhere\npid: 1\ntoken: {n:016x}\nheartbeat: {now}\nstep: -\nresult: {result}\n"
    );
    let file = env.root().join(format!("claim-{n}"));
    write(&file, &text);
    let blob = env.git(remote, &["hash-object", "-w", file.to_str().unwrap()]);
    env.git(
        remote,
        &[
            "update-ref",
            &format!("refs/ultraplan/plan/claims/session-{n}"),
            blob.trim(),
        ],
    );
}

/// Claims closed as completed without the branch to merge: session 1's
/// branch is missing, session 2's starts from an older commit than the
/// wave's base. Each is a failed session, named with the check that failed
/// — never a fatal error — and the resumed run runs both again.
#[test]
fn a_completed_claim_without_its_branch_is_a_failed_session_run_again() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a"], false);
    let a = env.root().join("a");
    let orchestrator = env.spawn_ultraplan(&a, &["run", "--distribute", "plan.md"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    let work = c.work_json(&env);
    let (id, base) = (work["id"].as_str().unwrap(), work["base"].as_str().unwrap());
    let older = env.git(&c.remote, &["rev-parse", &format!("{base}~1")]);
    env.git(
        &c.remote,
        &["update-ref", "refs/heads/ultraplan/plan/session-2", older.trim()],
    );
    plant_claim(&env, &c.remote, id, 1, "completed");
    plant_claim(&env, &c.remote, id, 2, "completed");
    let out = finish(orchestrator);
    assert_eq!(out.code, 1, "a failed run, not a fatal error: {out}");
    assert!(
        out.stderr.contains(
            "session 1 says it completed, but 'origin' has no branch for it; counted as failed ('git ultraplan run --resume' runs it again)"
        ),
        "{out}"
    );
    assert!(
        out.stderr.contains(&format!(
            "session 2 says it completed, but its branch on 'origin' ({}) does not start from the wave's base {}",
            &older.trim()[..7],
            &base[..7]
        )),
        "{out}"
    );
    assert_eq!(merges(&env, &a), Vec::<String>::new(), "nothing merged");
    assert_eq!(env.git(&a, &["status", "--porcelain"]), "");
    // Run again, with workers here: every session runs, once.
    let resumed = env.run(
        &a,
        &["ultraplan", "run", "--resume", "--distribute", "--jobs", "2", "plan.md"],
    );
    assert_eq!(resumed.code, 0, "{resumed}");
    assert_eq!(merges(&env, &a).len(), 3);
    assert_eq!(read(&a.join("c.txt")), "alpha\nbeta\n");
}

/// The orchestrator is killed between merges; meanwhile its remote is
/// renamed. The resumed run finds it by its URL and goes on there.
#[test]
fn resume_goes_on_through_the_remote_after_it_was_renamed() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a", "b"], false);
    let (a, b) = (env.root().join("a"), env.root().join("b"));
    let mut killed_run = env.command(bin_dir().join("git-ultraplan"), &a);
    killed_run
        .args(["run", "--distribute", "plan.md"])
        .env("ULTRAPLAN_TEST_FAULT", "merge-committed:1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let orchestrator = killed_run.spawn().unwrap();
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    let worker = env.spawn_ultraplan(&b, &["work"]);
    let out = finish(orchestrator);
    assert_ne!(out.code, 0, "{out}");
    env.git(&a, &["remote", "rename", "origin", "upstream"]);
    let resumed = env.run(&a, &["ultraplan", "run", "--resume", "plan.md"]);
    assert_eq!(resumed.code, 0, "{resumed}");
    assert!(
        resumed
            .stderr
            .contains("warning: the remote 'origin' of this distributed run is called 'upstream' now; going on there"),
        "{resumed}"
    );
    assert_eq!(finish(worker).code, 0);
    assert_eq!(merges(&env, &a).len(), 3);
}

/// The remote is gone altogether: the hint names the remote that exists.
#[test]
fn resume_names_the_remote_that_exists_when_the_runs_remote_is_gone() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a"], false);
    let a = env.root().join("a");
    c.block(1);
    let orchestrator = env.spawn_ultraplan(&a, &["run", "--distribute", "plan.md"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    let _ = signal(orchestrator, "-KILL");
    env.git(&a, &["remote", "remove", "origin"]);
    env.git(
        &a,
        &[
            "remote",
            "add",
            "backup",
            env.root().join("elsewhere.git").to_str().unwrap(),
        ],
    );
    let out = env
        .run(&a, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(128);
    assert!(
        out.stderr.contains(
            "the distributed run of 'plan' went through the remote 'origin', which this repository no longer has"
        ),
        "{out}"
    );
    assert!(
        out.stderr.contains("hint: the remote that exists is 'backup': resume there with 'git ultraplan run --resume --distribute=backup <plan>'"),
        "{out}"
    );
    c.unblock(1);
}
