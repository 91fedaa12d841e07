//! What a checkpoint commits (DESIGN §2): only the step's files, a person's
//! uncommitted edits in a step's file stay uncommitted, overlapping edits are
//! committed whole with a warning, and a step's own commits are not repeated.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

use super::run::setup;

#[test]
fn checkpoints_commit_only_the_steps_files() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(&repo.join("staged.txt"), "staged by the user\n");
    env.git(&repo, &["add", "staged.txt"]);
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(
            1,
            "`a.txt`",
            "echo a > a.txt\necho b > b.txt",
            "test -f a.txt",
        )]),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert_transcript!(t, "checkpoints_commit_only_the_steps_files");
    assert_eq!(
        env.git(&repo, &["show", "--name-only", "--format=", "HEAD"]),
        "a.txt\nb.txt\n"
    );
    assert_eq!(
        env.git(&repo, &["status", "--porcelain"]),
        "A  staged.txt\n?? plan.md\n",
        "the user's staged file stays staged and out of the checkpoint"
    );
}

#[test]
fn uncommitted_edits_in_a_steps_file_stay_uncommitted() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(&repo.join("t.txt"), "a\nb\nc\nd\ne\n");
    env.git(&repo, &["add", "t.txt"]);
    env.git(&repo, &["commit", "-q", "-m", "t"]);
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(1, "`t.txt`", "echo f >> t.txt", "grep -q f t.txt"),
            StepSpec::new(2, "`t.txt`", "sed -i 's/^e$/E2/' t.txt", "grep -q E2 t.txt"),
        ]),
    );
    // The user's own edit on the first line, staged and then edited again.
    write(&repo.join("t.txt"), "A\nb\nc\nd\ne\n");
    env.git(&repo, &["add", "t.txt"]);
    write(&repo.join("t.txt"), "AA\nb\nc\nd\ne\n");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert_transcript!(t, "uncommitted_edits_in_a_steps_file_stay_uncommitted");
    // Step 1's commit holds only its own line; the user's edit is not in it.
    assert_eq!(env.git(&repo, &["show", "HEAD~1:t.txt"]), "a\nb\nc\nd\ne\nf\n");
    assert_eq!(env.git(&repo, &["show", "HEAD:t.txt"]), "a\nb\nc\nd\nE2\nf\n");
    // ...and it is still there, uncommitted, for the user: what they had
    // staged is still staged (carried onto the checkpoints), the rest unstaged.
    assert_eq!(read(&repo.join("t.txt")), "AA\nb\nc\nd\nE2\nf\n");
    assert_eq!(env.git(&repo, &["status", "--porcelain", "t.txt"]), "MM t.txt\n");
    let diff_lines = |args: &[&str]| -> Vec<String> {
        env.git(&repo, args)
            .lines()
            .filter(|l| l.starts_with(['-', '+']))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(
        diff_lines(&["diff", "--cached", "--no-color", "-U0", "t.txt"]),
        ["--- a/t.txt", "+++ b/t.txt", "-a", "+A"]
    );
    assert_eq!(
        diff_lines(&["diff", "--no-color", "-U0", "t.txt"]),
        ["--- a/t.txt", "+++ b/t.txt", "-A", "+AA"]
    );
}

#[test]
fn overlapping_edits_are_committed_whole_with_a_warning_and_self_commits_are_not_repeated() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(&repo.join("t.txt"), "a\nb\n");
    env.git(&repo, &["add", "t.txt"]);
    env.git(&repo, &["commit", "-q", "-m", "t"]);
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(1, "`t.txt`", "sed -i 's/^b$/b-step/' t.txt", "grep -q b-step t.txt"),
            StepSpec::new(
                2,
                "`u.txt`",
                "echo u > u.txt && git add u.txt && git commit -q -m self",
                "test -f u.txt",
            ),
        ]),
    );
    write(&repo.join("t.txt"), "a\nb\nmine\n");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert_transcript!(
        t,
        "overlapping_edits_are_committed_whole_with_a_warning_and_self_commits_are_not_repeated"
    );
    assert_eq!(env.git(&repo, &["show", "HEAD~1:t.txt"]), "a\nb-step\nmine\n");
    assert_eq!(
        env.subjects(&repo)[..2],
        ["self", "step 1"],
        "no empty checkpoint commit"
    );
}
