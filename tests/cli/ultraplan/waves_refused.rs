//! Parallel sessions refused, changing nothing: a conflicting merge (the
//! session's work kept for a person to merge, through `git gc`), an untracked
//! file in a merge's way, pre-flight (tracked changes, a live lock), and
//! sessions of one wave whose scope fences overlap.

use std::process::Command;

use super::waves::three_sessions;
use crate::harness::plans::StepSpec;
use crate::harness::sessions::{assert_clean, plan, setup, show_outcome, Sess};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

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
