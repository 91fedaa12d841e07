//! What a run's state costs as the run grows (issue 37): a plan of N trivial
//! steps (step N writes the one-line file `d<N/100>/f<N>.txt`, Verify
//! `test -f`, checkpoint `git commit`), run by `git ultraplan run`, against
//! a plain-git script making the same commits (`mkdir -p`, `echo`,
//! `test -f`, `git add`, `git commit`), in alternating pairs: the script,
//! then the run, each in a fresh repository with `gc.auto=0` (both leave
//! loose objects; growth is `du -sb` of `.git` after minus before). The
//! files go 100 to a folder so that the user's own commits cost the same at
//! step 9,999 as at step 9 (with every file at the top, each commit writes a
//! root tree listing all of them, and plain git itself grows with the
//! square); what is left to grow is the state. `STATE_FLAT=1` puts them at
//! the top, as the issue's first measurement did. The growth is given
//! loose and once packed (`git repack -ad` of both repositories).
//!
//! After the run: `export` of the plan (time and size), then `status`,
//! `status plan.md`, `log`, a resume of the completed run (it reads
//! `run.json`, finds nothing to run and writes nothing) and a resume with
//! one step left (a failing step added to the plan: the resume reads the
//! state, checks the passed steps' commits, runs the step and ends the
//! run; and how long until that step's command ran: the resume's start),
//! each the median of 5; then again once the repository is packed.
//! The growth is also given against the plain-git script adding a note of
//! a record's size to each commit (`git notes add`), as the run does.
//!
//! `STATE_STEPS=100,1000,10000` picks the sizes (default 100,1000),
//! `STATE_PAIRS=3,2,1` the pairs at each (default 3 at 100 steps, 2 at
//! 1,000, 1 above); the repositories are made under `STATE_DIR` (default
//! `/dev/shm` where it exists: a 10,000-step pair leaves over a million
//! loose objects' worth of small files). `ULTRAPLAN_BIN=<dir>` measures the
//! `git-ultraplan` in that directory instead of this build; `STATE_KEEP=1`
//! keeps each size's run repository (its path is printed), and
//! `STATE_READERS=<that path>` measures the readers alone in it again.
//!
//! Run with `cargo bench --bench state`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{env, git, machine, median, sampled_run, timed_stdout, Pairs, Sample};

fn ultraplan() -> PathBuf {
    match std::env::var_os("ULTRAPLAN_BIN") {
        Some(dir) => PathBuf::from(dir).join("git-ultraplan"),
        None => PathBuf::from(env!("CARGO_BIN_EXE_git-ultraplan")),
    }
}

/// Step `n`'s file: 100 to a folder, or at the top with `STATE_FLAT=1`
/// (the layout of the issue's first measurement).
fn file(n: usize) -> String {
    match std::env::var_os("STATE_FLAT") {
        Some(_) => format!("f{n}.txt"),
        None => format!("d{}/f{n}.txt", n / 100),
    }
}

fn plan(steps: usize) -> String {
    let mut text = String::from("# Scale\n\n## Implementation Plan\n\n");
    for n in 1..=steps {
        let (dir, f) = (n / 100, file(n));
        text.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `{f}`\n- **Changes:** write it\n  ```sh\n  mkdir -p d{dir} && echo {n} > {f}\n  ```\n- **Verify:** `test -f {f}`\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
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

/// The median wall and CPU time of 5 runs.
fn median_of(dir: &Path, program: &Path, args: &[&str]) -> String {
    let samples: Vec<Sample> = (0..5).map(|_| timed_stdout(program, args, dir).0).collect();
    let wall = median(samples.iter().map(|s| s.wall).collect());
    let cpu = median(samples.iter().map(|s| s.cpu).collect());
    format!("{} (cpu {})", ms(wall), ms(cpu))
}

/// `status`, `status plan.md`, `log`, a resume of the completed run (it
/// reads `run.json`, finds nothing to do and writes nothing) and a resume
/// with one step left, each the median of 5.
fn readers(repo: &Path, bin: &Path) {
    println!("  status {}", median_of(repo, bin, &["status"]));
    println!("  status plan.md {}", median_of(repo, bin, &["status", "plan.md"]));
    println!("  log {}", median_of(repo, bin, &["log"]));
    println!(
        "  resume of the completed run {}",
        median_of(repo, bin, &["run", "-q", "--resume", "plan.md"])
    );
    println!("  resume with one step left {}", one_step_left(repo, bin));
}

/// A resume that has one step to run: a step added to the plan (not
/// committed) whose Verify fails, so each of 5 resumes reads the state,
/// checks the passed steps' checkpoints, runs the step, records its
/// failure and ends the run; the plan and the state's ref are put back
/// afterwards. Also the resume's start: from launching it to its step's
/// command running (the median of the five first attempts).
fn one_step_left(repo: &Path, bin: &Path) -> String {
    let plan = repo.join("plan.md");
    let text = std::fs::read_to_string(&plan).unwrap();
    let steps = text.matches("\n### Step ").count();
    // The step's command notes when it ran (outside the repository): the
    // resume's start is the time from launching it to then.
    let started = repo.with_extension("started");
    let extra = format!(
        "### Step {n}: One more\n\n- **Files:** `extra.txt`\n- **Changes:** write it\n  ```sh\n  date +%s%N >> {started} && echo more > extra.txt\n  ```\n- **Verify:** `false`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"step {n}\"`\n",
        n = steps + 1,
        started = started.display()
    );
    let state = Command::new("git")
        .args(["rev-parse", "refs/ultraplan/plan/run"])
        .current_dir(repo)
        .output()
        .unwrap();
    let state = String::from_utf8_lossy(&state.stdout).trim().to_owned();
    std::fs::write(&plan, format!("{text}{extra}")).unwrap();
    let mut starts = Vec::new();
    let samples: Vec<Sample> = (0..5)
        .map(|_| {
            let launched = std::time::SystemTime::now();
            let (sample, out) = sampled_run(bin, &["run", "-q", "--resume", "plan.md"], repo);
            assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
            // The first attempt's time (a revert policy retries).
            let text = std::fs::read_to_string(&started).unwrap();
            let ran: u128 = text.lines().next().unwrap().parse().unwrap();
            std::fs::remove_file(&started).unwrap();
            let launched = launched.duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
            starts.push(Duration::from_nanos(ran.saturating_sub(launched) as u64));
            sample
        })
        .collect();
    // The state as the completed run left it, for the readers after.
    std::fs::write(&plan, text).unwrap();
    git(repo, &["update-ref", "refs/ultraplan/plan/run", &state]);
    let wall = median(samples.iter().map(|s| s.wall).collect());
    let cpu = median(samples.iter().map(|s| s.cpu).collect());
    format!(
        "{} (cpu {}); its step started after {}",
        ms(wall),
        ms(cpu),
        ms(median(starts))
    )
}

/// The plain-git script again, adding after each commit a note of the
/// size of a step's result record (`git notes --ref=ultraplan add -F`), as
/// the run does: the growth loose and packed. A note costs plain git too:
/// each rewrites the notes tree's top level (256 entries once there are a
/// few hundred notes).
fn plain_with_notes(root: &Path, steps: usize) -> (u64, u64) {
    let plain = root.join(format!("noted-{steps}"));
    repository(&plain, steps);
    let before = size(&plain);
    let record = root.join("record.yaml");
    let mut text = String::new();
    while text.len() < 440 {
        text.push_str("status: success\nvalidation: passed\nduration_ms: 12\nsummary: the step wrote its file\n");
    }
    std::fs::write(&record, text).unwrap();
    let mut script = String::from("set -e\n");
    for n in 1..=steps {
        let f = file(n);
        script.push_str(&format!(
            "mkdir -p d{}\necho {n} > {f}\ntest -f {f}\ngit add {f}\ngit commit -q -m 'step {n}'\n(cat {r}; echo step: {n}) | git notes --ref=ultraplan add -F - HEAD\n",
            n / 100,
            r = record.display()
        ));
    }
    let script_file = root.join("noted.sh");
    std::fs::write(&script_file, script).unwrap();
    timed_stdout("sh", &[script_file.to_str().unwrap()], &plain);
    let loose = size(&plain) - before;
    git(&plain, &["repack", "-adq"]);
    let packed = size(&plain) - before;
    let _ = std::fs::remove_dir_all(&plain);
    (loose, packed)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn per_step(d: Duration, steps: usize) -> Duration {
    d / steps as u32
}

fn main() {
    for (k, v) in env() {
        std::env::set_var(k, v);
    }
    let list = |name: &str, default: &str| -> Vec<usize> {
        std::env::var(name)
            .unwrap_or_else(|_| default.into())
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.trim().parse().unwrap())
            .collect()
    };
    let sizes = list("STATE_STEPS", "100,1000");
    let pairs = list("STATE_PAIRS", "");
    let bin = ultraplan();
    let bin_dir = bin.parent().unwrap().to_owned();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    std::env::set_var("PATH", path);
    let place =
        std::env::var_os("STATE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| match Path::new("/dev/shm").is_dir() {
                true => PathBuf::from("/dev/shm"),
                false => std::env::temp_dir(),
            });
    if let Some(repo) = std::env::var_os("STATE_READERS") {
        // The readers alone, again, in a repository STATE_KEEP kept.
        println!(
            "state: {} ({}), readers of {}",
            machine(),
            bin.display(),
            Path::new(&repo).display()
        );
        readers(Path::new(&repo), &bin);
        return;
    }
    println!(
        "state: {} ({}), repositories in {}",
        machine(),
        bin.display(),
        place.display()
    );
    // STATE_KEEP=1 keeps the runs' repositories (to measure the readers again).
    let keep = std::env::var_os("STATE_KEEP").is_some();
    let tmp = tempfile::tempdir_in(&place).unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let mut first: Option<(Duration, Duration, Duration, Duration)> = None;
    for (i, steps) in sizes.into_iter().enumerate() {
        let count = pairs.get(i).copied().unwrap_or(match steps {
            0..=100 => 3,
            101..=1000 => 2,
            _ => 1,
        });
        let mut measured = Pairs::default();
        let (mut growth, mut plain_growth, mut plain_packed) = (0, 0, 0);
        let (mut noted_growth, mut noted_packed) = (0, 0);
        let mut packed_before = None;
        let repo = root.join(format!("run-{steps}"));
        for p in 0..count {
            // The plain-git script.
            let plain = root.join(format!("plain-{steps}"));
            repository(&plain, steps);
            let before = size(&plain);
            let mut script = String::from("set -e\n");
            for n in 1..=steps {
                let f = file(n);
                script.push_str(&format!(
                    "mkdir -p d{}\necho {n} > {f}\ntest -f {f}\ngit add {f}\ngit commit -q -m 'step {n}'\n",
                    n / 100
                ));
            }
            let script_file = root.join("plain.sh");
            std::fs::write(&script_file, script).unwrap();
            let (theirs, _) = timed_stdout("sh", &[script_file.to_str().unwrap()], &plain);
            plain_growth = size(&plain) - before;
            git(&plain, &["repack", "-adq"]);
            plain_packed = size(&plain) - before;
            let _ = std::fs::remove_dir_all(&plain);
            if p + 1 == count {
                (noted_growth, noted_packed) = plain_with_notes(&root, steps);
            }

            // The run.
            let _ = std::fs::remove_dir_all(&repo);
            repository(&repo, steps);
            let before = size(&repo);
            let (ours, _) = timed_stdout(&bin, &["run", "-q", "plan.md"], &repo);
            growth = size(&repo) - before;
            measured.push(ours, theirs);
            if p + 1 == count {
                // What the state costs once git packs it (as `git gc` does
                // in a repository kept for years), after the readers ran.
                packed_before = Some(before);
            }
            println!(
                "  pair {}: run {:.1} s (cpu {:.1} s), plain git {:.1} s (cpu {:.1} s)",
                p + 1,
                ours.wall.as_secs_f64(),
                ours.cpu.as_secs_f64(),
                theirs.wall.as_secs_f64(),
                theirs.cpu.as_secs_f64()
            );
        }
        let med = |v: &[Sample], of: fn(&Sample) -> Duration| median(v.iter().map(of).collect());
        let (wall, cpu) = (med(&measured.ours, |s| s.wall), med(&measured.ours, |s| s.cpu));
        let (pwall, pcpu) = (med(&measured.theirs, |s| s.wall), med(&measured.theirs, |s| s.cpu));
        let step = (
            per_step(wall, steps),
            per_step(cpu, steps),
            per_step(pwall, steps),
            per_step(pcpu, steps),
        );
        let base = *first.get_or_insert(step);
        let rel = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();

        let out = root.join(format!("export-{steps}.yaml"));
        let (export, _) = timed_stdout(&bin, &["export", "-q", "plan.md", "-o", out.to_str().unwrap()], &repo);
        let export_size = std::fs::metadata(&out).unwrap().len();
        let _ = std::fs::remove_file(&out);
        println!("state: {steps} steps, {count} pair(s)");
        println!(
            "  a step: run {} (cpu {}), plain git {} (cpu {}); {:.2}x the first size's per step (cpu {:.2}x), plain git {:.2}x (cpu {:.2}x)",
            ms(step.0),
            ms(step.1),
            ms(step.2),
            ms(step.3),
            rel(step.0, base.0),
            rel(step.1, base.1),
            rel(step.2, base.2),
            rel(step.3, base.3),
        );
        // The run makes the same commits as the script (its checkpoint
        // stages and commits through an index that grows by a file a
        // step, as `git add` and `git commit` do): what the state adds to
        // a step is the CPU beyond the script's.
        let own = (step.1.saturating_sub(step.3), base.1.saturating_sub(base.3));
        println!(
            "  the run's own cpu beyond plain git's: {} a step, {:.2}x the first size's",
            ms(own.0),
            rel(own.0, own.1)
        );
        println!("{}", measured.report("run", "plain git"));
        println!(
            "  .git growth {:.1} MB, plain git {:.1} MB: {:.2}x; plain git with a note a commit {:.1} MB: {:.2}x",
            growth as f64 / 1e6,
            plain_growth as f64 / 1e6,
            growth as f64 / plain_growth as f64,
            noted_growth as f64 / 1e6,
            growth as f64 / noted_growth as f64
        );
        println!(
            "  export {:.2} s (cpu {:.2} s), {:.2} MB",
            export.wall.as_secs_f64(),
            export.cpu.as_secs_f64(),
            export_size as f64 / 1e6
        );
        readers(&repo, &bin);
        if let Some(before) = packed_before {
            git(&repo, &["repack", "-adq"]);
            let packed = size(&repo) - before;
            println!(
                "  .git growth once packed (git repack -ad) {:.1} MB, plain git {:.1} MB: {:.2}x; with notes {:.1} MB: {:.2}x",
                packed as f64 / 1e6,
                plain_packed as f64 / 1e6,
                packed as f64 / plain_packed as f64,
                noted_packed as f64 / 1e6,
                packed as f64 / noted_packed as f64
            );
            println!("  readers once packed:");
            readers(&repo, &bin);
        }
        if keep {
            println!("  kept: {}", repo.display());
        } else {
            let _ = std::fs::remove_dir_all(&repo);
        }
    }
    if keep {
        let _ = tmp.keep();
    }
}
