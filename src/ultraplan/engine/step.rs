//! One step (DESIGN §6.2–6.5): snapshot, scope, Test first, attempts with
//! feedback (each one [`super::attempt`]), then a checkpoint or the failure
//! policy. Every phase is saved in the run state before the next begins;
//! [`Run::recover`] picks a step up from whatever phase a killed process left
//! it in.

use anyhow::Result;

use super::attempt::{Attempt, AttemptEnd};
use super::{expecting, fault, Failure, Run};
use crate::git::{Oid, Snapshot};
use crate::ultraplan::plan::{FailurePolicy, Step};
use crate::ultraplan::state::{now, StepProgress, StepStatus};

pub(super) enum StepEnd {
    Passed,
    Skipped,
    Failed,
    Escalated,
    Blocked,
    Waiting,
    Interrupted,
}

pub(super) enum Next {
    Retry { base: Oid, feedback: String },
    End(StepEnd),
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

    pub(super) fn start(&mut self, step: &Step) -> Result<StepEnd> {
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
    pub(super) fn attempt_limit(&self, step: &Step) -> Result<u32> {
        let first = self
            .state
            .read_text(&self.state.step_paths(step.number).execution())?
            .and_then(|t| t.trim().parse::<u32>().ok())
            .unwrap_or(1);
        Ok(first + self.opts.max_attempts.max(1) - 1)
    }

    pub(super) fn attempts(
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

    /// Saves a failed attempt's record.
    pub(super) fn record_failure(&mut self, step: &Step, a: u32, done: &Attempt) -> Result<()> {
        let why = done.reason.as_deref().and_then(|r| r.lines().next()).unwrap_or("");
        self.state
            .save(&format!("step {} attempt {a}: failed ({why})", step.number))?;
        fault::point("after-record");
        Ok(())
    }

    /// The failure policy (DESIGN §6.5) after attempt `a`.
    pub(super) fn after_failure(
        &mut self,
        step: &Step,
        snapshot: Oid,
        a: u32,
        last: bool,
        done: &Attempt,
    ) -> Result<Next> {
        let reason = done.reason.clone().unwrap_or_else(|| "the step did not pass".into());
        if done.sandbox_blocked {
            return self.end(step, StepStatus::Blocked, Some(reason)).map(Next::End);
        }
        let policy = step.on_failure.action;
        if done.blocked && policy != FailurePolicy::Skip {
            // Trying again cannot help an executor that could not start.
            return self.end(step, StepStatus::Blocked, Some(reason)).map(Next::End);
        }
        let feedback = || {
            let mut f = format!("Attempt {a} failed: {reason}");
            if let (Some(tail), Some(v)) = (&done.verify_tail, &step.verify) {
                match tail.trim() {
                    "" => f.push_str(&format!("\nVerify ({}) printed nothing.", v.command)),
                    _ => f.push_str(&format!("\nVerify ({}) printed:\n{tail}", v.command)),
                }
            }
            if policy == FailurePolicy::Revert {
                f.push_str("\nThe worktree was restored to how it was before the step.");
            }
            if let Some(instructions) = &step.on_failure.instructions {
                f.push_str(&format!("\nOn failure ({}): {instructions}", policy.as_str()));
            }
            f
        };
        match policy {
            FailurePolicy::Escalate => self.end(step, StepStatus::Escalated, Some(reason)).map(Next::End),
            FailurePolicy::Skip => {
                self.restore_step(step.number, &done.observed, snapshot)?;
                self.end(step, StepStatus::Skipped, Some(reason)).map(Next::End)
            }
            FailurePolicy::Revert | FailurePolicy::Retry if last => {
                self.restore_step(step.number, &done.observed, snapshot)?;
                self.end(step, StepStatus::Failed, Some(reason)).map(Next::End)
            }
            FailurePolicy::Revert => {
                self.restore_step(step.number, &done.observed, snapshot)?;
                Ok(Next::Retry {
                    base: snapshot,
                    feedback: feedback(),
                })
            }
            FailurePolicy::Retry => Ok(Next::Retry {
                base: done.observed.tree,
                feedback: feedback(),
            }),
        }
    }

    /// Puts everything back as it was before step `n`: HEAD, its branch and
    /// the stash, then the working tree (from `current`, what is there now),
    /// then the index.
    pub(super) fn restore_step(&mut self, n: u32, current: &Snapshot, snapshot: Oid) -> Result<()> {
        self.put_pointers_back(n)?;
        self.repo.restore(current, snapshot, None)?;
        self.put_index_back(n)?;
        self.put_own_files_back(n)?;
        self.put_ignored_back(n)?;
        fault::point("after-restore");
        Ok(())
    }

    /// Ends the step with `status`, keeping the worktree as it is.
    pub(super) fn end(&mut self, step: &Step, status: StepStatus, reason: Option<String>) -> Result<StepEnd> {
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

    pub(super) fn test_first(&mut self, step: &Step) -> Result<()> {
        let n = step.number;
        let Some(v) = &step.verify else {
            self.warn(format!(
                "step {n}: Test first is given but there is no Verify to run it"
            ));
            return Ok(());
        };
        let checked = expecting::run(v, &self.workdir, self.opts)?;
        let verdict = if checked.passed() {
            self.warn(format!("step {n}: Verify already passes before the step (Test first expects it to fail); the step may already be done"));
            "GREEN (unexpected: already passes)"
        } else {
            "RED (fails as expected)"
        };
        self.state.put_text(
            &self.state.step_paths(n).test_first_log(),
            &format!("test first: {verdict}\n--- verify: {}\n{}", v.command, checked.output),
        )?;
        Ok(())
    }
}
