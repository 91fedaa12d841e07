//! One date parser for every command that takes a date (issue 42, item 7):
//! `stats --since/--until` and `outcome list --since` read the same forms of
//! git's dates and refuse the same bad value the same way, before any work.

use std::path::{Path, PathBuf};

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// A repository with one run of two steps and two outcomes (the run's own
/// and one logged), all recorded now.
fn recorded_now(env: &TestEnv) -> PathBuf {
    let repo = env.repo("repo");
    let body = plan(&[
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
    ]);
    write(&repo.join("plan.md"), &body);
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let _ = env
        .run(
            &repo,
            &[
                "ultraplan",
                "outcome",
                "log",
                "--task",
                "Build the login page",
                "--agent",
                "builder",
                "--success",
            ],
        )
        .expect_code(0);
    repo
}

/// How many tasks `stats` and how many outcomes `outcome list` keep with `--since`.
fn kept_since(env: &TestEnv, repo: &Path, date: &str) -> (u64, usize) {
    let stats = env
        .run(repo, &["ultraplan", "stats", "--json", "--since", date])
        .expect_code(0)
        .json();
    let list = env
        .run(repo, &["ultraplan", "outcome", "list", "--since", date])
        .expect_code(0);
    (
        stats["tasks_executed"].as_u64().expect("tasks_executed"),
        list.stdout.lines().count(),
    )
}

#[test]
fn stats_and_outcome_list_read_the_same_dates_and_refuse_the_same_value() {
    let env = TestEnv::new();
    let repo = recorded_now(&env);
    let mut t = Transcript::new(&env);
    t.note("a relative date, the way git writes it, and a day long past: all kept");
    for date in ["2.weeks.ago", "2000-01-01"] {
        let _ = t.run(&repo, &["ultraplan", "stats", "--since", date]).expect_code(0);
        let _ = t
            .run(&repo, &["ultraplan", "outcome", "list", "--since", date])
            .expect_code(0);
    }
    t.note("now, and a day to come: nothing is that recent");
    for date in ["now", "2999-01-01"] {
        let _ = t.run(&repo, &["ultraplan", "stats", "--since", date]).expect_code(0);
        let _ = t
            .run(&repo, &["ultraplan", "outcome", "list", "--since", date])
            .expect_code(0);
    }
    t.note("--until: a day names the whole day, yesterday is 24 hours ago");
    let _ = t
        .run(&repo, &["ultraplan", "stats", "--since", "today", "--until", "today"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["ultraplan", "stats", "--until", "yesterday"])
        .expect_code(0);
    t.note("text that is not a date: the same refusal from both, before any work");
    let _ = t
        .run(&repo, &["ultraplan", "stats", "--state-md", "--since", "next tuesday"])
        .expect_code(129);
    let _ = t
        .run(&repo, &["ultraplan", "outcome", "list", "--since", "next tuesday"])
        .expect_code(129);
    assert_transcript!(
        t,
        "stats_and_outcome_list_read_the_same_dates_and_refuse_the_same_value"
    );
    assert!(!repo.join("STATE.md").exists(), "a refused date wrote STATE.md");

    // Every form, both commands: the same verdict.
    let kept = [
        "2.weeks.ago",
        "2 weeks ago",
        "3.days",
        "1 week 2 days ago",
        "last week",
        "yesterday",
        "today",
        "2000-01-01",
        "2000.01.01",
        "01/01/2000",
        "01.01.2000",
        "2000-01-01T10:00:00Z",
        "2000-01-01 10:00:00 +0100",
        "Sat, 01 Jan 2000 10:00:00 +0100",
        "@946720800",
        "@946720800 +0100",
    ];
    for date in kept {
        assert_eq!(kept_since(&env, &repo, date), (2, 2), "--since {date}");
    }
    for date in [
        "now",
        "2999-01-01",
        "2999-01-01T00:00:00Z",
        "Fri, 01 Jan 2999 00:00:00 +0000",
        "@32472144000",
    ] {
        assert_eq!(kept_since(&env, &repo, date), (0, 0), "--since {date}");
    }
    for date in ["", "soon", "2.fortnights.ago", "2026-13-01", "@12x"] {
        let stats = env
            .run(&repo, &["ultraplan", "stats", "--since", date])
            .expect_code(129);
        let list = env
            .run(&repo, &["ultraplan", "outcome", "list", "--since", date])
            .expect_code(129);
        let reason = format!("'{date}' is not a date (try 2026-11-01,");
        assert!(
            stats.stderr.contains(&reason) && list.stderr.contains(&reason),
            "{stats}\n{list}"
        );
    }
}
