//! `git ultraplan run [MODE] <plan>`: execute a plan. The command reads the
//! plan, [`launch`] decides the run from the command line and the
//! configuration and starts it, [`progress`] shows it while it goes,
//! [`report`] renders what the engine reports.

mod completed;
mod launch;
mod progress;
mod report;
mod unverified;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::cli::config;
use crate::cli::progress::StatusLine;
use crate::cli::{Exit, GlobalArgs, Ui};
use crate::git::Workspace;
use crate::process;
use crate::ultraplan::engine::{self, PlanInput, RunOptions, RunResult};
use crate::ultraplan::plan::load::{load_plan_seen, plan_location};
use crate::ultraplan::state;
use launch::Prepared;
use progress::LiveProgress;

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Check a plan, then run it; each passed step becomes a commit:
    git ultraplan check plan.md
    git ultraplan run plan.md

  Continue a run that stopped (a failed step fixed, a killed process):
    git ultraplan run --resume plan.md

  Let a coding agent make the changes, with up to five attempts a step:
    git ultraplan run --executor claude --max-attempts 5 plan.md

  Run only step 2, or only session 1 of a parallel plan:
    git ultraplan run --step 2 plan.md
    git ultraplan run --session 1 plan.md

  Answer the check a run waits at, and go on:
    git ultraplan run --resume --answer approved plan.md

  Run a GSD phase directory's plans as parallel sessions, two at a time:
    git ultraplan run -j 2 .planning/phases/01-foundation/

  Publish the sessions for workers in other clones ('git ultraplan work'):
    git ultraplan run --distribute plan.md
"#;

/// Execute a plan step by step, verifying and committing each step.
///
/// Each step is carried out by an executor (the built-in shell by default, a
/// coding agent, or a person); then git-ultraplan runs the step's Verify command
/// itself — the exit code decides — applies the step's On failure policy,
/// commits a checkpoint of exactly what the step changed (never your own
/// uncommitted edits; a path outside the step's Files is committed with a
/// warning, one it must never touch is restored and fails the attempt),
/// and records the result in
/// the run state (refs/ultraplan/<plan>/run) and as a note on the checkpoint
/// commit (refs/notes/ultraplan). A run killed at any moment continues with
/// --resume. At its end, as git's own commands do after writing objects, it
/// runs `git maintenance run --auto`, which packs the loose objects once
/// there are more than gc.auto allows (gc.auto=0 turns it off).
///
/// Without a mode, a plan whose Execution Strategy has two or more sessions
/// runs them in worktrees; every other plan runs in the foreground. A plan
/// whose recorded run completed is not run again (steps need not be
/// idempotent): the command says so and exits 0; --again starts a new run.
/// --resume of a completed run runs only steps added to the plan since;
/// with none, it says so, exits 0 and writes nothing.
///
/// A Verify runs with `pipefail` (`sh -o pipefail -c`, or bash where sh
/// lacks it): any failing command of a pipe fails it (`npm test | tail -5`
/// fails with the tests). A Verify of several lines (a fenced block) also
/// runs with `set -e`: any failing line fails it. An expected literal (→ expected: `ok`) must appear in
/// the output; one that begins or ends with a digit is not found inside a
/// longer number (`3` is not in `3.5` or `13`). Verify commands and shell
/// blocks run code: read a plan you did not write with `check` or
/// `--dry-run` first.
///
/// The results are git notes under refs/notes/ultraplan: read one with
/// `git notes --ref=ultraplan show <checkpoint>` (a bare `git notes show`
/// reads refs/notes/commits, which ultraplan leaves to you). For a task
/// plan, a passed task's checkbox is ticked (`- [x] Task N: … (completed
/// DATE)`) and its `<task>` gets `status="completed" completed_at="…"`,
/// committed with its checkpoint; a resume does not count these as a
/// change of the plan.
///
/// Executors. `shell` (the default) runs the Changes field's `sh` blocks and
/// applies its `diff` blocks. An agent's name — claude, codex, gemini,
/// opencode, cursor, aider, goose, qwen or amp — runs that coding-agent CLI
/// headless through its adapter, in the least permissive mode that lets it
/// edit files without asking (`git ultraplan agents` lists the flags; a
/// permission flag in ultraplan.<agent>.args replaces it). What the agent
/// reports — its final text, session, model, turns, tokens and cost — is
/// recorded in the result's metadata and the note as its claims. An agent
/// that exits 0 with an error result, prints no result, ends its stream
/// without the final event, or stops at a turn or budget limit fails the
/// attempt in its own words; one that hangs is killed with its whole
/// process group at ultraplan.executorTimeout. A retry continues the agent's
/// session where it can (`--resume <id>`, `exec resume <id>`, `--session
/// <id>`, …), with the failed Verify's output as its prompt; the note says
/// `resumed: true`. On a terminal the status line shows what the agent is
/// doing (the tool, the file, turns, cost so far), and its whole output is
/// kept, redacted, as the attempt's transcript. The final report and
/// `ultraexecute_summary` carry the run's total cost and tokens. With an
/// API key that bills per token set for the agent (ANTHROPIC_API_KEY for
/// claude, OPENAI_API_KEY for codex, …), the run asks first, or stops (exit
/// 3) when nobody can be asked, unless --yes or ultraplan.allowApiBilling.
/// `manual` prints what the step asks for and stops for a person. Anything
/// else is a command line run with `sh -c` that speaks the command
/// protocol: the request as JSON on stdin, the ULTRAPLAN_* variables, and a
/// result YAML in $ULTRAPLAN_RESULT_FILE or as the last YAML document on
/// stdout.
///
/// A step with no Verify command (none in the plan, as in most Kiro and
/// spec-kit tasks), no check by a person and no later step that checks it
/// can pass only on the executor's word, with --allow-unverified. Without
/// the flag the run refuses such a plan before it writes anything (exit
/// 128), naming the steps it would run that have none — as `check` names
/// them as a problem unless given the same flag.
///
/// A step for a person — a GSD checkpoint task, or a Verify written as prose
/// rather than a command — stops the run (exit 3, status waiting) showing what
/// to check or decide; `--resume --answer <text>` records the answer and goes
/// on. A GSD phase directory runs its `*-PLAN.md` plans as sessions, wave by
/// wave; no step may change those plans, but the rest of the directory is
/// not the plan: a session may write its plan's SUMMARY.md there, as GSD's
/// executor does.
///
/// A plan is read only from a regular file (a symbolic link is followed to
/// one) of at most 16 MiB: a device, a named pipe or a socket is refused,
/// saying which. A plan whose name starts with '-' is given after '--'.
///
/// Everything written to git is redacted (see docs/reference/redaction.md):
/// a multi-session run refuses to commit a plan that holds what looks like a
/// secret (it would reach the branch as it is), and --distribute refuses to
/// push one; a file named like a secret is kept out of the run state's
/// snapshots, with a warning, and comes back from this repository on a
/// restore. A step's Files are checked where they really lead through
/// symbolic links when the step starts (links an earlier step made
/// included); what changed outside the repository while a step ran (beside
/// it, or through a link leading out) is named in a warning.
///
/// After a run was killed: 'git ultraplan clean', then --resume. A run that
/// takes the lock of one whose process is gone stops what that process left
/// running, and removes the `.lock` files of git's it left (and any other
/// whose writer is provably gone, as 'clean' does), naming each in a
/// warning. A parallel run keeps the sessions it merged and runs the others
/// again, each from its wave's base as an uninterrupted run would; a
/// distributed run goes on through the remote it used, found by its URL if
/// it was renamed since. Every commit is dated when it is made
/// (GIT_COMMITTER_DATE and GIT_AUTHOR_DATE, when set, win).
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("continuing").args(["resume", "session"]).multiple(true)))]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The plan: an ultraplan, a session spec, a task plan, a GSD phase
    /// directory of `*-PLAN.md` task plans (run as sessions, wave by wave),
    /// a spec-kit or Kiro tasks.md, a Taskmaster tasks.json or a BMAD story.
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub plan: PathBuf,

    /// Run every step here, one after another, ignoring the Execution Strategy.
    #[arg(long, group = "mode")]
    pub fg: bool,

    /// Continue the recorded run at its first step not passed or skipped
    /// (an escalated or waiting step is verified first).
    #[arg(long, group = "mode")]
    pub resume: bool,

    /// Validate and preview the plan, running nothing (the report of 'git ultraplan check').
    #[arg(long, group = "mode")]
    pub dry_run: bool,

    /// Run only step N.
    #[arg(long, value_name = "N", group = "mode")]
    pub step: Option<u32>,

    /// Run every step again as a new run, though the recorded run of the
    /// plan completed (without it, running a completed plan says so and does
    /// nothing).
    #[arg(long, group = "mode", conflicts_with = "session")]
    pub again: bool,

    /// Run only session N's steps, inside its scope fence, in this worktree
    /// (with --resume: continue session N's recorded run).
    #[arg(long, value_name = "N", conflicts_with_all = ["fg", "dry_run", "step"])]
    pub session: Option<u32>,

    /// Internal, set by a multi-session run on the sessions it starts.
    // The session's worktree is clean at COMMIT (just checked out, or proved
    // clean), so its first snapshot need not look at every file. Ignored
    // unless HEAD is COMMIT. Not for people: a wrong value makes a step's
    // files wrong.
    #[arg(long, value_name = "COMMIT", hide = true, requires = "session", value_parser = parse_commit)]
    pub clean_at: Option<crate::git::Oid>,

    #[command(flatten)]
    pub exec: super::executor_args::ExecutorArgs,

    #[command(flatten)]
    pub choices: super::plan_choices::PlanChoices,

    /// With --resume: the answer to the check or decision the run waits at
    /// (an option id or name of a decision, or any text, such as "approved").
    /// For an end-of-phase review, `N=TEXT` answers check N and a bare
    /// answer every open check; repeat --answer to answer several.
    #[arg(long, value_name = "TEXT", requires = "continuing")]
    pub answer: Vec<String>,

    /// Run at most N sessions of a wave at once (default: ultraplan.jobs, else all).
    #[arg(short = 'j', long, value_name = "N", value_parser = crate::cli::at_least_one::<u64>)]
    pub jobs: Option<u64>,

    /// Run the sessions on other clones: publish each wave on the remote
    /// (default origin), wait for workers ('git ultraplan work') to run its
    /// sessions, then merge their branches here one at a time. With --jobs N,
    /// also run up to N sessions here.
    #[arg(
        long,
        value_name = "REMOTE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "origin",
        conflicts_with_all = ["fg", "dry_run", "step", "session"]
    )]
    pub distribute: Option<String>,

    /// Print only the machine summary (`{"ultraexecute_summary": …}`), as
    /// JSON, instead of the report.
    #[arg(long)]
    pub json: bool,

    /// Also write the machine summary, as one line of JSON, to FILE (for
    /// headless runs whose report goes to a log a program reads later).
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub summary_file: Option<PathBuf>,
}

pub const EXIT_STATUS: [(Exit, &str); 6] = [
    (Exit::Done, "every step passed or was skipped"),
    (Exit::Failed, "a step failed (after its failure policy), or an exit condition failed"),
    (
        Exit::Stopped,
        "stopped for a person: a step escalated, is blocked, waits for a manual change, a check or a decision, or API billing was not confirmed",
    ),
    (
        Exit::Fatal,
        "not a repository, an unreadable or invalid plan, steps without a Verify and no --allow-unverified, an executor naming no program, a live lock, or bad state",
    ),
    (Exit::Usage, "the command line was wrong"),
    (
        Exit::Interrupted,
        "interrupted (Ctrl-C: the step's command gets SIGINT, and SIGTERM then SIGKILL 5 s apart if it goes on); the run continues with --resume",
    ),
];

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    if args.dry_run {
        return super::check::run(
            super::check::Args {
                plan: args.plan,
                json: args.json,
                executor: args.exec.executor,
                allow_unverified: args.exec.allow_unverified,
                choices: args.choices,
            },
            global,
        );
    }
    let ui = Ui { quiet: global.quiet };
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let workdir = repo.workdir()?.to_owned();
    let choices = args.choices.context();
    let (path, in_worktree) = plan_location(&args.plan, &workdir);
    // A resume reads its state while the plan is parsed (see `read_ahead`).
    let ahead = |text: &str| {
        if args.resume && args.session.is_none() {
            state::read_ahead(repo, &state::Refs::of_plan(&path).state(None), text);
        }
    };
    let (text, mut plan) = load_plan_seen(&args.plan, &choices, ahead)?;
    let cfg = workspace.config();
    let source = launch::Source {
        text: &text,
        path: &path,
        in_worktree: in_worktree.as_deref(),
        choices: &choices,
    };
    let launch = match launch::prepare(&args, repo, cfg, &mut plan, &source, &ui)? {
        Prepared::Ended(exit) => return Ok(exit),
        Prepared::Run(launch) => launch,
    };
    // A Files path leading out through a symbolic link already in the
    // worktree is a problem of the plan here, as `check` reports it (the
    // engine refuses a plan with problems before it starts; a plan found
    // done above never needed the look).
    plan.diagnostics
        .extend(crate::ultraplan::plan::check::paths_leaving(&plan, &workdir));
    let input = PlanInput {
        plan: &plan,
        text: &text,
        path,
        in_worktree,
        choices,
    };
    process::install_interrupt_handler();
    let started = std::time::Instant::now();
    let status = StatusLine::new(!global.quiet && std::io::stderr().is_terminal());
    let mut observer = LiveProgress { status: &status, ui };
    let (report, waves) = launch::start(repo, &input, &launch, &mut observer)?;
    drop(status);
    engine::stats_line::append(&report);
    if let (Some(path), None) = (cfg.string(config::STATE_FILE.name), launch.options.mode.session()) {
        match crate::ultraplan::records::state_file::commit(repo, &path) {
            Ok(Some(commit)) => ui.note(format!(
                "{} ({})",
                crate::ultraplan::records::state_file::subject(&path),
                repo.short(commit)
            )),
            Ok(_) => {}
            Err(e) => ui.warning(format!("cannot update ultraplan.stateFile '{path}': {e:#}")),
        }
    }
    record_outcomes(repo, &workspace, &report, &plan, &launch.options, started, &ui);
    // A run writes loose objects by the thousand (every step's state, note
    // and checkpoint) without git's commands that would pack them: it asks
    // git's housekeeping to look, as `git commit` does. Sessions leave it to
    // the run that started them.
    if launch.options.mode.session().is_none() {
        repo.maintain_auto();
    }
    let summary = match &waves {
        Some(w) => report::waves_json(w),
        None => report::summary_json(&report),
    };
    if let Some(file) = &args.summary_file {
        std::fs::write(file, format!("{summary}\n"))
            .with_context(|| format!("cannot write the summary to '{}'", file.display()))?;
    }
    let mut out = std::io::stdout().lock();
    // `-q`: a run that completed says nothing; one that did not still
    // says why (its report is the error).
    let silent = global.quiet && report.result == RunResult::Completed;
    match (&waves, args.json) {
        (_, true) => writeln!(out, "{}", serde_json::to_string_pretty(&summary)?)?,
        _ if silent => {}
        (Some(w), false) => out.write_all(report::render_waves(w, &input.path).as_bytes())?,
        (None, false) => out.write_all(report::render(&report, &input.path).as_bytes())?,
    }
    out.flush()?;
    Ok(match report.result {
        RunResult::Completed => Exit::Done,
        RunResult::Failed => Exit::Failed,
        RunResult::Stopped => Exit::Stopped,
        RunResult::Interrupted => Exit::Interrupted,
    })
}

/// A full commit id.
fn parse_commit(hex: &str) -> std::result::Result<crate::git::Oid, String> {
    crate::git::Oid::from_hex(hex.as_bytes()).map_err(|_| format!("'{hex}' is not a full commit id"))
}

/// Records the run's outcomes (DESIGN §17); never fails the run: a problem
/// is a warning.
fn record_outcomes(
    repo: &crate::git::Repo,
    workspace: &Workspace,
    report: &engine::RunReport,
    plan: &crate::ultraplan::plan::Plan,
    options: &RunOptions,
    started: std::time::Instant,
    ui: &Ui,
) {
    use crate::ultraplan::outcomes;
    let executor = options.executor.id();
    let run = outcomes::from_run::FinishedRun {
        report,
        plan,
        executor: &executor,
        elapsed: started.elapsed(),
    };
    let recorded = outcomes::Settings::from_config(workspace.config())
        .and_then(|settings| outcomes::from_run::record_run(repo, &run, &settings, workspace.root()));
    match recorded {
        Ok(logged) => logged.iter().flat_map(|l| &l.warnings).for_each(|w| ui.warning(w)),
        Err(err) => ui.warning(format!("the run's outcome was not recorded: {err:#}")),
    }
}
