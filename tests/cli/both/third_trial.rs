//! A newcomer's trial, third round: hostile plans and the docs read as a
//! new user reads them. Each defect found has its test here.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// What a refused run must leave: no run state, no notes, no change.
fn nothing_written(env: &TestEnv, repo: &std::path::Path) {
    assert_eq!(env.git(repo, &["for-each-ref", "refs/ultraplan", "refs/notes"]), "");
    assert_eq!(env.git(repo, &["status", "--porcelain", "--untracked-files=all"]), "");
}

/// A plan saved in another encoding is refused naming where its first byte
/// that is not UTF-8 is and how to convert it; a UTF-16 plan and a binary
/// file are named as what they are. `run` writes nothing.
#[test]
fn a_plan_that_is_not_utf8_is_refused_naming_where_and_what_it_is() {
    let env = TestEnv::new();
    let text = plan(&[StepSpec::new(
        1,
        "`cafe.txt` (new)",
        "echo café > cafe.txt",
        "grep -q café cafe.txt",
    )]);
    let repo = env.repo_with("plan.md", &text);
    let latin1: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
    let mut utf16 = vec![0xff, 0xfe];
    utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let binary = [0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0xff, 0x3e, 0];
    let mut t = Transcript::new(&env);
    for (name, bytes) in [
        ("latin1.md", &latin1[..]),
        ("utf16.md", &utf16[..]),
        ("binary.md", &binary[..]),
    ] {
        let path = env.root().join(name);
        std::fs::write(&path, bytes).unwrap();
        let shown = format!("../{name}");
        let _ = t.run(&repo, &["ultraplan", "check", &shown]).expect_code(128);
        let _ = t.run(&repo, &["ultraplan", "run", &shown]).expect_code(128);
    }
    nothing_written(&env, &repo);
    assert_transcript!(t, "a_plan_that_is_not_utf8_is_refused_naming_where_and_what_it_is");
}

/// A step whose Files name the plan itself escalates before it runs (no
/// step may change the plan): `check` says so at the line, instead of
/// READY with no word about it.
#[test]
fn check_warns_about_a_step_that_names_the_plan_itself() {
    let env = TestEnv::new();
    let repo = env.repo_with(
        "plan.md",
        &plan(&[StepSpec::new(
            1,
            "`plan.md`, `a.txt` (new)",
            "echo a > a.txt",
            "test -f a.txt",
        )]),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "check", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(3);
    assert_transcript!(t, "check_warns_about_a_step_that_names_the_plan_itself");
}

/// The Markdown report shows each Verify as it ran: a pipe stays a pipe
/// (it was `¦`; a backtick, which was `'`, stays too: see the unit test of
/// `code_span`).
#[test]
fn the_markdown_report_shows_a_verify_as_it_ran() {
    let env = TestEnv::new();
    let repo = env.repo_with(
        "plan.md",
        &plan(&[StepSpec::new(
            1,
            "`a.txt` (new)",
            "echo a > a.txt",
            "grep -c a a.txt | grep -q 1",
        )]),
    );
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let out = env.run(&repo, &["ultraplan", "report"]).expect_code(0);
    assert!(
        out.stdout.contains("Verify `grep -c a a.txt | grep -q 1` exited 0"),
        "{}",
        out.stdout
    );
}

/// A plan whose title or Files path holds an escape sequence: `check` and
/// `run` name it as a problem, and neither sends the sequence itself to the
/// screen (the table and the messages show `\u{1b}`).
#[test]
fn an_escape_sequence_in_a_plan_is_named_never_sent_to_the_screen() {
    let env = TestEnv::new();
    let repo = env.repo_with("plan.md",
        "# P\n\n## Implementation Plan\n\n### Step 1: A \u{1b}[31mred\n\n- **Files:** `a\u{1b}[2Jb`\n- **Changes:**\n  ```sh\n  echo a > a\n  ```\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** none\n",
    );
    let mut t = Transcript::new(&env);
    let check = t.run(&repo, &["ultraplan", "check", "plan.md"]).expect_code(1);
    let run = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(128);
    for out in [&check, &run] {
        assert!(
            !out.stdout.contains('\u{1b}') && !out.stderr.contains('\u{1b}'),
            "{out}"
        );
    }
    nothing_written(&env, &repo);
    assert_transcript!(t, "an_escape_sequence_in_a_plan_is_named_never_sent_to_the_screen");
}
