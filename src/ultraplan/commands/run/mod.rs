//! `git ultraplan run [MODE] <plan>`: execute a plan. [`progress`] shows
//! the run while it goes, [`report`] renders what the engine reports.

mod completed;
mod progress;
mod report;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{anyhow, Result};

use crate::cli::config::{self, duration};
use crate::cli::progress::StatusLine;
use crate::cli::{Exit, GlobalArgs, Ui};
use crate::git::Workspace;
use crate::process;
use crate::ultraplan::distribute;
use crate::ultraplan::engine::{self, Mode, PlanInput, RunOptions, RunResult};
use crate::ultraplan::exec::{AgentSettings, Executor};
use crate::ultraplan::plan::load::plan_location;
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
/// --resume.
///
/// Without a mode, a plan whose Execution Strategy has two or more sessions
/// runs them in worktrees; every other plan runs in the foreground. A plan
/// whose recorded run completed is not run again (steps need not be
/// idempotent): the command says so and exits 0; --again starts a new run.
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
/// A step for a person — a GSD checkpoint task, or a Verify written as prose
/// rather than a command — stops the run (exit 3, status waiting) showing what
/// to check or decide; `--resume --answer <text>` records the answer and goes
/// on. A GSD phase directory runs its `*-PLAN.md` plans as sessions, wave by
/// wave.
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
    /// The plan: an ultraplan, a session spec, a task plan, or a GSD phase
    /// directory of `*-PLAN.md` task plans (run as sessions, wave by wave).
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
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
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
        "not a repository, an unreadable or invalid plan, an executor naming no program, a live lock, or bad state",
    ),
    (Exit::Usage, "the command line was wrong"),
    (Exit::Interrupted, "interrupted (Ctrl-C); the run continues with --resume"),
];

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    if args.dry_run {
        return super::check::run(
            super::check::Args {
                plan: args.plan,
                json: args.json,
                executor: args.exec.executor,
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
    let (text, mut plan) = super::load_plan_with(&args.plan, &choices)?;
    // A Files path leading out through a symbolic link already in the
    // worktree is a problem of the plan here, as `check` reports it.
    plan.diagnostics
        .extend(crate::ultraplan::plan::check::paths_leaving(&plan, &workdir));
    let (path, in_worktree) = plan_location(&args.plan, &workdir);
    let cfg = workspace.config();

    let mode = mode(&args);
    let in_waves = !args.fg
        && plan.is_multi_session()
        && match mode {
            Mode::Execute => true,
            Mode::Resume => engine::waves::resumes_sessions(
                repo,
                &PlanInput {
                    plan: &plan,
                    text: &text,
                    path: path.clone(),
                    in_worktree: in_worktree.clone(),
                    choices: choices.clone(),
                },
            )?,
            _ => false,
        };
    // A multi-session plan git cannot commit (inside `.git`) is a problem of
    // the plan for a run in sessions, as `check` reports it.
    if in_waves && in_worktree.is_some() {
        plan.diagnostics
            .extend(crate::ultraplan::plan::check::placement_problem(
                &plan,
                in_worktree.as_deref(),
            ));
    }
    // A distributed run goes on through its remote when resumed.
    let distribute = match (&args.distribute, mode) {
        (Some(remote), _) => Some(crate::ultraplan::sync::resolve_remote(repo, Some(remote))?),
        (None, Mode::Resume) => {
            match distribute::remembered_remote(repo, &crate::ultraplan::state::slug(std::path::Path::new(&path)))? {
                Some(remembered) => {
                    if let Some(old) = &remembered.renamed_from {
                        ui.warning(format_args!(
                            "the remote '{old}' of this distributed run is called '{}' now; going on there",
                            remembered.remote
                        ));
                    }
                    Some(remembered.remote)
                }
                None => None,
            }
        }
        (None, _) => None,
    };
    // A distributed run pushes the plan's commit to the remote: a plan that
    // holds what looks like a secret is not pushed (DESIGN §2 invariant 6).
    if let (Some(remote), Some(found)) = (&distribute, crate::redact::secrets_found(&text)) {
        return Err(crate::error::FatalWithHint {
            message: format!(
                "the plan '{path}' holds what looks like {found}; --distribute would push it to '{remote}' as it is"
            ),
            hint: "take the secret out of the plan (let the step read it from the environment) and run again".into(),
        }
        .into());
    }
    if distribute.is_some() && !in_waves {
        return Err(crate::error::FatalWithHint {
            message: format!("'{}' has no sessions to distribute", args.plan.display()),
            hint: "--distribute runs a plan whose Execution Strategy has two or more sessions".into(),
        }
        .into());
    }
    if mode == Mode::Execute && !args.again {
        if let Some(done) = completed::completed_run(repo, &path)? {
            completed::report(&done, &text, &args.plan.display().to_string(), args.json, &ui)?;
            return Ok(Exit::Done);
        }
    }
    let recorded = match mode {
        Mode::Resume | Mode::ResumeSession(_) if args.exec.executor.is_none() => recorded_executor(repo, &path, mode)?,
        _ => None,
    };
    let executor = match recorded {
        Some(executor) => executor,
        None => Executor::parse(
            &args
                .exec
                .executor
                .clone()
                .unwrap_or_else(|| config::string(cfg, &config::EXECUTOR)),
        ),
    };
    let agent = agent_settings(cfg, &executor)?;
    executor.ensure_found(&workdir, &agent)?;
    if in_waves && executor == Executor::Manual {
        // A person works in the worktree a step stopped in; session
        // worktrees are removed when the run stops.
        return Err(crate::error::FatalWithHint {
            message: "the manual executor cannot run parallel sessions: their worktrees are removed when the run stops".into(),
            hint: format!(
                "run the steps here with 'git ultraplan run --fg --executor manual {}', or one session with --session N",
                crate::cli::shell::operand(&args.plan.display().to_string())
            ),
        }
        .into());
    }
    // Asked once, before anything (any session) starts.
    if !super::billing::billing_confirmed(&executor, args.exec.yes, cfg, &ui)? {
        return Ok(Exit::Stopped);
    }
    let options = options(&args, cfg, mode, executor, agent)?;
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
    let (report, waves) = if in_waves {
        let wave_options = wave_options(&args, cfg, &options)?;
        let waves = match &distribute {
            Some(remote) => {
                let mut orchestrator = orchestrator(repo, remote, &args, cfg, &input, &options, &wave_options)?;
                engine::waves::run_waves_with(
                    repo,
                    &input,
                    &options,
                    &wave_options,
                    Some(&mut orchestrator),
                    &mut observer,
                )?
            }
            None => engine::waves::run_waves(repo, &input, &options, &wave_options, &mut observer)?,
        };
        (waves.run.clone(), Some(waves))
    } else {
        (engine::run(repo, &input, &options, &mut observer)?, None)
    };
    drop(status);
    engine::stats_line::append(&report);
    if let (Some(path), None) = (cfg.string(config::STATE_FILE.name), mode.session()) {
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
    record_outcomes(repo, &workspace, &report, &plan, &options, started, &ui);
    let summary = match &waves {
        Some(w) => report::waves_json(w),
        None => report::summary_json(&report),
    };
    if let Some(file) = &args.summary_file {
        std::fs::write(file, format!("{summary}\n"))
            .map_err(|e| anyhow!("cannot write the summary to '{}': {e}", file.display()))?;
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

/// The mode the command line asks for.
fn mode(args: &Args) -> Mode {
    match (args.resume, args.step, args.session) {
        (true, _, Some(n)) => Mode::ResumeSession(n),
        (true, _, None) => Mode::Resume,
        (_, Some(n), _) => Mode::Step(n),
        (_, _, Some(n)) => Mode::Session(n),
        _ => Mode::Execute,
    }
}

/// Bytes of output kept per stream: at least 1 KiB, at most 1 GiB, whatever
/// ultraplan.transcriptCap says.
const TRANSCRIPT_CAP_BOUNDS: (i64, i64) = (1024, 1 << 30);

/// Files of ignored files a snapshot keeps at most (ultraplan.snapshotIgnoredMax bounds their bytes).
const SNAPSHOT_IGNORED_FILES: usize = 1000;

/// The library's options from the command line and the configuration.
fn options(
    args: &Args,
    cfg: &crate::git::GitConfig,
    mode: Mode,
    executor: Executor,
    agent: AgentSettings,
) -> Result<RunOptions> {
    let max_attempts = args.exec.max_attempts(cfg)?;
    let (least, most) = TRANSCRIPT_CAP_BOUNDS;
    let cap = config::integer(cfg, &config::TRANSCRIPT_CAP)?.clamp(least, most) as usize;
    Ok(RunOptions {
        mode,
        executor,
        max_attempts,
        executor_timeout: duration(cfg, &config::EXECUTOR_TIMEOUT)?,
        verify_timeout: duration(cfg, &config::VERIFY_TIMEOUT)?,
        transcript_cap: cap,
        ignored_bound: crate::git::IgnoredBound {
            bytes: config::integer(cfg, &config::SNAPSHOT_IGNORED_MAX)?.max(0) as u64,
            files: SNAPSHOT_IGNORED_FILES,
        },
        allow_unverified: args.exec.allow_unverified,
        answers: args.answer.clone(),
        lock_timeout: duration(cfg, &config::LOCK_TIMEOUT)?,
        agent,
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        clean_at: args.clean_at,
    })
}

/// `ultraplan.<agent>.path` and `.args` of an agent executor (default
/// settings for the others).
pub(super) fn agent_settings(cfg: &crate::git::GitConfig, executor: &Executor) -> Result<AgentSettings> {
    match executor.agent() {
        Some(agent) => config::agent_settings(cfg, agent.name()),
        None => Ok(AgentSettings::default()),
    }
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

/// The executor the run being resumed used: a resumed run goes on with it
/// unless --executor says otherwise (a person's manual run stays manual).
fn recorded_executor(repo: &crate::git::Repo, plan_path: &str, mode: Mode) -> Result<Option<Executor>> {
    let refs = crate::ultraplan::state::Refs::new(crate::ultraplan::state::slug(std::path::Path::new(plan_path)));
    let Some(state) = crate::ultraplan::state::RunState::load_at(
        repo,
        &refs.state(mode.session()),
        crate::ultraplan::state::index::Depth::Run,
    )?
    else {
        return Ok(None);
    };
    let id = state.progress.executor.as_str();
    Ok(Some(match id.strip_prefix("command: ") {
        Some(command) if command.contains("[REDACTED:") => {
            return Err(crate::error::FatalWithHint {
                message: format!("the recorded executor '{id}' had a secret redacted from it"),
                hint: "pass the executor again with --executor".into(),
            }
            .into())
        }
        Some(command) => Executor::Command(command.to_owned()),
        None => Executor::parse(id),
    }))
}

/// How sessions run: worktree place, include files, setup, jobs, and the
/// options every session gets from this command line.
fn wave_options(args: &Args, cfg: &crate::git::GitConfig, options: &RunOptions) -> Result<engine::waves::WaveOptions> {
    let jobs = match args.jobs {
        Some(n) => Some(n as usize),
        None => match cfg.integer(config::JOBS.name)? {
            Some(n) if n < 1 => return Err(anyhow!("bad ultraplan.jobs '{n}': at least 1")),
            n => n.map(|n| n as usize),
        },
    };
    let include: Vec<String> = cfg
        .strings(config::WORKTREE_INCLUDE.name)
        .iter()
        .flat_map(|v| {
            v.split([' ', ','])
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut child_args = vec![
        "--executor".to_owned(),
        match &options.executor {
            crate::ultraplan::exec::Executor::Command(cmd) => cmd.clone(),
            other => other.id(),
        },
        "--max-attempts".into(),
        options.max_attempts.to_string(),
    ];
    if options.allow_unverified {
        child_args.push("--allow-unverified".into());
    }
    // A resumed session waiting at a checkpoint gets the person's answers
    // (only a session that waits: see the waves' spawn).
    for answer in &options.answers {
        child_args.push("--answer".into());
        child_args.push(answer.clone());
    }
    child_args.extend(args.choices.args());
    // Billing was settled once, for the whole run.
    child_args.push("--yes".into());
    Ok(engine::waves::WaveOptions {
        jobs,
        worktree_dir: cfg.string(config::WORKTREE_DIR.name).map(PathBuf::from),
        include,
        setup: cfg.string(config::WORKTREE_SETUP.name).filter(|s| !s.trim().is_empty()),
        child_args,
        program: std::env::current_exe().map_err(|e| anyhow!("cannot find the git-ultraplan binary: {e}"))?,
    })
}

/// The orchestrator of a distributed run: the wave options' worker
/// arguments, `--jobs` workers here (none unless asked).
fn orchestrator(
    repo: &crate::git::Repo,
    remote: &str,
    args: &Args,
    cfg: &crate::git::GitConfig,
    input: &PlanInput<'_>,
    options: &RunOptions,
    wave_options: &engine::waves::WaveOptions,
) -> Result<distribute::Orchestrator> {
    let path = input.in_worktree.as_deref().unwrap_or(&input.path);
    let mut orchestrator = distribute::Orchestrator::new(repo, remote, input.plan, path, input.text)?;
    orchestrator.jobs = args.jobs.unwrap_or(0) as usize;
    orchestrator.program = wave_options.program.clone();
    // A worker here runs with this run's executor and attempts; billing was settled.
    orchestrator.worker_args = super::work::worker_args(options);
    orchestrator.lock_timeout = options.lock_timeout;
    orchestrator.poll.1 = duration(cfg, &config::POLL_INTERVAL)?;
    Ok(orchestrator)
}
