//! A newcomer's first hour, second trial (issue 45): a plan that says
//! done, a Verify that means it, `check` that agrees with `run`, a
//! person's checkpoint shown whole, `sync` that agrees with the pre-push
//! gate, and the historian's base when `main` has unpushed commits.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::shared::Shared;
use crate::harness::support::*;
use crate::harness::transcript::Transcript;
use crate::ultraplan::gsd::{gsd_plan, shell_task};

/// 45.1: running a completed plan again says so and does nothing; `--again`
/// is a new run, recorded beside the first.
#[test]
fn a_completed_plan_is_not_run_again_unless_asked() {
    let env = TestEnv::new();
    let repo = env.repo_with(
        "plan.md",
        &plan(&[StepSpec::new(1, "`log.txt`", "echo line >> log.txt", "test -s log.txt")]),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head, "nothing ran");
    assert_eq!(read(&repo.join("log.txt")), "line\n");
    let _ = t.run(&repo, &["ultraplan", "run", "--again", "plan.md"]).expect_code(0);
    assert_eq!(read(&repo.join("log.txt")), "line\nline\n");
    let log = env
        .run(&repo, &["ultraplan", "log", "--json", "plan.md"])
        .expect_code(0);
    assert_eq!(log.json()["runs"].as_array().map(Vec::len), Some(2), "{log}");
    assert_transcript!(t, "a_completed_plan_is_not_run_again_unless_asked");
}

/// Resuming a completed run with the plan as it ran has nothing to run: it
/// says so and writes nothing (no state commit, no second outcome of the
/// same run); with a step added to the plan, the resume runs that step only
/// (and names a passed step whose title changed).
#[test]
fn resuming_a_completed_run_writes_nothing_unless_the_plan_grew() {
    let env = TestEnv::new();
    let one = || StepSpec::new(1, "`log.txt`", "echo line >> log.txt", "test -s log.txt");
    let repo = env.repo_with("plan.md", &plan(&[one()]));
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let refs = || env.git(&repo, &["for-each-ref", "--format=%(refname) %(objectname)"]);
    let before = refs();
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    assert_eq!(refs(), before, "a resume with nothing to run moved a ref");
    // Step 2 added, and step 1 retitled: it passed, so it does not run
    // again, and the resume says so.
    let grown = plan(&[one(), StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt")]);
    write(
        &repo.join("plan.md"),
        &grown.replace("### Step 1: Step 1", "### Step 1: Log a line"),
    );
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    assert_eq!(read(&repo.join("log.txt")), "line\n", "step 1 did not run again");
    let _ = t
        .run(&repo, &["log", "--format=%s", "refs/ultraplan-outcomes"])
        .expect_code(0);
    assert_transcript!(t, "resuming_a_completed_run_writes_nothing_unless_the_plan_grew");
}

/// 45.2: any failing line of a fenced Verify fails it (`set -e`), and an
/// expected number is not found inside a longer number.
#[test]
fn a_verify_means_what_it_says() {
    let env = TestEnv::new();
    let body = plan(&[
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "true").policy("skip"),
        StepSpec::new(2, "`b.txt`", "echo 3.5 > b.txt", "cat b.txt").policy("skip"),
        StepSpec::new(3, "`c.txt`", "echo 'tests: 3' > c.txt", "cat c.txt"),
    ])
    .replace("- **Verify:** `true`", "- **Verify:**\n  ```sh\n  false\n  true\n  ```")
    .replace("`cat b.txt`", "`cat b.txt` → expected: `3`")
    .replace("`cat c.txt`", "`cat c.txt` → expected: `3`");
    let repo = env.repo_with("plan.md", &body);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "plan.md"])
        .expect_code(0);
    t.note("why steps 1 and 2 were skipped");
    let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    assert_transcript!(t, "a_verify_means_what_it_says");
}

/// 45.3: `check` says which executor its verdict assumes and does not call
/// a plan READY that the shell executor cannot carry out; it warns about
/// Verify commands from another machine, with a syntax error, or starting a
/// server that never ends; `--step 2` failing says step 2.
#[test]
fn check_agrees_with_run() {
    let env = TestEnv::new();
    let body = "# P\n\n## Implementation Plan\n\n\
                ### Step 1: Greet\n\n- **Files:** `hello.txt` (new)\n- **Changes:** Write a greeting into hello.txt.\n- **Verify:** `cd /Users/ada/site && test -s hello.txt`\n- **On failure:** retry\n- **Checkpoint:** none\n\n\
                ### Step 2: Serve\n\n- **Files:** `b.txt`\n- **Changes:** write b\n  ```sh\n  echo b > b.txt\n  ```\n- **Verify:** `npm run dev`\n- **On failure:** revert\n- **Checkpoint:** none\n\n\
                ### Step 3: Check\n\n- **Files:** none\n- **Changes:** none\n- **Verify:** `if [ -f b.txt ]; then echo ok`\n- **On failure:** revert\n- **Checkpoint:** none\n";
    let repo = env.repo_with("plan.md", body);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "check", "plan.md"]).expect_code(1);
    t.note("for a person (or an agent) the prose step is fine; the warnings stay");
    let _ = t
        .run(&repo, &["ultraplan", "check", "--executor", "manual", "plan.md"])
        .expect_code(0);
    let two = plan(&[
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f nothing-1"),
        StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f nothing-2"),
    ]);
    write(&repo.join("two.md"), &two);
    let _ = env
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "two.md"])
        .expect_code(1);
    t.note("step 1 failed in the run before; this run fails at step 2");
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--max-attempts", "1", "--step", "2", "two.md"],
        )
        .expect_code(1);
    assert_transcript!(t, "check_agrees_with_run");
}

/// 45.4: the fenced commands inside `<how-to-verify>` are shown to the
/// person, not blank lines.
#[test]
fn a_persons_checkpoint_shows_the_whole_instruction() {
    let env = TestEnv::new();
    let tasks = shell_task("Task 1: Page", "page.html", "echo hi > page.html", "grep -q hi page.html")
        + "<task type=\"checkpoint:human-verify\" gate=\"blocking\">\n  <what-built>The page</what-built>\n  <how-to-verify>\n    Start the server and fetch the page:\n    ```bash\n    npm run dev &\n    curl -fsS http://localhost:3000/page.html\n    ```\n    The heading says hi.\n  </how-to-verify>\n  <resume-signal>Type \"approved\"</resume-signal>\n</task>\n";
    let repo = env.repo_with("04-02-PLAN.md", &gsd_plan(&tasks));
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["ultraplan", "run", "04-02-PLAN.md"]).expect_code(3);
    assert!(
        out.stdout.contains("curl -fsS http://localhost:3000/page.html"),
        "{out}"
    );
    assert_transcript!(t, "a_persons_checkpoint_shows_the_whole_instruction");
}

/// 45.5: `sync` does not push a note the pre-push gate would refuse; a
/// clone receiving a note that is not YAML takes the rest and names it.
#[test]
fn sync_and_the_pre_push_gate_agree() {
    let s = Shared::new();
    s.run_plan(&s.a);
    let first = s.rev(&s.a, "HEAD~1");
    let second = s.rev(&s.a, "HEAD");
    // A hand-written note that is no result, on a checkpoint.
    s.env.git(
        &s.a,
        &["notes", "--ref=ultraplan", "add", "-f", "-m", "key: [unclosed", &first],
    );
    let mut t = Transcript::new(&s.env);
    t.replace(&first, "<FIRST>");
    t.replace(&second, "<SECOND>");
    let _ = t.run(&s.a, &["ultraplan", "sync"]).expect_code(1);
    assert_eq!(
        s.env
            .run(&s.remote, &["rev-parse", "-q", "--verify", "refs/notes/ultraplan"])
            .code,
        1,
        "no notes reached the remote"
    );
    t.note("pushed with plain git anyway: the other clone takes the rest and names the note it skips");
    s.env
        .git(&s.a, &["push", "-q", "origin", "HEAD:main", "refs/notes/ultraplan"]);
    s.env.git(&s.b, &["pull", "-q"]);
    let _ = t.run(&s.b, &["ultraplan", "sync"]).expect_code(1);
    assert!(s.note(&s.b, &second).is_some_and(|n| n.contains("status: success")));
    assert!(s.note(&s.b, &first).is_none());
    assert_transcript!(t, "sync_and_the_pre_push_gate_agree");
}

/// 45.6: with a commit on `main` not pushed yet, the base is the local
/// `main` the feature forked from, and the plan says why.
#[test]
fn the_base_is_the_local_branch_ahead_of_its_upstream() {
    let env = TestEnv::new();
    let seed = env.repo("seed");
    let remote = env.root().join("remote.git");
    env.git(
        env.root(),
        &[
            "clone",
            "-q",
            "--bare",
            seed.to_str().unwrap(),
            remote.to_str().unwrap(),
        ],
    );
    let repo = env.root().join("repo");
    env.git(
        env.root(),
        &["clone", "-q", remote.to_str().unwrap(), repo.to_str().unwrap()],
    );
    write(&repo.join("local.txt"), "not pushed\n");
    env.git(&repo, &["add", "local.txt"]);
    env.git(&repo, &["commit", "-q", "-m", "Add a local note"]);
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("feature.txt"), "feature\n");
    env.git(&repo, &["add", "feature.txt"]);
    env.git(&repo, &["commit", "-q", "-m", "Add the feature"]);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    assert_transcript!(t, "the_base_is_the_local_branch_ahead_of_its_upstream");
}
