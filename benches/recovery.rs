//! The kill-and-resume probe (issue 36, "Done when"): runs killed with
//! SIGKILL at a random moment — single (foreground) runs and parallel runs
//! of two waves — then `git ultraplan clean` once and `git ultraplan run
//! --resume`, each compared with the uninterrupted run of the same plan.
//!
//! A trial passes when the resume exits 0 and ends with the uninterrupted
//! run's HEAD commit (the same id: dates are fixed, so the same commits,
//! parents and files), working tree and `git status`, with no `.lock` file
//! under `.git`, no linked worktree, no `ultraplan/*` branch, no lock ref,
//! and `git fsck` clean. A run that finished before its kill counts too
//! (it must then be the same already).
//!
//! Two ways to kill, alternating: the run's process alone (its sessions get
//! SIGTERM from the kernel as their parent dies, and stop), or the run and
//! every process under it at once (a machine-wide kill: nothing runs its
//! handlers). The moment is drawn uniformly from the uninterrupted run's
//! duration, so kills fall in executors, verifies, checkpoints, ref and
//! index updates and merges alike.
//!
//! `BENCH_RECOVERY_TRIALS` (default 100) sets the number of trials,
//! `BENCH_RECOVERY_SEED` the random seed (default: the clock). Every failed
//! trial's repository is kept under the printed directory. Not a speed
//! measurement: run it with the dev profile,
//! `cargo bench --profile dev --bench recovery`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-ultraplan"))
}

/// The hermetic environment, with fixed identities and dates.
fn command(program: impl AsRef<std::ffi::OsStr>, dir: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(program);
    let path = format!(
        "{}:{}",
        bin().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env_clear().current_dir(dir).stdin(Stdio::null()).envs([
        ("PATH", path.as_str()),
        ("HOME", home.to_str().unwrap()),
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_AUTHOR_NAME", "Ada Author"),
        ("GIT_AUTHOR_EMAIL", "ada@example.com"),
        ("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z"),
        ("GIT_COMMITTER_NAME", "Carl Committer"),
        ("GIT_COMMITTER_EMAIL", "carl@example.com"),
        ("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z"),
        ("TZ", "UTC"),
        ("LC_ALL", "C"),
    ]);
    cmd
}

fn git(dir: &Path, home: &Path, args: &[&str]) -> (i32, String) {
    let out = command("git", dir, home).args(args).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

fn git_ok(dir: &Path, home: &Path, args: &[&str]) -> String {
    let (code, text) = git(dir, home, args);
    assert_eq!(code, 0, "git {args:?}: {text}");
    text
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Single,
    Parallel,
}

fn step(n: u32, file: &str, script: &str, verify: &str, policy: &str) -> String {
    format!(
        "### Step {n}: Step {n}\n\n- **Files:** `{file}`\n- **Changes:**\n  ```sh\n  {script}\n  ```\n- **Verify:** `{verify}`\n- **On failure:** {policy}\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
    )
}

/// A plan whose steps take a moment each; in the single plan, step 2 fails
/// its first attempt (a retry). Counters live outside the repository so
/// that a step run again after a kill counts on.
fn plan(kind: Kind, scratch: &Path) -> String {
    let counter = scratch.join("counter").display().to_string();
    match kind {
        Kind::Single => format!(
            "# Probe\n\n## Implementation Plan\n\n{}{}{}{}",
            step(1, "one.txt", "sleep 0.1; echo one > one.txt", "test -f one.txt", "revert"),
            step(
                2,
                "two.txt",
                &format!("n=$(cat {counter} 2>/dev/null || echo 0); echo $((n+1)) > {counter}; sleep 0.1; echo two > two.txt"),
                &format!("test $(cat {counter}) -ge 2"),
                "retry"
            ),
            step(3, "three.txt", "sleep 0.1; echo three > three.txt", "test -f three.txt", "revert"),
            step(4, "four.txt", "echo four > four.txt", "test -f four.txt", "revert"),
        ),
        Kind::Parallel => format!(
            "# Probe\n\n## Implementation Plan\n\n{}{}{}\
             ## Execution Strategy\n\n\
             ### Session 1: Alpha\n- **Steps:** 1\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `a.txt`\n\n\
             ### Session 2: Beta\n- **Steps:** 2\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `b.txt`\n\n\
             ### Session 3: Both\n- **Steps:** 3\n- **Wave:** 2\n- **Depends on:** Sessions 1, 2\n- **Scope fence:** Touch: `c.txt`\n\n",
            step(1, "a.txt", "sleep 0.1; echo alpha > a.txt", "test -s a.txt", "revert"),
            step(2, "b.txt", "sleep 0.1; echo beta > b.txt", "test -s b.txt", "revert"),
            step(3, "c.txt", "cat a.txt b.txt > c.txt", "grep -q beta c.txt", "revert"),
        ),
    }
}

/// A repository with the plan: committed for a parallel run (its sessions'
/// worktrees must see it), untracked for a single one (its text names this
/// trial's counter, and it is in no commit).
fn repository(root: &Path, name: &str, kind: Kind, home: &Path) -> PathBuf {
    let repo = root.join(name);
    let scratch = root.join(format!("{name}-scratch"));
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    git_ok(&repo, home, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "# probe\n").unwrap();
    std::fs::write(repo.join("plan.md"), plan(kind, &scratch)).unwrap();
    if kind == Kind::Single {
        git_ok(&repo, home, &["add", "README.md"]);
    } else {
        git_ok(&repo, home, &["add", "."]);
    }
    git_ok(&repo, home, &["commit", "-q", "-m", "initial"]);
    repo
}

/// What a run ended with, to compare.
#[derive(Debug, PartialEq, Eq)]
struct End {
    head: String,
    status: String,
    files: Vec<(String, String)>,
}

fn end(repo: &Path, home: &Path) -> End {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(repo).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == ".git" || name == "plan.md" {
            continue;
        }
        files.push((name, std::fs::read_to_string(entry.path()).unwrap_or_default()));
    }
    files.sort();
    End {
        head: git_ok(repo, home, &["rev-parse", "HEAD"]),
        status: git_ok(repo, home, &["status", "--porcelain", "--untracked-files=all"]),
        files,
    }
}

/// What is left that should not be: lock files, worktrees, branches, locks.
fn leftovers(repo: &Path, home: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![repo.join(".git")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "lock") {
                out.push(format!("lock file {}", path.display()));
            }
        }
    }
    let worktrees = git_ok(repo, home, &["worktree", "list"]);
    if worktrees.lines().count() != 1 {
        out.push(format!("worktrees: {worktrees}"));
    }
    let branches = git_ok(repo, home, &["branch", "--list", "ultraplan/*", "ultraplan-work/*"]);
    if !branches.is_empty() {
        out.push(format!("branches: {branches}"));
    }
    let locks = git_ok(repo, home, &["for-each-ref", "--format=%(refname)", "refs/ultraplan/"]);
    for lock in locks
        .lines()
        .filter(|l| l.rsplit('/').next().is_some_and(|n| n.starts_with("lock")))
    {
        out.push(format!("lock ref {lock}"));
    }
    let (code, fsck) = git(repo, home, &["fsck", "--strict", "--no-progress"]);
    if code != 0
        || fsck
            .lines()
            .any(|l| !l.starts_with("dangling") && !l.starts_with("notice"))
    {
        out.push(format!("fsck: {fsck}"));
    }
    out
}

/// Every process under `pid` (children first found through /proc).
fn descendants(pid: u32) -> Vec<u32> {
    let mut parents = vec![pid];
    let mut out = Vec::new();
    let mut changed = true;
    while changed {
        changed = false;
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(p) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            if parents.contains(&p) {
                continue;
            }
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|s| s.parse::<u32>().ok());
            if ppid.is_some_and(|pp| parents.contains(&pp)) {
                parents.push(p);
                out.push(p);
                changed = true;
            }
        }
    }
    out
}

/// xorshift64*: enough for drawing kill moments, no crate needed.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

#[derive(Default)]
struct Tally {
    trials: usize,
    killed: usize,
    passed: usize,
    failed: Vec<String>,
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let trials: usize = std::env::var("BENCH_RECOVERY_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let seed: u64 = std::env::var("BENCH_RECOVERY_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    let root = std::env::temp_dir().join(format!("ultraplan-recovery-probe-{seed}"));
    let _ = std::fs::remove_dir_all(&root);
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    println!(
        "kill-and-resume probe: {trials} trials, seed {seed}, under {}",
        root.display()
    );
    let mut random = Random(seed | 1);
    let mut baselines = Vec::new();
    for kind in [Kind::Single, Kind::Parallel] {
        // The quickest of three: kills are drawn within it, so that nearly
        // every trial is killed before it ends.
        let mut took = Duration::MAX;
        let mut ended = None;
        for i in 0..3 {
            let repo = repository(&root, &format!("baseline-{kind:?}-{i}"), kind, &home);
            let start = Instant::now();
            let out = command(bin(), &repo, &home).args(["run", "plan.md"]).output().unwrap();
            took = took.min(start.elapsed());
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let this = end(&repo, &home);
            assert!(
                ended.as_ref().is_none_or(|e| *e == this),
                "the uninterrupted runs differ"
            );
            ended = Some(this);
        }
        println!("uninterrupted {kind:?} run: {took:.2?}");
        baselines.push((kind, ended.unwrap(), took));
    }
    let mut tallies = [
        (Kind::Single, "process", Tally::default()),
        (Kind::Single, "tree", Tally::default()),
        (Kind::Parallel, "process", Tally::default()),
        (Kind::Parallel, "tree", Tally::default()),
    ];
    for trial in 0..trials {
        let (kind, expected, took) = &baselines[trial % 2];
        let whole_tree = (trial / 2) % 2 == 1;
        let name = format!("trial-{trial}");
        let repo = repository(&root, &name, *kind, &home);
        let delay = Duration::from_micros(random.below(took.as_micros() as u64 * 9 / 10));
        let mut child = command(bin(), &repo, &home)
            .args(["run", "plan.md"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let finished = child.try_wait().unwrap().is_some();
        if !finished {
            let mut victims = vec![child.id()];
            if whole_tree {
                victims.extend(descendants(child.id()));
            }
            for pid in &victims {
                let _ = Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .stderr(Stdio::null())
                    .status();
            }
        }
        let _ = child.wait();
        let (clean_code, clean) = git(&repo, &home, &["ultraplan", "clean"]);
        let (code, resumed) = git(&repo, &home, &["ultraplan", "run", "--resume", "plan.md"]);
        let mut problems = Vec::new();
        if code != 0 {
            problems.push(format!("resume exit {code}: {resumed}"));
        }
        if clean_code != 0 {
            problems.push(format!("clean exit {clean_code}: {clean}"));
        }
        let got = end(&repo, &home);
        if &got != expected {
            problems.push(format!("ended differently: {got:?}\nexpected {expected:?}"));
        }
        problems.extend(leftovers(&repo, &home));
        let tally = &mut tallies
            .iter_mut()
            .find(|(k, how, _)| k == kind && *how == if whole_tree { "tree" } else { "process" })
            .unwrap()
            .2;
        tally.trials += 1;
        tally.killed += usize::from(!finished);
        if problems.is_empty() {
            tally.passed += 1;
            let _ = std::fs::remove_dir_all(&repo);
            let _ = std::fs::remove_dir_all(root.join(format!("{name}-scratch")));
        } else {
            let text = format!(
                "trial {trial} ({kind:?}, kill {}, after {delay:.2?}): {}\n  clean: {}",
                if whole_tree { "tree" } else { "process" },
                problems.join("\n  "),
                clean.trim()
            );
            println!("FAILED {text}");
            tally.failed.push(text);
        }
    }
    println!("\n| runs | kill | trials | killed | identical | failed |");
    println!("|---|---|---|---|---|---|");
    let mut failed = 0;
    for (kind, how, t) in &tallies {
        println!(
            "| {kind:?} | {how} | {} | {} | {} | {} |",
            t.trials,
            t.killed,
            t.passed,
            t.failed.len()
        );
        failed += t.failed.len();
    }
    if failed == 0 {
        let _ = std::fs::remove_dir_all(&root);
    } else {
        println!("failed trials kept under {}", root.display());
        std::process::exit(1);
    }
}
