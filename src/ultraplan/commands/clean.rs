//! `git ultraplan clean [<plan>] [--force-unlock]`: remove what a killed run
//! left behind.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde_json::json;

use crate::cli::config::{self, duration};
use crate::cli::{Exit, GlobalArgs};
use crate::git::Workspace;
use crate::ultraplan::state::{catalog, slug, LockStatus};

/// Remove stale locks (and the temporary files of runs that are gone).
///
/// A lock is stale when its process is gone from this host or its heartbeat
/// is older than ultraplan.lockTimeout; a live lock is kept unless
/// --force-unlock is given. Run states and notes are never removed.
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
        None => catalog::slugs(repo)?,
    };
    let mut removed = Vec::new();
    let mut kept = Vec::new();
    for s in &slugs {
        for (name, id, info) in catalog::locks(repo, s)? {
            let why = match info.status(timeout) {
                LockStatus::Stale(why) => why,
                LockStatus::Live if args.force_unlock => "forced".into(),
                LockStatus::Live => {
                    kept.push(json!({"ref": name, "pid": info.pid, "host": info.host}));
                    continue;
                }
            };
            // Only if it still holds what we read: a new run may have taken it meanwhile.
            if repo.delete_ref(&name, Some(id)).is_ok() {
                removed.push(json!({"ref": name, "pid": info.pid, "host": info.host, "why": why}));
            }
        }
    }
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
            serde_json::to_string_pretty(&json!({"removed": removed, "kept": kept}))?
        )?;
    } else {
        for r in &removed {
            writeln!(
                out,
                "removed lock {} (pid {} on {}: {})",
                r["ref"].as_str().unwrap_or(""),
                r["pid"],
                r["host"].as_str().unwrap_or(""),
                r["why"].as_str().unwrap_or("")
            )?;
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
