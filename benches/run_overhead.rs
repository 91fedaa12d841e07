//! Per-step overhead of `git ultraplan run` against a plain-git script doing
//! the same bookkeeping, on a repository of 10,000 files, measured in one run.
//!
//! Each of 30 steps writes one file with a shell block and verifies with
//! `true`. The script does the same work the old way, per step:
//! `sh -e -c <change>`, `sh -c true`, `git status`, `git add`, `git commit`,
//! `git notes add`, `git update-ref`. Both start from the same repository
//! (copied), and the median of the rounds is reported.
//!
//! Run with `cargo bench --bench run_overhead`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const FILES: usize = 10_000;
const STEPS: usize = 30;
const ROUNDS: usize = 5;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(env())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn env() -> Vec<(&'static str, &'static str)> {
    vec![
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_AUTHOR_NAME", "Bench"),
        ("GIT_AUTHOR_EMAIL", "bench@example.com"),
        ("GIT_COMMITTER_NAME", "Bench"),
        ("GIT_COMMITTER_EMAIL", "bench@example.com"),
    ]
}

fn template(root: &Path) -> PathBuf {
    let repo = root.join("template");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    for d in 0..FILES / 100 {
        let dir = repo.join(format!("src/d{d:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f:02}.txt")), format!("file {d} {f}\n").repeat(5)).unwrap();
        }
    }
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "10,000 files"]);
    // Let the files age past the index's timestamp so neither side pays for racy entries.
    std::thread::sleep(Duration::from_millis(1100));
    git(&repo, &["update-index", "--really-refresh", "-q"]);
    let mut plan = String::from("# Bench\n\n## Implementation Plan\n\n");
    for n in 1..=STEPS {
        plan.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `bench/s{n}.txt`\n- **Changes:**\n  ```sh\n  mkdir -p bench && echo {n} > bench/s{n}.txt\n  ```\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    std::fs::write(root.join("plan.md"), plan).unwrap();
    repo
}

fn copy(template: &Path, to: &Path) {
    let status = Command::new("cp").arg("-a").arg(template).arg(to).status().unwrap();
    assert!(status.success());
}

fn ultraplan(repo: &Path, plan: &Path) -> Duration {
    let bin = env!("CARGO_BIN_EXE_git-ultraplan");
    let start = Instant::now();
    let out = Command::new(bin)
        .args(["-q", "run"])
        .arg(plan)
        .current_dir(repo)
        .envs(env())
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    elapsed
}

fn script(repo: &Path) -> Duration {
    let mut body = String::from("set -e\n");
    for n in 1..=STEPS {
        body.push_str(&format!(
            "sh -e -c 'mkdir -p bench && echo {n} > bench/s{n}.txt'\nsh -c true\ngit status --porcelain >/dev/null\n\
             git add bench/s{n}.txt\ngit commit -q -m 'step {n}'\ngit notes --ref=ultraplan add -m 'result {n}' HEAD\n\
             git update-ref refs/ultraplan/bench/run HEAD\n"
        ));
    }
    let start = Instant::now();
    let status = Command::new("bash")
        .args(["-c", &body])
        .current_dir(repo)
        .envs(env())
        .status()
        .unwrap();
    let elapsed = start.elapsed();
    assert!(status.success());
    elapsed
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let template = template(root);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for round in 0..ROUNDS {
        let a = root.join(format!("u{round}"));
        copy(&template, &a);
        let plan = a.join("plan.md");
        std::fs::copy(root.join("plan.md"), &plan).unwrap();
        ours.push(ultraplan(&a, &plan));
        let b = root.join(format!("s{round}"));
        copy(&template, &b);
        theirs.push(script(&b));
    }
    let (u, s) = (median(ours), median(theirs));
    let per = |d: Duration| d.as_secs_f64() * 1000.0 / STEPS as f64;
    println!("run_overhead: {FILES} files, {STEPS} steps, median of {ROUNDS} rounds");
    println!(
        "  git ultraplan run : {:7.1} ms/step ({:.2} s total)",
        per(u),
        u.as_secs_f64()
    );
    println!(
        "  plain git script  : {:7.1} ms/step ({:.2} s total)",
        per(s),
        s.as_secs_f64()
    );
    println!(
        "  ratio             : {:.2}x the script's time",
        u.as_secs_f64() / s.as_secs_f64()
    );
}
