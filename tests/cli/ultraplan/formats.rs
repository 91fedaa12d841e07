//! The other planners' plans (issue 40): spec-kit and Kiro, and what
//! `check` says of a file that looks like a format but breaks its rules,
//! from the fixtures in `tests/fixtures/plans/` (written in each tool's
//! style, never copied), through the real binaries and `git`: `check`'s
//! transcripts, runs with the shell executor and a stub agent, ticks
//! checked with `git show`. The tools keeping a status beside each task
//! (Taskmaster, BMAD, GSD's review) are `formats_statuses.rs`.

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

pub(super) fn agent(repo: &Path) -> String {
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

// ---------------------------------------------------------------- BMAD

// ---------------------------------------------------------------- GSD Core

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
