//! `clean`'s work (DESIGN §7): remove what a killed run left behind — stale
//! locks, leftover session worktrees and branches, the places of killed
//! workers, git's `.lock` files whose writer is gone, raw snapshot files and
//! temporary result files of runs that are gone. Run states and notes are
//! never removed. It returns what it did; the command renders it.
//!
//! The processes a dead run left running are stopped first, and waited for
//! (a while): a session whose process is still dying must not be judged
//! alive, nor its lock files.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use serde::Serialize;

use crate::git::Repo;
use crate::ultraplan::engine::leftovers::{worktree_dir, Leftovers, Removal};
use crate::ultraplan::state::{catalog, guarded_refs, in_guarded, LockStatus};

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

/// A `.lock` file of git's: removed (with why its writer is gone) or kept
/// (with who may hold it).
#[derive(Clone, Debug, Serialize)]
pub struct LockFileReport {
    pub path: String,
    pub why: String,
}

/// What `clean` did (its `--json` output).
#[derive(Clone, Debug, Default, Serialize)]
pub struct CleanReport {
    /// Branch refs removed (`refs/heads/ultraplan/<plan>/…`, and the
    /// `refs/heads/ultraplan-work/<plan>/…` of killed workers).
    pub branches: Vec<String>,
    pub kept: Vec<KeptLock>,
    /// Lock files a live git process may hold.
    pub kept_lock_files: Vec<LockFileReport>,
    /// Lock files whose writer is gone, removed.
    pub lock_files: Vec<LockFileReport>,
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
    // The namespaces whose every writer is gone: their lock files go.
    let mut gone: Vec<String> = Vec::new();
    let mut lives = Vec::new();
    let mut stale = Vec::new();
    for s in &slugs {
        let judged = judge_locks(repo, s, options, &mut gone)?;
        if !judged.live.any() {
            gone.extend(guarded_refs(&format!("refs/ultraplan/{s}/lock")));
            gone.push(format!("refs/heads/ultraplan-work/{s}/"));
        }
        report.kept.extend(judged.kept);
        stale.extend(judged.stale);
        lives.push(judged.live);
    }
    // Lock files first — a lock ref a killed holder was releasing has one
    // too — then the lock refs, branches and worktrees, which updating
    // refs (and `packed-refs`) removes.
    let sweep = repo.remove_stale_lock_files(&|locked| in_guarded(&gone, locked))?;
    let entry = |(lock, why): &(crate::git::LockFile, String)| LockFileReport {
        path: lock.path.display().to_string(),
        why: why.clone(),
    };
    report.lock_files = sweep.removed.iter().map(entry).collect();
    report.kept_lock_files = sweep.kept.iter().map(entry).collect();
    for lock in stale {
        // Only if it still holds what we read: a new run may have taken it meanwhile.
        if repo.delete_ref(&lock.name, Some(lock.id)).is_ok() {
            report.removed.push(lock.removed);
        }
    }
    for (s, live) in slugs.iter().zip(&lives) {
        let leftovers = Leftovers {
            repo,
            slug: s.clone(),
            dir: worktree_dir(repo, options.worktree_dir.as_deref(), s),
        };
        // A worker's place is kept while its worker lives, and every place
        // of a plan whose run lives here (its workers may be starting).
        let workers = |n: u32| live.plan || live.workers.contains(&n);
        let places = leftovers.remove_work_places(workers)?;
        report
            .worktrees
            .extend(places.worktrees.iter().map(|p| p.display().to_string()));
        report.branches.extend(places.branches);
        if live.any() {
            continue; // a run is going on: its worktrees are in use
        }
        let removed = leftovers.remove(Removal::Now)?;
        report
            .worktrees
            .extend(removed.worktrees.iter().map(|p| p.display().to_string()));
        report.branches.extend(removed.branches);
    }
    prune_run_files(repo)?;
    Ok(report)
}

/// Which locks of a plan live on.
#[derive(Default)]
struct Live {
    /// The plan's own, or a session's.
    plan: bool,
    /// Workers' (`lock-work-<N>`), by session.
    workers: Vec<u32>,
}

impl Live {
    fn any(&self) -> bool {
        self.plan || !self.workers.is_empty()
    }
}

/// A plan's locks, judged.
struct Judged {
    /// Stale: their holders' processes are stopped already.
    stale: Vec<Stale>,
    /// Live, and kept.
    kept: Vec<KeptLock>,
    live: Live,
}

/// A stale lock, to remove once the lock files are swept.
struct Stale {
    name: String,
    id: crate::git::Oid,
    removed: RemovedLock,
}

/// Judges the plan's locks, stopping (and waiting for) what the holders of
/// stale ones left running, and only then judges the others again: a
/// session killed a moment ago with its dead orchestrator's leftovers is
/// not alive. What a stale lock guarded joins `gone`.
fn judge_locks(repo: &Repo, slug: &str, options: &CleanOptions, gone: &mut Vec<String>) -> Result<Judged> {
    let mut judged = Judged {
        stale: Vec::new(),
        kept: Vec::new(),
        live: Live::default(),
    };
    let mut looking = catalog::locks(repo, slug)?;
    // Twice at most: what the first round stopped is gone for the second.
    for round in 0..2 {
        let mut alive = Vec::new();
        let mut stopped_any = false;
        for (name, id, info) in looking {
            let status = match round {
                0 => info.status(options.lock_timeout),
                _ => info.settled_status(options.lock_timeout),
            };
            let why = match status {
                LockStatus::Stale(why) => why,
                LockStatus::Live if options.force_unlock => "forced".into(),
                LockStatus::Live => {
                    alive.push((name, id, info));
                    continue;
                }
            };
            let processes_stopped = info.kill_leftovers();
            stopped_any |= processes_stopped > 0;
            if info.gone_from_this_host() {
                gone.extend(guarded_refs(&name));
                gone.push(name.clone());
            }
            judged.stale.push(Stale {
                removed: RemovedLock {
                    host: info.host.clone(),
                    pid: info.pid,
                    processes_stopped,
                    name: name.clone(),
                    why,
                },
                name,
                id,
            });
        }
        looking = alive;
        if round == 0 && !stopped_any && looking.iter().all(|(_, _, info)| !info.on_this_host()) {
            break;
        }
    }
    for (name, _, info) in looking {
        match name.rsplit_once("/lock-work-").and_then(|(_, n)| n.parse().ok()) {
            Some(n) => judged.live.workers.push(n),
            None => judged.live.plan = true,
        }
        judged.kept.push(KeptLock {
            host: info.host.clone(),
            pid: info.pid,
            name,
        });
    }
    Ok(judged)
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
            if pid.is_none_or(|p| !crate::process::alive(p)) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    Ok(())
}

/// Every plan with something of ours: state, locks, session branches,
/// workers' places.
fn every_slug(repo: &Repo) -> Result<Vec<String>> {
    let mut slugs = catalog::slugs(repo)?;
    for prefix in ["refs/heads/ultraplan/", "refs/heads/ultraplan-work/"] {
        for (name, _) in repo.refs_with_prefix(prefix)? {
            if let Some(s) = name.strip_prefix(prefix).and_then(|r| r.split('/').next()) {
                slugs.push(s.to_owned());
            }
        }
    }
    // A worker killed after its branch went, before its worktree did.
    if let Ok(entries) = std::fs::read_dir(repo.common_dir().join("ultraplan").join("work")) {
        slugs.extend(entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()));
    }
    slugs.sort();
    slugs.dedup();
    Ok(slugs)
}
