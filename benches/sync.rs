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
//! The sides run as alternating pairs (A B A B …) from the same starting
//! state: the gates read one repository that neither writes; the push and
//! the syncs each get a fresh copy of the template (a bare remote and two
//! clones), so drift on a shared machine hits both alike. Reported, per
//! comparison: each side's median wall and CPU time (user + system, of every
//! process it started), and the median ratio of the pairs with its range
//! (common's module docs).
//!
//! Run with `cargo bench --bench sync`.

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{copy, env, git, machine, sampled, Pairs, Sample};

const COMMITS: usize = 1000;
/// Pairs of gates (each tens of ms).
const ROUNDS: usize = 15;
/// Pairs of pushes and of syncs, each on fresh copies.
const COPIES: usize = 9;

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

/// Runs `program args` in `dir` (with `input` on its stdin) and measures it.
fn run(program: &str, args: &[&str], dir: &Path, input: Option<&str>) -> Sample {
    let (sample, out) = sampled(|| {
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
        child.wait_with_output().unwrap()
    });
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    sample
}

/// The build directory first, so `git ultraplan` is this build.
fn path() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_git-ultraplan"))
        .parent()
        .unwrap()
        .to_owned();
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

fn ultraplan(args: &[&str], dir: &Path, input: Option<&str>) -> Sample {
    run(env!("CARGO_BIN_EXE_git-ultraplan"), args, dir, input)
}

/// The same reading as the gate, in plain git and shell.
const PLAIN_GATE: &str = r#"set -e
git rev-list "$1" --not --remotes=origin | sort > "$TMPDIR/pushed"
git notes --ref=ultraplan list | sort -k2 > "$TMPDIR/notes"
join -1 1 -2 2 "$TMPDIR/pushed" "$TMPDIR/notes" | awk '{print $2}' | git cat-file --batch | grep -c '^  status: success$' >/dev/null
"#;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    println!("sync: {}", machine());

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
    let plain_gate = format!("TMPDIR={} sh {} {}", tmp.display(), script.display(), tip.trim());
    let mut gate = Pairs::default();
    let mut guarded = Pairs::default();
    // One unmeasured run of each side, so neither pays for a cold cache.
    ultraplan(&["hook", "pre-push", "origin", "url"], &a, Some(&input));
    run("sh", &["-c", &plain_gate], &a, None);
    for _ in 0..ROUNDS {
        let ours = ultraplan(&["hook", "pre-push", "origin", "url"], &a, Some(&input));
        let theirs = run("sh", &["-c", &plain_gate], &a, None);
        gate.push(ours, theirs);
    }
    for round in 0..COPIES {
        let copy_dir = root.join(format!("push-{round}"));
        copy(&gate_template, &copy_dir);
        point_at_own_remote(&copy_dir);
        let a = copy_dir.join("a");
        let gate_time = ultraplan(&["hook", "pre-push", "origin", "url"], &a, Some(&input));
        let push = run("git", &["push", "-q", "--no-verify", "origin", "main"], &a, None);
        guarded.push(gate_time, push);
        std::fs::remove_dir_all(&copy_dir).unwrap();
    }
    println!("sync: pre-push gate over a push of {COMMITS} commits, 500 with notes");
    println!(
        "{}",
        gate.report("git ultraplan hook pre-push", "plain-git gate script")
    );
    println!("sync: the same gate against the push it guards");
    println!(
        "{}",
        guarded.report("git ultraplan hook pre-push", "git push of the commits")
    );

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
    let mut sync = Pairs::default();
    for round in 0..COPIES {
        let ours_dir = prepare(&format!("sync-ours-{round}"));
        let theirs_dir = prepare(&format!("sync-theirs-{round}"));
        // Which side goes first alternates from round to round.
        let (first, second) = if round % 2 == 0 { (true, false) } else { (false, true) };
        let (mut ours, mut theirs) = (Sample::default(), Sample::default());
        for ours_turn in [first, second] {
            if ours_turn {
                (ours, ()) = sampled(|| {
                    ultraplan(&["-q", "sync"], &ours_dir.join("a"), None);
                    ultraplan(&["-q", "sync"], &ours_dir.join("b"), None);
                });
            } else {
                (theirs, ()) = sampled(|| {
                    run(
                        "git",
                        &["push", "-q", "--no-verify", "origin", "refs/notes/ultraplan"],
                        &theirs_dir.join("a"),
                        None,
                    );
                    run(
                        "git",
                        &["fetch", "-q", "origin", "+refs/notes/ultraplan:refs/notes/ultraplan"],
                        &theirs_dir.join("b"),
                        None,
                    );
                });
            }
        }
        sync.push(ours, theirs);
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
    println!("sync: {COMMITS} notes both ways (A sends, B receives)");
    println!(
        "{}",
        sync.report("git ultraplan sync (A, B)", "git push + git fetch (notes)")
    );
}
