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

/// Remove what killed runs left: stale locks, session worktrees and
/// branches, the places of killed workers, and git's own lock files whose
/// writer is gone.
///
/// A lock (refs/ultraplan/<plan>/lock, and its sessions' and workers') is
/// stale when its process is gone from this host or its heartbeat is older
/// than ultraplan.lockTimeout. The processes a stale lock's run left running
/// are stopped, and waited for (at most 5 seconds), before anything else is
/// judged. A live lock is kept unless --force-unlock is given, and so are
/// the worktrees and `ultraplan/<plan>/*` branches of a plan whose lock is
/// live. Worktrees under <git-common-dir>/ultraplan/work/<plan>/ and
/// `ultraplan-work/<plan>/*` branches go once the worker that made them is
/// gone.
///
/// Git's lock files — a ref's `<ref>.lock` (refs/notes/ultraplan.lock,
/// refs/ultraplan/<plan>/run.lock, refs/heads/ultraplan/<plan>/session-N.lock,
/// refs/ultraplan-outcomes.lock, …), index.lock of each worktree,
/// packed-refs.lock, HEAD.lock, config.lock — are what a process killed while
/// it wrote leaves; while one is there, every git command that writes the
/// same thing fails. One is removed, and named, when its writer is provably
/// gone: it lies under a plan whose run is gone, or it was written before
/// every live git process working in this repository started (a process
/// cannot have written a file before it existed). One a live git process may
/// hold is kept, naming that process; off Linux, where processes cannot be
/// listed, such files are kept too.
///
/// It also deletes the files of removed worktrees whose deletion did not
/// finish, and the temporary files of runs that are gone. Run states and
/// notes are never removed.
///
/// After a killed run: 'git ultraplan clean', then
/// 'git ultraplan run --resume <plan>'.
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
    for lock in &report.lock_files {
        writeln!(out, "removed lock file {} ({})", lock.path, lock.why)?;
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
    for lock in &report.kept_lock_files {
        ui.warning(format_args!("kept the lock file {}: {}", lock.path, lock.why));
    }
    if !report.kept_lock_files.is_empty() {
        ui.hint("git cannot write what such a file locks; once that process ended, run 'git ultraplan clean' again");
    }
    let nothing = report.removed.is_empty()
        && report.worktrees.is_empty()
        && report.branches.is_empty()
        && report.kept.is_empty()
        && report.lock_files.is_empty()
        && report.kept_lock_files.is_empty();
    if nothing {
        writeln!(
            out,
            "nothing to clean: no stale lock, leftover worktree or session branch"
        )?;
    }
    Ok(())
}
