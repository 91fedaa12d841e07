//! One step (DESIGN §6.2–6.5) as a pipeline. The step starts: its snapshot
//! is taken ([`restore`] records it, and what it holds beyond the worktree), its
//! declared scope fenced ([`scope`]), Test first judged. Then each attempt is
//!
//! [`execute`] → [`observe`] → [`judge`] → [`record`] → [`checkpoint`]
//!
//! each stage a function of what the one before returned, the run's
//! context (read only) and the ledger it writes to; an attempt that did not
//! pass goes to the failure [`policy`] instead of the checkpoint, which may
//! start the next attempt. Every stage is saved in the run state before the
//! next begins; [`recover`] picks a step up from whatever stage a killed
//! process left it in. A step for a [`person`] waits for their answer.
//!
//! A [`StepRun`] drives one step (start, the attempts, the end); it borrows
//! from the run what lives across steps and holds the step's fence.

mod checkpoint;
mod execute;
mod judge;
mod manifest;
mod observe;
pub(super) mod outside;
mod person;
mod policy;
mod record;
mod recover;
mod restore;
mod scope;

use anyhow::Result;

use super::ledger::Ledger;
use super::{command_check, fault, Event, Failure, RunContext};
use crate::git::{Oid, Snapshot, Tracker};
use crate::ultraplan::plan::Step;
use crate::ultraplan::state::{now, RunState, StepProgress, StepStatus};
use execute::Start;

pub(super) use person::Person;

/// What the run has learned of the worktree, carried from step to step.
pub(crate) struct Watch {
    /// Carries scans from one to the next (incremental when it can).
    pub(super) tracker: Tracker,
    /// The worktree's links that lead out of it, once looked up.
    links: Option<outside::Links>,
    /// The dead run this one took over left processes running (stopped now):
    /// what changed in the worktree since may be theirs, not a person's.
    leftovers_stopped: bool,
}

impl Watch {
    pub fn new(tracker: Tracker, leftovers_stopped: bool) -> Watch {
        Watch {
            tracker,
            links: None,
            leftovers_stopped,
        }
    }
}

/// How a step ended.
pub(super) enum StepEnd {
    Passed,
    Skipped,
    Failed,
    Escalated,
    Blocked,
    Waiting,
    Interrupted,
}

/// What the failure policy decides after an attempt that did not pass.
enum Next {
    Retry { base: Oid, feedback: String },
    End(StepEnd),
}

/// A recorded attempt: what the checkpoint or the failure policy needs.
struct Attempt {
    pub passed: bool,
    pub reason: Option<String>,
    /// The working tree after the attempt (scope violations already undone).
    pub observed: Snapshot,
    /// Observed changes since the step's snapshot, all allowed.
    pub changes: Vec<crate::git::FileChange>,
    pub record: String,
    /// The executor could not start (and Verify did not pass either).
    pub blocked: bool,
    /// A session spec's Step 0 exited 77.
    pub sandbox_blocked: bool,
    /// Verify's output, for the next attempt's prompt (`None` when Verify
    /// did not run).
    pub verify_output: Option<String>,
}

/// How an attempt ended.
enum AttemptEnd {
    Done(Box<Attempt>),
    Waiting(String),
    Interrupted,
}

/// A stage either goes on with its value or ends the attempt early.
enum Phase<T> {
    Go(T),
    End(AttemptEnd),
}

/// One step being run: what the run gives it, borrowed for as long as the
/// step takes. Its methods drive the step (start, the attempts, the end,
/// and picking it up again in [`recover`]); the stages are functions of
/// their own inputs.
struct StepRun<'r, 'a> {
    cx: &'r RunContext<'a>,
    ledger: &'r mut Ledger<'a>,
    watch: &'r mut Watch,
    person: &'r mut Person,
    step: &'r Step,
    /// The step's fence, the same for each of its attempts.
    fence: scope::Fence,
}

/// Runs `step`: how it ended, and the failure the run stops at when it did
/// not pass.
pub(super) fn run<'a>(
    cx: &RunContext<'a>,
    ledger: &mut Ledger<'a>,
    watch: &mut Watch,
    person: &mut Person,
    step: &Step,
) -> Result<(StepEnd, Option<Failure>)> {
    let end = StepRun {
        cx,
        ledger: &mut *ledger,
        watch,
        person,
        step,
        fence: scope::Fence::of(cx, step),
    }
    .run()?;
    let failure = match end {
        StepEnd::Passed | StepEnd::Skipped | StepEnd::Interrupted => None,
        _ => {
            // As `end` recorded it.
            let p = ledger.state.progress.step(step.number);
            Some(Failure {
                step: Some(step.number),
                title: step.title.clone(),
                status: p.status,
                policy: step.on_failure.action.as_str().into(),
                error: p.error.clone().unwrap_or_default(),
                attempts: p.attempts,
            })
        }
    };
    Ok((end, failure))
}

impl StepRun<'_, '_> {
    fn run(&mut self) -> Result<StepEnd> {
        let step = self.step;
        if let Some(why) = &step.skip {
            // Done before the run, not wanted, or optional under
            // --skip-optional: nothing runs, and the report says why.
            return end(self.ledger, step, StepStatus::Skipped, Some(why.clone()));
        }
        match self.ledger.state.progress.status(step.number) {
            StepStatus::Running => self.recover(),
            StepStatus::Escalated | StepStatus::Waiting => self.verify_in_place(),
            _ => self.start(),
        }
    }

    fn start(&mut self) -> Result<StepEnd> {
        fault::point("step-start");
        let (step, n) = (self.step, self.step.number);
        let snapshot = self.ledger.repo.scan(&mut self.watch.tracker)?;
        // A step run again keeps its earlier attempts; their numbers go on.
        let first = self.ledger.state.progress.step(n).attempts + 1;
        let state = &mut self.ledger.state;
        state.remove(&state.step_paths(n).checkpoint());
        // A review asked afresh asks every check again.
        state.remove(&state.step_paths(n).answers());
        state.put_text(&state.step_paths(n).execution(), &format!("{first}\n"))?;
        restore::record(self.cx, self.ledger, self.watch, n, Some(snapshot.tree))?;
        let unstorable: String = snapshot.unstorable.iter().map(|p| format!("{p}\n")).collect();
        let state = &mut self.ledger.state;
        state.put_text(&state.step_paths(n).unstorable(), &unstorable)?;
        let kept = state.progress.step_mut(n);
        let (results, interrupted) = (std::mem::take(&mut kept.results), std::mem::take(&mut kept.interrupted));
        *state.progress.step_mut(n) = StepProgress {
            status: StepStatus::Running,
            attempts: first - 1,
            results,
            interrupted,
            ..Default::default()
        };
        state.progress.current_step = n;
        // Saved with the first attempt's start, before anything runs.
        fault::point("after-snapshot");
        if let Some(reason) = scope::declared_violation(&self.fence, &self.cx.workdir, step) {
            return end(self.ledger, step, StepStatus::Escalated, Some(reason));
        }
        // No attempt can pass without a Verify, a person's check or
        // --allow-unverified (DESIGN §4.1): failed before the executor runs,
        // so no agent is paid three times for a certain failure.
        // (A skipped step never gets here: the one predicate `check` and
        // `run` name such steps by.)
        if crate::ultraplan::plan::unverified::is_unverified(step) && !self.cx.opts.allow_unverified {
            return end(
                self.ledger,
                step,
                StepStatus::Failed,
                Some("the step has no Verify command, so no attempt can pass; the executor was not run (add a Verify, or pass --allow-unverified to accept the executor's word)".into()),
            );
        }
        if step.test_first.is_some() {
            judge::test_first(self.cx, self.ledger, step)?;
        }
        self.attempts(snapshot.tree, first, snapshot.tree, None)
    }

    /// The last attempt this execution of the step may make.
    fn attempt_limit(&self) -> Result<u32> {
        Ok(first_attempt(&self.ledger.state, self.step.number)? + self.cx.opts.max_attempts.max(1) - 1)
    }

    /// Attempts from `first` on, from `base`, until one passes (the
    /// checkpoint) or the failure policy ends the step.
    fn attempts(&mut self, snapshot: Oid, first: u32, base: Oid, feedback: Option<String>) -> Result<StepEnd> {
        let step = self.step;
        let (mut base, mut feedback) = (base, feedback);
        let max = self.attempt_limit()?;
        let mut a = first;
        loop {
            match self.attempt(snapshot, a, Some(base), feedback.take())? {
                AttemptEnd::Interrupted => return Ok(StepEnd::Interrupted),
                AttemptEnd::Waiting(text) => return self.wait(text, StepStatus::Waiting),
                AttemptEnd::Done(done) if done.passed => {
                    return checkpoint::checkpoint(self.cx, self.ledger, self.watch, step, a, &done)
                }
                // A step that only checks runs no executor: trying again
                // would check the same worktree the same way.
                AttemptEnd::Done(done) => {
                    record::record_failure(self.ledger, step, a, &done)?;
                    let last = a >= max || step.check_only;
                    match policy::after_failure(self.ledger, step, snapshot, a, last, &done)? {
                        Next::End(end) => return Ok(end),
                        Next::Retry { base: b, feedback: f } => {
                            base = b;
                            feedback = Some(f);
                            a += 1;
                        }
                    }
                }
            }
        }
    }

    /// One attempt: execute → observe → judge → record (unless `base` is
    /// `None`: then the worktree as a person left it is verified, nothing
    /// runs). What follows — the checkpoint or the failure policy — is the
    /// caller's.
    fn attempt(&mut self, snapshot: Oid, a: u32, base: Option<Oid>, feedback: Option<String>) -> Result<AttemptEnd> {
        let (cx, step) = (self.cx, self.step);
        // A step for a person (a checkpoint task, or a prose Verify): it waits
        // for them, and passes on the answer given with `--resume --answer`.
        let answered = match self.person.answer(cx, self.ledger, step, base.is_none()) {
            Ok(answer) => answer,
            Err(prompt) => return Ok(AttemptEnd::Waiting(prompt)),
        };
        let start = Start {
            snapshot,
            attempt: a,
            base,
            feedback,
            fence: self.fence.clone(),
        };
        let executed = match execute::execute(cx, self.ledger, self.watch, step, start, answered)? {
            Phase::Go(executed) => executed,
            Phase::End(end) => return Ok(end),
        };
        let observed = observe::observe(cx, self.ledger, self.watch, step, &executed)?;
        let judged = match judge::judge(cx, self.ledger, step, &executed, observed)? {
            Phase::Go(judged) => judged,
            Phase::End(end) => return Ok(end),
        };
        let attempt = record::record_attempt(cx, self.ledger, step, executed, judged)?;
        Ok(AttemptEnd::Done(Box::new(attempt)))
    }

    /// The step waits for a person, who is asked `text`; it ends as `status`.
    fn wait(&mut self, text: String, status: StepStatus) -> Result<StepEnd> {
        self.person.instructions = Some(text);
        let why = match self.step.human {
            Some(_) => "waiting for a person to check or decide",
            None => "waiting for a person to make the change",
        };
        end(self.ledger, self.step, status, Some(why.into()))
    }
}

/// The first attempt of this execution of step `n` (a step run again keeps
/// its earlier attempts' numbers).
fn first_attempt(state: &RunState<'_>, n: u32) -> Result<u32> {
    Ok(state
        .read_text(&state.step_paths(n).execution())?
        .and_then(|t| t.trim().parse::<u32>().ok())
        .unwrap_or(1))
}

/// Ends the step with `status`, keeping the worktree as it is.
fn end(ledger: &mut Ledger<'_>, step: &Step, status: StepStatus, reason: Option<String>) -> Result<StepEnd> {
    let n = step.number;
    let p = ledger.state.progress.step_mut(n);
    p.status = status;
    p.error = reason.clone();
    if status == StepStatus::Skipped {
        p.completed_at = Some(now());
    }
    let message = match reason.as_deref().and_then(|r| r.lines().next()) {
        Some(why) if !why.is_empty() => format!("step {n}: {} ({why})", status.as_str()),
        _ => format!("step {n}: {}", status.as_str()),
    };
    ledger.state.save(&message)?;
    Ok(match status {
        StepStatus::Passed => StepEnd::Passed,
        StepStatus::Skipped => StepEnd::Skipped,
        StepStatus::Failed => StepEnd::Failed,
        StepStatus::Escalated => StepEnd::Escalated,
        StepStatus::Blocked => StepEnd::Blocked,
        _ => StepEnd::Waiting,
    })
}
