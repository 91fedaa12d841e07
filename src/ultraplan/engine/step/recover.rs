//! Picking a step up again: one a killed process left `running` (from
//! whatever phase it reached), and an escalated or waiting one, whose
//! worktree a person may have fixed, verified in place.

use anyhow::{anyhow, Context, Result};

use super::{Attempt, AttemptEnd, Next, Run, StepEnd};
use crate::git::{Oid, Snapshot};
use crate::ultraplan::plan::{pattern, Step};
use crate::ultraplan::state::StepStatus;

impl Run<'_> {
    /// An escalated or waiting step on `--resume`: verify what a person left
    /// in the worktree, like any attempt.
    pub(super) fn verify_in_place(&mut self, step: &Step) -> Result<StepEnd> {
        let n = step.number;
        let previous = self.state.progress.step(n).status;
        let Some(snapshot) = self.kept_tree(&self.state.step_paths(n).snapshot())? else {
            return self.start(step);
        };
        if let Some(reason) = self.declared_scope_violation(step) {
            // Still fenced off: what a person did cannot make it pass.
            return self.end(step, StepStatus::Escalated, Some(reason));
        }
        // What the person staged, committed or configured meanwhile is
        // theirs: the step's index and pointers start from here.
        self.record_git(n)?;
        let a = self.state.progress.step(n).attempts + 1;
        match self.attempt(step, snapshot, a, None, None)? {
            AttemptEnd::Done(done) if done.passed => self.checkpoint(step, a, &done),
            AttemptEnd::Done(done) => {
                self.record_failure(step, a, &done)?;
                // A check that fails in place (a person reported an issue
                // in the review) has failed; a person's own change that does
                // not verify yet leaves the step as it was.
                let status = if step.check_only { StepStatus::Failed } else { previous };
                self.end(step, status, done.reason.clone())
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
        let Some(snapshot) = self.kept_tree(&self.state.step_paths(n).snapshot())? else {
            return self.start(step);
        };
        if let Some(commit) = self.state.read_text(&self.state.step_paths(n).checkpoint())? {
            let commit: Oid = commit
                .trim()
                .parse()
                .ok()
                .context("unreadable checkpoint id in the run state")?;
            return self.resume_checkpoint(step, commit);
        }
        let a = self.state.progress.step(n).attempts;
        let first = self.attempt_limit(step)? + 1 - self.opts.max_attempts.max(1);
        if a < first {
            // Killed before its first attempt: every change since is a person's.
            let current = self.repo.scan(&mut self.tracker)?;
            let (snapshot, _) = self.adopt_person_edits(n, snapshot, &current, (snapshot, snapshot), |_| Ok(true))?;
            return self.attempts(step, snapshot, first, snapshot, None);
        }
        let in_place = self.state.read_text(&self.state.step_paths(n).in_place(a))?.is_some();
        let feedback = self.state.read_text(&self.state.step_paths(n).feedback(a))?;
        match self.state.read_text(&self.state.step_paths(n).record(a))? {
            None if in_place => {
                self.state.progress.step_mut(n).attempts = a - 1;
                self.verify_in_place(step)
            }
            None => {
                // The attempt was cut short: keep what it left, then start it
                // again from its base. Its changes cannot be told from a
                // person's by content: what changed in the step's Files is
                // taken as the attempt's (undone, kept in the state), anything
                // else as the person's (kept in place). Never silent.
                let current = self.repo.scan(&mut self.tracker)?;
                self.keep_tree(&self.state.step_paths(n).interrupted(a), current.tree)?;
                let base = self.kept_tree(&self.state.step_paths(n).base(a))?.unwrap_or(snapshot);
                let files: Vec<String> = step.files.iter().map(|f| f.path.clone()).collect();
                let outside = |c: &crate::git::FileChange| Ok(!files.iter().any(|f| pattern::matches(f, &c.path)));
                let (snapshot, base) = self.adopt_person_edits(n, base, &current, (snapshot, base), outside)?;
                self.put_pointers_back(n)?;
                let undone = self.repo.restore(&current, base, None)?;
                self.put_index_back(n)?;
                self.put_own_files_back(n)?;
                self.put_ignored_back(n)?;
                if !undone.is_empty() {
                    self.warn(format!(
                        "step {n}: undid the interrupted attempt's changes to {} before trying again (they are kept: git show {}:{}/files/<path>)",
                        undone.join(", "),
                        self.state.ref_name,
                        self.state.step_paths(n).interrupted(a)
                    ));
                }
                self.state
                    .save(&format!("step {n} attempt {a}: interrupted; starting it again"))?;
                self.attempts(step, snapshot, a, base, feedback)
            }
            Some(record) => {
                let passed = record_status(&record).as_deref() == Some("success");
                let observed_tree = self
                    .kept_tree(&self.state.step_paths(n).after(a))?
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
                        verify_tail: None,
                    };
                    return self.checkpoint(step, a, &done);
                }
                let reason = self.state.progress.step(n).error.clone();
                // The attempt's tree is what the run left, or the snapshot
                // where its policy restored a path: anything else is a person's.
                let current = self.repo.scan(&mut self.tracker)?;
                let repo = self.repo;
                let restored = |c: &crate::git::FileChange| Ok(repo.tree_entry(snapshot, &c.path)? != c.new);
                let (snapshot, _) =
                    self.adopt_person_edits(n, observed_tree, &current, (snapshot, snapshot), restored)?;
                let done = Attempt {
                    passed: false,
                    sandbox_blocked: reason.as_deref().is_some_and(|r| r.starts_with("Step 0 exited 77")),
                    blocked: record_status(&record).as_deref() == Some("blocked"),
                    reason,
                    observed: current,
                    changes: Vec::new(),
                    record,
                    verify_tail: self.recorded_verify_tail(n, a)?,
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
    let value = crate::yaml::parse(record).ok()?;
    value.get("result")?.get("status")?.as_str().map(str::to_owned)
}
