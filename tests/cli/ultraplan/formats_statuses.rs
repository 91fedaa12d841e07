//! Plans whose tool keeps a status beside each task (issue 40): Taskmaster's
//! statuses and tags, BMAD's story and GSD Core's end-of-phase review, from the
//! fixtures in `tests/fixtures/plans/`, through the real binaries and `git`.

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

use super::formats::{agent, repo_with_fixture};

/// `text` with every `"status": "…"` value blanked: what must stay byte-identical.
fn without_statuses(text: &str) -> String {
    let re = regex::Regex::new(r#""status":\s*"[^"]*""#).unwrap();
    re.replace_all(text, "\"status\": _").into_owned()
}

#[test]
fn taskmaster_statuses_follow_the_checkpoints_and_every_other_byte_stays() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(&mut env, &[(".taskmaster", "taskmaster/tuned/weather-cli")]);
    let plan = ".taskmaster/tasks/tasks.json";
    let before = read(&repo.join(plan));
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "check", plan]).expect_code(0);
    t.note("the shell executor runs each task's fenced sh blocks");
    let _ = t.run(&repo, &["ultraplan", "run", plan]).expect_code(0);
    let _ = t.run(&repo, &["log", "--format=%s", "-n", "4"]).expect_code(0);
    assert_transcript!(
        t,
        "taskmaster_statuses_follow_the_checkpoints_and_every_other_byte_stays"
    );
    let after = env.git(&repo, &["show", &format!("HEAD:{plan}")]);
    assert_eq!(
        without_statuses(&before),
        without_statuses(&after),
        "only statuses may change"
    );
    let j: serde_json::Value = serde_json::from_str(&after).unwrap();
    let master = &j["master"]["tasks"];
    assert_eq!(master[0]["status"], "done", "done before: untouched");
    assert_eq!(master[1]["status"], "done", "its last subtask closed it");
    assert_eq!(master[1]["subtasks"][0]["status"], "done");
    assert_eq!(master[3]["status"], "deferred", "deferred: not run");
    assert_eq!(j["offline-mode"]["tasks"][0]["status"], "pending", "another tag");
    // After the first subtask the parent was in progress, in that commit.
    let mid = env.git(&repo, &["show", &format!("HEAD~2:{plan}")]);
    let mid: serde_json::Value = serde_json::from_str(&mid).unwrap();
    assert_eq!(mid["master"]["tasks"][1]["status"], "in-progress");
    env.assert_fsck(&repo);
}

#[test]
fn taskmaster_tag_picks_the_tasks_and_a_missing_tag_is_named() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(&mut env, &[(".taskmaster", "taskmaster/tuned/weather-cli")]);
    let plan = ".taskmaster/tasks/tasks.json";
    let j = env
        .run(&repo, &["ultraplan", "check", "--json", "--tag", "offline-mode", plan])
        .expect_code(0)
        .json();
    assert_eq!(j["format"], "taskmaster");
    assert_eq!(j["plan_id"], "offline-mode");
    assert_eq!(j["steps"].as_array().unwrap().len(), 1);
    let out = env
        .run(&repo, &["ultraplan", "check", "--tag", "nope", plan])
        .expect_code(1);
    assert!(
        out.stdout
            .contains("line 1: it has no tag 'nope' (its tags: master, offline-mode)"),
        "{}",
        out.stdout
    );
    let _ = env
        .run(&repo, &["ultraplan", "run", "--tag", "offline-mode", plan])
        .expect_code(0);
    let after = env.git(&repo, &["show", &format!("HEAD:{plan}")]);
    let after: serde_json::Value = serde_json::from_str(&after).unwrap();
    assert_eq!(after["offline-mode"]["tasks"][0]["status"], "done");
    assert_eq!(after["master"]["tasks"][1]["status"], "pending");
}

#[test]
fn bmad_story_tasks_and_subtasks_are_ticked_and_the_status_moves() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(
        &mut env,
        &[("docs/stories/1.1.project-setup.md", "bmad/tuned/1.1.project-setup.md")],
    );
    let plan = "docs/stories/1.1.project-setup.md";
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "check", "--executor", &agent(&repo), plan])
        .expect_code(0);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--executor", &agent(&repo), plan])
        .expect_code(0);
    t.note("the first checkpoint moved the Status to InProgress; the last to Review");
    let _ = t.run(&repo, &["diff", "HEAD~3", "HEAD~2", "--", plan]).expect_code(0);
    let _ = t.run(&repo, &["diff", "HEAD~1", "HEAD", "--", plan]).expect_code(0);
    assert_transcript!(t, "bmad_story_tasks_and_subtasks_are_ticked_and_the_status_moves");
}

#[test]
fn gsd_end_of_phase_review_stops_once_and_resume_answers_record_each() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(
        &mut env,
        &[(".planning/phases/07-dashboard", "gsd-core/tuned/07-dashboard")],
    );
    // The stub agent writes what the key links look for.
    write(
        &repo.join("stubs/agent.sh"),
        "#!/bin/sh\ncat > /dev/null\nmkdir -p app\necho '<script src=\"dashboard.js\"></script>' > app/dashboard.html\necho 'function loadWeek() { return fetch(\"/api/week\") }' > app/dashboard.js\n",
    );
    let phase = ".planning/phases/07-dashboard";
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "check", "--executor", &agent(&repo), phase])
        .expect_code(0);
    t.note("blocking-human: neither --allow-unverified nor --yes passes it");
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--allow-unverified",
                "--yes",
                "--executor",
                &agent(&repo),
                phase,
            ],
        )
        .expect_code(3);
    t.note("answered, the run does the rest and stops once, with every human-check of the phase");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "--answer", "approved", phase])
        .expect_code(3);
    t.note("one answer is recorded; the run still waits for the other");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "--answer", "2=pass", phase])
        .expect_code(3);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "--answer", "1=y", phase])
        .expect_code(0);
    assert_transcript!(t, "gsd_end_of_phase_review_stops_once_and_resume_answers_record_each");
    let shown = env.run(&repo, &["ultraplan", "status", phase]).expect_code(0);
    assert!(shown.stdout.contains("completed"), "{}", shown.stdout);
    env.assert_fsck(&repo);
}

#[test]
fn gsd_review_issue_fails_the_review_and_a_resume_asks_again() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(
        &mut env,
        &[(".planning/phases/07-dashboard", "gsd-core/tuned/07-dashboard")],
    );
    write(
        &repo.join("stubs/agent.sh"),
        "#!/bin/sh\ncat > /dev/null\nmkdir -p app\necho '<script src=\"dashboard.js\"></script>' > app/dashboard.html\necho 'function loadWeek() { return fetch(\"/api/week\") }' > app/dashboard.js\n",
    );
    let plan = ".planning/phases/07-dashboard/07-01-PLAN.md";
    let _ = env
        .run(&repo, &["ultraplan", "run", "--executor", &agent(&repo), plan])
        .expect_code(3);
    let _ = env
        .run(&repo, &["ultraplan", "run", "--resume", "--answer", "approved", plan])
        .expect_code(3);
    let out = env
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--resume",
                "--answer",
                "1=pass",
                "--answer",
                "2=the bars run backwards",
                plan,
            ],
        )
        .expect_code(1);
    assert!(
        out.stdout.contains(
            "Error: the person reported: check 2 (Load the page with the stub API running): the bars run backwards"
        ),
        "{}",
        out.stdout
    );
    let out = env.run(&repo, &["ultraplan", "run", "--resume", plan]).expect_code(3);
    assert!(out.stdout.contains("2 of 2 checks to do by hand"), "{}", out.stdout);
    let out = env
        .run(&repo, &["ultraplan", "run", "--resume", "--answer", "3=pass", plan])
        .expect_code(3);
    assert!(
        out.stdout.contains("there is no check 3: the review has 2"),
        "{}",
        out.stdout
    );
}
