//! Every `git ultraplan` command as a user sees it: its happy path and its
//! main refusals, each a whole-output transcript (`tests/cli/snapshots/
//! ultraplan/commands/`), with the state in git checked beside it.

use std::path::{Path, PathBuf};

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// A repository holding the demo plan as `plan.md` (untracked).
fn demo(env: &TestEnv) -> PathBuf {
    let repo = env.repo("repo");
    std::fs::copy(repo_root().join("examples/demo-plan.md"), repo.join("plan.md")).unwrap();
    repo
}

/// A repository where the demo plan has run to completion.
fn demo_done(env: &TestEnv) -> PathBuf {
    let repo = demo(env);
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    repo
}

fn two_steps() -> String {
    plan(&[
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        StepSpec::new(2, "`b.txt`", "echo b > b.txt", "grep -q b b.txt"),
    ])
}

#[test]
fn run_the_demo_plan() {
    let env = TestEnv::new();
    let repo = demo(&env);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert_transcript!(t, "run_the_demo_plan");
    assert_eq!(
        env.subjects(&repo),
        vec![
            "docs: explain the greeting script",
            "feat: add greeting script",
            "initial"
        ]
    );
    env.assert_fsck(&repo);
}

#[test]
fn run_a_small_plan_and_its_failing_step() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("plan.md"), &two_steps());
    write(
        &repo.join("broken.md"),
        &plan(&[
            StepSpec::new(1, "`c.txt`", "echo c > c.txt", "test -f c.txt"),
            StepSpec::new(2, "`d.txt`", "echo d > d.txt", "grep -q e d.txt").policy("revert"),
        ]),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    t.note("step 2's Verify fails; revert puts the tree back and the run fails");
    let _ = t.run(&repo, &["ultraplan", "run", "broken.md"]).expect_code(1);
    assert_transcript!(t, "run_a_small_plan_and_its_failing_step");
    assert_eq!(env.subjects(&repo), vec!["step 1", "step 2", "step 1", "initial"]);
}

#[test]
fn run_refusals() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let not_a_repo = env.root().join("elsewhere");
    std::fs::create_dir_all(&not_a_repo).unwrap();
    write(&repo.join("empty.md"), "# Nothing here\n\nJust prose.\n");
    write(&repo.join("plan.md"), &two_steps());
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "missing.md"]).expect_code(128);
    let _ = t.run(&repo, &["ultraplan", "run", "empty.md"]).expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--step", "9", "plan.md"])
        .expect_code(128);
    let _ = t.run(&repo, &["ultraplan", "run", "--fg", "--dry-run", "plan.md"]);
    let _ = t.run(&not_a_repo, &["ultraplan", "run", "plan.md"]).expect_code(128);
    assert_transcript!(t, "run_refusals");
    assert_eq!(env.subjects(&repo), vec!["initial"]);
    assert_eq!(env.git(&repo, &["for-each-ref", "refs/ultraplan/"]), "");
}

#[test]
fn check_the_demo_plan_and_a_broken_one() {
    let env = TestEnv::new();
    let repo = demo(&env);
    write(
        &repo.join("broken.md"),
        "# Broken\n\n## Implementation Plan\n\n### Step 1: No fields\n\nJust words.\n\n### Step 1: Twice\n\n- **Verify:** `true`\n",
    );
    let before = tree_state(&repo);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "check", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "check", "broken.md"]);
    let _ = t.run(&repo, &["ultraplan", "check", "missing.md"]).expect_code(128);
    assert_transcript!(t, "check_the_demo_plan_and_a_broken_one");
    assert_eq!(tree_state(&repo), before, "check wrote something");
}

#[test]
fn status_log_and_show_after_a_run() {
    let env = TestEnv::new();
    let repo = demo_done(&env);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "status"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "log", "plan.md"]).expect_code(0);
    let _ = t
        .run(&repo, &["ultraplan", "show", "plan.md", "--step", "1"])
        .expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "show", "HEAD"]).expect_code(0);
    assert_transcript!(t, "status_log_and_show_after_a_run");
}

#[test]
fn status_log_and_show_refusals() {
    let env = TestEnv::new();
    let repo = demo_done(&env);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "status", "other.md"]);
    let _ = t.run(&repo, &["ultraplan", "log", "other.md"]);
    let _ = t
        .run(&repo, &["ultraplan", "show", "other.md", "--step", "1"])
        .expect_code(128);
    let _ = t.run(&repo, &["ultraplan", "show", "plan.md", "--step", "2"]);
    let _ = t.run(&repo, &["ultraplan", "show", "plan.md", "--step", "7"]);
    let _ = t.run(&repo, &["ultraplan", "show", "HEAD~2"]);
    let _ = t.run(&repo, &["ultraplan", "show", "no-such-rev"]);
    let fresh = env.repo("fresh");
    let _ = t.run(&fresh, &["ultraplan", "status"]).expect_code(0);
    let _ = t.run(&fresh, &["ultraplan", "log"]).expect_code(0);
    assert_transcript!(t, "status_log_and_show_refusals");
}

#[test]
fn clean_with_nothing_left_over_and_a_stale_lock() {
    let env = TestEnv::new();
    let repo = demo_done(&env);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "clean", "--json"]).expect_code(0);
    t.note("a lock left by a run whose process is gone");
    stale_lock(&env, &repo);
    let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "clean", "plan.md"]).expect_code(0);
    assert_eq!(env.git(&repo, &["for-each-ref", "refs/ultraplan/plan/lock"]), "");
    let _ = t.run(&repo, &["ultraplan", "clean", "missing.md"]);
    assert_transcript!(t, "clean_with_nothing_left_over_and_a_stale_lock");
}

#[test]
fn stats_after_a_run_and_with_none() {
    let env = TestEnv::new();
    let repo = demo_done(&env);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "stats"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "stats", "--by", "day"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "stats", "--since", "yesterday-ish"]);
    let fresh = env.repo("fresh");
    let _ = t.run(&fresh, &["ultraplan", "stats"]);
    assert_transcript!(t, "stats_after_a_run_and_with_none");
}

#[test]
fn export_then_import_into_a_fresh_clone() {
    let env = TestEnv::new();
    let repo = demo_done(&env);
    let clone = env.root().join("clone");
    env.git(
        env.root(),
        &["clone", "-q", repo.to_str().unwrap(), clone.to_str().unwrap()],
    );
    let file = env.root().join("runs.yaml");
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "export", "--all", "-o", file.to_str().unwrap()])
        .expect_code(0);
    let _ = t
        .run(&clone, &["ultraplan", "import", file.to_str().unwrap()])
        .expect_code(0);
    let _ = t.run(&clone, &["ultraplan", "status"]).expect_code(0);
    t.note("importing the same document again changes nothing");
    let _ = t
        .run(&clone, &["ultraplan", "import", file.to_str().unwrap()])
        .expect_code(0);
    assert_transcript!(t, "export_then_import_into_a_fresh_clone");
    assert_eq!(
        env.git(&clone, &["notes", "--ref=ultraplan", "show", "HEAD"]),
        env.git(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
    );
}

#[test]
fn export_and_import_refusals() {
    let env = TestEnv::new();
    let repo = demo_done(&env);
    write(&env.root().join("v9.yaml"), "version: 9\nplans: []\n");
    write(&env.root().join("junk.yaml"), "not: [a, document\n");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "export", "other.md"]).expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "export", "other.md", "-o", "out.yaml"])
        .expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "export", "--logs", "logs", "other.md"])
        .expect_code(128);
    assert!(!repo.join("out.yaml").exists() && !repo.join("logs").exists());
    let _ = t.run(&repo, &["ultraplan", "import", "../v9.yaml"]);
    let _ = t.run(&repo, &["ultraplan", "import", "../junk.yaml"]);
    let _ = t.run(&repo, &["ultraplan", "import", "../missing.yaml"]);
    assert_transcript!(t, "export_and_import_refusals");
}

#[test]
fn sync_with_a_remote_and_without_one() {
    let shared = crate::harness::shared::Shared::new();
    let env = &shared.env;
    shared.run_plan(&shared.a);
    let mut t = Transcript::new(env);
    let _ = t.run(&shared.a, &["ultraplan", "sync", "--setup"]).expect_code(0);
    let _ = t.run(&shared.a, &["ultraplan", "sync", "--dry-run"]).expect_code(0);
    let _ = t.run(&shared.a, &["ultraplan", "sync"]).expect_code(0);
    let _ = t.run(&shared.b, &["ultraplan", "sync"]).expect_code(0);
    let _ = t.run(&shared.b, &["ultraplan", "status"]).expect_code(0);
    let _ = t.run(&shared.a, &["ultraplan", "sync", "nowhere"]).expect_code(128);
    assert_transcript!(t, "sync_with_a_remote_and_without_one");
    let head = shared.rev(&shared.a, "HEAD");
    assert_eq!(shared.note(&shared.b, &head), shared.note(&shared.a, &head));
}

#[test]
fn hook_install_and_the_pre_push_gate() {
    let shared = crate::harness::shared::Shared::new();
    let env = &shared.env;
    shared.run_plan(&shared.a);
    let head = shared.rev(&shared.a, "HEAD");
    let zero = "0".repeat(40);
    let push = format!("refs/heads/main {head} refs/heads/main {zero}\n");
    let mut t = Transcript::new(env);
    let _ = t.run(&shared.a, &["ultraplan", "hook", "install"]).expect_code(0);
    let _ = t.run(&shared.a, &["ultraplan", "hook", "install"]);
    let _ = t
        .run_with(
            &shared.a,
            &["ultraplan", "hook", "pre-push", "origin", "url"],
            &[],
            Some(&push),
        )
        .expect_code(0);
    t.note("a checkpoint whose note says the step failed is refused");
    env.git(
        &shared.a,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-f",
            "-m",
            &crate::harness::shared::note_yaml("2026-01-02T03:04:05Z", "VALID", "failure"),
            &head,
        ],
    );
    let _ = t
        .run_with(
            &shared.a,
            &["ultraplan", "hook", "pre-push", "origin", "url"],
            &[],
            Some(&push),
        )
        .expect_code(1);
    let _ = t
        .run_with(
            &shared.a,
            &[
                "-c",
                "ultraplan.prePush=warn",
                "ultraplan",
                "hook",
                "pre-push",
                "origin",
                "url",
            ],
            &[],
            Some(&push),
        )
        .expect_code(0);
    assert_transcript!(t, "hook_install_and_the_pre_push_gate");
}

#[test]
fn outcome_log_list_show_search_stats_extract() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut t = Transcript::new(&env);
    let out = t
        .run(
            &repo,
            &[
                "ultraplan",
                "outcome",
                "log",
                "--agent",
                "helper",
                "--task",
                "add a greeting script",
                "--success",
                "--step",
                "write greet.sh",
                "--step",
                "run it",
                "--time",
                "2.5",
            ],
        )
        .expect_code(0);
    let id = out.stdout.trim().to_owned();
    let _ = t
        .run_with(
            &repo,
            &["ultraplan", "outcome", "log"],
            &[],
            Some(r#"{"agent_name":"helper","task_description":"fix the parser","success":false,"error_message":"tests fail","execution_path":["edit","test"]}"#),
        )
        .expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "outcome", "list"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "outcome", "show", &id]).expect_code(0);
    let _ = t
        .run(&repo, &["ultraplan", "outcome", "search", "greeting"])
        .expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "outcome", "stats"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "outcome", "extract", &id]).expect_code(0);
    assert_transcript!(t, "outcome_log_list_show_search_stats_extract");
}

#[test]
fn outcome_refusals() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "outcome", "list"]);
    let _ = t.run(&repo, &["ultraplan", "outcome", "show", "outcome_helper_00000000"]);
    let _ = t.run(
        &repo,
        &[
            "ultraplan",
            "outcome",
            "log",
            "--agent",
            "../up",
            "--task",
            "x",
            "--success",
        ],
    );
    let _ = t.run(
        &repo,
        &["ultraplan", "outcome", "log", "--task", "x", "--success", "--failure"],
    );
    let _ = t.run_with(&repo, &["ultraplan", "outcome", "log"], &[], Some("{not json"));
    assert_transcript!(t, "outcome_refusals");
    assert_eq!(env.git(&repo, &["for-each-ref", "refs/ultraplan-outcomes"]), "");
}

#[test]
fn result_check_of_good_and_bad_results() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let results = repo_root().join("tests/fixtures/results");
    let mut t = Transcript::new(&env);
    for (file, code) in [
        ("success.yaml", 0),
        ("warnings-extra-fields.yaml", 0),
        ("invalid-success-nonzero.yaml", 1),
    ] {
        let path = results.join(file);
        let _ = t
            .run(&repo, &["ultraplan", "result", "check", path.to_str().unwrap()])
            .expect_code(code);
    }
    let _ = t
        .run(&repo, &["ultraplan", "result", "check", "missing.yaml"])
        .expect_code(128);
    assert_transcript!(t, "result_check_of_good_and_bad_results");
}

/// Writes `refs/ultraplan/plan/lock` as a run of a process that is gone
/// (pid 999999999) on this host would have left it.
fn stale_lock(env: &TestEnv, repo: &Path) {
    let host = std::process::Command::new("uname").arg("-n").output().unwrap().stdout;
    let host = String::from_utf8(host).unwrap();
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let blob = format!(
        "pid: 999999999\nhost: {}\nstarted_at: {now}\nheartbeat_at: {now}\ncommand: git ultraplan run plan.md\n",
        host.trim()
    );
    let path = env.root().join("lock.txt");
    write(&path, &blob);
    let id = env.git(repo, &["hash-object", "-w", path.to_str().unwrap()]);
    env.git(repo, &["update-ref", "refs/ultraplan/plan/lock", id.trim()]);
}
