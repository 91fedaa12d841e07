//! One file per subcommand: its clap `Args` and its `run`. A command turns
//! arguments and configuration into the library's options, calls the
//! library and renders the outcome (the RESULT block, or `--json`).

mod abort;
mod clean;
mod explain;
mod plan;
mod plan_html;
mod resume;
mod status;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context as _, Result};
use clap::{CommandFactory, Parser, Subcommand};

use crate::cli::config::{self, duration};
use crate::cli::{Exit, GlobalArgs, Ui};
use crate::git::Workspace;
use crate::historian::engine::Options;
use crate::historian::outcome::Outcome;
use crate::historian::plan::split::Limits;
use crate::historian::plan::{CommitPlan, PlanFile};

/// The EXAMPLES of `git historian help`.
const HELP_EXAMPLES: &str = r#"Examples:
  The man page of a command, or its full help when no page is installed:
    git historian help clean
    git historian clean --help
"#;

/// The EXAMPLES of `git historian install`.
const INSTALL_EXAMPLES: &str = r#"Examples:
  The man pages and completions, where the binary is installed (~/.cargo):
    git historian install

  Only the man pages, under another prefix, after seeing where they go:
    git historian install --man --prefix ~/.local --dry-run
    git historian install --man --prefix ~/.local
"#;

/// The EXAMPLES of `git historian`: a tour.
const EXAMPLES: &str = r#"Examples:
  See what a clean branch would hold, then build it beside the original:
    git historian plan
    git historian clean

  Answer the question a large commit stopped at, or give up:
    git historian status
    git historian resume --answer 2
    git historian abort
"#;

/// Rewrite a messy feature branch into a clean branch of logical commits.
///
/// git-historian builds `<branch>-<YYYYMMDD-HHMMSS>-clean` next to the original
/// branch, commit by commit in memory, and checks that its final tree is
/// byte-identical to the original tip. It never touches the working tree, the
/// index, HEAD or the original branch. When a decision needs a person it stops
/// with a RESULT: QUESTION that `git historian resume --answer <N>` continues
/// from; the pending session lives in refs/historian/<branch>.
#[derive(Debug, Parser)]
#[command(
    name = "git-historian",
    version,
    bin_name = "git historian",
    display_name = "git-historian",
    disable_help_subcommand = true,
    subcommand_required = true,
    arg_required_else_help = true,
    after_long_help = EXAMPLES
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Clean(clean::Args),
    Plan(plan::Args),
    Resume(resume::Args),
    Status(status::Args),
    Abort(abort::Args),
    #[command(after_long_help = HELP_EXAMPLES)]
    Help(crate::cli::man_pages::HelpArgs),
    #[command(after_long_help = INSTALL_EXAMPLES)]
    Install(crate::cli::man_pages::InstallArgs),
}

/// The whole command-line definition, with every subcommand named for its man
/// page (`git-historian-clean`) and its usage line (`git historian clean`).
pub fn command() -> clap::Command {
    crate::cli::name_subcommands(Cli::command())
}

pub fn run(cli: Cli) -> Result<Exit> {
    let ui = Ui {
        quiet: cli.global.quiet,
    };
    match cli.command {
        Command::Clean(args) => clean::run(args, ui),
        Command::Plan(args) => plan::run(args, ui),
        Command::Resume(args) => resume::run(args, ui),
        Command::Status(args) => status::run(args, ui),
        Command::Abort(args) => abort::run(args, ui),
        Command::Help(args) => crate::cli::man_pages::help(&args, "git-historian", command(), &ui),
        Command::Install(args) => {
            crate::cli::man_pages::install(&args, "git-historian", crate::cli::shipped::HISTORIAN)
        }
    }
}

/// Removes the `--verify-each` worktrees of runs that are gone (killed:
/// no handler ran), each named in a warning; returns their paths.
fn sweep_verify_worktrees(repo: &crate::git::Repo, ui: Ui) -> Result<Vec<PathBuf>> {
    let swept = crate::historian::execute::verify_each::remove_stale(repo)?;
    for path in &swept {
        ui.warning(format!(
            "removed the --verify-each worktree '{}' a stopped run left",
            path.display()
        ));
    }
    Ok(swept)
}

/// Exit statuses of each command, for its man page.
pub fn exit_statuses(path: &[&str]) -> Vec<(Exit, &'static str)> {
    match path {
        ["clean"] | ["resume"] => RESULT_EXIT_STATUS.to_vec(),
        ["plan"] => plan::EXIT_STATUS.to_vec(),
        ["status"] => status::EXIT_STATUS.to_vec(),
        ["abort"] => abort::EXIT_STATUS.to_vec(),
        ["help"] => crate::cli::man_pages::HELP_EXIT_STATUS.to_vec(),
        ["install"] => crate::cli::man_pages::INSTALL_EXIT_STATUS.to_vec(),
        _ => {
            vec![
            (Exit::Done, "SUCCESS: the clean branch is made (or the command did what it says)"),
            (
                Exit::Failed,
                "ERROR: a step failed (no base, nothing to rewrite, a tree mismatch, a failing --verify-each commit)",
            ),
            (Exit::Stopped, "QUESTION: a person must decide; answer with git historian resume --answer <N>"),
            (
                Exit::Fatal,
                "fatal: not a git repository, not a branch, a bad plan file, a stale answer, or bad state",
            ),
            (Exit::Usage, "the command line was wrong"),
        ]
        }
    }
}

const RESULT_EXIT_STATUS: [(Exit, &str); 6] = [
    (Exit::Done, "RESULT: SUCCESS — the clean branch is made and its tree is the original tip's"),
    (
        Exit::Failed,
        "RESULT: ERROR — a step failed: no base, no commits beyond it, a tree mismatch, a failing --verify-each commit, a commit writer's error; nothing is left behind",
    ),
    (
        Exit::Stopped,
        "RESULT: QUESTION — a person must decide; the session waits in refs/historian/<branch>",
    ),
    (
        Exit::Fatal,
        "fatal: not a git repository, not a branch, an unreadable or invalid plan file, a stale answer, or bad state; nothing is written",
    ),
    (Exit::Usage, "the command line was wrong"),
    (
        Exit::Interrupted,
        "interrupted (Ctrl-C) while --verify-each ran; its worktree is removed and nothing is written",
    ),
];

/// Options shared by `clean` and `plan`.
#[derive(Clone, Debug, clap::Args)]
pub struct RewriteArgs {
    /// The branch to rewrite (default: the current branch).
    pub branch: Option<String>,

    /// Start the clean branch at the merge base of this revision and the
    /// branch (default: historian.base, else origin/HEAD, origin/main,
    /// origin/master, main or master; a local main ahead of origin/main
    /// whose unpushed commits the branch forked from is preferred to it, and
    /// the plan says so).
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,

    /// Build exactly this commit plan (YAML or JSON, the shape `plan --json`
    /// prints) instead of planning.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub plan: Option<PathBuf>,

    /// Ask before making a commit of more files than this (historian.maxFiles, 15).
    #[arg(long, value_name = "N", value_parser = crate::cli::at_least_one::<u64>)]
    pub max_files: Option<u64>,

    /// Ask before making a commit of more changed lines than this (historian.maxLines, 500).
    #[arg(long, value_name = "N", value_parser = crate::cli::at_least_one::<u64>)]
    pub max_lines: Option<u64>,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The library's options from the command line and the configuration.
pub(crate) fn options(workspace: &Workspace, args: &RewriteArgs, branch: &str) -> Result<Options> {
    let config = workspace.config();
    let mut options = Options::new(workspace.root().to_owned())?;
    options.base = args.base.clone();
    options.config_base = config
        .string(config::HISTORIAN_BASE.name)
        .filter(|s| !s.trim().is_empty());
    if let Some(remote) = config
        .string(&format!("branch.{branch}.remote"))
        .filter(|r| !r.is_empty() && r != ".")
    {
        options.remote = remote;
    }
    options.limits = Limits {
        files: limit(
            args.max_files,
            config,
            &config::HISTORIAN_MAX_FILES,
            options.limits.files,
        )?,
        lines: limit(
            args.max_lines,
            config,
            &config::HISTORIAN_MAX_LINES,
            options.limits.lines,
        )?,
    };
    if let Some(path) = &args.plan {
        options.plan_file = Some(read_plan(&workspace.cwd().join(path), path)?);
    }
    runtime_options(workspace, &mut options)?;
    Ok(options)
}

/// The settings `resume` reads from the configuration as `clean` does.
pub(crate) fn runtime_options(workspace: &Workspace, options: &mut Options) -> Result<()> {
    let config = workspace.config();
    options.commit_writer = config
        .string(config::HISTORIAN_COMMIT_WRITER.name)
        .filter(|s| !s.trim().is_empty());
    options.writer_timeout = duration(config, &config::HISTORIAN_COMMIT_WRITER_TIMEOUT)?;
    options.verify_timeout = duration(config, &config::HISTORIAN_VERIFY_TIMEOUT)?;
    Ok(())
}

fn limit(option: Option<u64>, config: &crate::git::GitConfig, key: &config::Key, default: usize) -> Result<usize> {
    if let Some(n) = option {
        return Ok(n as usize);
    }
    match config.integer(key.name)? {
        None => Ok(default),
        Some(n) if n >= 1 => Ok(n as usize),
        Some(n) => Err(anyhow!(
            "bad config value '{n}' for '{}': it must be at least 1",
            key.name
        )),
    }
}

fn read_plan(path: &Path, shown: &Path) -> Result<PlanFile> {
    // A regular file only (not a FIFO or a device), of at most 16 MiB.
    let bytes = crate::input::read_regular(path, 16 << 20)
        .with_context(|| format!("cannot read the plan '{}'", shown.display()))?;
    let text =
        crate::input::utf8_text(bytes).map_err(|why| anyhow!("cannot read the plan '{}': {why}", shown.display()))?;
    CommitPlan::parse_file(&text).map_err(|e| anyhow!("'{}' is not a commit plan: {e}", shown.display()))
}

/// Prints an outcome (text or JSON) and returns its exit status.
pub(crate) fn render(outcome: &Outcome, json: bool, ui: Ui) -> Result<Exit> {
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&outcome.json())?)?;
    } else {
        write!(out, "{}", outcome.block().render())?;
    }
    out.flush()?;
    Ok(match outcome {
        Outcome::Success(done) => {
            if !json {
                ui.hint(adopt_hint(done));
            }
            Exit::Done
        }
        Outcome::Error(failed) => {
            if let Some(hint) = &failed.hint {
                ui.hint(hint);
            }
            Exit::Failed
        }
        Outcome::Question(asked) => {
            ui.hint(format!(
                "answer with: git historian resume --answer <N>{}\nor drop the session with: git historian abort",
                match asked.session.strip_prefix(crate::historian::session::PREFIX) {
                    Some(b) => format!(" {}", crate::cli::shell::shell_word(b)),
                    None => String::new(),
                }
            ));
            Exit::Stopped
        }
    })
}

/// What to do with a clean branch: the original branch is left as it was,
/// so adopting the clean one is a choice, and so is going back.
fn adopt_hint(done: &crate::historian::outcome::Done) -> String {
    let word = |w: &str| crate::cli::shell::shell_word(w).into_owned();
    let (branch, clean) = (word(&done.original_branch), word(&done.clean_branch));
    format!(
        "'{}' is unchanged. To adopt the clean branch in its place:\n  git switch {branch} && git reset --keep {clean}\nTo go back afterwards (the original tip is {}):\n  git switch {branch} && git reset --keep {}\nTo drop the clean branch instead: git branch -D {clean}",
        done.original_branch, done.tip_short, done.tip_short
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_definition_is_consistent() {
        super::command().debug_assert();
    }
}
