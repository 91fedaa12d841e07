//! A newcomer's first hour (issue 43): reading a result with plain git,
//! help where git users look, failures that say why, hints that lead
//! somewhere, Verify commands that cannot pass by accident, a run's own
//! edits of a task plan, output conventions, and the historian's messages.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;
use crate::ultraplan::gsd::{gsd_plan, shell_task};

/// 43.1: the results are notes under refs/notes/ultraplan. A bare `git
/// notes show` reads refs/notes/commits, and ultraplan does not redirect it
/// there (a user's own `git notes add` would then land among the results);
/// every report names the command that works, and `sync --setup` makes
/// `git log` show them.
#[test]
fn every_report_names_the_command_that_shows_a_result() {
    let env = TestEnv::new();
    let repo = env.repo_with(
        "plan.md",
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")]),
    );
    let remote = env.root().join("remote.git");
    env.git(env.root(), &["init", "-q", "--bare", remote.to_str().unwrap()]);
    env.git(&repo, &["remote", "add", "origin", remote.to_str().unwrap()]);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    t.note("plain git notes reads refs/notes/commits, which ultraplan leaves to the user");
    let _ = t.run(&repo, &["notes", "show", "HEAD"]).expect_code(1);
    let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    let shown = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    assert!(shown.stdout.contains("status: success"), "{shown}");
    t.note("sync --setup makes git log show the results");
    let _ = t.run(&repo, &["ultraplan", "sync", "--setup"]).expect_code(0);
    let log = t.run(&repo, &["log", "-1", "--format=%s%n%N"]).expect_code(0);
    assert!(log.stdout.contains("status: success"), "{log}");
    let notes_ref = env.run(&repo, &["config", "--get-all", "core.notesRef"]);
    assert_eq!(notes_ref.code, 1, "core.notesRef is left alone: {notes_ref}");
    assert_transcript!(t, "every_report_names_the_command_that_shows_a_result");
}

/// 43.2: `help [command]` shows the man page, or the full built-in help
/// when none is installed; `install` puts the pages and completions where
/// `man` and the shells look, and then `git ultraplan --help` works.
#[test]
fn help_without_man_pages_and_one_command_to_install_them() {
    let mut env = TestEnv::new();
    let repo = env.repo("repo");
    let empty = env.root().join("no-man");
    std::fs::create_dir_all(&empty).unwrap();
    env.set("MANPATH", empty.display().to_string());
    env.set("MANPAGER", "cat");
    env.set("PAGER", "cat");
    env.set("MANWIDTH", "80");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "help", "status"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "help", "nosuch"]).expect_code(128);
    let prefix = env.root().join("prefix");
    let _ = t
        .run(
            &repo,
            &[
                "historian",
                "install",
                "--completions",
                "--prefix",
                prefix.to_str().unwrap(),
            ],
        )
        .expect_code(0);
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "install",
                "--man",
                "--dry-run",
                "--prefix",
                prefix.to_str().unwrap(),
            ],
        )
        .expect_code(0);
    assert_transcript!(t, "help_without_man_pages_and_one_command_to_install_them");
    // What is installed is the committed copy, byte for byte.
    let _ = env
        .run(&repo, &["ultraplan", "install", "--prefix", prefix.to_str().unwrap()])
        .expect_code(0);
    assert_eq!(
        std::fs::read(prefix.join("share/man/man1/git-ultraplan-run.1")).unwrap(),
        std::fs::read(repo_root().join("man/git-ultraplan-run.1")).unwrap()
    );
    assert_eq!(
        std::fs::read(prefix.join("share/bash-completion/completions/git-ultraplan")).unwrap(),
        std::fs::read(repo_root().join("completions/git-ultraplan.bash")).unwrap()
    );
    if which::which("man").is_ok() {
        env.set("MANPATH", prefix.join("share/man").display().to_string());
        let out = env.run(&repo, &["ultraplan", "--help"]).expect_code(0);
        assert!(out.stdout.contains("EXIT STATUS"), "{out}");
        let out = env.run(&repo, &["ultraplan", "help", "check"]).expect_code(0);
        assert!(
            out.stdout.contains("EXIT STATUS") && !out.stderr.contains("hint:"),
            "{out}"
        );
    }
}

/// 43.3 and 43.5: the report, `status` and `log` show the failing Verify's
/// command and the tail of its output; an expected text that is missing
/// shows what the output was; `… | tail` fails when the command before the
/// pipe does; without a terminal, each step says when it starts and ends.
#[test]
fn a_failure_says_why_where_it_is_reported() {
    let env = TestEnv::new();
    let body = plan(&[
        StepSpec::new(1, "`a.txt`", "echo 3.5 > a.txt", "cat a.txt").policy("retry — look again"),
        StepSpec::new(2, "`b.txt`", "echo b > b.txt", "(echo boom >&2; exit 3) | tail -5").policy("skip"),
    ])
    .replace("`cat a.txt`", "`cat a.txt` → expected: `3`");
    let repo = env.repo_with("plan.md", &body);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "plan.md"])
        .expect_code(1);
    t.note("step 1 failed: its output was 3.5, not 3; now step 2, alone");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--step", "2", "plan.md"])
        .expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "log", "plan.md"]).expect_code(0);
    assert_transcript!(t, "a_failure_says_why_where_it_is_reported");
}

/// 43.4: a step in prose is blocked for the shell executor, and the report
/// says what would carry it out (not a resume that blocks again); a
/// revision that names no commit is said in words, not the parser's calls.
#[test]
fn hints_lead_somewhere() {
    let env = TestEnv::new();
    let body = "# P\n\n## Implementation Plan\n\n### Step 1: Greet\n\n- **Files:** `hello.txt` (new)\n- **Changes:** Write a friendly greeting into hello.txt.\n- **Verify:** `test -s hello.txt`\n- **On failure:** retry\n- **Checkpoint:** `git commit -m \"feat: greet\"`\n";
    let repo = env.repo_with("plan.md", body);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(3);
    let _ = t.run(&repo, &["ultraplan", "show", "HEAD^{tree}"]).expect_code(128);
    let _ = t.run(&repo, &["ultraplan", "show", "HEAD~7"]).expect_code(128);
    let _ = t.run(&repo, &["ultraplan", "show", "HEAD:plan.md"]).expect_code(128);
    assert_transcript!(t, "hints_lead_somewhere");
}

/// 43.5: `check` warns about a Verify that always passes; a task plan's
/// `<read_first>` entries with a note after the path are read as the path.
#[test]
fn check_warns_about_verifies_that_cannot_fail_and_reads_annotated_paths() {
    let env = TestEnv::new();
    let body = plan(&[
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt || echo missing"),
        StepSpec::new(2, "`b.txt`", "echo b > b.txt", "grep -q b b.txt; true"),
    ]);
    let tasks = shell_task(
        "Task 1: Page",
        "page.html",
        "echo hi > page.html",
        "grep -q hi page.html",
    )
    .replace(
        "<files>",
        "<read_first>\n- README.md — read the full file\n- src/app.tsx - the current layout\n</read_first>\n  <files>",
    );
    let repo = env.repo_with("plan.md", &body);
    std::fs::create_dir_all(repo.join("src")).unwrap();
    write(&repo.join("src/app.tsx"), "app\n");
    write(&repo.join("04-02-PLAN.md"), &gsd_plan(&tasks));
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "check", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "check", "04-02-PLAN.md"]).expect_code(0);
    assert_transcript!(
        t,
        "check_warns_about_verifies_that_cannot_fail_and_reads_annotated_paths"
    );
}

/// 43.6: the checkboxes and `status`/`completed_at` attributes a run
/// writes into a task plan are its own: a resume does not call them a
/// change of the plan.
#[test]
fn a_resume_does_not_take_the_runs_own_marks_for_a_change() {
    let env = TestEnv::new();
    let tasks = shell_task(
        "Task 1: Page",
        "page.html",
        "echo hi > page.html",
        "grep -q hi page.html",
    ) + &shell_task(
        "Task 2: Style",
        "style.css",
        "echo 'h1{}' > style.css",
        "test -f ready.txt",
    );
    let body = gsd_plan(&tasks).replace(
        "</tasks>\n",
        "</tasks>\n\n<success_criteria>\n- [ ] Task 1: Page\n- [ ] Task 2: Style\n</success_criteria>\n",
    );
    let repo = env.repo_with("04-02-PLAN.md", &body);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "04-02-PLAN.md"])
        .expect_code(1);
    write(&repo.join("ready.txt"), "ready\n");
    t.note("task 1 is marked in the plan; the resume says nothing about a change");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "04-02-PLAN.md"])
        .expect_code(0);
    t.file(&repo.join("04-02-PLAN.md"));
    assert_transcript!(t, "a_resume_does_not_take_the_runs_own_marks_for_a_change");
}

/// 43.7: the machine summary goes to `--json` or `--summary-file`, never
/// after the human report; `-q` leaves only errors; `clean` with nothing to
/// clean says so.
#[test]
fn output_conventions() {
    let env = TestEnv::new();
    let repo = env.repo_with(
        "plan.md",
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")]),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(0);
    let summary = env.root().join("summary.json");
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--again",
                "--summary-file",
                summary.to_str().unwrap(),
                "plan.md",
            ],
        )
        .expect_code(0);
    let line = read(&summary);
    assert!(
        line.starts_with("{\"ultraexecute_summary\":") && line.lines().count() == 1,
        "{line}"
    );
    let _ = t
        .run(&repo, &["ultraplan", "run", "--again", "--json", "plan.md"])
        .expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    assert_transcript!(t, "output_conventions");
}

/// 43.8: "wip", "more wip" and "fix typo" never reach a clean subject; a
/// new file is not a `fix` because a typo fix was folded into it; the
/// report ends with how to adopt the clean branch and how to go back.
#[test]
fn the_historians_subjects_and_what_to_do_next() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    let commit = |file: &str, text: &str, message: &str| {
        write(&repo.join(file), text);
        env.git(&repo, &["add", file]);
        env.git(&repo, &["commit", "-q", "-m", message]);
    };
    std::fs::create_dir_all(repo.join("src")).unwrap();
    commit("src/lib.rs", "pub fn helper() -> u32 {\n    1\n}\n", "more wip");
    commit(
        "src/parse.rs",
        "pub fn parse(s: &str) -> usize {\n    s.len()\n}\n",
        "wip",
    );
    commit(
        "src/parse.rs",
        "/// Parses.\npub fn parse(s: &str) -> usize {\n    s.len()\n}\n",
        "fix typo",
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "clean"]).expect_code(0);
    let clean = env.git(
        &repo,
        &["for-each-ref", "--format=%(refname:short)", "refs/heads/feature-*"],
    );
    let subjects = env.git(&repo, &["log", "--format=%s", &format!("main..{}", clean.trim())]);
    assert!(!subjects.contains("wip") && !subjects.contains("typo"), "{subjects}");
    assert!(!subjects.contains("fix("), "{subjects}");
    assert_transcript!(t, "the_historians_subjects_and_what_to_do_next");
}
