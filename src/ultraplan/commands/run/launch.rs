//! The plan of a run, decided from the command line and the configuration
//! before anything runs ([`prepare`]): its mode, whether its sessions run in
//! waves of worktrees, here or on another clone's remote, the executor (the
//! one a resumed run used, unless `--executor` says otherwise), whether API
//! billing is confirmed, and the engine's options ([`engine::Launch`]). Then
//! [`start`] hands it to the engine — or to the orchestrator of a
//! distributed run, which lies above the engine.

use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};

use super::{completed, Args};
use crate::cli::config::{self, duration};
use crate::cli::{Exit, Ui};
use crate::git::{GitConfig, Repo};
use crate::ultraplan::distribute;
use crate::ultraplan::engine::waves::{WaveOptions, WavesReport};
use crate::ultraplan::engine::{self, Carried, Launch, Mode, Observer, PlanInput, RunOptions, RunReport};
use crate::ultraplan::exec::{AgentSettings, Executor};
use crate::ultraplan::plan::Plan;

/// What the command line comes to before the run.
pub(super) enum Prepared {
    /// Nothing to run: the plan's recorded run completed (reported), or
    /// API billing was not confirmed.
    Ended(Exit),
    /// The run to start.
    Run(Box<Launch>),
}

/// The plan file as read: its text, how it is named, where it lies.
pub(super) struct Source<'a> {
    pub text: &'a str,
    pub path: &'a str,
    pub in_worktree: Option<&'a str>,
    pub choices: &'a crate::ultraplan::plan::Context,
}

/// Decides the run `args` ask for on `plan` (whose problems for a run in
/// sessions are added to it): refused, ended before it starts, or the
/// [`Launch`] to start. What must be said on the way (a renamed remote, a
/// completed run, API billing) is said here, in the order it is decided.
pub(super) fn prepare(
    args: &Args,
    repo: &Repo,
    cfg: &GitConfig,
    plan: &mut Plan,
    source: &Source<'_>,
    ui: &Ui,
) -> Result<Prepared> {
    let mode = mode(args);
    let in_waves = !args.fg
        && plan.is_multi_session()
        && match mode {
            Mode::Execute => true,
            Mode::Resume => engine::waves::resumes_sessions(
                repo,
                &PlanInput {
                    plan,
                    text: source.text,
                    path: source.path.to_owned(),
                    in_worktree: source.in_worktree.map(str::to_owned),
                    choices: source.choices.clone(),
                },
            )?,
            _ => false,
        };
    // A multi-session plan git cannot commit (inside `.git`) is a problem of
    // the plan for a run in sessions, as `check` reports it.
    if in_waves && source.in_worktree.is_some() {
        plan.diagnostics
            .extend(crate::ultraplan::plan::check::placement_problem(
                plan,
                source.in_worktree,
            ));
    }
    let distribute = remote(args, repo, mode, source.path, ui)?;
    // A distributed run pushes the plan's commit to the remote: a plan that
    // holds what looks like a secret is not pushed (DESIGN §2 invariant 6).
    // (Looked for only then: it reads the whole plan.)
    let secret = || crate::redact::secrets_found(source.text);
    if let Some((remote, found)) = distribute.as_ref().and_then(|r| Some((r, secret()?))) {
        return Err(crate::error::FatalWithHint {
            message: format!(
                "the plan '{}' holds what looks like {found}; --distribute would push it to '{remote}' as it is",
                source.path
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
    // Resuming a completed run has nothing to run unless steps were added
    // to the plan since: it would only record the same end again.
    if (mode == Mode::Execute && !args.again) || mode == Mode::Resume {
        if let Some(done) = completed::completed_run(repo, source.path)? {
            let changed = completed::changed_since(&done, source.text)?;
            if mode == Mode::Execute || !changed {
                completed::report(&done, changed, &args.plan.display().to_string(), args.json, ui)?;
                return Ok(Prepared::Ended(Exit::Done));
            }
        }
    }
    if !args.exec.allow_unverified {
        super::unverified::refuse_unverified(repo, plan, mode, source.path, &args.plan.display().to_string())?;
    }
    let executor = executor(args, repo, cfg, mode, source.path)?;
    let agent = agent_settings(cfg, &executor)?;
    executor.ensure_found(repo.workdir()?, &agent)?;
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
    if !super::super::billing::billing_confirmed(&executor, args.exec.yes, cfg, ui)? {
        return Ok(Prepared::Ended(Exit::Stopped));
    }
    let options = options(args, cfg, mode, executor, agent)?;
    let carried = match (in_waves, distribute) {
        (false, _) => Carried::Here,
        (true, None) => Carried::Waves(wave_options(args, cfg, &options)?),
        (true, Some(remote)) => Carried::Distributed {
            waves: wave_options(args, cfg, &options)?,
            remote,
            jobs: args.jobs.unwrap_or(0) as usize,
            poll: duration(cfg, &config::POLL_INTERVAL)?,
        },
    };
    Ok(Prepared::Run(Box::new(Launch { options, carried })))
}

/// Starts the run `launch` decided: the engine's report, and the waves'
/// when its sessions ran in waves.
pub(super) fn start(
    repo: &Repo,
    input: &PlanInput<'_>,
    launch: &Launch,
    observer: &mut dyn Observer,
) -> Result<(RunReport, Option<WavesReport>)> {
    let options = &launch.options;
    let waves = match &launch.carried {
        Carried::Here => return Ok((engine::run(repo, input, options, observer)?, None)),
        Carried::Waves(waves) => engine::waves::run_waves(repo, input, options, waves, observer)?,
        Carried::Distributed {
            remote,
            waves,
            jobs,
            poll,
        } => {
            let path = input.in_worktree.as_deref().unwrap_or(&input.path);
            let mut orchestrator = distribute::Orchestrator::new(repo, remote, input.plan, path, input.text)?;
            orchestrator.jobs = *jobs;
            orchestrator.program = waves.program.clone();
            // A worker here runs with this run's executor and attempts; billing was settled.
            orchestrator.worker_args = super::super::work::worker_args(options);
            orchestrator.lock_timeout = options.lock_timeout;
            orchestrator.poll.1 = *poll;
            engine::waves::run_waves_with(repo, input, options, waves, Some(&mut orchestrator), observer)?
        }
    };
    Ok((waves.run.clone(), Some(waves)))
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

/// The remote a distributed run uses: `--distribute`'s, or the one a
/// resumed distributed run used (found by its URL if it was renamed since).
fn remote(args: &Args, repo: &Repo, mode: Mode, plan_path: &str, ui: &Ui) -> Result<Option<String>> {
    Ok(match (&args.distribute, mode) {
        (Some(remote), _) => Some(crate::ultraplan::sync::resolve_remote(repo, Some(remote))?),
        (None, Mode::Resume) => {
            let slug = crate::ultraplan::state::slug(std::path::Path::new(plan_path));
            match distribute::remembered_remote(repo, &slug)? {
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
    })
}

/// The executor: `--executor`, else the one the run being resumed used (a
/// person's manual run stays manual), else `ultraplan.executor`.
fn executor(args: &Args, repo: &Repo, cfg: &GitConfig, mode: Mode, plan_path: &str) -> Result<Executor> {
    let recorded = match mode {
        Mode::Resume | Mode::ResumeSession(_) if args.exec.executor.is_none() => {
            recorded_executor(repo, plan_path, mode)?
        }
        _ => None,
    };
    Ok(match recorded {
        Some(executor) => executor,
        None => Executor::parse(
            &args
                .exec
                .executor
                .clone()
                .unwrap_or_else(|| config::string(cfg, &config::EXECUTOR)),
        ),
    })
}

/// The executor the run being resumed used.
fn recorded_executor(repo: &Repo, plan_path: &str, mode: Mode) -> Result<Option<Executor>> {
    let refs = crate::ultraplan::state::Refs::of_plan(plan_path);
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

/// `ultraplan.<agent>.path` and `.args` of an agent executor (default
/// settings for the others).
fn agent_settings(cfg: &GitConfig, executor: &Executor) -> Result<AgentSettings> {
    match executor.agent() {
        Some(agent) => config::agent_settings(cfg, agent.name()),
        None => Ok(AgentSettings::default()),
    }
}

/// Bytes of output kept per stream: at least 1 KiB, at most 1 GiB, whatever
/// ultraplan.transcriptCap says.
const TRANSCRIPT_CAP_BOUNDS: (i64, i64) = (1024, 1 << 30);

/// Files of ignored files a snapshot keeps at most (ultraplan.snapshotIgnoredMax bounds their bytes).
const SNAPSHOT_IGNORED_FILES: usize = 1000;

/// The engine's options from the command line and the configuration.
fn options(args: &Args, cfg: &GitConfig, mode: Mode, executor: Executor, agent: AgentSettings) -> Result<RunOptions> {
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

/// How sessions run: worktree place, include files, setup, jobs, and the
/// options every session gets from this command line.
fn wave_options(args: &Args, cfg: &GitConfig, options: &RunOptions) -> Result<WaveOptions> {
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
            Executor::Command(cmd) => cmd.clone(),
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
    Ok(WaveOptions {
        jobs,
        worktree_dir: cfg.string(config::WORKTREE_DIR.name).map(PathBuf::from),
        include,
        setup: cfg.string(config::WORKTREE_SETUP.name).filter(|s| !s.trim().is_empty()),
        child_args,
        program: std::env::current_exe().context("cannot find the git-ultraplan binary")?,
    })
}
