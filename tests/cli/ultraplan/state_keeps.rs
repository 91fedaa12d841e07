//! What the run state keeps and carries (issue 37): never a commit the user
//! has not pushed, what a resume needs through `git gc`, and the checkpoints
//! tip a resume walks down to from HEAD.

use std::path::{Path, PathBuf};

use crate::harness::support::{read, write, TestEnv};

fn plan_of(steps: &[(&str, &str)]) -> String {
    let mut text = String::from("# Plan\n\n## Implementation Plan\n\n");
    for (n, (change, verify)) in steps.iter().enumerate() {
        let n = n + 1;
        text.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `conf/app.env`, `f{n}.txt`\n- **Changes:** do it\n  ```sh\n  {change}\n  ```\n- **Verify:** `{verify}`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    text
}

/// A repository whose first commit holds the plan of `steps` and a
/// `.gitignore` of `ok.txt` (the file a person writes to let a step pass).
fn committed_plan(env: &TestEnv, steps: &[(&str, &str)]) -> PathBuf {
    let repo = env.repo("repo");
    write(&repo.join("plan.md"), &plan_of(steps));
    write(&repo.join(".gitignore"), "ok.txt\n");
    env.git(&repo, &["add", "plan.md", ".gitignore"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    repo
}

/// Issue 44 item 1: a file a step committed and the user has not pushed is
/// never carried by the state that travels, neither raw nor at all: the next
/// steps' snapshot, index and base trees name the commit instead.
#[test]
fn the_state_that_travels_never_carries_a_commit_the_user_has_not_pushed() {
    let env = TestEnv::new();
    let remote = env.root().join("remote.git");
    env.git(env.root(), &["init", "-q", "--bare", remote.to_str().unwrap()]);
    let repo = env.repo("repo");
    write(
        &repo.join("plan.md"),
        &plan_of(&[
            (
                "mkdir -p conf && printf 'DB_PASSWORD=hunter2-very-secret-9f8e7d\\n' > conf/app.env && echo 1 > f1.txt",
                "test -f f1.txt",
            ),
            ("echo 2 > f2.txt", "test -f f2.txt"),
            ("echo 3 > f3.txt", "test -f f3.txt"),
        ]),
    );
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    env.git(&repo, &["remote", "add", "origin", remote.to_str().unwrap()]);
    env.git(&repo, &["push", "-q", "origin", "main"]);
    let _ = env.run(&repo, &["ultraplan", "run", "-q", "plan.md"]).expect_code(0);
    let raw = env.git(&repo, &["rev-parse", "HEAD:conf/app.env"]);
    let raw = raw.trim();
    let objects = env.git(&repo, &["rev-list", "--objects", "refs/ultraplan/plan/run"]);
    assert!(!objects.contains(raw), "the state reaches the raw blob {raw}");
    // Step 2's trees are stored against step 1's checkpoint, by its id.
    let base = env.git(&repo, &["show", "refs/ultraplan/plan/run:steps/0/0/0/2/snapshot/base"]);
    assert_eq!(base.trim(), env.git(&repo, &["rev-parse", "HEAD~2"]).trim());
    let _ = env.run(&repo, &["ultraplan", "sync", "origin"]).expect_code(0);
    let there = env.git(&remote, &["for-each-ref", "--format=%(refname)", "refs/ultraplan/"]);
    assert!(there.contains("refs/ultraplan/plan/run"), "{there}");
    let out = env
        .command("git", &remote)
        .args(["cat-file", "-e", raw])
        .output()
        .unwrap();
    assert!(!out.status.success(), "sync sent the raw blob of a commit not pushed");
    let grep = env
        .command("git", &remote)
        .args(["grep", "-l", "hunter2-very-secret", "refs/ultraplan/plan/run"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&grep.stdout), "", "the secret travelled");
}

/// Issue 37 item 5: after `git gc --prune=now` a run stopped by a failure
/// still resumes (its trees rebuilt from the commits they name), and
/// `git fsck` finds the state whole.
#[test]
fn git_gc_keeps_what_a_resume_needs() {
    let env = TestEnv::new();
    let repo = committed_plan(
        &env,
        &[
            ("echo 1 > f1.txt", "test -f f1.txt"),
            ("echo 2 > f2.txt && echo junk > junk.txt", "test -f ok.txt"),
            ("echo 3 > f3.txt", "test -f f3.txt"),
        ],
    );
    write(&repo.join("untracked.txt"), "mine\n");
    let _ = env.run(&repo, &["ultraplan", "run", "-q", "plan.md"]);
    assert!(!repo.join("junk.txt").exists(), "the failed step was reverted");
    env.git(&repo, &["reflog", "expire", "--expire=now", "--all"]);
    env.git(&repo, &["gc", "-q", "--prune=now"]);
    env.assert_fsck(&repo);
    write(&repo.join("ok.txt"), "fixed\n");
    let _ = env
        .run(&repo, &["ultraplan", "run", "-q", "--resume", "plan.md"])
        .expect_code(0);
    assert_eq!(read(&repo.join("untracked.txt")), "mine\n");
    assert!(repo.join("f3.txt").exists());
    let snapshot = env.git(
        &repo,
        &[
            "show",
            "refs/ultraplan/plan/run:steps/0/0/0/2/snapshot/files/untracked.txt",
        ],
    );
    assert_eq!(snapshot, "mine\n");
    env.assert_fsck(&repo);
}

/// The commit `run.json` names as holding every passed step's checkpoint.
fn checkpoints_tip(env: &TestEnv, repo: &Path) -> String {
    let run = env.git(repo, &["show", "refs/ultraplan/plan/run:run.json"]);
    let run: serde_json::Value = serde_json::from_str(&run).unwrap();
    run["checkpoints_tip"].as_str().unwrap_or("none").to_owned()
}

/// A resume checks the passed steps' checkpoints by walking from HEAD down
/// to the state's `checkpoints_tip` (not down to step 1's): the tip follows
/// each checkpoint landing on it, moves to HEAD when a resume finds every
/// checkpoint in it (the user's own commits between), and one no longer in
/// HEAD sends the resume back to looking for each checkpoint.
#[test]
fn a_resume_walks_from_head_down_to_the_checkpoints_tip() {
    let env = TestEnv::new();
    let repo = committed_plan(
        &env,
        &[
            ("echo 1 > f1.txt", "test -f f1.txt"),
            ("echo 2 > f2.txt", "test -f f2.txt"),
            ("echo 3 > f3.txt", "test -f ok.txt"),
            ("echo 4 > f4.txt", "test -f f4.txt"),
        ],
    );
    let _ = env.run(&repo, &["ultraplan", "run", "-q", "plan.md"]).expect_code(1);
    let head = |repo: &Path| env.git(repo, &["rev-parse", "HEAD"]).trim().to_owned();
    assert_eq!(env.git(&repo, &["log", "-1", "--format=%s"]), "step 2\n");
    assert_eq!(checkpoints_tip(&env, &repo), head(&repo), "step 2 landed on step 1");
    // The user's own commit between: the resume finds the tip below HEAD,
    // and step 3's checkpoint lands on HEAD, the new tip.
    write(&repo.join("mine.txt"), "mine\n");
    env.git(&repo, &["add", "mine.txt"]);
    env.git(&repo, &["commit", "-q", "-m", "mine"]);
    write(&repo.join("ok.txt"), "ok\n");
    let _ = env
        .run(&repo, &["ultraplan", "run", "-q", "--resume", "plan.md"])
        .expect_code(0);
    assert_eq!(
        env.git(&repo, &["log", "-4", "--format=%s"]),
        "step 4\nstep 3\nmine\nstep 2\n"
    );
    assert_eq!(
        checkpoints_tip(&env, &repo),
        head(&repo),
        "the tip followed steps 3 and 4"
    );
    // HEAD reset below the tip and step 3's work: the tip is not in HEAD's
    // history, and each checkpoint is looked for (step 3's is missing).
    let mut text = read(&repo.join("plan.md"));
    text.push_str(
        "### Step 5: Step 5\n\n- **Files:** `f5.txt`\n- **Changes:** do it\n  ```sh\n  echo 5 > f5.txt\n  ```\n- **Verify:** `test -f f5.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"step 5\"`\n",
    );
    env.git(&repo, &["reset", "-q", "--hard", "HEAD~3"]);
    write(&repo.join("plan.md"), &text);
    let out = env
        .run(&repo, &["ultraplan", "run", "-q", "--resume", "plan.md"])
        .expect_code(128);
    assert!(out.stderr.contains("step 3 passed with checkpoint"), "{}", out.stderr);
}
