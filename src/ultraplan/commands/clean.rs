//! `git ultraplan clean [<plan>] [--force-unlock]`: remove what a killed run
//! left behind.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde_json::json;

use crate::cli::config::{self, duration};
use crate::cli::{Exit, GlobalArgs};
use crate::git::Repo;
use crate::git::Workspace;
use crate::ultraplan::engine::leftovers::{worktree_dir, Leftovers};
use crate::ultraplan::state::{catalog, slug, LockStatus};

/// Remove stale locks, leftover session worktrees and branches, and the
/// temporary files of runs that are gone.
///
/// A lock is stale when its process is gone from this host or its heartbeat
/// is older than ultraplan.lockTimeout; a live lock is kept unless
/// --force-unlock is given, and so are the worktrees and `ultraplan/<plan>/*`
/// branches of a plan whose lock is live. Run states and notes are never
/// removed.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only this plan (default: every plan with state here).
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub plan: Option<PathBuf>,

    /// Remove locks even when their holder seems alive.
    #[arg(long)]
    pub force_unlock: bool,

    /// Print what was removed as JSON.
    #[arg(long)]
    pub json: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 4] = [
    (Exit::Done, "nothing stale is left"),
    (
        Exit::Failed,
        "a live lock was kept (use --force-unlock if its holder is really gone)",
    ),
    (Exit::Fatal, "not a git repository"),
    (Exit::Usage, "the command line was wrong"),
];

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let timeout = duration(workspace.config(), &config::LOCK_TIMEOUT)?;
    let slugs = match &args.plan {
        Some(plan) => vec![slug(plan)],
        None => every_slug(repo)?,
    };
    let configured = workspace
        .config()
        .string(config::WORKTREE_DIR.name)
        .map(std::path::PathBuf::from);
    let mut removed = Vec::new();
    let mut kept = Vec::new();
    let mut worktrees = Vec::new();
    let mut branches = Vec::new();
    for s in &slugs {
        let mut live = false;
        for (name, id, info) in catalog::locks(repo, s)? {
            let why = match info.status(timeout) {
                LockStatus::Stale(why) => why,
                LockStatus::Live if args.force_unlock => "forced".into(),
                LockStatus::Live => {
                    live = true;
                    kept.push(json!({"ref": name, "pid": info.pid, "host": info.host}));
                    continue;
                }
            };
            // Only if it still holds what we read: a new run may have taken it meanwhile.
            if repo.delete_ref(&name, Some(id)).is_ok() {
                let killed = info.kill_leftovers();
                removed.push(json!({
                    "ref": name,
                    "pid": info.pid,
                    "host": info.host,
                    "why": why,
                    "processes_stopped": killed,
                }));
            }
        }
        if live {
            continue; // a run is going on: its worktrees are in use
        }
        let leftovers = Leftovers {
            repo,
            slug: s.clone(),
            dir: worktree_dir(repo, configured.as_deref(), s),
        };
        let gone = leftovers.remove()?;
        worktrees.extend(gone.worktrees.iter().map(|p| p.display().to_string()));
        branches.extend(gone.branches);
    }
    // Raw snapshot files of runs no state refers to any more (started over,
    // or their state was deleted). A run saves its state before it keeps any.
    let mut live = Vec::new();
    for s in catalog::slugs(repo)? {
        live.extend(catalog::states(repo, &s)?.into_iter().map(|st| st.progress.run_id));
    }
    crate::ultraplan::engine::secrets::prune(repo, &live);
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
            if pid.is_none_or(|p| !crate::ultraplan::state::process_alive(p)) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json!({
                "removed": removed,
                "kept": kept,
                "worktrees": worktrees,
                "branches": branches,
            }))?
        )?;
    } else {
        for r in &removed {
            let stopped = match r["processes_stopped"].as_u64().unwrap_or(0) {
                0 => String::new(),
                n => format!("; stopped {n} process(es) it left running"),
            };
            writeln!(
                out,
                "removed lock {} (pid {} on {}: {}{stopped})",
                r["ref"].as_str().unwrap_or(""),
                r["pid"],
                r["host"].as_str().unwrap_or(""),
                r["why"].as_str().unwrap_or("")
            )?;
        }
        for path in &worktrees {
            writeln!(out, "removed worktree {path}")?;
        }
        for branch in &branches {
            writeln!(out, "removed branch {}", branch.trim_start_matches("refs/heads/"))?;
        }
        for k in &kept {
            let name = k["ref"].as_str().unwrap_or("");
            crate::cli::Ui { quiet: global.quiet }.warning(format_args!(
                "kept the live lock {name} of pid {} on {}",
                k["pid"],
                k["host"].as_str().unwrap_or("")
            ));
        }
        if !kept.is_empty() {
            crate::cli::Ui { quiet: global.quiet }
                .hint("if that process is really gone, run 'git ultraplan clean --force-unlock'");
        }
    }
    Ok(if kept.is_empty() { Exit::Done } else { Exit::Failed })
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
