//! `git ultraplan check` on big and hostile plans: the cost must grow
//! linearly with the plan (issue 9, items 12 and 13). Three inputs:
//!
//! * an ultraplan of 1,000 and 10,000 trivial steps, the plan of
//!   `benches/state.rs` (2.2 MB at 10,000): what reading and parsing a
//!   plan costs a resume (issue 37); besides `check`, the parse alone
//!   (`plan::parse` in this process, the median of 9);
//! * a GSD plan of 400, 4,000 and 40,000 tasks (1x, 10x, 100x; 12.8 MiB at
//!   40,000, under the 16 MiB a plan may be), each task
//!   with problems and warnings, so line numbers and the Issues column are
//!   computed for every one (they were quadratic: 4,000 tasks took 74 s);
//! * front matter nested 20, 200 and 2,000 KiB deep, which the bounded YAML
//!   reader refuses at 64 levels (serde_yaml's own cost is quadratic in the
//!   depth).
//!
//! The plain-git side reads the same file into the object database
//! (`git hash-object`), the least work any tool that reads the plan does. Per
//! size: ours and theirs in alternating pairs, the median ratio with its
//! range, and the growth of our median per 10x of input (linear is 10x).
//! These timings replaced the bounds that `tests/cli/ultraplan/bad_input.rs` asserted.
//!
//! Run with `cargo bench --bench check`.

mod common;

use std::path::Path;

use common::{git, machine, median, report_alone, sampled, sampled_run, Pairs, Sample};

const PAIRS: usize = 5;

fn task(i: usize) -> String {
    format!(
        "<task type=\"auto\">\n  <name>Build page {i}</name>\n  <files>src/a{i}.ts, src/b.ts</files>\n  <read_first>src/x.ts</read_first>\n  <action>Create src/a{i}.ts.</action>\n  <verify>README contains the section; user can follow it</verify>\n  <acceptance_criteria>\n    - src/a{i}.ts contains 'x'\n    - it works\n  </acceptance_criteria>\n</task>\n"
    )
}

fn gsd_plan(tasks: usize) -> String {
    let body: String = (0..tasks).map(task).collect();
    format!("---\nphase: 01-x\nplan: 01\n---\n<objective>\nBig.\n</objective>\n<tasks>\n{body}</tasks>\n")
}

/// `benches/state.rs`'s plan: step N writes `d<N/100>/f<N>.txt`, Verify
/// `test -f`, a Files list and a checkpoint.
fn trivial_plan(steps: usize) -> String {
    let mut text = String::from("# Scale\n\n## Implementation Plan\n\n");
    for n in 1..=steps {
        let (dir, f) = (n / 100, format!("d{}/f{n}.txt", n / 100));
        text.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `{f}`\n- **Changes:** write it\n  ```sh\n  mkdir -p d{dir} && echo {n} > {f}\n  ```\n- **Verify:** `test -f {f}`\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    text
}

fn nested_plan(kib: usize) -> String {
    let deep = "[".repeat(kib * 1024);
    format!("---\nphase: {deep}\n---\n<task type=\"auto\">\n<name>Task 1: A</name>\n<verify>true</verify>\n</task>\n")
}

/// Runs `program args` in `dir`; `expected` is the exit code it must end with.
fn timed(program: &str, args: &[&str], dir: &Path, expected: i32) -> Sample {
    let (sample, out) = sampled_run(program, args, dir);
    assert_eq!(
        out.status.code(),
        Some(expected),
        "{program} {args:?}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    sample
}

fn measure(repo: &Path, name: &str, text: &str, check: &[&str], code: i32) -> Pairs {
    std::fs::write(repo.join(name), text).unwrap();
    let ours = env!("CARGO_BIN_EXE_git-ultraplan");
    let mut args: Vec<&str> = check.to_vec();
    args.push(name);
    // One unmeasured run of each, so no side pays for a cold cache.
    timed(ours, &args, repo, code);
    timed("git", &["hash-object", name], repo, 0);
    let mut pairs = Pairs::default();
    for _ in 0..PAIRS {
        let o = timed(ours, &args, repo, code);
        let t = timed("git", &["hash-object", name], repo, 0);
        pairs.push(o, t);
    }
    pairs
}

fn series(repo: &Path, title: &str, sizes: &[(usize, String)], check: &[&str], code: i32, unit: &str) {
    println!("{title}:");
    let mut previous: Option<f64> = None;
    for (size, text) in sizes {
        let pairs = measure(repo, "plan.md", text, check, code);
        println!(
            "{}",
            pairs.report(
                &format!("check, {size} {unit}"),
                &format!("git hash-object ({} KiB)", text.len() / 1024)
            )
        );
        let cpu = median(pairs.ours.iter().map(|s| s.cpu).collect()).as_secs_f64();
        if let Some(before) = previous {
            println!(
                "               growth over the size before (10x input): cpu {:.1}x",
                cpu / before.max(1e-9)
            );
        }
        previous = Some(cpu);
    }
}

fn main() {
    println!("check: {}", machine());
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let trivial: Vec<(usize, String)> = [1_000, 10_000].iter().map(|&n| (n, trivial_plan(n))).collect();
    series(
        &repo,
        "an ultraplan of trivial steps (benches/state.rs's plan)",
        &trivial,
        &["check"],
        0,
        "steps",
    );
    for (steps, text) in &trivial {
        let samples: Vec<Sample> = (0..9)
            .map(|_| sampled(|| ultraplan::ultraplan::plan::parse(text, "plan.md").unwrap()).0)
            .collect();
        println!("{}", report_alone(&format!("the parse alone, {steps} steps"), &samples));
    }
    let plans: Vec<(usize, String)> = [400, 4_000, 40_000].iter().map(|&n| (n, gsd_plan(n))).collect();
    series(
        &repo,
        "a GSD plan, every task with problems and warnings",
        &plans,
        &["check", "--executor", "claude"],
        0,
        "tasks",
    );
    let nested: Vec<(usize, String)> = [20, 200, 2_000].iter().map(|&k| (k, nested_plan(k))).collect();
    series(
        &repo,
        "front matter nested deep, refused at 64 levels",
        &nested,
        &["check"],
        1,
        "KiB deep",
    );
}
