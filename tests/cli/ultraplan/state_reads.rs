//! What reading a run state costs (issue 37): a headline (`status`, and a
//! run of a plan whose run completed) reads `run.json` and the entries of
//! the steps it names, never every step's entry; the export writes a file
//! that changed little as its changes and a note that is a record by name,
//! and reads back to the same document.

use std::path::{Path, PathBuf};

use crate::harness::support::{read, write, TestEnv};
use crate::harness::transcript::Transcript;

fn plan_of(verifies: &[&str]) -> String {
    let mut text = String::from("# Plan\n\n## Implementation Plan\n\n");
    for (n, verify) in verifies.iter().enumerate() {
        let n = n + 1;
        text.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `f{n}.txt`\n- **Changes:** write it\n  ```sh\n  echo {n} > f{n}.txt\n  ```\n- **Verify:** `{verify}`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    text
}

fn repo_with_run(env: &TestEnv, verifies: &[&str]) -> PathBuf {
    let repo = env.repo("repo");
    write(&repo.join("plan.md"), &plan_of(verifies));
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    let _ = env.run(&repo, &["ultraplan", "run", "-q", "plan.md"]);
    repo
}

/// Replaces the `steps.json` of the folder of ten of each step in `steps`
/// with text that is no JSON, in a new commit of the run state (what a
/// reader that opens it cannot read).
fn break_entries(env: &TestEnv, repo: &Path, steps: &[u32]) {
    let index = env.root().join("broken-index");
    let with_index = |args: &[&str]| {
        let out = env
            .command("git", repo)
            .args(args)
            .env("GIT_INDEX_FILE", &index)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    with_index(&["read-tree", "refs/ultraplan/plan/run"]);
    let garbage = env.root().join("garbage");
    write(&garbage, "not json\n");
    let blob = env.git(repo, &["hash-object", "-w", garbage.to_str().unwrap()]);
    for n in steps {
        let path = format!("steps/{}/{}/{}/steps.json", n / 1000, n / 100, n / 10);
        with_index(&["update-index", "--cacheinfo", &format!("100644,{},{path}", blob.trim())]);
    }
    let tree = with_index(&["write-tree"]);
    let commit = env.git(
        repo,
        &[
            "commit-tree",
            &tree,
            "-p",
            "refs/ultraplan/plan/run",
            "-m",
            "broken entries",
        ],
    );
    env.git(repo, &["update-ref", "refs/ultraplan/plan/run", commit.trim()]);
}

#[test]
fn status_reads_run_json_and_the_failing_steps_entries_only() {
    let env = TestEnv::new();
    // Steps 1 to 9 pass (their entries are in one folder of ten), step 10
    // fails (in the next folder) and stops the run.
    let mut verifies: Vec<String> = (1..10).map(|n| format!("test -f f{n}.txt")).collect();
    verifies.push("test -f missing.txt".into());
    let verifies: Vec<&str> = verifies.iter().map(String::as_str).collect();
    let repo = repo_with_run(&env, &verifies);
    let mut t = Transcript::new(&env);
    let before = t.run(&repo, &["ultraplan", "status"]).expect_code(0);
    // Steps 1 to 9 passed: the headline needs none of their entries.
    break_entries(&env, &repo, &[1]);
    t.note("the entries of steps 1 to 9 are broken: the headline needs none");
    let after = t.run(&repo, &["ultraplan", "status"]).expect_code(0);
    assert_eq!(after.stdout, before.stdout);
    t.note("the table of the plan's steps reads every entry, and says which it cannot");
    let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(128);
    assert_transcript!(t, "status_reads_run_json_and_the_failing_steps_entries_only");
}

#[test]
fn a_completed_run_is_known_from_run_json_alone() {
    let env = TestEnv::new();
    let repo = repo_with_run(&env, &["test -f f1.txt", "test -f f2.txt"]);
    break_entries(&env, &repo, &[1, 2]);
    let mut t = Transcript::new(&env);
    t.note("every step's entry is broken; run.json says the run completed");
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "status"]).expect_code(0);
    assert_transcript!(t, "a_completed_run_is_known_from_run_json_alone");
}

fn export(env: &TestEnv, repo: &Path, file: &Path) -> String {
    let _ = env
        .run(
            repo,
            &[
                "ultraplan",
                "export",
                "-q",
                "--all",
                "--transcripts",
                "-o",
                file.to_str().unwrap(),
            ],
        )
        .expect_code(0);
    read(file)
        .lines()
        .filter(|l| !l.starts_with("exported_at:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_export_writes_changes_and_names_records_and_reads_back_the_same() {
    let env = TestEnv::new();
    let repo = repo_with_run(&env, &["test -f f1.txt", "test -f f2.txt", "test -f f3.txt"]);
    let file = env.root().join("a.yaml");
    let first = export(&env, &repo, &file);
    assert!(
        first.contains("\ndeltas:\n"),
        "run.json's versions as changes:\n{first}"
    );
    assert!(
        first.contains("\n    blob: "),
        "notes that are records by name:\n{first}"
    );
    assert!(first.contains("\n      at: "), "authors by time:\n{first}");
    // Every note is written once: as a record of the states, not again.
    let note = env.git(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"]);
    let once = note.lines().find(|l| l.starts_with("logged_at:")).unwrap();
    assert!(first.matches(once).count() <= 1, "{once} written twice");
    let other = env.repo("other");
    // The checkpoints the notes are on.
    env.git(
        &other,
        &["fetch", "-q", repo.to_str().unwrap(), "main:refs/remotes/repo/main"],
    );
    let _ = env
        .run(&other, &["ultraplan", "import", file.to_str().unwrap()])
        .expect_code(0);
    let again = export(&env, &other, &env.root().join("b.yaml"));
    let differ = first.lines().zip(again.lines()).find(|(a, b)| a != b);
    assert_eq!(differ, None, "the export read back differs");
    assert_eq!(first, again);
    let here = env.git(&repo, &["rev-parse", "refs/ultraplan/plan/run"]);
    let there = env.git(&other, &["rev-parse", "refs/ultraplan/plan/run"]);
    assert_eq!(here, there, "the same commits (transcripts and all)");
    env.assert_fsck(&other);
}

#[test]
fn an_export_whose_changes_do_not_apply_is_refused_whole() {
    let env = TestEnv::new();
    let repo = repo_with_run(&env, &["test -f f1.txt", "test -f f2.txt"]);
    let file = env.root().join("a.yaml");
    let _ = export(&env, &repo, &file);
    let text = read(&file);
    let at = text.find("\ndeltas:\n").expect("deltas") + "\ndeltas:\n".len();
    let line_end = at + text[at..].find('\n').unwrap();
    let line = &text[at..line_end];
    let (key, value) = line.split_once(": ").unwrap();
    let (base, _) = value.trim_matches('\'').split_once(' ').unwrap();
    let cases = [
        ("past-the-end", format!("{key}: '{base} [99999]'")),
        ("missing-base", format!("{key}: '{} [1]'", "0".repeat(40))),
        // Its text is not what its id says (or a file built on it no longer applies).
        ("changed", format!("{key}: '{base} [1]'")),
    ];
    let other = env.repo("other");
    let mut t = Transcript::new(&env);
    for (what, replacement) in cases {
        let body = format!("{}{replacement}{}", &text[..at], &text[line_end..]);
        let path = env.root().join(format!("{what}.yaml"));
        std::fs::write(&path, body).unwrap();
        let import = ["ultraplan", "import", &format!("../{what}.yaml")];
        if what == "changed" {
            // Which of the file's checks fails first depends on the bytes of
            // this run's state (its times): both refuse, naming the file.
            let out = env.run(&other, &import).expect_code(128);
            assert!(out.stderr.starts_with("fatal: '../changed.yaml': file "), "{out}");
            t.note("the export's first change edited: changed (refused, naming the file; the check that fails first varies with the run's bytes)");
        } else {
            t.note(&format!("the export's first change edited: {what}"));
            let _ = t.run(&other, &import).expect_code(128);
        }
        let _ = t.run(&other, &["for-each-ref"]).expect_code(0);
    }
    assert_transcript!(t, "an_export_whose_changes_do_not_apply_is_refused_whole");
}

/// A resume of a plan past the size whose redaction is remembered (and
/// started ahead, while the plan is parsed): the plan changed since its
/// run completed, with a secret in the part added, and the state it
/// continues was packed since (its entries read from the pack) while the
/// steps it adds are loose.
#[test]
fn a_resume_of_a_large_changed_plan_records_it_redacted() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut text = plan_of(&["test -f f1.txt", "test -f f2.txt"]);
    // Prose enough to make the plan larger than 64 KiB.
    let prose = "The steps write one file each; nothing else changes here.\n".repeat(1200);
    text = text.replacen(
        "## Implementation Plan\n",
        &format!("{prose}\n## Implementation Plan\n"),
        1,
    );
    assert!(text.len() > 64 * 1024);
    write(&repo.join("plan.md"), &text);
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    let _ = env.run(&repo, &["ultraplan", "run", "-q", "plan.md"]).expect_code(0);
    env.git(&repo, &["repack", "-adq"]);
    let secret = "hunter2-correct-horse-battery";
    text.push_str(&format!(
        "### Step 3: Step 3\n\n- **Files:** `f3.txt`\n- **Changes:** write it (the service's password: {secret})\n  ```sh\n  echo 3 > f3.txt\n  ```\n- **Verify:** `test -f f3.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"step 3\"`\n"
    ));
    write(&repo.join("plan.md"), &text);
    let mut t = Transcript::new(&env);
    t.note("the completed run was packed; the plan, past 64 KiB, gained a step whose text names a password");
    let _ = t
        .run(&repo, &["ultraplan", "run", "-q", "--resume", "plan.md"])
        .expect_code(0);
    let recorded = env.git(&repo, &["show", "refs/ultraplan/plan/run:plan.md"]);
    assert!(!recorded.contains(secret), "the secret was recorded");
    assert!(
        recorded.contains("password: [REDACTED:password]"),
        "{}",
        &recorded[recorded.len() - 400..]
    );
    assert!(recorded.contains("### Step 3: Step 3"));
    t.note("every step's entry reads: the two packed, the one added loose");
    let status = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    assert_eq!(status.stdout.matches("passed").count(), 3, "{status}");
    assert_transcript!(t, "a_resume_of_a_large_changed_plan_records_it_redacted");
}
