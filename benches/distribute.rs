//! Sessions on other clones (DESIGN §18) against the same plan on one
//! machine: a plan of 6 sessions in 2 waves (4 + 2) whose steps each sleep
//! 2 s, run with `run --jobs 1` here, and with `run --distribute` and 1, 2
//! and 3 workers in other clones of a bare remote. Reported: wall time, the
//! speed-up over `--jobs 1`, and the coordination overhead per session —
//! what a distributed run with one worker costs beyond `--jobs 1`, divided
//! by the sessions (claim, publish, fetch, merge).
//!
//! Run with `cargo bench --bench distribute`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{env, git};

const SESSIONS: u32 = 6;
const SLEEP: &str = "2";

fn plan() -> String {
    let mut body = String::from("# Spread\n\n## Implementation Plan\n\n");
    for n in 1..=SESSIONS {
        body.push_str(&format!(
            "### Step {n}: Part {n}\n\n- **Files:** `part{n}.txt`\n- **Changes:** do it\n  ```sh\n  sleep {SLEEP}\n  echo {n} > part{n}.txt\n  ```\n- **Verify:** `test -f part{n}.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"part {n}\"`\n\n"
        ));
    }
    body.push_str("## Execution Strategy\n\n");
    for n in 1..=SESSIONS {
        let (wave, deps) = if n <= 4 {
            (1, "none".to_owned())
        } else {
            (2, "Sessions 1, 2, 3, 4".to_owned())
        };
        body.push_str(&format!(
            "### Session {n}: Part {n}\n- **Steps:** {n}\n- **Wave:** {wave}\n- **Depends on:** {deps}\n- **Scope fence:** Touch: `part{n}.txt`\n\n"
        ));
    }
    body
}

fn program() -> &'static str {
    env!("CARGO_BIN_EXE_git-ultraplan")
}

fn ultraplan(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(program());
    command
        .args(args)
        .current_dir(dir)
        .envs(env())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// A bare remote and `workers + 1` clones; the first holds the plan.
fn cluster(root: &Path, workers: usize) -> (PathBuf, Vec<PathBuf>) {
    let seed = root.join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    git(&seed, &["init", "-q", "-b", "main"]);
    std::fs::write(seed.join("README.md"), "# bench\n").unwrap();
    git(&seed, &["add", "README.md"]);
    git(&seed, &["commit", "-q", "-m", "initial"]);
    git(root, &["clone", "-q", "--bare", "seed", "remote.git"]);
    let clones: Vec<PathBuf> = (0..=workers)
        .map(|i| {
            let name = format!("clone{i}");
            git(root, &["clone", "-q", "remote.git", &name]);
            let clone = root.join(&name);
            git(&clone, &["config", "ultraplan.pollInterval", "250ms"]);
            clone
        })
        .collect();
    std::fs::write(clones[0].join("plan.md"), plan()).unwrap();
    (root.join("remote.git"), clones)
}

fn local(root: &Path) -> Duration {
    let (_, clones) = cluster(root, 0);
    let start = Instant::now();
    assert!(ultraplan(&clones[0], &["run", "--jobs", "1", "plan.md"])
        .status()
        .unwrap()
        .success());
    start.elapsed()
}

fn distributed(root: &Path, workers: usize) -> Duration {
    let (remote, clones) = cluster(root, workers);
    let start = Instant::now();
    let mut orchestrator = ultraplan(&clones[0], &["run", "--distribute", "plan.md"])
        .spawn()
        .unwrap();
    // Workers start once the work is published, as CI jobs would.
    while !Command::new("git")
        .args([
            "--git-dir",
            remote.to_str().unwrap(),
            "rev-parse",
            "-q",
            "--verify",
            "refs/ultraplan/plan/work",
        ])
        .envs(env())
        .stdout(Stdio::null())
        .status()
        .unwrap()
        .success()
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut running: Vec<_> = clones[1..]
        .iter()
        .map(|c| ultraplan(c, &["work"]).spawn().unwrap())
        .collect();
    assert!(orchestrator.wait().unwrap().success());
    let elapsed = start.elapsed();
    for worker in &mut running {
        assert!(worker.wait().unwrap().success());
    }
    elapsed
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let base = local(&root.join("local"));
    println!(
        "distribute: {SESSIONS} sessions in 2 waves, steps of {SLEEP} s: run --jobs 1 here {:.1} s",
        base.as_secs_f64()
    );
    let mut one = Duration::ZERO;
    for workers in 1..=3 {
        let wall = distributed(&root.join(format!("w{workers}")), workers);
        if workers == 1 {
            one = wall;
        }
        println!(
            "distribute: {workers} worker(s) in other clones: {:.1} s, speed-up {:.2}× over --jobs 1",
            wall.as_secs_f64(),
            base.as_secs_f64() / wall.as_secs_f64()
        );
    }
    println!(
        "distribute: coordination overhead per session (1 worker against --jobs 1): {:.0} ms, {:.1}% of the whole run",
        (one.as_secs_f64() - base.as_secs_f64()) * 1000.0 / f64::from(SESSIONS),
        (one.as_secs_f64() - base.as_secs_f64()) / base.as_secs_f64() * 100.0
    );
}
