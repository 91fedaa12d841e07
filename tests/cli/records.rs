//! The record (DESIGN §16): `stats` over recorded runs, and the STATE.md
//! Performance Metrics section written without touching the rest of the file.

use crate::plans::{plan, StepSpec};
use crate::support::*;

fn recorded(env: &TestEnv) -> std::path::PathBuf {
    let repo = env.repo("repo");
    let counter = env.root().join("counter");
    let retried = format!(
        "n=$(cat {c} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {c}\necho $n > b.txt",
        c = counter.display()
    );
    let body = plan(&[
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        StepSpec::new(2, "`b.txt`", &retried, "grep -q 2 b.txt").policy("retry"),
        StepSpec::new(3, "`c.txt`", "echo c > c.txt", "false").policy("skip"),
    ]);
    write(&repo.join("03-01-PLAN.md"), &body);
    env.git(&repo, &["add", "03-01-PLAN.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    let _ = env.run(&repo, &["ultraplan", "run", "03-01-PLAN.md"]).expect_code(0);
    repo
}

#[test]
fn stats_count_tasks_retries_and_skips_once_each() {
    let env = TestEnv::new();
    let repo = recorded(&env);
    let json = env.run(&repo, &["ultraplan", "stats", "--json"]).expect_code(0).json();
    assert_eq!(json["tasks_executed"], 3, "{json}");
    assert_eq!(json["tasks_succeeded"], 2);
    assert_eq!(json["tasks_skipped"], 1);
    assert_eq!(json["tasks_failed"], 0);
    assert_eq!(json["total_retries"], 1);
    assert_eq!(json["success_rate"], 0.67);
    assert_eq!(json["velocity"]["plans_completed"], 1);
    assert_eq!(json["by_plan"][0]["key"], "03-01");
    assert_eq!(json["by_phase"][0]["key"], "03");
    assert_eq!(json["trend"], "unknown");
    let out = env.run(&repo, &["ultraplan", "stats"]).expect_code(0);
    assert!(
        out.stdout.starts_with(
            "Tasks: 3 executed, 2 succeeded, 0 failed, 0 blocked, 1 skipped; 1 retries; success rate 67%\n"
        ),
        "{out}"
    );
    // Nothing after the day given.
    let json = env
        .run(&repo, &["ultraplan", "stats", "--json", "--since", "2999-01-01"])
        .expect_code(0)
        .json();
    assert_eq!(json["tasks_executed"], 0);
    let bad = env
        .run(&repo, &["ultraplan", "stats", "--since", "yesterday"])
        .expect_code(129);
    assert!(bad.stderr.contains("'yesterday' is not a date (YYYY-MM-DD)"), "{bad}");
}

#[test]
fn state_md_changes_only_its_metrics_section() {
    let env = TestEnv::new();
    let repo = recorded(&env);
    let before = "# Project State\r\n\r\n## Current Position\r\n\r\nPhase: 3\r\n\r\n## Performance Metrics\r\n\r\nold numbers\r\n\r\n## Session Continuity\r\n\r\nLast session: yesterday";
    std::fs::write(repo.join("STATE.md"), before).unwrap();
    let _ = env.run(&repo, &["ultraplan", "stats", "--state-md"]).expect_code(0);
    let after = std::fs::read_to_string(repo.join("STATE.md")).unwrap();
    let (head, rest) = after.split_once("## Performance Metrics\r\n").unwrap();
    assert_eq!(
        head,
        "# Project State\r\n\r\n## Current Position\r\n\r\nPhase: 3\r\n\r\n"
    );
    assert!(
        rest.ends_with("\r\n\r\n## Session Continuity\r\n\r\nLast session: yesterday"),
        "{after}"
    );
    assert!(rest.contains("- Total plans completed: 1\r\n"), "{after}");
    assert!(rest.contains("| 03 | 1/1 |"), "{after}");
    assert!(
        rest.contains("**Progress:** [#############░░░░░░░] 66% (2/3 tasks)"),
        "{after}"
    );
    assert!(!after.contains("old numbers"));
    // Without the section, it is added at the end; the file is never committed.
    std::fs::write(repo.join("OTHER.md"), "# Other\n").unwrap();
    let _ = env
        .run(&repo, &["ultraplan", "stats", "--state-md", "OTHER.md"])
        .expect_code(0);
    let other = std::fs::read_to_string(repo.join("OTHER.md")).unwrap();
    assert!(
        other.starts_with("# Other\n\n## Performance Metrics\n\n**Velocity:**\n"),
        "{other}"
    );
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "?? OTHER.md\n?? STATE.md\n");
}

#[test]
fn export_logs_lays_out_the_seeds_directory_and_writes_nothing_in_git() {
    let env = TestEnv::new();
    let repo = recorded(&env);
    let refs_before = env.git(&repo, &["for-each-ref"]);
    let dir = env.root().join("logs");
    let _ = env
        .run(&repo, &["ultraplan", "export", "--logs", dir.to_str().unwrap()])
        .expect_code(0);
    let mut names: Vec<String> = walk(&dir);
    names.sort();
    let day = names[1].split('/').nth(1).unwrap().to_owned();
    assert_eq!(
        names,
        [
            "current-session.json".to_owned(),
            format!("executions/{day}/03-01-task-01-success.yaml"),
            format!("executions/{day}/03-01-task-02-failure.yaml"),
            format!("executions/{day}/03-01-task-02-success.yaml"),
            format!("executions/{day}/03-01-task-03-failure.yaml"),
            format!("summary/daily-{day}.json"),
        ]
        .into_iter()
        .map(|n| n.to_owned())
        .collect::<Vec<_>>()
        .tap_sort()
    );
    let first = read(&dir.join(format!("executions/{day}/03-01-task-01-success.yaml")));
    assert!(first.starts_with("logged_at: "), "{first}");
    assert!(first.contains("\nplan_id: 03-01\ntask_index: 1\n"), "{first}");
    assert!(first.contains("\nresult:\n  status: success\n"), "{first}");
    let daily: serde_json::Value = serde_json::from_str(&read(&dir.join(format!("summary/daily-{day}.json")))).unwrap();
    assert_eq!(daily["tasks_executed"], 3);
    assert_eq!(daily["by_plan"]["03-01"]["tasks"], 3);
    assert_eq!(env.git(&repo, &["for-each-ref"]), refs_before);
    // Not into a directory with something in it, unless forced.
    let again = env
        .run(&repo, &["ultraplan", "export", "--logs", dir.to_str().unwrap()])
        .expect_code(128);
    assert!(again.stderr.contains("exists and is not empty"), "{again}");
    let _ = env
        .run(
            &repo,
            &["ultraplan", "export", "--force", "--logs", dir.to_str().unwrap()],
        )
        .expect_code(0);
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out
}

trait TapSort {
    fn tap_sort(self) -> Self;
}

impl TapSort for Vec<String> {
    fn tap_sort(mut self) -> Self {
        self.sort();
        self
    }
}

#[test]
fn a_configured_state_file_is_committed_alone_at_the_end_of_a_run() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let body = plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")]);
    write(&repo.join("plan.md"), &body);
    write(&repo.join("STATE.md"), "# State\n\n## Decisions\n\n- keep it small\n");
    env.git(&repo, &["add", "plan.md", "STATE.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan and state"]);
    env.git(&repo, &["config", "ultraplan.stateFile", "STATE.md"]);
    // The user's own edit, not committed, must stay out of the commit.
    write(
        &repo.join("STATE.md"),
        "# State\n\n## Decisions\n\n- keep it small\n- my draft\n",
    );
    let out = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert!(out.stderr.contains("chore: update STATE.md metrics ("), "{out}");
    assert_eq!(env.subjects(&repo)[..2], ["chore: update STATE.md metrics", "step 1"]);
    assert_eq!(
        env.git(&repo, &["show", "--format=", "--name-only", "HEAD"]),
        "STATE.md\n"
    );
    let committed = env.git(&repo, &["show", "HEAD:STATE.md"]);
    assert!(
        committed.starts_with("# State\n\n## Decisions\n\n- keep it small\n\n## Performance Metrics\n"),
        "{committed}"
    );
    assert!(!committed.contains("my draft"));
    let on_disk = read(&repo.join("STATE.md"));
    assert!(on_disk.contains("- my draft\n\n## Performance Metrics\n"), "{on_disk}");
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), " M STATE.md\n");
    env.assert_fsck(&repo);
    // A path outside the repository is refused with a warning; the run still passes.
    env.git(&repo, &["config", "ultraplan.stateFile", "../STATE.md"]);
    let out = env
        .run(&repo, &["ultraplan", "run", "--step", "1", "plan.md"])
        .expect_code(0);
    assert!(
        out.stderr
            .contains("warning: cannot update ultraplan.stateFile '../STATE.md'"),
        "{out}"
    );
}
