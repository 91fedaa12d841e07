//! `git ultraplan export --logs DIR`: the record as seed 000's log directory.

use std::path::PathBuf;

use anyhow::{anyhow, Context as _, Result};

use crate::cli::{Exit, GlobalArgs};
use crate::git::Workspace;
use crate::ultraplan::records::{collect, logs, Filter, Metrics};
use crate::ultraplan::state::slug;

/// Write the recorded runs out as seed 000's log directory.
///
/// `--logs DIR` writes `executions/<YYYY-MM-DD>/<plan-id>-task-<NN>-<status>.yaml`
/// (each attempt's record: the metadata header and the result, as the notes
/// hold it), `summary/daily-<YYYY-MM-DD>.json` and `current-session.json`
/// (the latest run), for tools that read that layout. Nothing in the
/// repository is written. A DIR that exists and is not empty needs --force.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only these plans' runs.
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub plans: Vec<PathBuf>,

    /// The directory to write the log layout into.
    #[arg(long, value_name = "DIR", required = true, value_hint = clap::ValueHint::DirPath)]
    pub logs: PathBuf,

    /// Write into a directory that is not empty (files of the same name are replaced).
    #[arg(long)]
    pub force: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the logs were written"),
    (
        Exit::Fatal,
        "not a git repository, unreadable state, or DIR not empty without --force or not writable",
    ),
    (Exit::Usage, "the command line was wrong"),
];

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let dir = if args.logs.is_absolute() {
        args.logs.clone()
    } else {
        workspace.cwd().join(&args.logs)
    };
    let occupied = std::fs::read_dir(&dir).map(|mut d| d.next().is_some()).unwrap_or(false);
    if occupied && !args.force {
        return Err(crate::cli::FatalWithHint {
            message: format!("'{}' exists and is not empty", args.logs.display()),
            hint: "pass --force to write into it anyway, or name a new directory".into(),
        }
        .into());
    }
    if dir.exists() && !dir.is_dir() {
        return Err(anyhow!("'{}' is not a directory", args.logs.display()));
    }
    let filter = Filter {
        slugs: (!args.plans.is_empty()).then(|| args.plans.iter().map(|p| slug(p)).collect()),
        ..Filter::default()
    };
    let record = collect(repo, &filter)?;
    let files = logs::layout(&record, &Metrics::of(&record));
    for (path, text) in &files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create '{}'", parent.display()))?;
        }
        std::fs::write(&target, text).with_context(|| format!("cannot write '{}'", target.display()))?;
    }
    if !global.quiet {
        eprintln!("Wrote {} files to '{}'", files.len(), args.logs.display());
    }
    Ok(Exit::Done)
}
