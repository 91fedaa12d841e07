//! The step engine (DESIGN §6): runs a plan's steps in one worktree — the
//! foreground run, `--resume`, `--step N` and `--session N` — recording every
//! state change in git before acting on it, so a run killed at any instant can
//! be resumed to the same result.
//!
//! It never prints: progress goes to an [`Observer`], the outcome comes back as
//! a [`RunReport`] the command renders. This is ultraplan's engine, which runs
//! a plan's steps; the historian's (`historian::engine`) rewrites a branch.
//!
//! Here: [`run`] and the loop over steps; `options` and `report` hold the
//! vocabulary a caller speaks; `step` is one step's life, a pipeline of
//! stages (execute → observe → judge → record → checkpoint), each a
//! function of the run's [`RunContext`], the `ledger` it writes to
//! (the run state, its kept trees in `secrets`, the warnings) and what the
//! stage before returned;
//! `command_check` runs a command against its expected output (a Verify, a
//! condition, a Verification item); `conditions` a session spec's entry and
//! exit conditions, [`plan_verification`] a plan's `## Verification` once
//! every step is done, `uncommitted` what a session's passed steps left
//! uncommitted before its worktree goes, [`waves`] the parallel sessions.

pub mod clean;
pub mod command_check;
mod conditions;
mod fault;
mod ledger;
pub mod leftovers;
mod observer;
mod open;
mod options;
pub mod plan_verification;
mod report;
pub mod risk;
pub mod secrets;
pub mod stats_line;
mod step;
mod uncommitted;
pub mod waves;

use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};

use crate::git::Repo;
use crate::process;
use crate::ultraplan::plan::{Plan, PlanKind, Session, Step};
use crate::ultraplan::state::{Lock, Progress, Refs, RunStatus, StepStatus, Summary};

use ledger::Ledger;
pub use observer::{Event, Observer};
pub use options::{Carried, Launch, Mode, PlanInput, RunOptions};
pub use report::{Failure, RunReport, RunResult, StepReport};
use step::{Person, Watch};

/// What a run is given: the same for every step, read by every stage.
pub(crate) struct RunContext<'a> {
    repo: &'a Repo,
    plan: &'a Plan,
    input: &'a PlanInput<'a>,
    opts: &'a RunOptions,
    /// The session being run, whose fence applies to every step.
    session: Option<&'a Session>,
    workdir: PathBuf,
    /// Where an executor writes its result, for every attempt.
    result_file: PathBuf,
}

/// The run in progress: what lives across its steps. What one step needs is
/// borrowed from here for the step (see `step`); what one attempt needs is
/// handed from stage to stage, not kept.
pub(crate) struct Run<'a> {
    cx: RunContext<'a>,
    /// The run state and what the run has told (every stage writes here).
    ledger: Ledger<'a>,
    /// What the run has learned of the worktree, step after step.
    watch: Watch,
    /// What passes between the run and a person.
    person: Person,
    /// Why the run stopped, if it did.
    failure: Option<Failure>,
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
            hint: format!(
                "run 'git ultraplan check {}' for the full report",
                crate::cli::shell::operand(&input.path)
            ),
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
    let refs = Refs::of_plan(&input.path);
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
    warnings.extend(crate::ultraplan::state::lock_file_warnings(&lock.lock_files));
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
        std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create '{}'", tmp.display()))?;
        let result_file = tmp.join(format!("result-{}.yaml", std::process::id()));
        let mut run = Run {
            cx: RunContext {
                repo,
                plan,
                input,
                opts,
                session,
                workdir,
                result_file,
            },
            ledger: Ledger::new(repo, state, observer, warnings),
            watch: Watch::new(
                match opts.clean_at {
                    Some(_) => crate::git::Tracker::trusting_clean(opts.clean_at),
                    None => crate::git::Tracker::ahead(crate::ultraplan::state::scan_taken_ahead()),
                },
                lock.leftovers_stopped > 0,
            ),
            person: Person::new(opts.answers.clone()),
            failure: None,
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
pub fn run_id() -> String {
    format!("{}-{}", chrono::Utc::now().format("%Y%m%dT%H%M%SZ"), std::process::id())
}

impl Run<'_> {
    /// The run: its steps, then what closes it (a session's uncommitted
    /// changes kept, a session spec's exit conditions, the plan's
    /// Verification), then its report.
    fn run_steps(&mut self, steps: &[&Step]) -> Result<RunReport> {
        let mut result = self.walk(steps)?;
        if result == RunResult::Completed && self.cx.opts.mode.session().is_some() && orchestrated() {
            uncommitted::keep(&self.cx, &mut self.ledger, &mut self.watch, steps)?;
        }
        let mut exit_condition = "n/a";
        if result == RunResult::Completed && self.cx.plan.kind == PlanKind::SessionSpec {
            let (passed, failure) = conditions::exit(&self.cx, &mut self.ledger)?;
            if failure.is_some() {
                self.failure = failure;
            }
            exit_condition = if passed { "pass" } else { "fail" };
            if exit_condition == "fail" {
                result = RunResult::Failed;
            }
        }
        let mut checked = Vec::new();
        if result == RunResult::Completed && self.verification_due() {
            let (out, failure) = plan_verification::run(self.cx.plan, &self.cx.workdir, self.cx.opts)?;
            if failure.is_some() {
                self.failure = failure;
                result = RunResult::Failed;
            }
            checked = out;
        }
        let mut report = self.finish(result, exit_condition)?;
        report.verification = checked;
        Ok(report)
    }

    /// The entry condition, then each step not done yet, until one stops
    /// the run.
    fn walk(&mut self, steps: &[&Step]) -> Result<RunResult> {
        if !self.ledger.state.progress.entry_condition_checked {
            if let Some(failure) = conditions::entry(&self.cx, &mut self.ledger)? {
                self.failure = Some(failure);
                return Ok(RunResult::Stopped);
            }
        }
        let total = steps.len();
        for (i, step) in steps.iter().enumerate() {
            let recorded = self.ledger.state.progress.status(step.number);
            let forced = self.cx.opts.mode == Mode::Step(step.number);
            if recorded.is_done() && !forced {
                continue;
            }
            if process::interrupted() {
                return Ok(RunResult::Interrupted);
            }
            self.ledger.observer.event(Event::Step {
                number: step.number,
                title: &step.title,
                position: i + 1,
                total,
            });
            let (end, failure) = step::run(&self.cx, &mut self.ledger, &mut self.watch, &mut self.person, step)?;
            if failure.is_some() {
                self.failure = failure;
            }
            let status = self.ledger.state.progress.status(step.number);
            self.ledger.observer.event(Event::StepDone {
                number: step.number,
                status,
            });
            match end {
                step::StepEnd::Passed | step::StepEnd::Skipped => {}
                step::StepEnd::Failed => return Ok(RunResult::Failed),
                step::StepEnd::Interrupted => return Ok(RunResult::Interrupted),
                _ => return Ok(RunResult::Stopped),
            }
        }
        Ok(RunResult::Completed)
    }

    /// A plan run as one session: its Verification once every step is
    /// done (`--step N` before that, and a session of a parallel run,
    /// leave it to the whole run and the merge).
    fn verification_due(&self) -> bool {
        let all_done = self.cx.plan.steps.iter().all(|st| {
            self.ledger
                .state
                .progress
                .steps
                .get(&st.number)
                .is_some_and(|p| matches!(p.status, StepStatus::Passed | StepStatus::Skipped))
        });
        all_done && self.cx.opts.mode.session().is_none() && !self.cx.plan.verification.is_empty()
    }

    fn finish(&mut self, result: RunResult, exit_condition: &'static str) -> Result<RunReport> {
        let progress = &mut self.ledger.state.progress;
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
                title: self.cx.plan.step(*n).map(|st| st.title.clone()).unwrap_or_default(),
                result: s.status.as_str(),
                attempts: s.attempts,
                commit: s.commit.clone(),
            })
            .collect();
        let failed_at_step = failed_at_step(progress, self.failure.as_ref());
        progress.summary = Some(summary(progress, result, failed_at_step, exit_condition));
        let message = format!("run {}: {}", progress.run_id, result.as_str());
        self.ledger.state.save(&message)?;
        let usage = self.ledger.state.progress.usage();
        Ok(RunReport {
            plan: self.cx.input.path.clone(),
            plan_type: self.cx.plan.kind.as_str(),
            mode: self.cx.opts.mode.name(),
            result,
            steps,
            failed_at_step,
            exit_condition,
            progress_ref: self.ledger.state.ref_name.clone(),
            failure: self.failure.clone(),
            instructions: self.person.instructions.clone(),
            warnings: self.ledger.warnings.clone(),
            run_id: self.ledger.state.progress.run_id.clone(),
            session: self.cx.opts.mode.session(),
            verification: Vec::new(),
            usage,
        })
    }
}

/// The step this run stopped at (`failure`'s); else (a run that did not
/// stop at a step) the first recorded as not passing. Under `--step 2`,
/// step 1 failing in an earlier run is not where this one failed.
fn failed_at_step(progress: &Progress, failure: Option<&Failure>) -> Option<u32> {
    let stopped_at = failure.and_then(|f| f.step);
    stopped_at.or_else(|| {
        progress
            .steps
            .iter()
            .find(|(_, s)| {
                matches!(
                    s.status,
                    StepStatus::Failed | StepStatus::Escalated | StepStatus::Blocked | StepStatus::Waiting
                )
            })
            .map(|(n, _)| *n)
    })
}

/// How the run ended, counted by its steps' statuses, as its state keeps it.
fn summary(progress: &Progress, result: RunResult, failed_at_step: Option<u32>, exit_condition: &str) -> Summary {
    let count = |st: StepStatus| progress.steps.values().filter(|s| s.status == st).count();
    Summary {
        result: result.as_str().into(),
        steps_total: progress.steps.len(),
        steps_passed: count(StepStatus::Passed),
        steps_failed: count(StepStatus::Failed)
            + count(StepStatus::Escalated)
            + count(StepStatus::Blocked)
            + count(StepStatus::Waiting),
        steps_skipped: count(StepStatus::Skipped),
        steps_not_reached: count(StepStatus::Pending) + count(StepStatus::Running),
        failed_at_step,
        exit_condition: exit_condition.into(),
    }
}
