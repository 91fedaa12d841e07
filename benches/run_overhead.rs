//! Per-step overhead of `git ultraplan run` against a plain-git script doing
//! the same bookkeeping, on a repository of 10,000 files, measured in one run.
//!
//! Each of 30 steps writes one file with a shell block and verifies with
//! `true`. The script does the same work the old way, per step:
//! `sh -e -c <change>`, `sh -c true`, `git status`, `git add`, `git commit`,
//! `git notes add`, `git update-ref`. Both start from copies of the same
//! repository and run as alternating pairs (common's module docs).
//!
//! Run with `cargo bench --bench run_overhead`.

mod common;

use std::path::{Path, PathBuf};

use common::{copy, machine, repository_of, timed, ultraplan_run, Pairs, Sample};

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

fn script(repo: &Path) -> Sample {
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
    let mut pairs = Pairs::default();
    for round in 0..ROUNDS {
        let a = root.join(format!("u{round}"));
        copy(&template, &a);
        let plan = a.join("plan.md");
        std::fs::copy(root.join("plan.md"), &plan).unwrap();
        let ours = ultraplan_run(&a, &plan);
        let b = root.join(format!("s{round}"));
        copy(&template, &b);
        pairs.push(ours, script(&b));
    }
    println!(
        "run_overhead: {FILES} files, {STEPS} steps, {ROUNDS} alternating pairs; {}",
        machine()
    );
    println!("{}", pairs.report("git ultraplan run", "plain git script"));
    let per = |v: &[Sample]| common::median(v.iter().map(|s| s.wall).collect()).as_secs_f64() * 1000.0 / STEPS as f64;
    println!(
        "  per step                     {:.1} ms with ultraplan, {:.1} ms with the script",
        per(&pairs.ours),
        per(&pairs.theirs)
    );
}
