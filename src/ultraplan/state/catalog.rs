//! What is stored under `refs/ultraplan/`: which plans have state, their run
//! and session states, their locks, and the history of runs in a state chain.

use std::collections::BTreeSet;

use anyhow::Result;

use super::lock::LockInfo;
use super::progress::Progress;
use super::run_state::RunState;
use crate::git::{Oid, Repo};

/// Every slug with something under `refs/ultraplan/<slug>/`.
pub fn slugs(repo: &Repo) -> Result<Vec<String>> {
    let mut out = BTreeSet::new();
    for (name, _) in repo.refs_with_prefix("refs/ultraplan/")? {
        if let Some(slug) = name.strip_prefix("refs/ultraplan/").and_then(|r| r.split('/').next()) {
            out.insert(slug.to_owned());
        }
    }
    Ok(out.into_iter().collect())
}

/// The run state and every session state of `slug`, run first.
pub fn states<'r>(repo: &'r Repo, slug: &str) -> Result<Vec<RunState<'r>>> {
    let mut out = Vec::new();
    let mut names: Vec<String> = repo
        .refs_with_prefix(&format!("refs/ultraplan/{slug}/"))?
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.ends_with("/run") || n.rsplit('/').next().is_some_and(|last| last.starts_with("session-")))
        .collect();
    names.sort_by_key(|n| (!n.ends_with("/run"), session_number(n)));
    for name in names {
        if let Some(state) = RunState::load(repo, &name)? {
            out.push(state);
        }
    }
    Ok(out)
}

fn session_number(name: &str) -> u32 {
    name.rsplit("session-").next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// The locks of `slug` (the plan's and its sessions').
pub fn locks(repo: &Repo, slug: &str) -> Result<Vec<(String, Oid, LockInfo)>> {
    let mut out = Vec::new();
    for (name, id) in repo.refs_with_prefix(&format!("refs/ultraplan/{slug}/"))? {
        let last = name.rsplit('/').next().unwrap_or("");
        if last == "lock" || last.starts_with("lock-session-") {
            let info = LockInfo::parse(&String::from_utf8_lossy(&repo.read_blob(id)?));
            out.push((name, id, info));
        }
    }
    Ok(out)
}

/// One run found in a state chain: its last state commit and progress.
pub struct PastRun {
    pub last_commit: Oid,
    pub progress: Progress,
}

/// Every run recorded in the chain at `ref_name`, newest first: each run's
/// last state commit (the chain marks a run's start with `run <id>: started`).
pub fn history(repo: &Repo, ref_name: &str) -> Result<Vec<PastRun>> {
    let mut out = Vec::new();
    let mut next = repo.read_ref(ref_name)?;
    let mut run_end = next;
    while let Some(commit) = next {
        let info = repo.commit_info(commit)?;
        if info.message.starts_with("run ") && info.message.contains(": started") {
            if let Some(last) = run_end.take() {
                let tree = repo.commit_tree(last)?;
                if let Some(bytes) = repo.read_path(tree, "progress.json")? {
                    if let Ok(progress) = serde_json::from_slice(&bytes) {
                        out.push(PastRun {
                            last_commit: last,
                            progress,
                        });
                    }
                }
            }
            run_end = info.parents.first().copied();
        }
        next = info.parents.first().copied();
    }
    Ok(out)
}
