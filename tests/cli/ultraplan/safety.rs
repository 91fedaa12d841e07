//! Nothing a step does costs the user a byte (DESIGN §2 invariant 3): the
//! index, HEAD and the branch, a stash, ignored files and git's own files are
//! part of what a restore puts back; a resume keeps a person's edits; odd
//! plan names and paths never wedge a run.

use std::path::{Path, PathBuf};

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

pub(super) fn setup(env: &TestEnv, name: &str, body: &str) -> PathBuf {
    let repo = env.repo("repo");
    write(&repo.join(name), body);
    env.git(&repo, &["add", name]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    repo
}

fn two_sessions() -> String {
    let steps = [
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
    ];
    let body: String = steps.iter().map(StepSpec::render).collect();
    format!(
        "# Two\n\n## Implementation Plan\n\n{body}## Execution Strategy\n\n\
         ### Session 1: A\n- **Steps:** 1\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `a.txt`\n\n\
         ### Session 2: B\n- **Steps:** 2\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `b.txt`\n\n"
    )
}

#[test]
fn plans_named_after_windows_devices_run_and_list() {
    let env = TestEnv::new();
    let repo = setup(&env, "con.md", &two_sessions());
    let single = plan(&[StepSpec::new(1, "`x.txt`", "echo x > x.txt", "test -f x.txt")]);
    write(&repo.join("AUX.md"), &single);
    write(&repo.join("lpt1.v2.md"), &single.replace("x.txt", "y.txt"));
    env.git(&repo, &["add", "AUX.md", "lpt1.v2.md"]);
    env.git(&repo, &["commit", "-q", "-m", "more plans"]);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "con.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "AUX.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "lpt1.v2.md"]).expect_code(0);
    let refs = t
        .run(&repo, &["for-each-ref", "--format=%(refname)", "refs/ultraplan/"])
        .expect_code(0)
        .stdout;
    for r in refs.lines() {
        env.git(&repo, &["check-ref-format", r]);
    }
    let _ = t.run(&repo, &["ultraplan", "status"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "log", "AUX.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    let _ = t.run(&repo, &["log", "--oneline"]).expect_code(0);
    assert_transcript!(t, "plans_named_after_windows_devices_run_and_list");
    env.assert_fsck(&repo);
}

#[test]
fn one_unreadable_ref_does_not_hide_every_other_plan() {
    let env = TestEnv::new();
    let repo = setup(
        &env,
        "plan.md",
        &plan(&[StepSpec::new(1, "`x.txt`", "echo x > x.txt", "test -f x.txt")]),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(0);
    t.note("another tool made a reference gix refuses to list");
    let _ = t
        .run(&repo, &["update-ref", "refs/ultraplan/nul/run", "HEAD"])
        .expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "status"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "log"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "clean"]).expect_code(0);
    assert_transcript!(t, "one_unreadable_ref_does_not_hide_every_other_plan");
}

/// Writes a lock blob by hand under `refs/ultraplan/plan/lock`.
fn plant_lock(env: &TestEnv, repo: &Path, pid: u32, pid_start: Option<u64>) {
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let start = pid_start.map(|t| format!("pid_start: {t}\n")).unwrap_or_default();
    let blob_text = format!(
        "pid: {pid}\nhost: {}\nstarted_at: {now}\nheartbeat_at: {now}\n{start}command: git ultraplan run plan.md\n",
        hostname.trim()
    );
    let tmp = env.root().join("lock.txt");
    std::fs::write(&tmp, blob_text).unwrap();
    let blob = env.git(repo, &["hash-object", "-w", tmp.to_str().unwrap()]);
    env.git(repo, &["update-ref", "refs/ultraplan/plan/lock", blob.trim()]);
}

fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.split_whitespace().nth(19)?.parse().ok()
}

#[test]
fn a_lock_whose_pid_was_reused_or_just_killed_is_stale() {
    if !Path::new("/proc/self/stat").exists() {
        skip(
            "a_lock_whose_pid_was_reused_or_just_killed_is_stale",
            "no /proc to read process start times from",
        );
        return;
    }
    let env = TestEnv::new();
    let repo = setup(
        &env,
        "plan.md",
        &plan(&[StepSpec::new(1, "`x.txt`", "echo x > x.txt", "test -f x.txt")]),
    );
    // A live process holds the pid now, but it is not the one that locked.
    let mut other = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let ticks = start_ticks(other.id()).unwrap();
    plant_lock(&env, &repo, other.id(), Some(ticks + 7));
    let out = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert!(out.stderr.contains("took over a stale lock"), "{out}");
    // The same pid with its own start time is live: refused (a new run of
    // the completed plan, since resuming it has nothing to do and takes no
    // lock).
    env.git(&repo, &["update-ref", "-d", "refs/ultraplan/plan/lock"]);
    plant_lock(&env, &repo, other.id(), Some(ticks));
    let out = env
        .run(&repo, &["ultraplan", "run", "--again", "plan.md"])
        .expect_code(128);
    assert!(out.stderr.contains("another git ultraplan holds"), "{out}");
    // Killed and not yet reaped: not alive.
    other.kill().unwrap();
    let out = env.run(&repo, &["ultraplan", "run", "--again", "plan.md"]);
    assert!(out.stderr.contains("took over a stale lock"), "{out}");
    let _ = other.wait();
}

/// A user with work in every state: `f.txt` partially staged (a staged and a
/// different unstaged version), `new.txt` staged as new, `loose.txt`
/// untracked.
fn user_with_staged_work(env: &TestEnv, body: &str) -> PathBuf {
    user_with_staged_work_in(env, "repo", body)
}

/// The same in the repository `name`.
fn user_with_staged_work_in(env: &TestEnv, name: &str, body: &str) -> PathBuf {
    let repo = env.repo(name);
    write(&repo.join("f.txt"), "one\ntwo\nthree\nfour\nfive\n");
    write(&repo.join("plan.md"), body);
    env.git(&repo, &["add", "f.txt", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "base"]);
    write(&repo.join("f.txt"), "one\ntwo (staged)\nthree\nfour\nfive\n");
    write(&repo.join("new.txt"), "new and staged\n");
    env.git(&repo, &["add", "f.txt", "new.txt"]);
    write(&repo.join("f.txt"), "one (unstaged)\ntwo (staged)\nthree\nfour\nfive\n");
    write(&repo.join("loose.txt"), "untracked\n");
    repo
}

/// Everything a person could lose: staged and unstaged diffs, the staged
/// blob ids, the status, HEAD, the branch and the stash list.
fn git_view(env: &TestEnv, repo: &Path) -> String {
    [
        env.git(repo, &["diff", "--cached"]),
        env.git(repo, &["diff"]),
        env.git(repo, &["ls-files", "-s"]),
        env.git(repo, &["status", "--porcelain", "--untracked-files=all"]),
        env.git(repo, &["symbolic-ref", "-q", "HEAD"]),
        env.git(repo, &["rev-parse", "HEAD"]),
        env.git(repo, &["stash", "list"]),
        env.git(repo, &["branch", "--list"]),
    ]
    .join("\n--\n")
}

const STAGE_JUNK: &str = "echo junk > junk.txt\necho more >> f.txt\ngit add -A";

#[test]
fn a_failed_step_that_staged_leaves_the_index_exactly_as_it_was() {
    let env = TestEnv::new();
    let mut t = Transcript::new(&env);
    for policy in ["revert", "retry", "skip"] {
        let body = plan(&[StepSpec::new(1, "`junk.txt`", STAGE_JUNK, "false").policy(policy)]);
        let repo = user_with_staged_work_in(&env, policy, &body);
        let before = git_view(&env, &repo);
        t.note(&format!("On failure: {policy}; the step staged junk"));
        let out = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]);
        assert_eq!(out.code, if policy == "skip" { 0 } else { 1 }, "{policy}: {out}");
        let _ = t
            .run(&repo, &["status", "--short", "--untracked-files=all"])
            .expect_code(0);
        assert_eq!(git_view(&env, &repo), before, "{policy}: {out}");
        env.git(&repo, &["gc", "-q", "--prune=now"]);
        env.assert_fsck(&repo);
        t.note("the staged version is recorded in the run state too");
        let _ = t.run(&repo, &["rev-parse", ":f.txt"]).expect_code(0);
        let _ = t
            .run(
                &repo,
                &["rev-parse", "refs/ultraplan/plan/run:steps/0/0/0/1/index/files/f.txt"],
            )
            .expect_code(0);
    }
    assert_transcript!(t, "a_failed_step_that_staged_leaves_the_index_exactly_as_it_was");
}

#[test]
fn a_passed_step_commits_its_own_changes_and_leaves_what_the_user_staged() {
    let env = TestEnv::new();
    let script = "echo made > made.txt\necho six >> f.txt\ngit add -A";
    let body = plan(&[StepSpec::new(1, "`made.txt`, `f.txt`", script, "test -f made.txt")]);
    let repo = user_with_staged_work(&env, &body);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(0);
    t.note("the checkpoint holds HEAD's f.txt plus the step's line, and made.txt");
    let _ = t.run(&repo, &["show", "--format=%s", "--stat", "HEAD"]).expect_code(0);
    let _ = t.run(&repo, &["show", "HEAD:f.txt"]).expect_code(0);
    t.note("what the user had staged is still staged, carried onto the new HEAD; the executor's `git add -A` staged nothing that stays");
    let _ = t
        .run(&repo, &["status", "--short", "--untracked-files=all"])
        .expect_code(0);
    let _ = t.run(&repo, &["show", ":f.txt"]).expect_code(0);
    t.file(&repo.join("f.txt"));
    assert_transcript!(
        t,
        "a_passed_step_commits_its_own_changes_and_leaves_what_the_user_staged"
    );
    env.assert_fsck(&repo);
}

#[test]
fn a_failed_steps_commits_resets_branches_and_stashes_are_undone_and_kept() {
    let scripts = [
        (
            "commit",
            "echo c > c.txt\ngit add c.txt\ngit commit -q -m 'executor commit'",
        ),
        ("reset", "git reset -q --hard HEAD~1"),
        (
            "checkout-b",
            "git checkout -q -b elsewhere\necho c > c.txt\ngit add c.txt\ngit commit -q -m 'on elsewhere'",
        ),
        ("stash", "git stash push -q --include-untracked -m 'executor stash'"),
        ("detach", "git checkout -q --detach"),
    ];
    let env = TestEnv::new();
    let mut t = Transcript::new(&env);
    for (what, script) in scripts {
        let body = plan(&[StepSpec::new(1, "`c.txt`", script, "false")]);
        let repo = user_with_staged_work_in(&env, what, &body);
        // The user has a stash of their own, older than the run.
        write(&repo.join("stashed.txt"), "x\n");
        env.git(
            &repo,
            &[
                "stash",
                "push",
                "-q",
                "--include-untracked",
                "-m",
                "user stash",
                "stashed.txt",
            ],
        );
        let before = git_view(&env, &repo);
        let files = worktree_files(&repo);
        t.note(&format!("the failing step's script: {script}"));
        let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(1);
        t.note("HEAD, branch, index and stashes are back; a branch the step created stays (it is not the user's to lose); what the step pointed at stays reachable from the run state");
        let _ = t.run(&repo, &["branch", "--list"]).expect_code(0);
        let _ = t.run(&repo, &["stash", "list"]).expect_code(0);
        let _ = t
            .run(&repo, &["log", "--format=%s", "refs/ultraplan/plan/run"])
            .expect_code(0);
        assert_eq!(git_view(&env, &repo).replace("  elsewhere\n", ""), before, "{what}");
        assert_eq!(worktree_files(&repo), files, "{what}");
        env.git(&repo, &["gc", "-q", "--prune=now"]);
        env.assert_fsck(&repo);
    }
    assert_transcript!(
        t,
        "a_failed_steps_commits_resets_branches_and_stashes_are_undone_and_kept"
    );
}

/// Runs `git-ultraplan` itself (not through git) so a fault kills it visibly.
fn run_with_fault(env: &TestEnv, repo: &Path, fault: &str, args: &[&str]) -> Output {
    let mut cmd = env.command(bin_dir().join("git-ultraplan"), repo);
    cmd.args(args).env("ULTRAPLAN_TEST_FAULT", fault);
    capture(cmd)
}

#[test]
fn edits_made_while_a_killed_run_was_stopped_are_kept_on_resume() {
    let env = TestEnv::new();
    let counter = env.root().join("counter");
    // Attempt 1 fails, attempt 2 passes; the run dies right after recording attempt 1.
    let script = format!(
        "n=$(cat {c} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {c}\necho try $n > a.txt",
        c = counter.display()
    );
    let body = plan(&[StepSpec::new(1, "`a.txt`", &script, "grep -q 'try 2' a.txt")]);
    let repo = setup(&env, "plan.md", &body);
    write(&repo.join("mine.txt"), "before the run\n");
    let out = run_with_fault(&env, &repo, "after-record:1", &["run", "plan.md"]);
    assert_eq!(out.code, -1, "{out}");
    // While it was stopped, the person edits their own file and adds another.
    write(&repo.join("mine.txt"), "edited while stopped\n");
    write(&repo.join("later.txt"), "new while stopped\n");
    // The dead run's pid, as its lock names it.
    let lock = env.git(&repo, &["cat-file", "-p", "refs/ultraplan/plan/lock"]);
    let pid = lock.lines().find_map(|l| l.strip_prefix("pid: ")).unwrap().to_owned();
    let mut t = Transcript::new(&env);
    t.replace(format!("pid {pid} "), "pid <KILLED> ");
    t.replace(format!("process {pid} "), "process <KILLED> ");
    t.note("killed right after recording attempt 1; meanwhile the person edited mine.txt and wrote later.txt");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    let _ = t.run(&repo, &["show", "--format=%s", "--stat", "HEAD"]).expect_code(0);
    let _ = t.run(&repo, &["status", "--short"]).expect_code(0);
    t.file(&repo.join("mine.txt"));
    t.file(&repo.join("later.txt"));
    t.file(&repo.join("a.txt"));
    assert_transcript!(t, "edits_made_while_a_killed_run_was_stopped_are_kept_on_resume");
}

#[test]
fn edits_made_after_a_kill_mid_executor_are_kept_and_the_attempts_undone_with_a_word() {
    let env = TestEnv::new();
    let marker = env.root().join("started");
    let once = env.root().join("once");
    let script = format!(
        "echo half > a.txt\nif [ ! -e {once} ]; then touch {once} {marker}; sleep 30; fi\necho whole > a.txt",
        once = once.display(),
        marker = marker.display()
    );
    let body = plan(&[StepSpec::new(1, "`a.txt`", &script, "grep -q whole a.txt")]);
    let repo = setup(&env, "plan.md", &body);
    let child = env.spawn_ultraplan(&repo, &["run", "plan.md"]);
    let pid = child.id();
    wait_for(std::slice::from_ref(&marker));
    let _ = signal(child, "-9");
    write(&repo.join("mine.txt"), "written after the kill\n");
    let mut t = Transcript::new(&env);
    t.replace(format!("pid {pid} "), "pid <KILLED> ");
    t.replace(format!("process {pid} "), "process <KILLED> ");
    // Whether the killed run's executor is still alive when the resume
    // starts is a race the test does not control; the resume words each case
    // rightly, and the transcript shows the one without a survivor.
    t.replace("; stopped 1 process(es) it left running)", ")");
    t.replace(
        "(taken as yours, or the stopped processes the killed run left behind:",
        "(taken as yours:",
    );
    t.note("killed with SIGKILL mid-executor; then the person wrote mine.txt");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "plan.md"])
        .expect_code(0);
    let _ = t.run(&repo, &["show", "--format=%s", "--stat", "HEAD"]).expect_code(0);
    let _ = t.run(&repo, &["status", "--short"]).expect_code(0);
    t.file(&repo.join("mine.txt"));
    t.note("what the interrupted attempt left is kept in the run state");
    let _ = t
        .run(
            &repo,
            &[
                "show",
                "refs/ultraplan/plan/run:steps/0/0/0/1/attempt-1.interrupted/files/a.txt",
            ],
        )
        .expect_code(0);
    assert_transcript!(
        t,
        "edits_made_after_a_kill_mid_executor_are_kept_and_the_attempts_undone_with_a_word"
    );
}
