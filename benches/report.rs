//! What `git ultraplan report` costs on a long run (issue 41; targets: a
//! 1,000-step run's page in under 2 s and under 2 MB).
//!
//! A plan of N trivial steps (each writes `f<N>.txt`, Verify `test -f`,
//! checkpoint `git commit`); every tenth step's Verify fails on its first
//! attempt and passes on the retry, so the run has N + N/10 attempts. The
//! run is made once by `git ultraplan run` (not measured). Then, as
//! alternating pairs from the same repository (nothing is written to it):
//!
//! * `report -o report.html` against `git log --stat --notes=ultraplan` of
//!   the same N checkpoint commits (the plain-git way to read what the run
//!   did: each commit, its files and its note);
//! * `report --format markdown` against the same `git log`.
//!
//! It prints the medians, the ratios with their range, and the sizes of
//! the page and of the Markdown (and of `git log`'s output).
//!
//! `REPORT_STEPS=100,1000` picks the sizes (default 1000); `REPORT_PAIRS`
//! the number of pairs (default 5). Run with `cargo bench --bench report`.

mod common;

use std::path::{Path, PathBuf};

use common::{env, git, machine, timed_stdout, Pairs};

fn ultraplan() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-ultraplan"))
}

fn plan(steps: usize, marks: &Path) -> String {
    let mut text = String::from("# Report scale\n\n## Implementation Plan\n\n");
    for n in 1..=steps {
        let (verify, policy) = if n % 10 == 0 {
            let m = marks.join(format!("m{n}"));
            (
                format!(
                    "sh -c 'test -f {m} || {{ touch {m}; echo not yet; exit 1; }}'",
                    m = m.display()
                ),
                "retry",
            )
        } else {
            (format!("test -f f{n}.txt"), "revert")
        };
        text.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `f{n}.txt`\n- **Changes:** write it\n  ```sh\n  echo {n} > f{n}.txt\n  ```\n- **Verify:** `{verify}`\n- **On failure:** {policy}\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    text
}

/// Runs `program args` in `dir`, measured; its stdout's length.
fn measured(program: &Path, args: &[&str], dir: &Path) -> (common::Sample, usize) {
    let (sample, stdout) = timed_stdout(program, args, dir);
    (sample, stdout.len())
}

fn main() {
    for (k, v) in env() {
        std::env::set_var(k, v);
    }
    let sizes: Vec<usize> = std::env::var("REPORT_STEPS")
        .unwrap_or_else(|_| "1000".into())
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    let pairs: usize = std::env::var("REPORT_PAIRS")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(5);
    let bin = ultraplan();
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::env::set_var("PATH", path);
    println!("report: {} ({})", machine(), bin.display());
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let git_bin = Path::new("git");
    for steps in sizes {
        let repo = root.join(format!("run-{steps}"));
        let marks = root.join(format!("marks-{steps}"));
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(&marks).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("plan.md"), plan(steps, &marks)).unwrap();
        git(&repo, &["add", "plan.md"]);
        git(&repo, &["commit", "-q", "-m", "plan"]);
        let (made, _) = measured(&bin, &["run", "-q", "plan.md"], &repo);
        println!(
            "report: {steps} steps, {} attempts, run in {:.1} s (not measured below)",
            steps + steps / 10,
            made.wall.as_secs_f64()
        );
        let page = root.join(format!("report-{steps}.html"));
        let log_args = ["log", "--stat", "--notes=ultraplan", "-n", &steps.to_string(), "main"];
        let mut html = Pairs::default();
        let mut md = Pairs::default();
        let (mut md_size, mut log_size) = (0, 0);
        for _ in 0..pairs {
            let (ours, _) = measured(&bin, &["report", "-q", "plan.md", "-o", page.to_str().unwrap()], &repo);
            let (theirs, size) = measured(git_bin, &log_args, &repo);
            log_size = size;
            html.push(ours, theirs);
            let (ours, size) = measured(&bin, &["report", "--format", "markdown", "plan.md"], &repo);
            md_size = size;
            let (theirs, _) = measured(git_bin, &log_args, &repo);
            md.push(ours, theirs);
        }
        let page_size = std::fs::metadata(&page).unwrap().len();
        println!("{}", html.report("report -o report.html", "git log --stat --notes"));
        println!("{}", md.report("report --format markdown", "git log --stat --notes"));
        println!(
            "  sizes: page {:.2} MB, Markdown {:.2} MB, git log's output {:.2} MB",
            page_size as f64 / 1e6,
            md_size as f64 / 1e6,
            log_size as f64 / 1e6
        );
        let _ = std::fs::remove_dir_all(&repo);
    }
}
