//! A plan's `## Verification` (DESIGN §4.1) runs once every step is done:
//! after the last wave's merge for parallel sessions (`waves`), after the
//! last step for a plan run as one session (here). A failed item fails the
//! run, naming the command; fixed, `--resume` runs the list again.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

#[test]
fn a_single_session_plans_verification_runs_after_its_last_step() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let body = plan(&[
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
    ]);
    let with = |last: &str| {
        format!("{body}## Verification\n\n- `cat a.txt b.txt` → expected: `b`\n- `{last}` → expected: exit 0\n")
    };
    write(&repo.join("plan.md"), &with("test -f c.txt"));
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    // One step alone leaves the Verification to the whole run.
    let one = env
        .run(&repo, &["ultraplan", "run", "--step", "1", "--json", "plan.md"])
        .expect_code(0);
    assert!(one.json()["ultraexecute_summary"]["verification"].is_null(), "{one}");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(1);
    write(&repo.join("plan.md"), &with("test -f b.txt"));
    env.git(&repo, &["commit", "-q", "-am", "fix the verification"]);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    assert_transcript!(t, "a_single_session_plans_verification_runs_after_its_last_step");
    // Both steps' checkpoints, then the fix; the Verification commits nothing.
    assert_eq!(env.subjects(&repo)[..3], ["fix the verification", "step 2", "step 1"]);
}
