//! State that travels, against plain git doing the same transfer, as ratios.
//!
//! * The pre-push gate over a push of 1,000 new commits of which 500 carry
//!   result notes (`git ultraplan hook pre-push`), against a plain-git gate
//!   script doing the same reading (`git rev-list` of the pushed commits,
//!   `git notes list`, one `git cat-file --batch` over the pushed notes, a
//!   grep for the status) and against the `git push` it guards.
//! * `git ultraplan sync` of 1,000 notes both ways (clone A sends them, clone
//!   B receives them), against `git push origin refs/notes/ultraplan` in A and
//!   `git fetch origin +refs/notes/ultraplan:refs/notes/ultraplan` in B.
//!
//! Each round copies a fresh template (a bare remote and two clones) for each
//! side, and the sides alternate (A B A B …) so drift on a shared machine
//! hits both alike. Reported: the median ratio of the pairs and its range.
//!
//! Run with `cargo bench --bench sync`.

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{copy, env, git, median};

const COMMITS: usize = 1000;
const ROUNDS: usize = 9;

fn yaml(i: usize) -> String {
    format!(
        "logged_at: 2026-01-01T00:{:02}:{:02}Z\nplan: plan.md\nplan_id: plan\ntask_index: {i}\nsession: null\nrun_id: r1\nattempt: 1\nvalidation: VALID\nwarnings: []\nresult:\n  status: success\n  task_name: 'Task {i}: step'\n  files_modified: [src/f{i}.txt]\n  verification:\n    command: cargo test\n    exit_code: 0\n    output_summary: ok\n  done_criteria_met: true\n  evidence: tests pass\n  error: null\n",
        (i / 60) % 60,
        i % 60
    )
}

/// `git fast-import` of COMMITS commits on main and a notes commit holding a
/// note on every `every`-th one.
fn import(repo: &Path, every: usize) {
    let mut stream = String::new();
    for i in 1..=COMMITS {
        // The first continues the cloned main; the rest follow the branch.
        let from = if i == 1 { "from refs/heads/main^0\n" } else { "" };
        stream.push_str(&format!(
            "commit refs/heads/main\nmark :{i}\ncommitter Bench <bench@example.com> {} +0000\ndata <<EOF\ncommit {i}\nEOF\n{from}M 644 inline f{}.txt\ndata <<EOF\n{i}\nEOF\n",
            1_700_000_000 + i,
            i % 50
        ));
    }
    stream.push_str("commit refs/notes/ultraplan\ncommitter Bench <bench@example.com> 1700009999 +0000\ndata <<EOF\nNotes added by 'git ultraplan'\nEOF\n");
    for i in (1..=COMMITS).filter(|i| i % every == 0) {
        let text = yaml(i);
        stream.push_str(&format!("N inline :{i}\ndata {}\n{text}", text.len()));
    }
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(repo)
        .envs(env())
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stream.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
}

/// A bare remote holding one commit, clone `a` with COMMITS more commits and
/// notes on every `every`-th, clone `b` with the one commit.
fn template(root: &Path, every: usize) -> PathBuf {
    let t = root.join(format!("template-{every}"));
    let seed = t.join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    git(&seed, &["init", "-q", "-b", "main"]);
    git(&seed, &["commit", "-q", "--allow-empty", "-m", "initial"]);
    git(&t, &["clone", "-q", "--bare", "seed", "remote.git"]);
    git(&t, &["clone", "-q", "remote.git", "a"]);
    git(&t, &["clone", "-q", "remote.git", "b"]);
    let a = t.join("a");
    import(&a, every);
    git(&a, &["reset", "-q", "--hard", "main"]);
    git(&a, &["repack", "-adq"]);
    t
}

/// A copy's clones must talk to the copy's remote, not the template's.
fn point_at_own_remote(copy: &Path) {
    let remote = copy.join("remote.git");
    for clone in ["a", "b"] {
        git(
            &copy.join(clone),
            &["remote", "set-url", "origin", remote.to_str().unwrap()],
        );
    }
}

fn run(program: &str, args: &[&str], dir: &Path, input: Option<&str>) -> Duration {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(env())
        .env("PATH", path())
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = input {
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let elapsed = start.elapsed();
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    elapsed
}

/// The build directory first, so `git ultraplan` is this build.
fn path() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_git-ultraplan"))
        .parent()
        .unwrap()
        .to_owned();
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

fn ultraplan(args: &[&str], dir: &Path, input: Option<&str>) -> Duration {
    run(env!("CARGO_BIN_EXE_git-ultraplan"), args, dir, input)
}

/// The same reading as the gate, in plain git and shell.
const PLAIN_GATE: &str = r#"set -e
git rev-list "$1" --not --remotes=origin | sort > "$TMPDIR/pushed"
git notes --ref=ultraplan list | sort -k2 > "$TMPDIR/notes"
join -1 1 -2 2 "$TMPDIR/pushed" "$TMPDIR/notes" | awk '{print $2}' | git cat-file --batch | grep -c '^  status: success$' >/dev/null
"#;

struct Figures {
    ours: Vec<Duration>,
    theirs: Vec<Duration>,
}

impl Figures {
    fn report(&self, what: &str, theirs_name: &str) {
        let ratios: Vec<f64> = self
            .ours
            .iter()
            .zip(&self.theirs)
            .map(|(o, t)| o.as_secs_f64() / t.as_secs_f64())
            .collect();
        let mut sorted = ratios.clone();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "{what}: git ultraplan {:.1} ms, {theirs_name} {:.1} ms (medians); ratio median {:.2}×, range {:.2}×–{:.2}× over {} pairs",
            median(self.ours.clone()).as_secs_f64() * 1000.0,
            median(self.theirs.clone()).as_secs_f64() * 1000.0,
            sorted[sorted.len() / 2],
            sorted[0],
            sorted[sorted.len() - 1],
            sorted.len()
        );
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();

    // The gate: 1,000 pushed commits, 500 notes.
    let gate_template = template(root, 2);
    let a = gate_template.join("a");
    let tip = String::from_utf8(
        Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(&a)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let input = format!("refs/heads/main {} refs/heads/main {}\n", tip.trim(), "0".repeat(40));
    let tmp = root.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let script = root.join("plain-gate.sh");
    std::fs::write(&script, PLAIN_GATE).unwrap();
    let mut gate = Figures {
        ours: Vec::new(),
        theirs: Vec::new(),
    };
    let mut guarded = Figures {
        ours: Vec::new(),
        theirs: Vec::new(),
    };
    for _ in 0..ROUNDS {
        gate.ours
            .push(ultraplan(&["hook", "pre-push", "origin", "url"], &a, Some(&input)));
        gate.theirs.push(run(
            "sh",
            &[
                "-c",
                &format!("TMPDIR={} sh {} {}", tmp.display(), script.display(), tip.trim()),
            ],
            &a,
            None,
        ));
    }
    for round in 0..ROUNDS.min(5) {
        let copy_dir = root.join(format!("push-{round}"));
        copy(&gate_template, &copy_dir);
        point_at_own_remote(&copy_dir);
        let a = copy_dir.join("a");
        let gate_time = ultraplan(&["hook", "pre-push", "origin", "url"], &a, Some(&input));
        let push = run("git", &["push", "-q", "--no-verify", "origin", "main"], &a, None);
        guarded.ours.push(gate_time);
        guarded.theirs.push(push);
        std::fs::remove_dir_all(&copy_dir).unwrap();
    }
    gate.report("pre-push gate, 1,000 commits / 500 notes", "plain-git gate script");
    guarded.report("pre-push gate vs the push it guards", "git push of the 1,000 commits");

    // Sync of 1,000 notes, A → remote → B.
    let sync_template = template(root, 1);
    let prepare = |name: &str| -> PathBuf {
        let d = root.join(name);
        copy(&sync_template, &d);
        point_at_own_remote(&d);
        // Both sides start with the commits on the remote and in B.
        git(&d.join("a"), &["push", "-q", "--no-verify", "origin", "main"]);
        git(&d.join("b"), &["pull", "-q", "--ff-only"]);
        d
    };
    let mut sync = Figures {
        ours: Vec::new(),
        theirs: Vec::new(),
    };
    for round in 0..ROUNDS {
        let ours_dir = prepare(&format!("sync-ours-{round}"));
        let theirs_dir = prepare(&format!("sync-theirs-{round}"));
        let (first, second) = if round % 2 == 0 { (true, false) } else { (false, true) };
        for ours_turn in [first, second] {
            if ours_turn {
                let t = ultraplan(&["-q", "sync"], &ours_dir.join("a"), None)
                    + ultraplan(&["-q", "sync"], &ours_dir.join("b"), None);
                sync.ours.push(t);
            } else {
                let t = run(
                    "git",
                    &["push", "-q", "--no-verify", "origin", "refs/notes/ultraplan"],
                    &theirs_dir.join("a"),
                    None,
                ) + run(
                    "git",
                    &["fetch", "-q", "origin", "+refs/notes/ultraplan:refs/notes/ultraplan"],
                    &theirs_dir.join("b"),
                    None,
                );
                sync.theirs.push(t);
            }
        }
        let notes = Command::new("git")
            .args(["notes", "--ref=ultraplan", "list"])
            .current_dir(ours_dir.join("b"))
            .envs(env())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&notes.stdout).lines().count(), COMMITS);
        std::fs::remove_dir_all(&ours_dir).unwrap();
        std::fs::remove_dir_all(&theirs_dir).unwrap();
    }
    sync.report(
        "sync of 1,000 notes both ways",
        "git push + git fetch of refs/notes/ultraplan",
    );
}
