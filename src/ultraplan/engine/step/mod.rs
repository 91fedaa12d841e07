//! One step (DESIGN §6.2–6.5) as a pipeline. The step starts: its snapshot
//! is taken ([`restore`] records what it holds beyond the worktree), its
//! declared scope fenced ([`scope`]), Test first judged. Then each attempt is
//!
//! [`execute`] → [`observe`] → [`judge`] → [`record`] → [`checkpoint`]
//!
//! each stage a function of what the one before returned; an attempt that
//! did not pass goes to the failure [`policy`] instead of the checkpoint,
//! which may start the next attempt. Every stage is saved in the run state
//! before the next begins; [`recover`] picks a step up from whatever stage a
//! killed process left it in. A step for a [`person`] waits for their answer.

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

use super::{command_check, fault, Event, Failure, Run};
use crate::git::{Oid, Snapshot};
use crate::ultraplan::plan::Step;
use crate::ultraplan::state::{now, StepProgress, StepStatus};
use execute::Start;

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
    /// The end of Verify's output, for the next attempt's prompt (`None`
    /// when Verify did not run).
    pub verify_tail: Option<String>,
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

impl Run<'_> {
    pub(super) fn run_step(&mut self, step: &Step) -> Result<StepEnd> {
        if let Some(why) = &step.skip {
            // Done before the run, not wanted, or optional under
            // --skip-optional: nothing runs, and the report says why.
            return self.end(step, StepStatus::Skipped, Some(why.clone()));
        }
        match self.state.progress.step(step.number).status {
            StepStatus::Running => self.recover(step),
            StepStatus::Escalated | StepStatus::Waiting => self.verify_in_place(step),
            _ => self.start(step),
        }
    }

    fn start(&mut self, step: &Step) -> Result<StepEnd> {
        fault::point("step-start");
        let n = step.number;
        let snapshot = self.repo.scan(&mut self.tracker)?;
        // A step run again keeps its earlier attempts; their numbers go on.
        let first = self.state.progress.step(n).attempts + 1;
        self.state.remove(&self.state.step_paths(n).checkpoint());
        // A review asked afresh asks every check again.
        self.state.remove(&self.state.step_paths(n).answers());
        self.state
            .put_text(&self.state.step_paths(n).execution(), &format!("{first}\n"))?;
        self.keep_tree(&self.state.step_paths(n).snapshot(), snapshot.tree)?;
        self.record_git(n)?;
        let unstorable: String = snapshot.unstorable.iter().map(|p| format!("{p}\n")).collect();
        self.state
            .put_text(&self.state.step_paths(n).unstorable(), &unstorable)?;
        let results = std::mem::take(&mut self.state.progress.step_mut(n).results);
        *self.state.progress.step_mut(n) = StepProgress {
            status: StepStatus::Running,
            attempts: first - 1,
            results,
            ..Default::default()
        };
        self.state.progress.current_step = n;
        // Saved with the first attempt's start, before anything runs.
        fault::point("after-snapshot");
        if let Some(reason) = self.declared_scope_violation(step) {
            return self.end(step, StepStatus::Escalated, Some(reason));
        }
        // No attempt can pass without a Verify, a person's check or
        // --allow-unverified (DESIGN §4.1): failed before the executor runs,
        // so no agent is paid three times for a certain failure.
        if step.verify.is_none() && step.human.is_none() && step.verified_by.is_none() && !self.opts.allow_unverified {
            return self.end(
                step,
                StepStatus::Failed,
                Some("the step has no Verify command, so no attempt can pass; the executor was not run (add a Verify, or pass --allow-unverified to accept the executor's word)".into()),
            );
        }
        if step.test_first.is_some() {
            self.test_first(step)?;
        }
        self.attempts(step, snapshot.tree, first, snapshot.tree, None)
    }

    /// The last attempt this execution of the step may make.
    fn attempt_limit(&self, step: &Step) -> Result<u32> {
        let first = self
            .state
            .read_text(&self.state.step_paths(step.number).execution())?
            .and_then(|t| t.trim().parse::<u32>().ok())
            .unwrap_or(1);
        Ok(first + self.opts.max_attempts.max(1) - 1)
    }

    fn attempts(
        &mut self,
        step: &Step,
        snapshot: Oid,
        first: u32,
        base: Oid,
        feedback: Option<String>,
    ) -> Result<StepEnd> {
        let (mut base, mut feedback) = (base, feedback);
        let max = self.attempt_limit(step)?;
        let mut a = first;
        loop {
            match self.attempt(step, snapshot, a, Some(base), feedback.take())? {
                AttemptEnd::Interrupted => return Ok(StepEnd::Interrupted),
                AttemptEnd::Waiting(text) => {
                    self.instructions = Some(text);
                    let why = match step.human {
                        Some(_) => "waiting for a person to check or decide",
                        None => "waiting for a person to make the change",
                    };
                    return self.end(step, StepStatus::Waiting, Some(why.into()));
                }
                AttemptEnd::Done(done) if done.passed => return self.checkpoint(step, a, &done),
                // A step that only checks runs no executor: trying again
                // would check the same worktree the same way.
                AttemptEnd::Done(done) => match self
                    .record_failure(step, a, &done)
                    .and_then(|_| self.after_failure(step, snapshot, a, a >= max || step.check_only, &done))?
                {
                    Next::End(end) => return Ok(end),
                    Next::Retry { base: b, feedback: f } => {
                        base = b;
                        feedback = Some(f);
                        a += 1;
                    }
                },
            }
        }
    }

    /// One attempt: execute → observe → judge → record (unless `base` is
    /// `None`: then the worktree as a person left it is verified, nothing
    /// runs). What follows — the checkpoint or the failure policy — is the
    /// caller's.
    fn attempt(
        &mut self,
        step: &Step,
        snapshot: Oid,
        a: u32,
        base: Option<Oid>,
        feedback: Option<String>,
    ) -> Result<AttemptEnd> {
        // A step for a person (a checkpoint task, or a prose Verify): it waits
        // for them, and passes on the answer given with `--resume --answer`.
        let answered = match self.person_answer(step, base.is_none()) {
            Ok(answer) => answer,
            Err(prompt) => return Ok(AttemptEnd::Waiting(prompt)),
        };
        let start = Start {
            snapshot,
            attempt: a,
            base,
            feedback,
            fence: self.fence(step),
        };
        let executed = match self.execute(step, start, answered)? {
            Phase::Go(executed) => executed,
            Phase::End(end) => return Ok(end),
        };
        let observed = self.observe(step, &executed)?;
        let judged = match self.judge(step, &executed, observed)? {
            Phase::Go(judged) => judged,
            Phase::End(end) => return Ok(end),
        };
        let attempt = self.record_attempt(step, executed, judged)?;
        Ok(AttemptEnd::Done(Box::new(attempt)))
    }

    /// Ends the step with `status`, keeping the worktree as it is.
    fn end(&mut self, step: &Step, status: StepStatus, reason: Option<String>) -> Result<StepEnd> {
        let n = step.number;
        let p = self.state.progress.step_mut(n);
        p.status = status;
        p.error = reason.clone();
        if status == StepStatus::Skipped {
            p.completed_at = Some(now());
        }
        let attempts = p.attempts;
        if !matches!(status, StepStatus::Passed | StepStatus::Skipped) {
            self.failure = Some(Failure {
                step: Some(n),
                title: step.title.clone(),
                status,
                policy: step.on_failure.action.as_str().into(),
                error: reason.clone().unwrap_or_default(),
                attempts,
            });
        }
        let message = match reason.as_deref().and_then(|r| r.lines().next()) {
            Some(why) if !why.is_empty() => format!("step {n}: {} ({why})", status.as_str()),
            _ => format!("step {n}: {}", status.as_str()),
        };
        self.state.save(&message)?;
        Ok(match status {
            StepStatus::Passed => StepEnd::Passed,
            StepStatus::Skipped => StepEnd::Skipped,
            StepStatus::Failed => StepEnd::Failed,
            StepStatus::Escalated => StepEnd::Escalated,
            StepStatus::Blocked => StepEnd::Blocked,
            _ => StepEnd::Waiting,
        })
    }
}
