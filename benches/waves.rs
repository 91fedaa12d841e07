//! Parallel sessions against plain git, in alternating pairs (common's
//! module docs), each side from its own copy of the same repository:
//!
//! 1. creating a linked worktree the way `run` does for a session that
//!    cannot reuse one (`Repo::add_worktree`: `git worktree add`, hooks off,
//!    after a branch written with gix) against `git worktree add -b`;
//! 2. whole plans of trivial one-file steps with `git ultraplan run`
//!    against a plain-git script doing the same sequence: per wave, `worktree
//!    add` per session, the step's change and check, `add` and `commit` in
//!    each worktree (at most `jobs` at once, as `run --jobs` does), `merge
//!    --no-ff` one at a time, `worktree remove` and `branch -D`:
//!    * 3 sessions in 2 waves, on 20,000 and on 100,000 files;
//!    * 8 sessions in one wave, with `--jobs 2` and `--jobs 8`, on 20,000.
//!
//! Beside wall and CPU time (`run`'s CPU includes the background deletion
//! of the worktrees it removed: the bench adopts and waits for it), the peak
//! disk use of each side: the most worktree directories that existed at
//! once (sampled every 5 ms, a removed worktree still being deleted counted
//! whole) times the size of one checkout (`du`).
//!
//! Every copy a comparison needs is made before its first measurement and
//! deleted after its last, which side goes first alternates from pair to
//! pair, and each side starts after `common::settle`. On this machine's
//! disk, files deleted in the minutes before make new ones slow to create,
//! whichever side deleted them: run it on a tmpfs (`TMPDIR=/dev/shm`) for
//! figures that hold.
//!
//! `BENCH_WAVES_FILES` (default `20000,100000`) picks the repository sizes,
//! `BENCH_WAVES_PAIRS` (default 5; 3 on 100,000 files) the pairs.
//! Run with `cargo bench --bench waves`.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{copy, git, machine, repository_of, sampled, settle, timed, timed_with_orphans, Pairs, Sample};
use ultraplan::git::Workspace;

fn our_worktree(repo: &Path, at: &Path) -> Sample {
    let workspace = Workspace::discover_in(repo).unwrap();
    let repo = workspace.repo().unwrap();
    let head = repo.head().unwrap().commit.unwrap();
    sampled(|| {
        repo.create_branch("refs/heads/bench-gix", head).unwrap();
        repo.add_worktree(at, "refs/heads/bench-gix").unwrap();
    })
    .0
}

fn git_worktree(repo: &Path, at: &Path) -> Sample {
    sampled(|| {
        git(
            repo,
            &["worktree", "add", "-q", "-b", "bench-git", at.to_str().unwrap(), "HEAD"],
        )
    })
    .0
}

/// A copy of the template whose index is fresh again: `cp` gives every
/// file a new ctime, so the first command on either side that refreshes the
/// index would otherwise re-read all 20,000 files, which a real repository
/// does not ask of it.
fn fresh_copy(template: &Path, to: &Path) {
    copy(template, to);
    git(to, &["update-index", "-q", "--really-refresh"]);
}

/// A plan's shape: each session's wave (session numbers from 1).
struct Shape {
    name: &'static str,
    waves: Vec<u32>,
    jobs: Option<usize>,
}

impl Shape {
    fn sessions(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.waves.iter().enumerate().map(|(i, w)| (i as u32 + 1, *w))
    }

    fn plan(&self) -> String {
        let mut plan = String::from("# Bench\n\n## Implementation Plan\n\n");
        for (n, _) in self.sessions() {
            plan.push_str(&format!(
                "### Step {n}: Step {n}\n\n- **Files:** `bench/s{n}.txt`\n- **Changes:**\n  ```sh\n  mkdir -p bench && echo {n} > bench/s{n}.txt\n  ```\n- **Verify:** `test -f bench/s{n}.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
            ));
        }
        plan.push_str("## Execution Strategy\n\n");
        for (n, wave) in self.sessions() {
            let earlier: Vec<String> = self
                .sessions()
                .filter(|(_, w)| *w < wave)
                .map(|(m, _)| m.to_string())
                .collect();
            let deps = match earlier.is_empty() {
                true => "none".to_owned(),
                false => format!("Sessions {}", earlier.join(", ")),
            };
            plan.push_str(&format!(
                "### Session {n}: Session {n}\n- **Steps:** {n}\n- **Wave:** {wave}\n- **Depends on:** {deps}\n- **Scope fence:** Touch: `bench/s{n}.txt`\n\n"
            ));
        }
        plan
    }

    /// The plain-git script: per wave, every session's worktree, the steps
    /// `jobs` at a time, then merge and remove one at a time.
    fn script(&self) -> String {
        let mut body = String::from("set -e\nwt=.git/bench-worktrees\n");
        let last = self.waves.iter().max().copied().unwrap_or(1);
        for wave in 1..=last {
            let sessions: Vec<u32> = self.sessions().filter(|s| s.1 == wave).map(|s| s.0).collect();
            for n in &sessions {
                body.push_str(&format!(
                    "git worktree add -q -b bench/session-{n} $wt/session-{n} HEAD\n"
                ));
            }
            let jobs = self.jobs.unwrap_or(sessions.len()).max(1);
            for batch in sessions.chunks(jobs) {
                for n in batch {
                    body.push_str(&format!(
                        "(cd $wt/session-{n} && sh -e -c 'mkdir -p bench && echo {n} > bench/s{n}.txt' && \
                         sh -c 'test -f bench/s{n}.txt' && git add bench/s{n}.txt && git commit -q -m 'step {n}') &\n"
                    ));
                }
                body.push_str("wait\n");
            }
            for n in &sessions {
                body.push_str(&format!(
                    "git merge -q --no-ff -m 'merge: ultraplan session {n} — Session {n}' bench/session-{n}\n\
                     git worktree remove $wt/session-{n}\ngit branch -q -D bench/session-{n}\n"
                ));
            }
        }
        body
    }
}

/// Counts, every 5 ms while it lives, the worktree directories under the
/// given parents (their `session-*` and `.trash-*` entries) and keeps the most.
struct Peak {
    stop: Arc<AtomicBool>,
    most: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Peak {
    fn watch(parents: Vec<PathBuf>) -> Peak {
        let stop = Arc::new(AtomicBool::new(false));
        let most = Arc::new(AtomicUsize::new(0));
        let (s, m) = (stop.clone(), most.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                let now: usize = parents
                    .iter()
                    .map(|p| {
                        std::fs::read_dir(p).map_or(0, |entries| {
                            entries
                                .flatten()
                                .filter(|e| {
                                    let name = e.file_name().to_string_lossy().into_owned();
                                    name.starts_with("session-") || name.starts_with(".trash-")
                                })
                                .count()
                        })
                    })
                    .sum();
                m.fetch_max(now, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        Peak {
            stop,
            most,
            thread: Some(thread),
        }
    }

    fn most(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.most.load(Ordering::Relaxed)
    }
}

/// Kilobytes a checkout of the repository takes (`du -sk` of one, `.git` aside).
fn checkout_kib(repo: &Path) -> u64 {
    let out = std::process::Command::new("du")
        .args(["-sk", "--exclude=.git", "."])
        .current_dir(repo)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .and_then(|k| k.parse().ok())
        .unwrap_or(0)
}

fn compare(root: &Path, template: &Path, shape: &Shape, pairs_wanted: usize) {
    let plan = template.join(format!("{}.md", shape.name));
    std::fs::write(&plan, shape.plan()).unwrap();
    git(template, &["add", plan.file_name().unwrap().to_str().unwrap()]);
    git(template, &["commit", "-q", "-m", "plan"]);
    let script = shape.script();
    let mut pairs = Pairs::default();
    let (mut ours_peak, mut theirs_peak) = (0, 0);
    // Every copy first: making them deletes nothing, and deleting them
    // between pairs would slow the next pair's file creation (`settle`).
    let copies: Vec<(PathBuf, PathBuf)> = (0..pairs_wanted)
        .map(|round| {
            let a = root.join(format!("{}-u{round}", shape.name));
            let b = root.join(format!("{}-s{round}", shape.name));
            fresh_copy(template, &a);
            fresh_copy(template, &b);
            (a, b)
        })
        .collect();
    let jobs = shape.jobs.map(|j| j.to_string());
    let plan_arg = format!("{}.md", shape.name);
    for (round, (a, b)) in copies.iter().enumerate() {
        let ours = || {
            settle(root);
            let peak = Peak::watch(vec![
                a.join(".git/ultraplan/worktrees"),
                a.join(format!(".git/ultraplan/worktrees/{}", shape.name)),
            ]);
            let mut args = vec!["-q", "run"];
            if let Some(j) = &jobs {
                args.extend(["--jobs", j]);
            }
            args.push(&plan_arg);
            let sample = timed_with_orphans(env!("CARGO_BIN_EXE_git-ultraplan"), &args, a);
            (sample, peak.most())
        };
        let theirs = || {
            settle(root);
            let peak = Peak::watch(vec![b.join(".git/bench-worktrees")]);
            (timed("bash", &["-c", &script], b), peak.most())
        };
        // Which side goes first alternates from pair to pair.
        let ((o, o_peak), (t, t_peak)) = if round % 2 == 0 {
            let o = ours();
            (o, theirs())
        } else {
            let t = theirs();
            (ours(), t)
        };
        ours_peak = ours_peak.max(o_peak);
        theirs_peak = theirs_peak.max(t_peak);
        pairs.push(o, t);
    }
    for (a, b) in copies {
        let _ = std::fs::remove_dir_all(a);
        let _ = std::fs::remove_dir_all(b);
    }
    let kib = checkout_kib(template);
    let jobs = shape.jobs.map_or(String::new(), |j| format!(", --jobs {j}"));
    println!(
        "{}",
        pairs.report(&format!("{}{jobs}: run", shape.name), "the same with a git script")
    );
    println!(
        "               peak disk: run {ours_peak} worktrees ({:.0} MiB), script {theirs_peak} ({:.0} MiB); one checkout {:.0} MiB",
        (ours_peak as u64 * kib) as f64 / 1024.0,
        (theirs_peak as u64 * kib) as f64 / 1024.0,
        kib as f64 / 1024.0
    );
}

fn main() {
    common::adopt_orphans();
    let sizes: Vec<usize> = std::env::var("BENCH_WAVES_FILES")
        .unwrap_or_else(|_| "20000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let pairs_env: Option<usize> = std::env::var("BENCH_WAVES_PAIRS").ok().and_then(|p| p.parse().ok());
    println!("waves: {}", machine());
    for files in sizes {
        let pairs = pairs_env.unwrap_or(if files > 50_000 { 3 } else { 5 });
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let template = root.join("template");
        repository_of(&template, files);
        println!("{files} files, {pairs} alternating pairs");

        let mut worktrees = Pairs::default();
        let copies: Vec<(PathBuf, PathBuf)> = (0..pairs)
            .map(|round| {
                let (a, b) = (root.join(format!("wg{round}")), root.join(format!("wc{round}")));
                fresh_copy(&template, &a);
                fresh_copy(&template, &b);
                (a, b)
            })
            .collect();
        for (round, (a, b)) in copies.iter().enumerate() {
            let ours = || {
                settle(root);
                our_worktree(a, &a.with_extension("wt"))
            };
            let theirs = || {
                settle(root);
                git_worktree(b, &b.with_extension("wt"))
            };
            let (o, t) = if round % 2 == 0 {
                let o = ours();
                (o, theirs())
            } else {
                let t = theirs();
                (ours(), t)
            };
            worktrees.push(o, t);
        }
        for (a, b) in copies {
            for gone in [a.with_extension("wt"), b.with_extension("wt"), a, b] {
                let _ = std::fs::remove_dir_all(gone);
            }
        }
        println!("{}", worktrees.report("worktree as run adds it", "git worktree add -b"));

        let three = Shape {
            name: "three",
            waves: vec![1, 1, 2],
            jobs: None,
        };
        compare(root, &template, &three, pairs);
        if files <= 50_000 {
            for jobs in [2, 8] {
                let eight = Shape {
                    name: if jobs == 2 { "eight-j2" } else { "eight-j8" },
                    waves: vec![1; 8],
                    jobs: Some(jobs),
                };
                compare(root, &template, &eight, pairs);
            }
        }
    }
}
