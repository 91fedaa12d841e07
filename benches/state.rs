//! What a run's state costs as the run grows (issue 37): a plan of N trivial
//! steps (each writes one file `f<N>.txt` at the top of the repository,
//! Verify `test -f`, checkpoint `git commit`), run by `git ultraplan run`,
//! against a plain-git script making the same commits (`echo`, `test -f`,
//! `git add`, `git commit`), as pairs: the script, then the run, each in a
//! fresh repository with `gc.auto=0` (both leave loose objects; growth is
//! `du` of `.git` after minus before).
//!
//! After the run: `export` of the plan (time and size), then `status`,
//! `status plan.md`, `log` and the start of a resume (`run --resume` of the
//! completed run, which reads the state, checks the passed steps' commits
//! and stops: nothing is left to run), each the median of 5.
//!
//! `STATE_STEPS=100,1000,10000` picks the sizes (default 100,1000);
//! `ULTRAPLAN_BIN=<dir>` measures the `git-ultraplan` in that directory
//! instead of this build (how the "before" column was measured).
//!
//! Run with `cargo bench --bench state`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{env, git, machine};

fn ultraplan() -> PathBuf {
    match std::env::var_os("ULTRAPLAN_BIN") {
        Some(dir) => PathBuf::from(dir).join("git-ultraplan"),
        None => PathBuf::from(env!("CARGO_BIN_EXE_git-ultraplan")),
    }
}

fn plan(steps: usize) -> String {
    let mut text = String::from("# Scale\n\n## Implementation Plan\n\n");
    for n in 1..=steps {
        text.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `f{n}.txt`\n- **Changes:** write it\n  ```sh\n  echo {n} > f{n}.txt\n  ```\n- **Verify:** `test -f f{n}.txt`\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    text
}

fn repository(dir: &Path, steps: usize) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "gc.auto", "0"]);
    std::fs::write(dir.join("plan.md"), plan(steps)).unwrap();
    git(dir, &["add", "plan.md"]);
    git(dir, &["commit", "-q", "-m", "plan"]);
}

fn size(dir: &Path) -> u64 {
    let out = Command::new("du")
        .args(["-sb", ".git"])
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn run(dir: &Path, program: &Path, args: &[&str]) -> (Duration, Vec<u8>) {
    let start = Instant::now();
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(env())
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (took, out.stdout)
}

fn median_of(dir: &Path, program: &Path, args: &[&str]) -> Duration {
    let mut v: Vec<Duration> = (0..5).map(|_| run(dir, program, args).0).collect();
    v.sort();
    v[2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    for (k, v) in env() {
        std::env::set_var(k, v);
    }
    let sizes: Vec<usize> = std::env::var("STATE_STEPS")
        .unwrap_or_else(|_| "100,1000".into())
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    let bin = ultraplan();
    let bin_dir = bin.parent().unwrap().to_owned();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    std::env::set_var("PATH", path);
    println!("state: {} ({})", machine(), bin.display());
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let mut first_per_step = None;
    for steps in sizes {
        // The plain-git script.
        let plain = root.join(format!("plain-{steps}"));
        repository(&plain, steps);
        let before = size(&plain);
        let mut script = String::from("set -e\n");
        for n in 1..=steps {
            script.push_str(&format!(
                "echo {n} > f{n}.txt\ntest -f f{n}.txt\ngit add f{n}.txt\ngit commit -q -m 'step {n}'\n"
            ));
        }
        let (plain_time, _) = run(&plain, Path::new("sh"), &["-c", &script]);
        let plain_growth = size(&plain) - before;
        let _ = std::fs::remove_dir_all(&plain);

        // The run.
        let repo = root.join(format!("run-{steps}"));
        repository(&repo, steps);
        let before = size(&repo);
        let (run_time, _) = run(&repo, &bin, &["run", "-q", "plan.md"]);
        let growth = size(&repo) - before;
        let per_step = run_time / steps as u32;
        let base = *first_per_step.get_or_insert(per_step);

        let file = root.join(format!("export-{steps}.yaml"));
        let (export_time, _) = run(&repo, &bin, &["export", "-q", "plan.md", "-o", file.to_str().unwrap()]);
        let export_size = std::fs::metadata(&file).unwrap().len();
        let status = median_of(&repo, &bin, &["status"]);
        let status_plan = median_of(&repo, &bin, &["status", "plan.md"]);
        let log = median_of(&repo, &bin, &["log"]);
        let resume = median_of(&repo, &bin, &["run", "-q", "--resume", "plan.md"]);
        println!("state: {steps} steps");
        println!(
            "  run {:.1} s ({} a step, {:.2}x the first size's), plain git {:.1} s ({} a step): {:.2}x",
            run_time.as_secs_f64(),
            ms(per_step),
            per_step.as_secs_f64() / base.as_secs_f64(),
            plain_time.as_secs_f64(),
            ms(plain_time / steps as u32),
            run_time.as_secs_f64() / plain_time.as_secs_f64()
        );
        println!(
            "  .git growth {:.1} MB, plain git {:.1} MB: {:.2}x",
            growth as f64 / 1e6,
            plain_growth as f64 / 1e6,
            growth as f64 / plain_growth as f64
        );
        println!(
            "  export {:.2} s, {:.2} MB",
            export_time.as_secs_f64(),
            export_size as f64 / 1e6
        );
        println!(
            "  status {}, status plan.md {}, log {}, resume's start {}",
            ms(status),
            ms(status_plan),
            ms(log),
            ms(resume)
        );
        let _ = std::fs::remove_dir_all(&repo);
    }
}
