//! Crash safety (DESIGN §2 invariant 5): a run killed with SIGKILL at any of
//! its fault points — every occurrence of each — and then resumed ends with
//! the same commits and tree as an uninterrupted run, `git fsck` clean,
//! nothing of the user's lost, and no step run again after its checkpoint.
//! One case kills the process from outside, by timing, mid-executor.

use std::path::{Path, PathBuf};

use crate::harness::plans::{self, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// A plan with a commit, a retry, a step without checkpoint and a revert;
/// every executor run is logged outside the worktree.
fn plan(dir: &Path) -> String {
    let log = dir.join("runs.log").display().to_string();
    let c2 = dir.join("counter2").display().to_string();
    let c4 = dir.join("counter4").display().to_string();
    let step = |n: u32, files: &str, script: &str, verify: &str, policy: &str, checkpoint: &str| {
        let script: String = format!("echo step {n} >> {log}\n{script}")
            .lines()
            .map(|l| format!("  {l}\n"))
            .collect();
        format!(
            "### Step {n}: Step {n}\n\n- **Files:** {files}\n- **Changes:**\n  ```sh\n{script}  ```\n- **Verify:** `{verify}`\n- **On failure:** {policy}\n- **Checkpoint:** {checkpoint}\n\n"
        )
    };
    format!(
        "# Crash test\n\n## Implementation Plan\n\n{}{}{}{}",
        step(1, "`one.txt`", "echo one > one.txt", "test -f one.txt", "revert", "`git commit -m \"step 1\"`"),
        step(
            2,
            "`two.txt`",
            &format!("n=$(cat {c2} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {c2}\nif [ $n -ge 2 ]; then echo good > two.txt; else echo bad > two.txt; fi"),
            "grep -q good two.txt",
            "retry",
            "`git commit -m \"step 2\"`"
        ),
        step(3, "`three.txt`", "echo three > three.txt", "test -f three.txt", "revert", "none"),
        step(
            4,
            "`tracked.txt`, `four.txt`",
            &format!("n=$(cat {c4} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {c4}\necho appended >> tracked.txt\necho four > four.txt\ngit add -A"),
            &format!("test $(cat {c4}) -ge 2"),
            "revert",
            "`git commit -m \"step 4\"`"
        ),
    )
}

struct Case {
    env: TestEnv,
    repo: PathBuf,
    dir: PathBuf,
}

fn case(name: &str) -> Case {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("tracked.txt"), "committed\n");
    env.git(&repo, &["add", "tracked.txt"]);
    env.git(&repo, &["commit", "-q", "-m", "tracked"]);
    let dir = env.root().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    write(&repo.join("plan.md"), &plan(&dir));
    // The user's own work in progress.
    write(&repo.join("tracked.txt"), "committed\nuser's edit\n");
    write(&repo.join("notes.txt"), "user's untracked notes\n");
    // Staged by the user: kept staged whatever the run goes through.
    write(&repo.join("staged.txt"), "user's staged file\n");
    env.git(&repo, &["add", "staged.txt"]);
    Case { env, repo, dir }
}

/// Runs the binary directly (no git in between) so SIGKILL is visible.
fn run_with_fault(c: &Case, fault: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = c.env.command(bin_dir().join("git-ultraplan"), &c.repo);
    cmd.args(args);
    if let Some(f) = fault {
        cmd.env("ULTRAPLAN_TEST_FAULT", f);
    }
    capture(cmd)
}

#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    head: String,
    tree: String,
    subjects: Vec<String>,
    status: String,
    files: Vec<(PathBuf, String)>,
}

fn outcome(c: &Case) -> Outcome {
    // The plan names each case's own directory, so it is left out.
    let files = worktree_files(&c.repo)
        .into_iter()
        .filter(|(p, _)| p != Path::new("plan.md"))
        .map(|(p, b)| (p, String::from_utf8_lossy(&b).into_owned()))
        .collect();
    Outcome {
        head: c.env.git(&c.repo, &["rev-parse", "HEAD"]),
        tree: c.env.git(&c.repo, &["rev-parse", "HEAD^{tree}"]),
        subjects: c.env.subjects(&c.repo),
        status: c.env.git(&c.repo, &["status", "--porcelain"]),
        files,
    }
}

/// Steps done (per the state) or committed (per the branch) when the run died.
fn done_at_crash(c: &Case) -> Vec<u32> {
    let mut done = Vec::new();
    let saved = c
        .env
        .command("git", &c.repo)
        .args(["cat-file", "-e", "refs/ultraplan/plan/run:run.json"])
        .status()
        .unwrap()
        .success();
    if let Some(text) = saved.then(|| c.env.progress(&c.repo, "refs/ultraplan/plan/run")) {
        if let Ok(progress) = serde_json::from_str::<serde_json::Value>(&text) {
            for n in 1..=4u32 {
                if matches!(
                    progress["steps"][n.to_string()]["status"].as_str(),
                    Some("passed" | "skipped")
                ) {
                    done.push(n);
                }
            }
        }
    }
    for subject in c.env.subjects(&c.repo) {
        if let Some(n) = subject.strip_prefix("step ").and_then(|n| n.parse().ok()) {
            done.push(n);
        }
    }
    done.sort_unstable();
    done.dedup();
    done
}

fn assert_resumes_to(c: &Case, baseline: &Outcome, label: &str) {
    let done = done_at_crash(c);
    let before = std::fs::read_to_string(c.dir.join("runs.log")).unwrap_or_default();
    let out = run_with_fault(c, None, &["run", "--resume", "plan.md"]);
    assert_eq!(out.code, 0, "{label}: resume failed:\n{out}");
    let after = std::fs::read_to_string(c.dir.join("runs.log")).unwrap_or_default();
    for line in after[before.len()..].lines() {
        let n: u32 = line.trim_start_matches("step ").parse().unwrap();
        assert!(
            !done.contains(&n),
            "{label}: step {n} ran again after its checkpoint ({done:?})"
        );
    }
    assert_eq!(&outcome(c), baseline, "{label}");
    c.env.assert_fsck(&c.repo);
    for commit in c.env.git(&c.repo, &["rev-list", "HEAD~3..HEAD"]).lines() {
        let note = c.env.git(&c.repo, &["notes", "--ref=ultraplan", "show", commit]);
        assert!(note.contains("status: success"), "{label}: note of {commit}: {note}");
    }
    assert_eq!(
        c.env.git(&c.repo, &["for-each-ref", "refs/ultraplan/plan/lock"]),
        "",
        "{label}: lock released"
    );
}

fn baseline() -> Outcome {
    let c = case("baseline");
    let out = run_with_fault(&c, None, &["run", "plan.md"]);
    assert_eq!(out.code, 0, "{out}");
    let o = outcome(&c);
    assert_eq!(o.subjects[..3], ["step 4", "step 2", "step 1"]);
    assert!(o.status.contains("?? notes.txt"), "{}", o.status);
    assert!(o.status.contains("A  staged.txt"), "{}", o.status);
    assert!(
        !o.status.contains("A  notes.txt"),
        "the executor's `git add -A` is undone: {}",
        o.status
    );
    assert!(o
        .files
        .iter()
        .any(|(p, t)| p == Path::new("tracked.txt") && t == "committed\nuser's edit\nappended\n"));
    o
}

#[test]
fn sigkill_at_every_fault_point_then_resume_gives_the_same_result() {
    let baseline = baseline();
    let points = [
        "step-start",
        "after-snapshot",
        "after-executor",
        "after-observe",
        "after-verify",
        "after-record",
        "after-restore",
        "checkpoint-pending",
        "branch-moved",
        "index-staged",
        "note-written",
        "step-done",
    ];
    let mut crashes = 0;
    for point in points {
        for k in 1.. {
            let label = format!("{point}:{k}");
            let c = case(&label.replace(':', "-"));
            let out = run_with_fault(&c, Some(&label), &["run", "plan.md"]);
            if out.code == 0 {
                assert_eq!(outcome(&c), baseline, "{label}: never reached, so a normal run");
                break;
            }
            assert_eq!(out.code, -1, "{label}: expected SIGKILL:\n{out}");
            crashes += 1;
            assert_resumes_to(&c, &baseline, &label);
        }
    }
    assert!(crashes >= 40, "only {crashes} crashes exercised");
}

#[test]
fn a_resume_killed_again_still_finishes_the_same() {
    let baseline = baseline();
    for (first, second) in [
        ("checkpoint-pending:2", "branch-moved:1"),
        ("after-executor:3", "after-executor:1"),
        ("after-record:5", "after-restore:1"),
        ("branch-moved:3", "note-written:1"),
    ] {
        let label = format!("{first} then {second}");
        let c = case(&format!("{}-{}", first.replace(':', "-"), second.replace(':', "-")));
        assert_eq!(run_with_fault(&c, Some(first), &["run", "plan.md"]).code, -1, "{label}");
        let again = run_with_fault(&c, Some(second), &["run", "--resume", "plan.md"]);
        assert_eq!(again.code, -1, "{label}: the resume should die too:\n{again}");
        assert_resumes_to(&c, &baseline, &label);
    }
}

/// A plan of one step, `Slow`, whose Changes are `script` (lines of shell)
/// and whose Verify is `verify`, reverted on failure and committed as
/// `slow`: the plan the tests that kill or interrupt a step run.
pub(super) fn slow_plan(script: &str, verify: &str) -> String {
    let script = script.replace('\n', "\n  ");
    format!(
        "# Slow\n\n## Implementation Plan\n\n### Step 1: Slow\n\n- **Files:** `a.txt`\n- **Changes:**\n  ```sh\n  {script}\n  ```\n- **Verify:** `{verify}`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"slow\"`\n"
    )
}

/// `git ultraplan run plan.md` started on a slow plan whose step sleeps
/// `secs` seconds the first time (then writes `a.txt` at once), returned
/// once the step's command is running.
pub(super) fn spawn_slow_once(env: &TestEnv, repo: &Path, secs: u32) -> std::process::Child {
    spawn_slow_once_after(env, repo, "", secs)
}

/// [`spawn_slow_once`], the step's command first running `first` (shell
/// code ending with `;`) the first time.
pub(super) fn spawn_slow_once_after(env: &TestEnv, repo: &Path, first: &str, secs: u32) -> std::process::Child {
    let marker = env.root().join("started");
    let once = env.root().join("once");
    let body = slow_plan(
        &format!(
            "if [ ! -e {once} ]; then {first} touch {once} {marker}; sleep {secs}; fi\necho done > a.txt",
            once = once.display(),
            marker = marker.display()
        ),
        "test -f a.txt",
    );
    write(&repo.join("plan.md"), &body);
    let child = env.spawn_ultraplan(repo, &["run", "plan.md"]);
    wait_for(std::slice::from_ref(&marker));
    child
}

#[test]
fn killed_from_outside_mid_executor() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let marker = env.root().join("started");
    let once = env.root().join("once");
    // The first time, the executor writes half its work and hangs; later it finishes.
    let body = slow_plan(
        &format!(
            "echo half > a.txt\nif [ ! -e {once} ]; then (while sleep 0.2; do echo on >> orphan.txt; done) & touch {once} {marker}; sleep 30; fi\necho whole > a.txt",
            once = once.display(),
        marker = marker.display()
        ),
        "grep -q whole a.txt",
    );
    write(&repo.join("plan.md"), &body);
    let child = env.spawn_ultraplan(&repo, &["run", "plan.md"]);
    wait_for(std::slice::from_ref(&marker));
    let _ = signal(child, "-9");
    assert_eq!(read(&repo.join("a.txt")), "half\n", "the killed attempt left its half");
    let out = env
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    assert!(out.stderr.contains("took over a stale lock"), "{out}");
    // The executor's background loop outlived it; the resume stopped it.
    assert!(out.stderr.contains("process(es) it left running"), "{out}");
    // What the loop wrote while the run was dead (if it got to write) lies
    // outside the step's Files: kept in place and named, never committed.
    if out.stderr.contains("orphan.txt") {
        assert!(
            out.stderr
                .contains("kept what changed while the run was stopped: orphan.txt"),
            "{out}"
        );
    }
    assert_eq!(env.git(&repo, &["show", "--format=", "--name-only", "HEAD"]), "a.txt\n");
    let orphan = std::fs::read(repo.join("orphan.txt")).unwrap_or_default();
    std::thread::sleep(std::time::Duration::from_millis(600));
    assert_eq!(
        std::fs::read(repo.join("orphan.txt")).unwrap_or_default(),
        orphan,
        "nothing edits the worktree after the resume"
    );
    assert_eq!(env.git(&repo, &["show", "HEAD:a.txt"]), "whole\n");
    assert_eq!(env.subjects(&repo)[0], "slow");
    // Nothing lost: what the killed attempt left is kept in the run state.
    let kept = env.git(
        &repo,
        &[
            "show",
            "refs/ultraplan/plan/run:steps/0/0/0/1/attempt-1.interrupted/files/a.txt",
        ],
    );
    assert_eq!(kept, "half\n");
    env.assert_fsck(&repo);
}

/// A file holding a secret is redacted in the run state, yet restored byte
/// for byte after a crash — even once `git gc` pruned every unreachable object.
#[test]
fn a_secret_bearing_file_survives_a_crash_and_gc() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let creds = "user=me\npassword=hunter2-but-longer\n";
    write(&repo.join("creds.txt"), creds);
    let body = plans::plan(&[StepSpec::new(1, "`creds.txt`", "echo overwritten > creds.txt", "false")]);
    write(&repo.join("plan.md"), &body);
    let mut cmd = env.command(bin_dir().join("git-ultraplan"), &repo);
    cmd.args(["run", "--max-attempts", "1", "plan.md"])
        .env("ULTRAPLAN_TEST_FAULT", "after-executor");
    let killed = capture(cmd);
    assert_eq!(killed.code, -1, "{killed}");
    assert_eq!(read(&repo.join("creds.txt")), "overwritten\n");
    let _ = env.git(&repo, &["gc", "-q", "--prune=now"]);
    let out = env
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(1);
    assert!(out.stdout.contains("Result: FAILED"), "{out}");
    assert_eq!(
        read(&repo.join("creds.txt")),
        creds,
        "reverted to the user's exact bytes"
    );
    // The state only has the redacted copy.
    let snapshot = env.git(
        &repo,
        &["show", "refs/ultraplan/plan/run:steps/0/0/0/1/snapshot/files/creds.txt"],
    );
    assert_eq!(snapshot, "user=me\npassword=[REDACTED:password]\n");
    env.assert_fsck(&repo);
    // Once no state refers to the run, clean removes the raw copies.
    let secrets = repo.join(".git/ultraplan/secrets");
    assert_eq!(std::fs::read_dir(&secrets).unwrap().count(), 1);
    env.git(&repo, &["update-ref", "-d", "refs/ultraplan/plan/run"]);
    let _ = env.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    assert_eq!(std::fs::read_dir(&secrets).unwrap().count(), 0);
}

/// `log` shows an attempt a SIGKILL cut short: as `running` while the run
/// lies killed, and as `interrupted`, before the attempt the resume started
/// again (it keeps the number), after `--resume` — as the state records it
/// (`steps/…/attempt-1.interrupted`).
#[test]
fn log_shows_the_attempt_a_kill_cut_short() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let child = spawn_slow_once(&env, &repo, 30);
    let _ = signal(child, "-9");
    let mut t = Transcript::new(&env);
    t.note("killed with SIGKILL during step 1's first attempt");
    let _ = t.run(&repo, &["ultraplan", "log", "plan.md"]).expect_code(0);
    let _ = env
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    t.note("after 'run --resume'");
    let _ = t.run(&repo, &["ultraplan", "log", "plan.md"]).expect_code(0);
    assert_transcript!(t, "log_shows_the_attempt_a_kill_cut_short");
    let j = env
        .run(&repo, &["ultraplan", "log", "--json", "plan.md"])
        .expect_code(0)
        .json();
    let statuses: Vec<&str> = j["runs"][0]["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["interrupted", "success"]);
    env.assert_fsck(&repo);
}
