//! `git ultraplan import FILE`: an export's run states and notes, recreated here.

use std::path::PathBuf;

use anyhow::{anyhow, Context as _, Result};

use crate::cli::{Exit, GlobalArgs};
use crate::git::Workspace;
use crate::ultraplan::records::import;

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Recreate the run states and notes of an export here:
    git ultraplan import plans.yaml

  From another clone, replacing states and notes that differ:
    git -C ../other-clone ultraplan export --all | git ultraplan import --force -
"#;

/// Recreate the run states and notes of an export in this repository.
///
/// Each run state is rebuilt commit by commit ('git log' of the state ref is
/// the audit log again) with its kept trees where their base commits are here,
/// and the notes of commits this repository has are added; everything in one
/// reference transaction at the end, so a failed import writes no reference.
/// A state that exists with other content is kept and the imported one stored
/// beside it as refs/ultraplan/<plan>/imported/<name>; a different note already
/// on a commit is kept. --force replaces both. What is left out is named.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The export ('-' for standard input).
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub file: PathBuf,

    /// Replace states and notes that exist here with other content.
    #[arg(long)]
    pub force: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the export was imported (what was left out is named on stderr)"),
    (
        Exit::Fatal,
        "not a git repository, or an export that cannot be read: unknown version, bad YAML, wrong types, paths outside a state; nothing was written",
    ),
    (Exit::Usage, "the command line was wrong"),
];

/// How many left-out things are named one by one.
const SHOWN: usize = 20;

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let bytes = if args.file.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::io::stdin(), import::MAX_BYTES as u64 + 1),
            &mut buf,
        )?;
        buf
    } else {
        let path = if args.file.is_absolute() {
            args.file.clone()
        } else {
            workspace.cwd().join(&args.file)
        };
        let len = std::fs::metadata(&path)
            .with_context(|| format!("cannot read '{}'", args.file.display()))?
            .len();
        if len > import::MAX_BYTES as u64 {
            return Err(anyhow!(
                "'{}' is larger than {} MiB",
                args.file.display(),
                import::MAX_BYTES >> 20
            ));
        }
        std::fs::read(&path).with_context(|| format!("cannot read '{}'", args.file.display()))?
    };
    let text = String::from_utf8(bytes).map_err(|_| anyhow!("'{}' is not UTF-8 text", args.file.display()))?;
    let doc = import::parse(&text).with_context(|| format!("'{}'", args.file.display()))?;
    let done = import::import(repo, &doc, args.force).with_context(|| format!("'{}'", args.file.display()))?;
    let ui = crate::cli::Ui { quiet: global.quiet };
    // Every left-out thing is named up to a screenful; a history imported
    // into a clone that lacks its commits would otherwise print one line
    // per kept tree of every step of every run.
    for what in done.skipped.iter().take(SHOWN) {
        ui.warning(format!("left out: {what}"));
    }
    if done.skipped.len() > SHOWN {
        ui.warning(format!(
            "left out: {} more like these (fetch the commits the record names, then import again)",
            done.skipped.len() - SHOWN
        ));
    }
    ui.note(format!(
        "Imported {} state(s) ({} already here) and {} note(s)",
        done.states.len(),
        done.unchanged.len(),
        done.notes_added
    ));
    for state in &done.states {
        if state.contains("/imported/") {
            ui.hint(format!(
                "a state with other content was here: the imported one is '{state}'"
            ));
        }
    }
    Ok(Exit::Done)
}
