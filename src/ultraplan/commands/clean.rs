//! `git ultraplan clean [<plan>] [--force-unlock]`: remove what a killed run
//! left behind.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use crate::cli::config::{self, duration};
use crate::cli::{Exit, GlobalArgs, Ui};
use crate::git::Workspace;
use crate::ultraplan::engine::clean::{clean, CleanOptions, CleanReport};
use crate::ultraplan::state::slug;

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Remove what a killed run of plan.md left (stale locks, worktrees, branches):
    git ultraplan clean plan.md

  Also remove a lock whose holder still seems alive:
    git ultraplan clean --force-unlock plan.md
"#;

/// Remove stale locks, leftover session worktrees and branches, the files
/// of removed worktrees whose deletion did not finish, and the temporary
/// files of runs that are gone.
///
/// A lock is stale when its process is gone from this host or its heartbeat
/// is older than ultraplan.lockTimeout; a live lock is kept unless
/// --force-unlock is given, and so are the worktrees and `ultraplan/<plan>/*`
/// branches of a plan whose lock is live. Run states and notes are never
/// removed.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
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

/// The library's options from the command line and the configuration.
fn options(args: &Args, workspace: &Workspace) -> Result<CleanOptions> {
    Ok(CleanOptions {
        slug: args.plan.as_deref().map(slug),
        force_unlock: args.force_unlock,
        lock_timeout: duration(workspace.config(), &config::LOCK_TIMEOUT)?,
        worktree_dir: workspace.config().string(config::WORKTREE_DIR.name).map(PathBuf::from),
    })
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let report = clean(workspace.repo()?, &options(&args, &workspace)?)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        render(&mut out, &report, &Ui { quiet: global.quiet })?;
    }
    Ok(if report.kept.is_empty() {
        Exit::Done
    } else {
        Exit::Failed
    })
}

fn render(out: &mut impl Write, report: &CleanReport, ui: &Ui) -> Result<()> {
    for r in &report.removed {
        let stopped = match r.processes_stopped {
            0 => String::new(),
            n => format!("; stopped {n} process(es) it left running"),
        };
        writeln!(
            out,
            "removed lock {} (pid {} on {}: {}{stopped})",
            r.name, r.pid, r.host, r.why
        )?;
    }
    for path in &report.worktrees {
        writeln!(out, "removed worktree {path}")?;
    }
    for branch in &report.branches {
        writeln!(out, "removed branch {}", branch.trim_start_matches("refs/heads/"))?;
    }
    for k in &report.kept {
        ui.warning(format_args!(
            "kept the live lock {} of pid {} on {}",
            k.name, k.pid, k.host
        ));
    }
    if !report.kept.is_empty() {
        ui.hint("if that process is really gone, run 'git ultraplan clean --force-unlock'");
    }
    let nothing = report.removed.is_empty()
        && report.worktrees.is_empty()
        && report.branches.is_empty()
        && report.kept.is_empty();
    if nothing {
        writeln!(
            out,
            "nothing to clean: no stale lock, leftover worktree or session branch"
        )?;
    }
    Ok(())
}
