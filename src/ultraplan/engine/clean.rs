//! `clean`'s work (DESIGN §7): remove what a killed run left behind — stale
//! locks, leftover session worktrees and branches, raw snapshot files and
//! temporary result files of runs that are gone. Run states and notes are
//! never removed. It returns what it did; the command renders it.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use serde::Serialize;

use crate::git::Repo;
use crate::ultraplan::engine::leftovers::{worktree_dir, Leftovers, Removal};
use crate::ultraplan::state::{catalog, process_alive, LockStatus};

/// What `clean` is asked to do.
#[derive(Clone, Debug)]
pub struct CleanOptions {
    /// Only the plan with this slug (default: every plan with something here).
    pub slug: Option<String>,
    /// Remove locks even when their holder seems alive.
    pub force_unlock: bool,
    /// A lock whose heartbeat is older than this is stale.
    pub lock_timeout: Duration,
    /// `ultraplan.worktreeDir`, if set.
    pub worktree_dir: Option<PathBuf>,
}

/// A lock that was removed. Fields in the order `--json` has always shown
/// them (alphabetical).
#[derive(Clone, Debug, Serialize)]
pub struct RemovedLock {
    pub host: String,
    pub pid: u32,
    /// Processes of the dead run that were still running and were stopped.
    pub processes_stopped: usize,
    #[serde(rename = "ref")]
    pub name: String,
    /// Why it was stale, or `forced`.
    pub why: String,
}

/// A live lock that was kept.
#[derive(Clone, Debug, Serialize)]
pub struct KeptLock {
    pub host: String,
    pub pid: u32,
    #[serde(rename = "ref")]
    pub name: String,
}

/// What `clean` did (its `--json` output).
#[derive(Clone, Debug, Default, Serialize)]
pub struct CleanReport {
    /// Branch refs removed (`refs/heads/ultraplan/<plan>/…`).
    pub branches: Vec<String>,
    pub kept: Vec<KeptLock>,
    pub removed: Vec<RemovedLock>,
    pub worktrees: Vec<String>,
}

/// Cleans up after runs that are gone; a live lock (unless forced) keeps its
/// plan's worktrees and branches too.
pub fn clean(repo: &Repo, options: &CleanOptions) -> Result<CleanReport> {
    let slugs = match &options.slug {
        Some(s) => vec![s.clone()],
        None => every_slug(repo)?,
    };
    let mut report = CleanReport::default();
    for s in &slugs {
        let mut live = false;
        for (name, id, info) in catalog::locks(repo, s)? {
            let why = match info.status(options.lock_timeout) {
                LockStatus::Stale(why) => why,
                LockStatus::Live if options.force_unlock => "forced".into(),
                LockStatus::Live => {
                    live = true;
                    report.kept.push(KeptLock {
                        host: info.host.clone(),
                        pid: info.pid,
                        name,
                    });
                    continue;
                }
            };
            // Only if it still holds what we read: a new run may have taken it meanwhile.
            if repo.delete_ref(&name, Some(id)).is_ok() {
                let processes_stopped = info.kill_leftovers();
                report.removed.push(RemovedLock {
                    host: info.host.clone(),
                    pid: info.pid,
                    processes_stopped,
                    name,
                    why,
                });
            }
        }
        if live {
            continue; // a run is going on: its worktrees are in use
        }
        let leftovers = Leftovers {
            repo,
            slug: s.clone(),
            dir: worktree_dir(repo, options.worktree_dir.as_deref(), s),
        };
        let gone = leftovers.remove(Removal::Now)?;
        report
            .worktrees
            .extend(gone.worktrees.iter().map(|p| p.display().to_string()));
        report.branches.extend(gone.branches);
    }
    prune_run_files(repo)?;
    Ok(report)
}

/// Raw snapshot files of runs no state refers to any more (started over, or
/// their state was deleted), and temporary result files of processes that
/// are gone. A run saves its state before it keeps any.
fn prune_run_files(repo: &Repo) -> Result<()> {
    let mut live = Vec::new();
    for s in catalog::slugs(repo)? {
        live.extend(catalog::states(repo, &s)?.into_iter().map(|st| st.progress.run_id));
    }
    super::secrets::prune(repo, &live);
    let tmp = repo.common_dir().join("ultraplan").join("tmp");
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for entry in entries.flatten() {
            let pid = entry
                .file_name()
                .to_string_lossy()
                .trim_start_matches("result-")
                .trim_end_matches(".yaml")
                .parse::<u32>()
                .ok();
            if pid.is_none_or(|p| !process_alive(p)) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    Ok(())
}

/// Every plan with something of ours: state, locks, session branches.
fn every_slug(repo: &Repo) -> Result<Vec<String>> {
    let mut slugs = catalog::slugs(repo)?;
    for (name, _) in repo.refs_with_prefix("refs/heads/ultraplan/")? {
        if let Some(s) = name
            .strip_prefix("refs/heads/ultraplan/")
            .and_then(|r| r.split('/').next())
        {
            slugs.push(s.to_owned());
        }
    }
    slugs.sort();
    slugs.dedup();
    Ok(slugs)
}
