//! The step engine (DESIGN §6): runs a plan's steps in one worktree — the
//! foreground run, `--resume`, `--step N` and `--session N` — recording every
//! state change in git before acting on it, so a run killed at any instant can
//! be resumed to the same result.
//!
//! It never prints: progress goes to an [`Observer`], the outcome comes back as
//! a [`RunReport`] the command renders.

mod checkpoint;
pub mod clean;
mod fault;
pub mod leftovers;
mod open;
mod person;
mod record;
mod recover;
mod restore;
pub mod risk;
mod scope;
pub mod secrets;
mod step;
pub mod verify;
pub mod waves;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, Result};
use serde::Serialize;

use crate::git::Repo;
use crate::process;
use crate::ultraplan::exec::{ClaudeSettings, Executor};
use crate::ultraplan::plan::{Plan, PlanKind, Session, Step};
use crate::ultraplan::state::{slug, Lock, Refs, RunState, RunStatus, StepStatus, Summary};

/// Which steps a run takes (the seed's modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every step, in order (`--fg`, or a plan without an Execution Strategy).
    Execute,
    /// Continue the recorded run at its first step not passed or skipped.
    Resume,
    /// Only step N.
    Step(u32),
    /// Only session N's steps, inside its scope fence.
    Session(u32),
    /// Continue session N's recorded run (`--resume --session N`).
    ResumeSession(u32),
}

impl Mode {
    pub fn name(self) -> String {
        match self {
            Mode::Execute => "execute".into(),
            Mode::Resume => "resume".into(),
            Mode::Step(n) => format!("step {n}"),
            Mode::Session(n) => format!("session {n}"),
            Mode::ResumeSession(n) => format!("resume session {n}"),
        }
    }

    /// The session this mode runs, if any.
    pub fn session(self) -> Option<u32> {
        match self {
            Mode::Session(n) | Mode::ResumeSession(n) => Some(n),
            _ => None,
        }
    }
}

/// Everything a run needs to know besides the plan.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub mode: Mode,
    pub executor: Executor,
    pub max_attempts: u32,
    pub executor_timeout: Duration,
    pub verify_timeout: Duration,
    pub transcript_cap: usize,
    /// How much of the ignored files a step's snapshot keeps.
    pub ignored_bound: crate::git::IgnoredBound,
    pub allow_unverified: bool,
    /// A person's answer to the check or decision the run waits at
    /// (`--resume --answer`).
    pub answer: Option<String>,
    pub lock_timeout: Duration,
    pub claude: ClaudeSettings,
    /// The command line, for the lock.
    pub command_line: String,
}

/// The plan being run.
pub struct PlanInput<'a> {
    pub plan: &'a Plan,
    pub text: &'a str,
    /// How the plan is named in state and messages: relative to the top of the
    /// worktree when inside it.
    pub path: String,
    /// Its path relative to the top of the worktree, if it is inside it.
    pub in_worktree: Option<String>,
}

/// What a run reports while it goes.
pub enum Event<'a> {
    Step {
        number: u32,
        title: &'a str,
        position: usize,
        total: usize,
    },
    Attempt {
        number: u32,
        attempt: u32,
        max: u32,
    },
    Verifying {
        number: u32,
    },
    StepDone {
        number: u32,
        status: StepStatus,
    },
    Warning(String),
    /// The current state of running sessions, for a live line.
    Progress(String),
}

pub trait Observer {
    fn event(&mut self, event: Event<'_>);
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunResult {
    Completed,
    Failed,
    /// Stopped for a person: escalated, blocked, waiting or refused.
    Stopped,
    Interrupted,
}

impl RunResult {
    pub fn as_str(self) -> &'static str {
        match self {
            RunResult::Completed => "completed",
            RunResult::Failed => "failed",
            RunResult::Stopped => "stopped",
            RunResult::Interrupted => "interrupted",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct StepReport {
    pub number: u32,
    pub title: String,
    pub result: &'static str,
    pub attempts: u32,
    pub commit: Option<String>,
}

/// Why a run stopped at a step.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The step, when a step stopped the run (not a session, merge, condition
    /// or the Verification).
    pub step: Option<u32>,
    pub title: String,
    pub status: StepStatus,
    pub policy: String,
    pub error: String,
    pub attempts: u32,
}

#[derive(Clone, Debug)]
pub struct RunReport {
    pub plan: String,
    pub plan_type: &'static str,
    pub mode: String,
    pub result: RunResult,
    pub steps: Vec<StepReport>,
    pub failed_at_step: Option<u32>,
    pub exit_condition: &'static str,
    pub progress_ref: String,
    pub failure: Option<Failure>,
    /// What a person is asked to do (manual executor).
    pub instructions: Option<String>,
    pub warnings: Vec<String>,
    pub run_id: String,
    /// The session a `--session N` run ran (its resume command names it).
    pub session: Option<u32>,
}

impl RunReport {
    pub fn count(&self, status: &str) -> usize {
        self.steps.iter().filter(|s| s.result == status).count()
    }

    /// Steps reached that did not pass: failed, and stopped for a person
    /// (escalated, blocked, waiting) — with passed, skipped and not reached,
    /// every step is counted once.
    pub fn failed(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s.result, "failed" | "escalated" | "blocked" | "waiting"))
            .count()
    }

    pub fn not_reached(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s.result, "pending" | "running"))
            .count()
    }
}

/// The run in progress: everything the step lifecycle touches.
pub(crate) struct Run<'a> {
    pub repo: &'a Repo,
    pub plan: &'a Plan,
    pub input: &'a PlanInput<'a>,
    pub opts: &'a RunOptions,
    pub state: RunState<'a>,
    pub observer: &'a mut dyn Observer,
    pub session: Option<&'a Session>,
    pub workdir: PathBuf,
    pub result_file: PathBuf,
    pub warnings: Vec<String>,
    pub failure: Option<Failure>,
    pub instructions: Option<String>,
    /// The `--answer` not yet given to a waiting step.
    pub answer: Option<String>,
    /// Carries scans from one to the next (incremental when it can).
    pub tracker: crate::git::Tracker,
    /// The dead run this one took over left processes running (stopped now):
    /// what changed in the worktree since may be theirs, not a person's.
    pub leftovers_stopped: bool,
}

impl Run<'_> {
    pub fn warn(&mut self, message: String) {
        self.observer.event(Event::Warning(message.clone()));
        self.warnings.push(message);
    }
}

/// A plan with problems does not run: fatal, naming the first.
pub(crate) fn refuse_problems(input: &PlanInput<'_>) -> Result<()> {
    let problems: Vec<_> = input.plan.problems().collect();
    if let Some(first) = problems.first() {
        return Err(crate::error::FatalWithHint {
            message: format!(
                "'{}' has {} problem{}; first: line {}: {}",
                input.path,
                problems.len(),
                if problems.len() == 1 { "" } else { "s" },
                first.line,
                first.message
            ),
            hint: format!("run 'git ultraplan check {}' for the full report", input.path),
        }
        .into());
    }
    Ok(())
}

/// Runs `input.plan` in `repo`'s worktree.
pub fn run(repo: &Repo, input: &PlanInput<'_>, opts: &RunOptions, observer: &mut dyn Observer) -> Result<RunReport> {
    let plan = input.plan;
    refuse_problems(input)?;
    repo.check_identity()?;
    repo.check_index_supported()?;
    if let Some(operation) = repo.operation_in_progress() {
        return Err(anyhow!(
            "an operation is in progress ({operation}); finish or abort it first"
        ));
    }
    let workdir = repo.workdir()?.to_owned();
    let (steps, session) = select(plan, opts.mode)?;
    let refs = Refs::new(slug(std::path::Path::new(&input.path)));
    let session_number = opts.mode.session();
    let state_ref = refs.state(session_number);
    let lock_ref = match session_number {
        Some(n) => format!("{}lock-session-{n}", refs.prefix()),
        None => refs.lock(),
    };
    let lock = Lock::acquire(repo, &lock_ref, &opts.command_line, opts.lock_timeout)?;
    let mut warnings = Vec::new();
    if let Some((holder, why)) = &lock.took_over {
        warnings.push(format!(
            "took over a stale lock of pid {} on {} ({why})",
            holder.pid, holder.host
        ));
    }
    for w in &warnings {
        observer.event(Event::Warning(w.clone()));
    }
    let outcome = (|| {
        let state = open::open_state(
            repo,
            input,
            opts,
            &state_ref,
            &steps,
            session_number,
            &mut warnings,
            observer,
        )?;
        let tmp = repo.common_dir().join("ultraplan").join("tmp");
        std::fs::create_dir_all(&tmp).map_err(|e| anyhow!("cannot create '{}': {e}", tmp.display()))?;
        let result_file = tmp.join(format!("result-{}.yaml", std::process::id()));
        let mut run = Run {
            repo,
            plan,
            input,
            opts,
            state,
            observer,
            session,
            workdir,
            result_file,
            warnings,
            failure: None,
            instructions: None,
            answer: opts.answer.clone(),
            tracker: Default::default(),
            leftovers_stopped: lock.leftovers_stopped > 0,
        };
        run.run_steps(&steps)
    })();
    if process::interrupted() || (session_number.is_some() && orchestrated()) {
        process::kill_own_leftovers();
    }
    let released = lock.release(repo);
    let report = outcome?;
    released?;
    Ok(report)
}

/// The steps `mode` runs, and the session whose fence applies.
fn select(plan: &Plan, mode: Mode) -> Result<(Vec<&Step>, Option<&Session>)> {
    let spec_session = (plan.kind == PlanKind::SessionSpec)
        .then(|| plan.sessions.first())
        .flatten();
    match mode {
        Mode::Execute | Mode::Resume => Ok((plan.steps.iter().collect(), spec_session)),
        Mode::Step(n) => match plan.step(n) {
            Some(step) => Ok((
                vec![step],
                spec_session.or_else(|| plan.sessions.iter().find(|s| s.steps.contains(&n))),
            )),
            None => Err(anyhow!("the plan has no step {n}")),
        },
        Mode::Session(n) | Mode::ResumeSession(n) => {
            let session = match spec_session {
                Some(s) if s.number == n => s,
                _ => plan.session(n).ok_or_else(|| anyhow!("the plan has no session {n}"))?,
            };
            let steps = session.steps.iter().filter_map(|s| plan.step(*s)).collect();
            Ok((steps, Some(session)))
        }
    }
}

/// Set by a multi-session run in the environment of the sessions it starts
/// in worktrees of its own, which it removes when they end.
pub const ORCHESTRATED_VAR: &str = "GIT_ULTRAPLAN_ORCHESTRATED";

fn orchestrated() -> bool {
    std::env::var_os(ORCHESTRATED_VAR).is_some_and(|v| v == "1")
}

/// A run id: UTC time and pid, unique enough to tell runs apart in one repository.
pub(crate) fn run_id() -> String {
    format!("{}-{}", chrono::Utc::now().format("%Y%m%dT%H%M%SZ"), std::process::id())
}

impl Run<'_> {
    fn run_steps(&mut self, steps: &[&Step]) -> Result<RunReport> {
        let mut result = RunResult::Completed;
        if !self.state.progress.entry_condition_checked {
            if let Some(failure) = self.entry_condition()? {
                self.failure = Some(failure);
                result = RunResult::Stopped;
            }
        }
        if result == RunResult::Completed {
            let total = steps.len();
            for (i, step) in steps.iter().enumerate() {
                let recorded = self.state.progress.step(step.number).status;
                let forced = self.opts.mode == Mode::Step(step.number);
                if recorded.is_done() && !forced {
                    continue;
                }
                if process::interrupted() {
                    result = RunResult::Interrupted;
                    break;
                }
                self.observer.event(Event::Step {
                    number: step.number,
                    title: &step.title,
                    position: i + 1,
                    total,
                });
                let end = self.run_step(step)?;
                let status = self.state.progress.step(step.number).status;
                self.observer.event(Event::StepDone {
                    number: step.number,
                    status,
                });
                match end {
                    step::StepEnd::Passed | step::StepEnd::Skipped => {}
                    step::StepEnd::Failed => {
                        result = RunResult::Failed;
                        break;
                    }
                    step::StepEnd::Interrupted => {
                        result = RunResult::Interrupted;
                        break;
                    }
                    _ => {
                        result = RunResult::Stopped;
                        break;
                    }
                }
            }
        }
        if result == RunResult::Completed && self.opts.mode.session().is_some() && orchestrated() {
            self.commit_leftovers(steps)?;
        }
        let mut exit_condition = "n/a";
        if result == RunResult::Completed && self.plan.kind == PlanKind::SessionSpec {
            exit_condition = if self.exit_conditions()? { "pass" } else { "fail" };
            if exit_condition == "fail" {
                result = RunResult::Failed;
            }
        }
        self.finish(result, exit_condition)
    }

    fn finish(&mut self, result: RunResult, exit_condition: &'static str) -> Result<RunReport> {
        let progress = &mut self.state.progress;
        progress.status = match result {
            RunResult::Completed => RunStatus::Completed,
            RunResult::Failed => RunStatus::Failed,
            RunResult::Stopped | RunResult::Interrupted => {
                if progress.steps.values().any(|s| s.status == StepStatus::Waiting) {
                    RunStatus::Waiting
                } else {
                    RunStatus::Stopped
                }
            }
        };
        progress.exit_condition_checked = exit_condition != "n/a";
        let steps: Vec<StepReport> = progress
            .steps
            .iter()
            .map(|(n, s)| StepReport {
                number: *n,
                title: self.plan.step(*n).map(|st| st.title.clone()).unwrap_or_default(),
                result: s.status.as_str(),
                attempts: s.attempts,
                commit: s.commit.clone(),
            })
            .collect();
        let failed_at_step = progress
            .steps
            .iter()
            .find(|(_, s)| {
                matches!(
                    s.status,
                    StepStatus::Failed | StepStatus::Escalated | StepStatus::Blocked | StepStatus::Waiting
                )
            })
            .map(|(n, _)| *n);
        let count = |st: StepStatus| progress.steps.values().filter(|s| s.status == st).count();
        progress.summary = Some(Summary {
            result: result.as_str().into(),
            steps_total: steps.len(),
            steps_passed: count(StepStatus::Passed),
            steps_failed: count(StepStatus::Failed)
                + count(StepStatus::Escalated)
                + count(StepStatus::Blocked)
                + count(StepStatus::Waiting),
            steps_skipped: count(StepStatus::Skipped),
            steps_not_reached: count(StepStatus::Pending) + count(StepStatus::Running),
            failed_at_step,
            exit_condition: exit_condition.into(),
        });
        let message = format!("run {}: {}", progress.run_id, result.as_str());
        self.state.save(&message)?;
        Ok(RunReport {
            plan: self.input.path.clone(),
            plan_type: self.plan.kind.as_str(),
            mode: self.opts.mode.name(),
            result,
            steps,
            failed_at_step,
            exit_condition,
            progress_ref: self.state.ref_name.clone(),
            failure: self.failure.clone(),
            instructions: self.instructions.clone(),
            warnings: self.warnings.clone(),
            run_id: self.state.progress.run_id.clone(),
            session: self.opts.mode.session(),
        })
    }
}
