//! The other planners' plans (issue 40): spec-kit, Kiro, Taskmaster, BMAD
//! and GSD Core as it is now, from the fixtures in `tests/fixtures/plans/`
//! (written in each tool's style, never copied), through the real binaries
//! and `git`: `check`'s transcripts, runs with the shell executor and a stub
//! agent, ticks and statuses checked with `git show`.

use std::path::{Path, PathBuf};

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// A repository holding `files` (destination → fixture path under
/// `tests/fixtures/plans/`), committed, with stub test runners and a stub
/// agent beside it.
pub(crate) fn repo_with_fixture(env: &mut TestEnv, files: &[(&str, &str)]) -> PathBuf {
    let repo = env.repo("repo");
    for (dest, src) in files {
        let from = fixture(&format!("plans/{src}"));
        copy(&from, &repo.join(dest));
    }
    write(&repo.join(".gitignore"), "/stubs/\n");
    stubs(env, &repo);
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    repo
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            copy(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
}

/// Test runners (`pytest`, `npm`, …) that pass unless the repository holds
/// `FAIL_TESTS`, first on PATH; and `stubs/agent.sh`, an agent that runs the
/// step's fenced `sh` blocks and writes what the step asks (its Changes) into
/// each file the step names.
fn stubs(env: &mut TestEnv, repo: &Path) {
    let bin = repo.join("stubs/bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["pytest", "npm", "npx", "go", "bundle", "python"] {
        let path = bin.join(name);
        write(
            &path,
            "#!/bin/sh\nif [ -e FAIL_TESTS ]; then echo \"1 failed\"; exit 1; fi\necho \"all passed\"\n",
        );
        make_executable(&path);
    }
    write(
        &repo.join("stubs/agent.sh"),
        r#"#!/bin/sh
python3 -c '
import json, os, re, subprocess, sys
req = json.load(sys.stdin)
step = req["step"]
for block in re.findall(r"```(?:sh|bash)\n(.*?)```", step["changes"], re.S):
    subprocess.run(["sh", "-e", "-c", block], check=True)
for f in step["files"]:
    if f.endswith("/"):
        os.makedirs(f, exist_ok=True)
        f = os.path.join(f, "README.md")
    os.makedirs(os.path.dirname(f) or ".", exist_ok=True)
    with open(f, "a") as out:
        out.write("%s\n" % step["changes"])
'
"#,
    );
    let path = std::env::var("PATH").unwrap_or_default();
    let current = format!("{}:{}:{path}", bin.display(), bin_dir().display());
    env.set("PATH", current);
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn agent(repo: &Path) -> String {
    format!("sh {}", repo.join("stubs/agent.sh").display())
}

// ---------------------------------------------------------------- spec-kit

#[test]
fn speckit_check_says_the_format_why_and_the_test_command() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(
        &mut env,
        &[("specs/001-photo-albums", "speckit/tuned/001-photo-albums")],
    );
    let mut t = Transcript::new(&env);
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "check",
                "--executor",
                &agent(&repo),
                "specs/001-photo-albums/tasks.md",
            ],
        )
        .expect_code(0);
    assert_transcript!(t, "speckit_check_says_the_format_why_and_the_test_command");
    let j = env
        .run(
            &repo,
            &[
                "ultraplan",
                "check",
                "--json",
                "--executor",
                &agent(&repo),
                "specs/001-photo-albums/tasks.md",
            ],
        )
        .expect_code(0)
        .json();
    assert_eq!(j["format"], "spec-kit");
    assert_eq!(j["type"], "spec-kit");
    assert_eq!(j["plan_id"], "001-photo-albums");
    assert_eq!(j["waves"][1], serde_json::json!([2, 3]));
    assert_eq!(j["sessions"][1]["touch"], serde_json::json!(["ruff.toml"]));
}

#[test]
fn speckit_parallel_tasks_run_in_worktrees_merge_and_are_ticked() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(
        &mut env,
        &[("specs/001-photo-albums", "speckit/tuned/001-photo-albums")],
    );
    let plan = "specs/001-photo-albums/tasks.md";
    let out = env.run(&repo, &["ultraplan", "run", "--executor", &agent(&repo), plan]);
    let out = out.expect_code(0);
    assert!(out.stdout.contains("Session 2: T002 Configure ruff"), "{}", out.stdout);
    // Parallel tasks were merged one at a time, --no-ff.
    let merges = env.git(&repo, &["log", "--merges", "--format=%s"]);
    assert!(
        merges.contains("merge: ultraplan session 2 — T002 Configure ruff in ruff.toml"),
        "{merges}"
    );
    assert!(
        merges.contains("merge: ultraplan session 3 — T003 Add pytest settings in pytest.ini"),
        "{merges}"
    );
    // Each wave's ticks are committed on the integration branch after its merges.
    let subjects = env.subjects(&repo);
    assert!(
        subjects.contains(&"chore: tick T002, T003 (wave 2)".to_owned()),
        "{subjects:?}"
    );
    let tasks = env.git(&repo, &["show", &format!("HEAD:{plan}")]);
    for id in ["T001", "T002", "T005", "T010"] {
        assert!(tasks.contains(&format!("- [X] {id}")), "{id} not ticked:\n{tasks}");
    }
    assert!(tasks.contains("- [P] tasks = different files"), "prose untouched");
    // No worktree or session branch is left.
    assert_eq!(env.git(&repo, &["worktree", "list"]).lines().count(), 1);
    assert_eq!(env.git(&repo, &["branch", "--list", "ultraplan/*"]), "");
    env.assert_fsck(&repo);
}

#[test]
fn speckit_phase_tests_check_the_phase_and_a_failure_stops_the_run() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(&mut env, &[("specs/002-csv-export", "speckit/tuned/002-csv-export")]);
    let plan = "specs/002-csv-export/tasks.md";
    let mut t = Transcript::new(&env);
    t.note("plan.md names no test command: tasks need --allow-unverified, and run says so before it starts");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--executor", &agent(&repo), plan])
        .expect_code(128);
    assert_eq!(
        env.git(&repo, &["for-each-ref", "refs/ultraplan"]),
        "",
        "nothing written"
    );
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--allow-unverified",
                "--executor",
                &agent(&repo),
                plan,
            ],
        )
        .expect_code(0);
    let _ = t.run(&repo, &["show", &format!("HEAD~1:{plan}")]).expect_code(0);
    assert_transcript!(t, "speckit_phase_tests_check_the_phase_and_a_failure_stops_the_run");
}

// ---------------------------------------------------------------- Kiro

#[test]
fn kiro_optional_tasks_skip_with_the_flag_and_parents_close_with_their_last_required_subtask() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(&mut env, &[(".kiro/specs/user-auth", "kiro/tuned/user-auth")]);
    let plan = ".kiro/specs/user-auth/tasks.md";
    let mut t = Transcript::new(&env);
    t.note("tasks without a 'Verify: `cmd`' detail pass only with --allow-unverified: check names them");
    let _ = t
        .run(&repo, &["ultraplan", "check", "--executor", &agent(&repo), plan])
        .expect_code(1);
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "check",
                "--skip-optional",
                "--allow-unverified",
                "--executor",
                &agent(&repo),
                plan,
            ],
        )
        .expect_code(0);
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--skip-optional",
                "--allow-unverified",
                "--executor",
                &agent(&repo),
                plan,
            ],
        )
        .expect_code(0);
    t.note("after 2.1, task 2 is still open; with 2.2 it closes (2.3 is optional)");
    let _ = t.run(&repo, &["show", &format!("HEAD~3:{plan}")]).expect_code(0);
    let _ = t.run(&repo, &["show", &format!("HEAD:{plan}")]).expect_code(0);
    assert_transcript!(
        t,
        "kiro_optional_tasks_skip_with_the_flag_and_parents_close_with_their_last_required_subtask"
    );
    // The requirement's text went to the executor as the done criteria.
    let j = env
        .run(
            &repo,
            &["ultraplan", "check", "--json", "--executor", &agent(&repo), plan],
        )
        .expect_code(1)
        .json();
    assert_eq!(j["format"], "kiro");
    // The tasks the run ticked are done; the optional ones it skipped are not.
    assert_eq!(j["unverified_steps"], serde_json::json!([4, 6]));
    assert!(j["steps"][1]["done"]
        .as_str()
        .unwrap()
        .contains("1.2: IF the password is wrong"));
}

#[test]
fn kiro_requirement_references_are_checked_against_requirements_md() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(&mut env, &[(".kiro/specs/note-export", "kiro/tuned/note-export")]);
    let plan = ".kiro/specs/note-export/tasks.md";
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "check", "--executor", &agent(&repo), plan])
        .expect_code(1);
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--allow-unverified",
                "--executor",
                &agent(&repo),
                plan,
            ],
        )
        .expect_code(128);
    assert_transcript!(t, "kiro_requirement_references_are_checked_against_requirements_md");
}

// ---------------------------------------------------------------- Taskmaster

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

// ---------------------------------------------------------------- BMAD

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

// ---------------------------------------------------------------- GSD Core

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

// ---------------------------------------------------------------- detection and messages

#[test]
fn files_that_look_like_a_format_but_break_its_rules_are_named_by_line_and_rule() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(
        &mut env,
        &[
            ("specs/004-broken-lines", "speckit/tuned/004-broken-lines"),
            (".kiro/specs/broken-numbering", "kiro/tuned/broken-numbering"),
            ("tm/tasks/tasks.json", "taskmaster/tuned/circular/tasks/tasks.json"),
            ("docs/stories/3.1.broken-refs.md", "bmad/tuned/3.1.broken-refs.md"),
        ],
    );
    write(
        &repo.join("bad.json"),
        "{\n  \"master\": {\n    \"tasks\": [\n      {\"id\": 1,}\n    ]\n  }\n}\n",
    );
    write(&repo.join("tm/notes.json"), "{\"name\": \"not tasks\"}\n");
    let mut t = Transcript::new(&env);
    for plan in [
        "specs/004-broken-lines/tasks.md",
        ".kiro/specs/broken-numbering/tasks.md",
        "tm/tasks/tasks.json",
        "docs/stories/3.1.broken-refs.md",
    ] {
        let _ = t
            .run(&repo, &["ultraplan", "check", "--executor", &agent(&repo), plan])
            .expect_code(1);
    }
    let _ = t.run(&repo, &["ultraplan", "check", "bad.json"]).expect_code(1);
    let _ = t.run(&repo, &["ultraplan", "check", "tm/notes.json"]).expect_code(128);
    assert_transcript!(
        t,
        "files_that_look_like_a_format_but_break_its_rules_are_named_by_line_and_rule"
    );
}

#[test]
fn check_json_names_every_format() {
    let mut env = TestEnv::new();
    let repo = repo_with_fixture(
        &mut env,
        &[
            ("a/tasks.md", "speckit/tuned/002-csv-export/tasks.md"),
            ("b/tasks.md", "kiro/tuned/user-auth/tasks.md"),
            ("c/tasks.json", "taskmaster/tuned/plain-layout/tasks/tasks.json"),
            ("d/2.3.export-history.md", "bmad/tuned/2.3.export-history.md"),
            ("e/07-01-PLAN.md", "gsd-core/tuned/07-dashboard/07-01-PLAN.md"),
            ("f/plan.md", "ultraplan-verbose-flag.md"),
        ],
    );
    for (plan, format) in [
        ("a/tasks.md", "spec-kit"),
        ("b/tasks.md", "kiro"),
        ("c/tasks.json", "taskmaster"),
        ("d/2.3.export-history.md", "bmad-story"),
        ("e/07-01-PLAN.md", "task-plan"),
        ("e", "gsd-phase"),
        ("f/plan.md", "plan"),
    ] {
        let out = env.run(&repo, &["ultraplan", "check", "--json", plan]);
        let j = out.json();
        assert_eq!(j["format"], format, "{plan}");
        assert!(
            j["format_reason"].as_str().is_some_and(|r| !r.is_empty()),
            "{plan}: {j}"
        );
    }
}
