//! A GSD phase directory run as a multi-session plan (issue 10, item 7):
//! its `*-PLAN.md` plans as sessions in worktrees, wave by wave, merged back
//! one at a time; validated like an Execution Strategy.

use crate::harness::support::*;
use crate::ultraplan::gsd::setup;

fn copy_phase(repo: &std::path::Path) -> std::path::PathBuf {
    let dir = repo.join(".planning/phases/01-foundation");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["01-01-PLAN.md", "01-02-PLAN.md", "01-03-PLAN.md"] {
        std::fs::copy(fixture(&format!("plans/gsd/01-foundation/{name}")), dir.join(name)).unwrap();
    }
    dir
}

#[test]
fn a_phase_directory_runs_its_plans_as_sessions_wave_by_wave() {
    let env = TestEnv::new();
    let repo = setup(&env);
    copy_phase(&repo);
    let phase = ".planning/phases/01-foundation";
    let check = env.run(&repo, &["ultraplan", "check", phase]).expect_code(0);
    assert!(check.stdout.contains("Type: gsd-phase"), "{check}");
    assert!(
        check.stdout.contains("Strategy: 3 sessions (2 parallel, 1 sequential)"),
        "{check}"
    );
    let out = env.run(&repo, &["ultraplan", "run", phase]).expect_code(0);
    assert!(out.stdout.contains("Result: COMPLETED"), "{out}");
    // Plans 01 and 02 in wave 1, then 03, each merged back on its own.
    let merges = env.git(&repo, &["log", "--merges", "--format=%s"]);
    assert_eq!(
        merges,
        "merge: ultraplan session 3 — 01-03 Join database and API.\n\
         merge: ultraplan session 2 — 01-02 Create the API file.\n\
         merge: ultraplan session 1 — 01-01 Create the database file.\n"
    );
    assert_eq!(read(&repo.join("app.txt")), "users\nroutes\n");
    // The checkboxes, once, on the integration branch after the merges.
    assert_eq!(env.subjects(&repo)[0], "chore: check off the phase's completed tasks");
    for name in ["01-01-PLAN.md", "01-02-PLAN.md", "01-03-PLAN.md"] {
        let text = env.git(&repo, &["show", &format!("HEAD:{phase}/{name}")]);
        assert!(text.contains("- [x] Task 1: "), "{name}: {text}");
        assert!(text.contains("status=\"completed\""), "{name}: {text}");
    }
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "");
    assert_eq!(env.git(&repo, &["worktree", "list"]).lines().count(), 1);
    assert_eq!(env.git(&repo, &["branch", "--list", "ultraplan/*"]), "");
    env.assert_fsck(&repo);
}

#[test]
fn a_phase_directory_is_validated_like_an_execution_strategy() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let dir = copy_phase(&repo);
    let edit = |name: &str, from: &str, to: &str| {
        let path = dir.join(name);
        let text = read(&path);
        assert!(text.contains(from), "{name}: {from}");
        write(&path, &text.replace(from, to));
    };
    let phase = ".planning/phases/01-foundation";
    // Two plans of one wave sharing a file.
    edit(
        "01-02-PLAN.md",
        "files_modified: [api.txt]",
        "files_modified: [api.txt, db.txt]",
    );
    let out = env.run(&repo, &["ultraplan", "check", phase]).expect_code(1);
    assert!(
        out.stdout
            .contains("sessions 1 and 2 are both in wave 1 and both touch 'db.txt'"),
        "{out}"
    );
    edit(
        "01-02-PLAN.md",
        "files_modified: [api.txt, db.txt]",
        "files_modified: [api.txt]",
    );
    // An unknown dependency, and a cycle.
    edit(
        "01-03-PLAN.md",
        "depends_on: [\"01-01\", \"01-02\"]",
        "depends_on: [\"01-09\"]",
    );
    let out = env.run(&repo, &["ultraplan", "check", phase]).expect_code(1);
    assert!(
        out.stdout
            .contains("depends_on names '01-09', which is not a plan of this phase"),
        "{out}"
    );
    edit("01-03-PLAN.md", "depends_on: [\"01-09\"]", "depends_on: [\"01-01\"]");
    edit("01-01-PLAN.md", "depends_on: []", "depends_on: [\"03\"]");
    let out = env.run(&repo, &["ultraplan", "check", phase]).expect_code(1);
    assert!(out.stdout.contains("cycle"), "{out}");
    edit("01-01-PLAN.md", "depends_on: [\"03\"]", "depends_on: []");
    // A plan with checkpoints never runs beside another.
    edit("01-02-PLAN.md", "autonomous: true", "autonomous: false");
    let out = env.run(&repo, &["ultraplan", "check", phase]).expect_code(0);
    assert!(out.stdout.contains("Sessions: 3 across 3 waves"), "{out}");
    assert!(
        out.stdout
            .contains("is 'autonomous: false' (it stops for a person), so it runs alone in wave 2"),
        "{out}"
    );
    // A warning names the plan file its line is in.
    edit(
        "01-02-PLAN.md",
        "<files>api.txt</files>",
        "<files>api.txt, docs/api.md</files>",
    );
    edit(
        "01-02-PLAN.md",
        "<objective>",
        "<context>\n@.planning/PROJECT.md\n</context>\n\n<objective>",
    );
    let out = env.run(&repo, &["ultraplan", "check", phase]).expect_code(0);
    for warned in [
        "01-02-PLAN.md: step 2: 'docs/api.md' is outside session 2's Touch list",
        "01-02-PLAN.md: task 1: context file '.planning/PROJECT.md' (read first) not found",
    ] {
        assert!(out.stdout.contains(warned), "{warned}\n{out}");
    }
    // A directory with no plans is not a plan.
    std::fs::create_dir_all(repo.join("empty")).unwrap();
    let out = env.run(&repo, &["ultraplan", "check", "empty"]).expect_code(128);
    assert!(
        out.stderr.contains("it is a directory without '*-PLAN.md' files"),
        "{out}"
    );
}

#[test]
fn a_phase_plan_that_stops_at_a_checkpoint_resumes_with_the_answer() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let dir = copy_phase(&repo);
    let path = dir.join("01-03-PLAN.md");
    let text = read(&path).replace("autonomous: true", "autonomous: false").replace(
        "</tasks>",
        "<task type=\"checkpoint:human-verify\" gate=\"blocking\">\n  <what-built>app.txt</what-built>\n  <how-to-verify>Read app.txt</how-to-verify>\n</task>\n</tasks>",
    );
    write(&path, &text);
    let phase = ".planning/phases/01-foundation";
    let out = env.run(&repo, &["ultraplan", "run", phase]).expect_code(3);
    assert!(out.stdout.contains("Join database and API.     STOPPED    no"), "{out}");
    assert!(out.stdout.contains("Result: STOPPED (waiting for a person)"), "{out}");
    // Waves 1 merged; wave 2 waits for the person, unmerged.
    assert_eq!(env.git(&repo, &["log", "--merges", "--format=%s"]).lines().count(), 2);
    let out = env
        .run(&repo, &["ultraplan", "run", "--resume", "--answer", "approved", phase])
        .expect_code(0);
    assert!(out.stdout.contains("Result: COMPLETED"), "{out}");
    assert_eq!(env.git(&repo, &["log", "--merges", "--format=%s"]).lines().count(), 3);
    assert_eq!(read(&repo.join("app.txt")), "users\nroutes\n");
    env.assert_fsck(&repo);
}

/// GSD's executor writes each plan's `{phase}-{plan}-SUMMARY.md` into the
/// phase directory (get-shit-done's agents/gsd-executor.md, at bdcaab2c7;
/// a PLAN.md's `<output>` asks for it): a session may write its own plan's
/// SUMMARY.md there, committed with its task; only the phase's `*-PLAN.md`
/// files are fenced off.
#[test]
fn a_phase_session_writes_its_summary_into_the_phase_directory_but_not_a_plan() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let dir = copy_phase(&repo);
    let phase = ".planning/phases/01-foundation";
    let edit = |name: &str, line: &str| {
        let path = dir.join(name);
        let text = read(&path).replacen("```\n  </action>", &format!("{line}\n```\n  </action>"), 1);
        assert!(text.contains(line), "{name}: {text}");
        write(&path, &text);
    };
    edit(
        "01-01-PLAN.md",
        &format!("echo '# 01-01 summary' > {phase}/01-01-SUMMARY.md"),
    );
    env.git(&repo, &["add", "-A"]);
    env.git(&repo, &["commit", "-q", "-m", "phase"]);
    let out = env.run(&repo, &["ultraplan", "run", phase]).expect_code(0);
    assert!(out.stdout.contains("Result: COMPLETED"), "{out}");
    assert_eq!(
        env.git(&repo, &["show", &format!("HEAD:{phase}/01-01-SUMMARY.md")]),
        "# 01-01 summary\n"
    );
    let task = env.git(&repo, &["log", "--format=%H", "--grep=^01-01 Task 1", "-1"]);
    assert_eq!(
        env.git(&repo, &["show", "--format=", "--name-only", task.trim()]),
        format!("{phase}/01-01-SUMMARY.md\ndb.txt\n")
    );

    // A plan of the phase stays fenced: a step that changes one escalates.
    let repo = env.repo("other");
    let dir = copy_phase(&repo);
    let path = dir.join("01-01-PLAN.md");
    let text = read(&path).replace(
        "<files>db.txt</files>",
        &format!("<files>db.txt, {phase}/01-02-PLAN.md</files>"),
    );
    write(&path, &text);
    let out = env.run(&repo, &["ultraplan", "check", phase]).expect_code(0);
    assert!(
        out.stdout.contains(&format!(
            "'{phase}/01-02-PLAN.md' is a plan of the phase '{phase}', which no step may change"
        )),
        "{out}"
    );
}
