//! Distributed sessions with `--jobs` (DESIGN §18): an orchestrator running
//! sessions itself, and a worker running several side by side.

use crate::harness::support::*;

use super::distribute::{assert_worker_clean, cluster, finish, merges};

#[test]
fn with_jobs_the_orchestrator_runs_sessions_itself() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a"], false);
    let a = env.root().join("a");
    let out = env.run(&a, &["ultraplan", "run", "--distribute", "--jobs", "2", "plan.md"]);
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(merges(&env, &a).len(), 3);
    for n in 1..=3 {
        assert!(c.claim(&env, n).contains("result: completed"), "{}", c.claim(&env, n));
    }
    assert_eq!(c.work_json(&env)["finished"], true);
    assert_worker_clean(&env, &a);
    assert!(
        !a.join(".git/ultraplan/distribute/plan").exists(),
        "a finished run forgets its remote"
    );
}

#[test]
fn a_worker_with_jobs_runs_sessions_side_by_side() {
    let env = TestEnv::new();
    let c = cluster(&env, &["a", "b"], false);
    let (a, b) = (env.root().join("a"), env.root().join("b"));
    let orchestrator = env.spawn_ultraplan(&a, &["run", "--distribute", "plan.md"]);
    c.wait_for_ref(&env, "refs/ultraplan/plan/work");
    let out = env.run(&b, &["ultraplan", "work", "--jobs", "2"]);
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(finish(orchestrator).code, 0);
    assert_eq!(merges(&env, &a).len(), 3);
    assert_worker_clean(&env, &b);
}
