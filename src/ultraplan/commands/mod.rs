//! One file per subcommand: its clap `Args` and its `run`. A command turns
//! arguments into the library's options, calls the library and renders the
//! outcome (human or `--json`).

mod agents;
mod billing;
mod check;
mod clean;
mod executor_args;
mod export;
mod hook;
mod import;
mod log;
mod outcome;
mod plan_choices;
mod report;
mod result;
mod run;
mod show;
mod stats;
mod status;
mod sync;
mod work;

use clap::{CommandFactory, Parser, Subcommand};

use crate::cli::{Exit, GlobalArgs};

use crate::ultraplan::plan::load::{load_plan, load_plan_with};

/// The EXAMPLES of `git ultraplan hook`.
const HOOK_EXAMPLES: &str = r#"Examples:
  Install the gate, then push as usual:
    git ultraplan hook install
    git push origin feature
"#;

/// The EXAMPLES of `git ultraplan outcome`.
const OUTCOME_EXAMPLES: &str = r#"Examples:
  Record an outcome, then find it again:
    git ultraplan outcome log --task "Build auth endpoint" --agent builder --success
    git ultraplan outcome search auth
"#;

/// The EXAMPLES of `git ultraplan result`.
const RESULT_EXAMPLES: &str = r#"Examples:
  Validate an executor's result file:
    git ultraplan result check result.yaml
"#;

/// The EXAMPLES of `git ultraplan help`.
const HELP_EXAMPLES: &str = r#"Examples:
  The man page of a command, or its full help when no page is installed:
    git ultraplan help run
    git ultraplan run --help
"#;

/// The EXAMPLES of `git ultraplan install`.
const INSTALL_EXAMPLES: &str = r#"Examples:
  The man pages and completions, where the binary is installed (~/.cargo):
    git ultraplan install

  Only the man pages, under another prefix, after seeing where they go:
    git ultraplan install --man --prefix ~/.local --dry-run
    git ultraplan install --man --prefix ~/.local
"#;

/// The EXAMPLES of `git ultraplan`: a tour.
const EXAMPLES: &str = r#"Examples:
  A first run: check the plan, run it, read what it recorded:
    git ultraplan check plan.md
    git ultraplan run plan.md
    git ultraplan status
    git ultraplan log plan.md
    git notes --ref=ultraplan show HEAD

  Share the results through origin, and refuse pushes of failed checkpoints:
    git ultraplan sync --setup
    git ultraplan hook install
    git ultraplan sync
"#;

/// Run implementation plans step by step with verified checkpoints.
///
/// git-ultraplan reads a Markdown plan — an ultraplan with `### Step N:`
/// steps, a session spec, or a task plan with `<task>` elements — and executes
/// it step by step. It never trusts an executor's word: it runs each step's
/// Verify command itself (exit code is truth), applies the step's failure
/// policy, commits a checkpoint per passed step and records every result in
/// git notes and refs.
///
/// A plan whose Execution Strategy has two or more sessions runs them in
/// parallel, each in its own linked worktree, and merges them back one at a
/// time as `--no-ff` merge commits; a conflict changes nothing. `status`,
/// `log` and `show` read the recorded state; `clean` removes what a killed
/// run left behind; `sync` shares results and run states through a remote,
/// and `hook pre-push` refuses a push whose checkpoints' results failed.
#[derive(Debug, Parser)]
#[command(
    name = "git-ultraplan",
    version,
    bin_name = "git ultraplan",
    display_name = "git-ultraplan",
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
    Run(run::Args),
    Check(check::Args),
    Status(status::Args),
    Log(log::Args),
    Show(show::Args),
    #[command(subcommand, after_long_help = RESULT_EXAMPLES)]
    Result(result::ResultCommand),
    Clean(clean::Args),
    Stats(stats::Args),
    Export(export::Args),
    Report(report::Args),
    Import(import::Args),
    Sync(sync::Args),
    Work(work::Args),
    Agents(agents::Args),
    #[command(subcommand, after_long_help = HOOK_EXAMPLES)]
    Hook(hook::HookCommand),
    #[command(subcommand, after_long_help = OUTCOME_EXAMPLES)]
    Outcome(outcome::OutcomeCommand),
    #[command(after_long_help = HELP_EXAMPLES)]
    Help(crate::cli::man_pages::HelpArgs),
    #[command(after_long_help = INSTALL_EXAMPLES)]
    Install(crate::cli::man_pages::InstallArgs),
}

/// The whole command-line definition, with every subcommand named for its man
/// page (`git-ultraplan-check`) and its usage line (`git ultraplan check`).
pub fn command() -> clap::Command {
    crate::cli::name_subcommands(Cli::command())
}

pub fn run(cli: Cli) -> anyhow::Result<Exit> {
    match cli.command {
        Command::Run(args) => run::run(args, &cli.global),
        Command::Check(args) => check::run(args, &cli.global),
        Command::Status(args) => status::run(args, &cli.global),
        Command::Log(args) => log::run(args, &cli.global),
        Command::Show(args) => show::run(args, &cli.global),
        Command::Clean(args) => clean::run(args, &cli.global),
        Command::Stats(args) => stats::run(args, &cli.global),
        Command::Export(args) => export::run(args, &cli.global),
        Command::Report(args) => report::run(args, &cli.global),
        Command::Import(args) => import::run(args, &cli.global),
        Command::Result(result::ResultCommand::Check(args)) => result::run_check(args, &cli.global),
        Command::Sync(args) => sync::run(args, &cli.global),
        Command::Work(args) => work::run(args, &cli.global),
        Command::Agents(args) => agents::run(args, &cli.global),
        Command::Hook(command) => hook::run(command, &cli.global),
        Command::Outcome(command) => outcome::run(command, &cli.global),
        Command::Help(args) => crate::cli::man_pages::help(
            &args,
            "git-ultraplan",
            command(),
            &crate::cli::Ui {
                quiet: cli.global.quiet,
            },
        ),
        Command::Install(args) => {
            crate::cli::man_pages::install(&args, "git-ultraplan", crate::cli::shipped::ULTRAPLAN)
        }
    }
}

/// The plans `status` and `log` look at: the one named (by its slug, and
/// as [`plan_location`](crate::ultraplan::plan::load::plan_location) names
/// it), or every plan with state here.
struct PlanSelection {
    slugs: Vec<String>,
    wanted: Option<String>,
}

impl PlanSelection {
    fn of(plan: Option<&std::path::Path>, repo: &crate::git::Repo) -> anyhow::Result<PlanSelection> {
        let slugs = match plan {
            Some(plan) => vec![crate::ultraplan::state::slug(plan)],
            None => crate::ultraplan::state::catalog::slugs(repo)?,
        };
        let wanted = plan.map(|p| {
            crate::ultraplan::plan::load::plan_location(p, repo.workdir().unwrap_or(std::path::Path::new("."))).0
        });
        Ok(PlanSelection { slugs, wanted })
    }
}

/// For `status`, `log`, `show` and `report` of one plan of which no run is
/// recorded: `Ok` when the argument is a plan that has not run yet (the
/// listings say so and exit 0; `show` and `report`, with nothing to show,
/// fail); a fatal error naming the argument when nothing is there, or when
/// it is no plan (as `check` and `run` would say). A plan whose file is gone
/// but whose runs are recorded never comes here: its runs are shown.
pub(crate) fn plan_without_runs(plan: &std::path::Path) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(plan).is_err() {
        return Err(crate::error::FatalWithHint {
            message: format!("'{}' does not exist, and no run of it is recorded", plan.display()),
            hint: "'git ultraplan status' lists the plans that have run here".into(),
        }
        .into());
    }
    load_plan_with(plan, &Default::default()).map(|_| ())
}

/// For `status`, `log` and friends: whether a state recorded for `recorded`
/// belongs to the plan named on the command line (`wanted`, as
/// [`plan_location`](crate::ultraplan::plan::load::plan_location) names it). Plans with the same file name share a slug;
/// a state of another one is not shown as this one's, with a warning.
pub fn state_belongs(recorded: &str, wanted: Option<&str>, ui: &crate::cli::Ui) -> bool {
    match wanted {
        Some(w) if w != recorded => {
            ui.warning(format_args!(
                "the state under this name belongs to '{recorded}', not to '{w}'"
            ));
            false
        }
        _ => true,
    }
}

/// Exit statuses of each command, for its man page.
pub fn exit_statuses(path: &[&str]) -> Vec<(Exit, &'static str)> {
    match path {
        ["run"] => run::EXIT_STATUS.to_vec(),
        ["check"] => check::EXIT_STATUS.to_vec(),
        ["status"] => status::EXIT_STATUS.to_vec(),
        ["log"] => log::EXIT_STATUS.to_vec(),
        ["show"] => show::EXIT_STATUS.to_vec(),
        ["clean"] => clean::EXIT_STATUS.to_vec(),
        ["stats"] => stats::EXIT_STATUS.to_vec(),
        ["export"] => export::EXIT_STATUS.to_vec(),
        ["report"] => report::EXIT_STATUS.to_vec(),
        ["import"] => import::EXIT_STATUS.to_vec(),
        ["result", "check"] => result::EXIT_STATUS.to_vec(),
        ["sync"] => sync::EXIT_STATUS.to_vec(),
        ["work"] => work::EXIT_STATUS.to_vec(),
        ["agents"] => agents::EXIT_STATUS.to_vec(),
        ["hook", "pre-push"] => hook::PRE_PUSH_EXIT_STATUS.to_vec(),
        ["hook", "install"] => hook::INSTALL_EXIT_STATUS.to_vec(),
        ["outcome", ..] => outcome::EXIT_STATUS.to_vec(),
        ["help"] => crate::cli::man_pages::HELP_EXIT_STATUS.to_vec(),
        ["install"] => crate::cli::man_pages::INSTALL_EXIT_STATUS.to_vec(),
        _ => Exit::DOCUMENTED.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_definition_is_consistent() {
        super::command().debug_assert();
    }
}
