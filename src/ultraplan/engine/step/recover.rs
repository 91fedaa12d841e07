//! Picking a step up again: one a killed process left `running` (from
//! whatever stage it reached), and an escalated or waiting one, whose
//! worktree a person may have fixed, verified in place.
//!
//! A step left `running` is where the run state says it stopped:
//!
//! * its checkpoint pending → the checkpoint is finished;
//! * before its first attempt → the attempts start, what changed since
//!   taken as a person's;
//! * an attempt started in place, not recorded → verified in place again;
//! * an attempt cut short → its changes undone, the attempt started again;
//! * an attempt recorded as passed → its checkpoint;
//! * an attempt recorded as failed → the failure policy, as if it had just
//!   failed.

use anyhow::{anyhow, Context, Result};

use super::{checkpoint, end, policy, record, restore, scope, Attempt, AttemptEnd, Next, StepEnd, StepRun};
use crate::git::{FileChange, Oid, Snapshot};
use crate::ultraplan::plan::pattern;
use crate::ultraplan::state::StepStatus;

impl StepRun<'_, '_> {
    /// An escalated or waiting step on `--resume`: verify what a person left
    /// in the worktree, like any attempt.
    pub(super) fn verify_in_place(&mut self) -> Result<StepEnd> {
        let (step, n) = (self.step, self.step.number);
        let previous = self.ledger.state.progress.status(n);
        let Some(snapshot) = self.ledger.kept_tree(&self.ledger.state.step_paths(n).snapshot())? else {
            return self.start();
        };
        if let Some(reason) = scope::declared_violation(&self.fence, &self.cx.workdir, step) {
            // Still fenced off: what a person did cannot make it pass.
            return end(self.ledger, step, StepStatus::Escalated, Some(reason));
        }
        // What the person staged, committed or configured meanwhile is
        // theirs: the step's index and pointers start from here.
        restore::record(self.cx, self.ledger, self.watch, n, None)?;
        let a = self.ledger.state.progress.step(n).attempts + 1;
        match self.attempt(snapshot, a, None, None)? {
            AttemptEnd::Done(done) if done.passed => {
                checkpoint::checkpoint(self.cx, self.ledger, self.watch, step, a, &done)
            }
            AttemptEnd::Done(done) => {
                record::record_failure(self.ledger, step, a, &done)?;
                // A check that fails in place (a person reported an issue
                // in the review) has failed; a person's own change that does
                // not verify yet leaves the step as it was.
                let status = if step.check_only { StepStatus::Failed } else { previous };
                end(self.ledger, step, status, done.reason.clone())
            }
            AttemptEnd::Waiting(text) => self.wait(text, previous),
            AttemptEnd::Interrupted => Ok(StepEnd::Interrupted),
        }
    }

    /// Picks up a step a killed process left `running`, from the stage the
    /// run state says it reached.
    pub(super) fn recover(&mut self) -> Result<StepEnd> {
        let n = self.step.number;
        let Some(snapshot) = self.ledger.kept_tree(&self.ledger.state.step_paths(n).snapshot())? else {
            return self.start();
        };
        if let Some(commit) = self.pending_checkpoint()? {
            return checkpoint::resume_checkpoint(self.ledger, self.watch, self.step, commit);
        }
        let a = self.ledger.state.progress.step(n).attempts;
        let first = self.attempt_limit()? + 1 - self.cx.opts.max_attempts.max(1);
        if a < first {
            return self.before_first_attempt(snapshot, first);
        }
        let state = &self.ledger.state;
        let in_place = state.read_text(&state.step_paths(n).in_place(a))?.is_some();
        match state.read_text(&state.step_paths(n).record(a))? {
            None if in_place => {
                self.ledger.state.progress.step_mut(n).attempts = a - 1;
                self.verify_in_place()
            }
            None => self.cut_short(snapshot, a),
            Some(record) if record_status(&record).as_deref() == Some("success") => {
                self.recorded_pass(snapshot, a, record)
            }
            Some(record) => self.recorded_failure(snapshot, a, record),
        }
    }

    /// The checkpoint commit the run state holds as made, not yet landed.
    fn pending_checkpoint(&self) -> Result<Option<Oid>> {
        let state = &self.ledger.state;
        let Some(commit) = state.read_text(&state.step_paths(self.step.number).checkpoint())? else {
            return Ok(None);
        };
        let commit: Oid = commit
            .trim()
            .parse()
            .ok()
            .context("unreadable checkpoint id in the run state")?;
        Ok(Some(commit))
    }

    /// Killed before its first attempt: every change since is a person's.
    fn before_first_attempt(&mut self, snapshot: Oid, first: u32) -> Result<StepEnd> {
        let current = self.ledger.repo.scan(&mut self.watch.tracker)?;
        let (snapshot, _) = self.adopt_person_edits(snapshot, &current, (snapshot, snapshot), |_| Ok(true))?;
        self.attempts(snapshot, first, snapshot, None)
    }

    /// Attempt `a` was cut short: keep what it left, then start it again
    /// from its base. Its changes cannot be told from a person's by
    /// content: what changed in the step's Files is taken as the attempt's
    /// (undone, kept in the state), anything else as the person's (kept in
    /// place). Never silent.
    fn cut_short(&mut self, snapshot: Oid, a: u32) -> Result<StepEnd> {
        let (step, n) = (self.step, self.step.number);
        let feedback = self
            .ledger
            .state
            .read_text(&self.ledger.state.step_paths(n).feedback(a))?;
        let current = self.ledger.repo.scan(&mut self.watch.tracker)?;
        self.ledger
            .keep_tree(&self.ledger.state.step_paths(n).interrupted(a), current.tree)?;
        let base = self
            .ledger
            .kept_tree(&self.ledger.state.step_paths(n).base(a))?
            .unwrap_or(snapshot);
        let files: Vec<String> = step.files.iter().map(|f| f.path.clone()).collect();
        let outside = |c: &FileChange| Ok(!files.iter().any(|f| pattern::matches(f, &c.path)));
        let (snapshot, base) = self.adopt_person_edits(base, &current, (snapshot, base), outside)?;
        let undone = restore::put_back(self.ledger, n, &current, base)?;
        if !undone.is_empty() {
            self.ledger.warn(format!(
                "step {n}: undid the interrupted attempt's changes to {} before trying again (they are kept: git show {}:{}/files/<path>)",
                undone.join(", "),
                self.ledger.state.ref_name,
                self.ledger.state.step_paths(n).interrupted(a)
            ));
        }
        let interrupted = &mut self.ledger.state.progress.step_mut(n).interrupted;
        if !interrupted.contains(&a) {
            interrupted.push(a);
        }
        self.ledger
            .state
            .save(&format!("step {n} attempt {a}: interrupted; starting it again"))?;
        self.attempts(snapshot, a, base, feedback)
    }

    /// Attempt `a` was recorded as passed: its checkpoint.
    fn recorded_pass(&mut self, snapshot: Oid, a: u32, record: String) -> Result<StepEnd> {
        let observed_tree = self.recorded_tree(a)?;
        let done = Attempt {
            passed: true,
            reason: None,
            observed: Snapshot::recorded(None, observed_tree),
            changes: self.ledger.repo.changes(snapshot, observed_tree)?,
            record,
            blocked: false,
            sandbox_blocked: false,
            verify_output: None,
        };
        checkpoint::checkpoint(self.cx, self.ledger, self.watch, self.step, a, &done)
    }

    /// Attempt `a` was recorded as failed: the failure policy, as if it had
    /// just failed.
    fn recorded_failure(&mut self, snapshot: Oid, a: u32, record: String) -> Result<StepEnd> {
        let (step, n) = (self.step, self.step.number);
        let observed_tree = self.recorded_tree(a)?;
        let reason = self.ledger.state.progress.step(n).error.clone();
        // The attempt's tree is what the run left, or the snapshot
        // where its policy restored a path: anything else is a person's.
        let current = self.ledger.repo.scan(&mut self.watch.tracker)?;
        let repo = self.ledger.repo;
        let restored = |c: &FileChange| Ok(repo.tree_entry(snapshot, &c.path)? != c.new);
        let (snapshot, _) = self.adopt_person_edits(observed_tree, &current, (snapshot, snapshot), restored)?;
        let done = Attempt {
            passed: false,
            sandbox_blocked: reason.as_deref().is_some_and(|r| r.starts_with("Step 0 exited 77")),
            blocked: record_status(&record).as_deref() == Some("blocked"),
            reason,
            observed: current,
            changes: Vec::new(),
            record,
            verify_output: policy::recorded_verify_output(self.ledger, n, a)?,
        };
        let last = a >= self.attempt_limit()?;
        match policy::after_failure(self.ledger, step, snapshot, a, last, &done)? {
            Next::End(end) => Ok(end),
            Next::Retry { base, feedback } => self.attempts(snapshot, a + 1, base, Some(feedback)),
        }
    }

    /// The tree attempt `a` left, as the run state recorded it.
    fn recorded_tree(&self, a: u32) -> Result<Oid> {
        let n = self.step.number;
        self.ledger
            .kept_tree(&self.ledger.state.step_paths(n).after(a))?
            .ok_or_else(|| anyhow!("the run state lacks attempt {a}'s tree of step {n}"))
    }

    /// On a resume: the changes in the worktree since `recorded` (the last
    /// tree the run knows it left) for which `theirs` says the run cannot have
    /// made them are a person's, made while the run was stopped. They are
    /// adopted as if they had been there before the step — the step's
    /// snapshot and the attempt's `base` take them, so no restore reverts
    /// them and no checkpoint commits them — and a warning names them.
    /// Returns the new snapshot and base.
    fn adopt_person_edits(
        &mut self,
        recorded: Oid,
        current: &Snapshot,
        (snapshot, base): (Oid, Oid),
        theirs: impl Fn(&FileChange) -> Result<bool>,
    ) -> Result<(Oid, Oid)> {
        let n = self.step.number;
        let repo = self.ledger.repo;
        let mut edits = Vec::new();
        for change in repo.changes(recorded, current.tree)? {
            if theirs(&change)? {
                edits.push(change);
            }
        }
        if edits.is_empty() {
            return Ok((snapshot, base));
        }
        let snapshot = repo.tree_with(snapshot, &edits)?;
        let base = repo.tree_with(base, &edits)?;
        self.ledger
            .keep_tree(&self.ledger.state.step_paths(n).snapshot(), snapshot)?;
        let paths: Vec<&str> = edits.iter().map(|c| c.path.as_str()).collect();
        let whose = match self.watch.leftovers_stopped {
            true => "yours, or the stopped processes the killed run left behind",
            false => "yours",
        };
        self.ledger.warn(format!(
            "step {n}: kept what changed while the run was stopped: {} (taken as {whose}: the step neither reverts nor commits it)",
            paths.join(", ")
        ));
        Ok((snapshot, base))
    }
}

/// The `result.status` of a recorded attempt.
fn record_status(record: &str) -> Option<String> {
    let value = crate::yaml::parse(record).ok()?;
    value.get("result")?.get("status")?.as_str().map(str::to_owned)
}
