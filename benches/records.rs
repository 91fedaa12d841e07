//! The record (issue 13, item 6): `stats` over 1,000 runs of a 10-step plan,
//! and moving that history between repositories with `export --all` and
//! `import`, against `git bundle create` and `git bundle unbundle` (plus the
//! `update-ref` a bundle needs) of the same references, as ratios.
//!
//! The history is real: two runs of a 10-step plan by the real binary, then
//! the second run's 32 state commits copied 999 times by `git fast-import`
//! with only the run id changed (its timestamps stay), each copy continuing
//! the chain where the last ended, as 1,000 consecutive runs would leave it.
//!
//! `stats` is measured cold (no digests: every commit of every run read)
//! and as it runs every later time (the digests of the runs read before).
//!
//! Run with `cargo bench --bench records` (`RECORDS_TEMPLATE=<dir>` keeps
//! the built history there and reuses it on the next run).

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{copy, env, git, machine, sampled, timed, Pairs, Sample};

const RUNS: usize = 1000;
const STEPS: usize = 10;
const ROUNDS: usize = 7;
/// Rounds of moving the history (each import is seconds).
const MOVES: usize = 5;
const STATE: &str = "refs/ultraplan/plan/run";

fn ultraplan() -> &'static str {
    env!("CARGO_BIN_EXE_git-ultraplan")
}

fn output(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(env())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn plan() -> String {
    let mut text = String::from("# Bench plan\n\n## Implementation Plan\n\n");
    for n in 1..=STEPS {
        text.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `f{n}.txt`\n- **Changes:** do it\n  ```sh\n  echo {n} >> f{n}.txt\n  ```\n- **Verify:** `test -f f{n}.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    text
}

/// The run id a state commit's subject names (`run <id>: started …`).
fn run_id(subject: &str) -> &str {
    subject
        .strip_prefix("run ")
        .and_then(|r| r.split(':').next())
        .unwrap_or("")
}

fn is_run_start(subject: &str) -> bool {
    subject.starts_with("run ") && subject.contains(": started")
}

/// A repository whose state chain holds RUNS runs of the plan.
fn history(repo: &Path) {
    std::fs::create_dir_all(repo).unwrap();
    git(repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("plan.md"), plan()).unwrap();
    git(repo, &["add", "plan.md"]);
    git(repo, &["commit", "-q", "-m", "plan"]);
    for _ in 0..2 {
        output(repo, ultraplan(), &["run", "-q", "plan.md"]);
    }
    // The second run's commits, oldest first.
    let log = output(repo, "git", &["log", "--reverse", "--format=%H %s", STATE]);
    let commits: Vec<(&str, &str)> = log.lines().filter_map(|l| l.split_once(' ')).collect();
    let second = commits.iter().rposition(|(_, s)| is_run_start(s)).unwrap();
    let template = &commits[second..];
    let id = run_id(template[0].1).to_owned();
    // The first copy, its changes read from the template commit by commit.
    let first_id = format!("{id}-0001");
    let mut first = String::new();
    for (i, (commit, subject)) in template.iter().enumerate() {
        let parent = format!("{commit}^");
        let changes = output(repo, "git", &["diff-tree", "-r", "--no-renames", &parent, commit]);
        let from = if i == 0 {
            format!("from {STATE}^0\n")
        } else {
            String::new()
        };
        let message = subject.replace(&id, &first_id);
        first.push_str(&format!(
            "commit {STATE}\nmark :{}\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata {}\n{message}\n{from}",
            i + 1,
            message.len() + 1
        ));
        for line in changes.lines().filter(|l| l.starts_with(':')) {
            let (meta, path) = line.split_once('\t').unwrap();
            let fields: Vec<&str> = meta.split(' ').collect();
            let (mode, blob, status) = (fields[1], fields[3], fields[4]);
            if status == "D" {
                first.push_str(&format!("D {path}\n"));
                continue;
            }
            let content = output(repo, "git", &["cat-file", "blob", blob]);
            if content.contains(&id) {
                let text = content.replace(&id, &first_id);
                first.push_str(&format!("M {mode} inline {path}\ndata {}\n{text}\n", text.len()));
            } else {
                first.push_str(&format!("M {mode} {blob} {path}\n"));
            }
        }
    }
    // The other copies repeat the first with their own id and marks, each
    // continuing from the one before.
    let rest = first.replacen(&format!("from {STATE}^0\n"), "", 1);
    let mut stream = first.clone();
    for copy in 2..=RUNS - 2 {
        let body = rest.replace(&first_id, &format!("{id}-{copy:04}"));
        for line in body.split_inclusive('\n') {
            match line
                .strip_prefix("mark :")
                .and_then(|m| m.trim_end().parse::<usize>().ok())
            {
                Some(m) => stream.push_str(&format!("mark :{}\n", m + (copy - 1) * template.len())),
                None => stream.push_str(line),
            }
        }
    }
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet", "--force"])
        .current_dir(repo)
        .envs(env())
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stream.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
    git(repo, &["repack", "-adq"]);
    let runs = output(repo, "git", &["log", "--format=%s", STATE])
        .lines()
        .filter(|s| is_run_start(s))
        .count();
    assert_eq!(runs, RUNS, "the chain holds every run");
}

/// Every reference the export carries, for the bundle.
fn state_refs(repo: &Path) -> Vec<String> {
    output(
        repo,
        "git",
        &["for-each-ref", "--format=%(refname)", "refs/ultraplan/", "refs/notes/"],
    )
    .lines()
    .map(str::to_owned)
    .collect()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for (k, v) in env() {
        std::env::set_var(k, v);
    }
    println!("records: {}", machine());
    // RECORDS_TEMPLATE=<dir> keeps the history there and reuses it next time.
    let template = std::env::var_os("RECORDS_TEMPLATE").map_or_else(|| root.join("template"), PathBuf::from);
    let (built, ()) = sampled(|| {
        if !template.join(".git").exists() {
            history(&template)
        }
    });
    println!(
        "records: {RUNS} runs x {STEPS} steps built in {:.1} s",
        built.wall.as_secs_f64()
    );
    // The tasks `stats` finds: every step of every run, once.
    let stats = output(&template, ultraplan(), &["stats", "--by", "plan"]);
    assert!(
        stats.contains(&format!("{}", RUNS * STEPS)),
        "stats counts every task:\n{stats}"
    );

    // stats alone, against the plain-git floor of reading the same chain:
    // one `git log` of the state chain with the files of each commit.
    // Cold: no digests yet, every run's commits walked (and the digests kept).
    let digests = template.join(".git/ultraplan/digests.json");
    let mut cold = Pairs::default();
    for _ in 0..ROUNDS {
        let _ = std::fs::remove_file(&digests);
        let ours = timed(ultraplan(), &["stats", "-q"], &template);
        let theirs = timed("git", &["log", "--format=%H %s", "--name-only", STATE], &template);
        cold.push(ours, theirs);
    }
    println!("records: stats with no digests (cold, reads every commit and keeps the digests)");
    println!(
        "{}",
        cold.report("git ultraplan stats (cold)", "git log --name-only (chain)")
    );
    let mut pairs = Pairs::default();
    for _ in 0..ROUNDS {
        let ours = timed(ultraplan(), &["stats", "-q"], &template);
        let theirs = timed("git", &["log", "--format=%H %s", "--name-only", STATE], &template);
        pairs.push(ours, theirs);
    }
    println!("records: stats over {RUNS} runs x {STEPS} steps, the digests kept (target <= 100 ms)");
    println!("{}", pairs.report("git ultraplan stats", "git log --name-only (chain)"));

    // export --all + import into a fresh clone, against bundle + unbundle.
    let refs = state_refs(&template);
    let mut export = Pairs::default();
    let mut import = Pairs::default();
    for round in 0..MOVES {
        let file = root.join(format!("record-{round}.yaml"));
        let bundle = root.join(format!("record-{round}.bundle"));
        let ours = timed(
            ultraplan(),
            &["export", "--all", "-q", "-o", file.to_str().unwrap()],
            &template,
        );
        let mut args = vec!["bundle", "create", "-q", bundle.to_str().unwrap()];
        args.extend(refs.iter().map(String::as_str));
        let theirs = timed("git", &args, &template);
        export.push(ours, theirs);

        let (a, b) = (root.join(format!("in-a-{round}")), root.join(format!("in-b-{round}")));
        // Clones: the commits are there, the record is not (a clone takes
        // only branches).
        for to in [&a, &b] {
            git(
                &root,
                &["clone", "-q", template.to_str().unwrap(), to.to_str().unwrap()],
            );
        }
        let ours = timed(ultraplan(), &["import", "-q", file.to_str().unwrap()], &a);
        let theirs = unbundle(&b, &bundle);
        import.push(ours, theirs);
        let _ = std::fs::remove_dir_all(&a);
        let _ = std::fs::remove_dir_all(&b);
    }
    println!("records: moving the history of {RUNS} runs between repositories");
    println!("{}", export.report("git ultraplan export --all", "git bundle create"));
    println!(
        "{}",
        import.report("git ultraplan import", "git bundle unbundle + update-ref")
    );
    let _ = copy; // the template is read in place; nothing writes to it
}

/// `git bundle unbundle` and the `update-ref --stdin` that sets the refs it
/// lists, timed together.
fn unbundle(repo: &Path, bundle: &Path) -> Sample {
    let (sample, ()) = sampled(|| {
        let heads = output(repo, "git", &["bundle", "unbundle", bundle.to_str().unwrap()]);
        let updates: String = heads
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(id, name)| format!("update {name} {id}\n"))
            .collect();
        let mut child = Command::new("git")
            .args(["update-ref", "--stdin"])
            .current_dir(repo)
            .envs(env())
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(updates.as_bytes()).unwrap();
        assert!(child.wait().unwrap().success());
    });
    sample
}
