//! `git ultraplan export`: the record as one versioned YAML document, or
//! (`--logs DIR`) as seed 000's log directory.

use std::path::PathBuf;

use anyhow::{anyhow, Context as _, Result};

use crate::cli::{Exit, GlobalArgs};
use crate::git::Workspace;
use crate::ultraplan::records::export::export as exchange_export;
use crate::ultraplan::records::{collect, logs, Filter, Metrics};
use crate::ultraplan::state::{catalog, slug};

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Move every plan's record to another clone of the project:
    git ultraplan export --all -o plans.yaml
    git -C ../other-clone ultraplan import "$PWD/plans.yaml"

  With the executors' and Verify commands' output:
    git ultraplan export --all --transcripts -o plans.yaml

  The log directory of the result capture protocol, for tools that read it:
    git ultraplan export --logs logs/
"#;

/// Write the recorded runs out, to move them to another repository.
///
/// Without --logs: one versioned YAML document (version 2) with, per plan, its
/// slug, path and text, every run with each step's attempts (status,
/// validation, warnings, duration, checkpoint), the notes of its checkpoints,
/// and the run-state chains commit by commit as the paths each commit changed
/// (so 'git ultraplan import' recreates them, audit log included), with every
/// file they name written once (a text file that changed little, as its
/// changes from the one before it; a note that is a step's record, by that
/// file's id). The document is written as it is read, so
/// its size, not the run's, bounds the memory it takes. Transcripts (the attempts' .log files) only
/// with --transcripts. Everything passes the redaction function on the way out.
///
/// `--logs DIR` instead writes `executions/<YYYY-MM-DD>/<plan-id>-task-<NN>-<status>.yaml`
/// (each attempt's record: the metadata header and the result, as the notes
/// hold it), `summary/daily-<YYYY-MM-DD>.json` and `current-session.json`
/// (the latest run), for tools that read that layout. Nothing in the
/// repository is written. A DIR that exists and is not empty needs --force.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true).args(["plans", "all", "logs"])))]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// Only these plans' runs.
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub plans: Vec<PathBuf>,

    /// Every plan with state here.
    #[arg(long, conflicts_with = "plans")]
    pub all: bool,

    /// Also the transcripts: executor and Verify output of every attempt.
    #[arg(long)]
    pub transcripts: bool,

    /// Write the document to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, conflicts_with = "logs")]
    pub output: Option<PathBuf>,

    /// Write the result capture protocol's log layout into DIR instead of the document.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub logs: Option<PathBuf>,

    /// With --logs: write into a directory that is not empty (files of the
    /// same name are replaced).
    #[arg(long, requires = "logs")]
    pub force: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the logs were written"),
    (
        Exit::Fatal,
        "not a git repository, unreadable state, a plan named with no run recorded, or DIR not empty without --force or not writable",
    ),
    (Exit::Usage, "the command line was wrong"),
];

/// The record's filter for `--logs`: the plans named, every run of them.
fn options(slugs: Option<Vec<String>>) -> Filter {
    Filter {
        slugs,
        // The logs hold every attempt's record.
        records: true,
        ..Filter::default()
    }
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let slugs: Option<Vec<String>> = (!args.plans.is_empty()).then(|| args.plans.iter().map(|p| slug(p)).collect());
    // A plan named on the command line with nothing recorded is most
    // likely a mistyped path: say so rather than export nothing.
    for (plan, slug) in args.plans.iter().zip(slugs.iter().flatten()) {
        if catalog::states(repo, slug)?.is_empty() {
            return Err(anyhow!("no run of '{}' is recorded; nothing exported", plan.display()));
        }
    }
    let Some(logs_dir) = &args.logs else {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        match &args.output {
            Some(file) => {
                let path = if file.is_absolute() {
                    file.clone()
                } else {
                    workspace.cwd().join(file)
                };
                // Written beside and renamed: a failed export leaves no half file.
                let tmp = path.with_extension("ultraplan-export.tmp");
                let written = (|| -> Result<usize> {
                    let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
                    let count = exchange_export(repo, slugs.as_deref(), args.transcripts, &now, &mut out)?;
                    std::io::Write::flush(&mut out)?;
                    std::fs::rename(&tmp, &path)?;
                    Ok(count)
                })();
                let count = match written {
                    Ok(count) => count,
                    Err(e) => {
                        let _ = std::fs::remove_file(&tmp);
                        return Err(e.context(format!("cannot write '{}'", file.display())));
                    }
                };
                if !global.quiet {
                    eprintln!("Exported {count} plan(s) to '{}'", file.display());
                }
            }
            None => {
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                exchange_export(repo, slugs.as_deref(), args.transcripts, &now, &mut out)?;
                std::io::Write::flush(&mut out)?;
            }
        }
        return Ok(Exit::Done);
    };
    let dir = if logs_dir.is_absolute() {
        logs_dir.clone()
    } else {
        workspace.cwd().join(logs_dir)
    };
    let occupied = std::fs::read_dir(&dir).map(|mut d| d.next().is_some()).unwrap_or(false);
    if occupied && !args.force {
        return Err(crate::error::FatalWithHint {
            message: format!("'{}' exists and is not empty", logs_dir.display()),
            hint: "pass --force to write into it anyway, or name a new directory".into(),
        }
        .into());
    }
    if dir.exists() && !dir.is_dir() {
        return Err(anyhow!("'{}' is not a directory", logs_dir.display()));
    }
    let record = collect(repo, &options(slugs))?;
    let files = logs::layout(&record, &Metrics::of(&record));
    for (path, text) in &files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create '{}'", parent.display()))?;
        }
        std::fs::write(&target, text).with_context(|| format!("cannot write '{}'", target.display()))?;
    }
    if !global.quiet {
        eprintln!("Wrote {} files to '{}'", files.len(), logs_dir.display());
    }
    Ok(Exit::Done)
}
