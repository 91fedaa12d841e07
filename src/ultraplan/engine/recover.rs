//! Picking a step up again: one a killed process left `running` (from
//! whatever phase it reached), and an escalated or waiting one, whose
//! worktree a person may have fixed, verified in place.

use anyhow::{anyhow, Result};

use super::step::{Attempt, AttemptEnd, Next, StepEnd};
use super::Run;
use crate::git::{Oid, Snapshot};
use crate::ultraplan::plan::Step;
use crate::ultraplan::state::StepStatus;

impl Run<'_> {
    /// An escalated or waiting step on `--resume`: verify what a person left
    /// in the worktree, like any attempt.
    pub(super) fn verify_in_place(&mut self, step: &Step) -> Result<StepEnd> {
        let n = step.number;
        let previous = self.state.progress.step(n).status;
        let Some(snapshot) = self.kept_tree(&format!("steps/{n}/snapshot"))? else {
            return self.start(step);
        };
        if let Some(reason) = self.declared_scope_violation(step) {
            // Still fenced off: what a person did cannot make it pass.
            return self.end(step, StepStatus::Escalated, Some(reason));
        }
        let a = self.state.progress.step(n).attempts + 1;
        match self.attempt(step, snapshot, a, None, None)? {
            AttemptEnd::Done(done) if done.passed => self.checkpoint(step, a, &done),
            AttemptEnd::Done(done) => {
                self.record_failure(step, a, &done)?;
                self.end(step, previous, done.reason.clone())
            }
            AttemptEnd::Waiting(text) => {
                self.instructions = Some(text);
                let why = match step.human {
                    Some(_) => "waiting for a person to check or decide",
                    None => "waiting for a person to make the change",
                };
                self.end(step, previous, Some(why.into()))
            }
            AttemptEnd::Interrupted => Ok(StepEnd::Interrupted),
        }
    }

    /// Picks up a step a killed process left `running`.
    pub(super) fn recover(&mut self, step: &Step) -> Result<StepEnd> {
        let n = step.number;
        let Some(snapshot) = self.kept_tree(&format!("steps/{n}/snapshot"))? else {
            return self.start(step);
        };
        if let Some(commit) = self.state.read_text(&format!("steps/{n}/checkpoint"))? {
            let commit: Oid = commit
                .trim()
                .parse()
                .map_err(|_| anyhow!("unreadable checkpoint id in the run state"))?;
            return self.resume_checkpoint(step, commit);
        }
        let a = self.state.progress.step(n).attempts;
        let first = self.attempt_limit(step)? + 1 - self.opts.max_attempts.max(1);
        if a < first {
            return self.attempts(step, snapshot, first, snapshot, None);
        }
        let in_place = self
            .state
            .read_text(&format!("steps/{n}/attempt-{a}.in-place"))?
            .is_some();
        let feedback = self.state.read_text(&format!("steps/{n}/attempt-{a}.feedback"))?;
        match self.state.read_text(&format!("steps/{n}/attempt-{a}.yaml"))? {
            None if in_place => {
                self.state.progress.step_mut(n).attempts = a - 1;
                self.verify_in_place(step)
            }
            None => {
                // The attempt was cut short: keep what it left, then start it again from its base.
                let current = self.repo.scan(&mut self.tracker)?;
                self.keep_tree(&format!("steps/{n}/attempt-{a}.interrupted"), current.tree)?;
                let base = self
                    .kept_tree(&format!("steps/{n}/attempt-{a}.base"))?
                    .unwrap_or(snapshot);
                self.repo.restore(&current, base, None)?;
                self.state
                    .save(&format!("step {n} attempt {a}: interrupted; starting it again"))?;
                self.attempts(step, snapshot, a, base, feedback)
            }
            Some(record) => {
                let passed = record_status(&record).as_deref() == Some("success");
                let observed_tree = self
                    .kept_tree(&format!("steps/{n}/attempt-{a}.tree"))?
                    .ok_or_else(|| anyhow!("the run state lacks attempt {a}'s tree of step {n}"))?;
                if passed {
                    let done = Attempt {
                        passed: true,
                        reason: None,
                        observed: Snapshot::recorded(None, observed_tree),
                        changes: self.repo.changes(snapshot, observed_tree)?,
                        record,
                        blocked: false,
                        sandbox_blocked: false,
                    };
                    return self.checkpoint(step, a, &done);
                }
                let reason = self.state.progress.step(n).error.clone();
                let done = Attempt {
                    passed: false,
                    sandbox_blocked: reason.as_deref().is_some_and(|r| r.starts_with("Step 0 exited 77")),
                    blocked: record_status(&record).as_deref() == Some("blocked"),
                    reason,
                    observed: self.repo.scan(&mut self.tracker)?,
                    changes: Vec::new(),
                    record,
                };
                let last = a >= self.attempt_limit(step)?;
                match self.after_failure(step, snapshot, a, last, &done)? {
                    Next::End(end) => Ok(end),
                    Next::Retry { base, feedback } => self.attempts(step, snapshot, a + 1, base, Some(feedback)),
                }
            }
        }
    }
}

/// The `result.status` of a recorded attempt.
fn record_status(record: &str) -> Option<String> {
    let value: serde_yaml::Value = serde_yaml::from_str(record).ok()?;
    value.get("result")?.get("status")?.as_str().map(str::to_owned)
}
