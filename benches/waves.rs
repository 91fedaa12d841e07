//! Parallel sessions against plain git, measured in one run on a repository
//! of 20,000 files:
//!
//! 1. creating a linked worktree with gix (what `run` does for each session)
//!    against `git worktree add -b`;
//! 2. a whole 3-session, 2-wave plan of trivial steps with `git ultraplan
//!    run` against a plain-git script doing the same sequence: `worktree add`
//!    per session, the step's change and check, `add` and `commit` in each
//!    worktree (the sessions of a wave in parallel, as `run` does), `merge
//!    --no-ff` one at a time, `worktree remove` and `branch -D`.
//!
//! Both sides start from copies of the same repository and run as
//! alternating pairs (common's module docs). Run with `cargo bench --bench waves`.

mod common;

use std::path::Path;

use common::{copy, git, machine, repository_of, sampled, timed, ultraplan_run, Pairs, Sample};
use ultraplan::git::Workspace;

const FILES: usize = 20_000;
const ROUNDS: usize = 5;

fn gix_worktree(repo: &Path, at: &Path) -> Sample {
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

const SESSIONS: [(u32, u32, &str); 3] = [(1, 1, "One"), (2, 1, "Two"), (3, 2, "Three")];

fn plan() -> String {
    let mut plan = String::from("# Bench\n\n## Implementation Plan\n\n");
    for (n, _, _) in SESSIONS {
        plan.push_str(&format!(
            "### Step {n}: Step {n}\n\n- **Files:** `bench/s{n}.txt`\n- **Changes:**\n  ```sh\n  mkdir -p bench && echo {n} > bench/s{n}.txt\n  ```\n- **Verify:** `test -f bench/s{n}.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    plan.push_str("## Execution Strategy\n\n");
    for (n, wave, title) in SESSIONS {
        let deps = if wave == 1 { "none" } else { "Sessions 1, 2" };
        plan.push_str(&format!(
            "### Session {n}: {title}\n- **Steps:** {n}\n- **Wave:** {wave}\n- **Depends on:** {deps}\n- **Scope fence:** Touch: `bench/s{n}.txt`\n\n"
        ));
    }
    plan
}

fn script(repo: &Path) -> Sample {
    let mut body = String::from("set -e\nwt=.git/bench-worktrees\n");
    for wave in [1, 2] {
        let sessions: Vec<_> = SESSIONS.iter().filter(|s| s.1 == wave).collect();
        for (n, _, _) in &sessions {
            body.push_str(&format!(
                "git worktree add -q -b bench/session-{n} $wt/session-{n} HEAD\n"
            ));
        }
        for (n, _, _) in &sessions {
            body.push_str(&format!(
                "(cd $wt/session-{n} && sh -e -c 'mkdir -p bench && echo {n} > bench/s{n}.txt' && \
                 sh -c 'test -f bench/s{n}.txt' && git add bench/s{n}.txt && git commit -q -m 'step {n}') &\n"
            ));
        }
        body.push_str("wait\n");
        for (n, _, title) in &sessions {
            body.push_str(&format!(
                "git merge -q --no-ff -m 'merge: ultraplan session {n} — {title}' bench/session-{n}\n\
                 git worktree remove $wt/session-{n}\ngit branch -q -D bench/session-{n}\n"
            ));
        }
    }
    timed("bash", &["-c", &body], repo)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let template = root.join("template");
    repository_of(&template, FILES);
    std::fs::write(template.join("plan.md"), plan()).unwrap();
    git(&template, &["add", "plan.md"]);
    git(&template, &["commit", "-q", "-m", "plan"]);
    common::adopt_orphans();
    println!("waves: {FILES} files, {ROUNDS} alternating pairs; {}", machine());

    let mut pairs = Pairs::default();
    for round in 0..ROUNDS {
        let a = root.join(format!("wg{round}"));
        copy(&template, &a);
        let ours = gix_worktree(&a, &root.join(format!("wg{round}-wt")));
        let b = root.join(format!("wc{round}"));
        copy(&template, &b);
        pairs.push(ours, git_worktree(&b, &root.join(format!("wc{round}-wt"))));
    }
    println!("{}", pairs.report("worktree with gix", "git worktree add -b"));

    let mut pairs = Pairs::default();
    for round in 0..ROUNDS {
        let a = root.join(format!("pu{round}"));
        copy(&template, &a);
        let ours = ultraplan_run(&a, Path::new("plan.md"));
        let b = root.join(format!("ps{round}"));
        copy(&template, &b);
        pairs.push(ours, script(&b));
    }
    println!(
        "{}",
        pairs.report("3 sessions, 2 waves: run", "the same with a git script")
    );
}
