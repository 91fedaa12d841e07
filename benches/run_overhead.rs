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

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{copy, median, repository_of, timed, ultraplan_run};

const FILES: usize = 10_000;
const STEPS: usize = 30;
const ROUNDS: usize = 5;

fn template(root: &Path) -> PathBuf {
    let repo = root.join("template");
    repository_of(&repo, FILES);
    let mut plan = String::from("# Bench\n\n## Implementation Plan\n\n");
    for n in 1..=STEPS {
        plan.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `bench/s{n}.txt`\n- **Changes:**\n  ```sh\n  mkdir -p bench && echo {n} > bench/s{n}.txt\n  ```\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    std::fs::write(root.join("plan.md"), plan).unwrap();
    repo
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
    timed("bash", &["-c", &body], repo)
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
        ours.push(ultraplan_run(&a, &plan));
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
