//! Checkpoints (DESIGN §6.4).
//!
//! A `git commit -m` checkpoint is made by ultraplan: the commit is built from
//! HEAD's tree plus exactly the step's allowed observed changes, its id is
//! saved in the run state ("pending"), then the branch moves (compare-and-swap),
//! the index learns the committed paths, and the note is written. Resuming a
//! pending checkpoint repeats whichever of those had not happened, so a step is
//! never run again after its checkpoint.

use anyhow::{anyhow, Context, Result};

use super::{fault, Attempt, Run, StepEnd};
use crate::git::{FileChange, Oid, Snapshot};
use crate::process;
use crate::ultraplan::plan::{writeback, Checkpoint, PlanKind, Step};
use crate::ultraplan::state::{now, write_note, StepStatus};

impl Run<'_> {
    pub(super) fn checkpoint(&mut self, step: &Step, a: u32, done: &Attempt) -> Result<StepEnd> {
        let n = step.number;
        let mut observed = done.observed.clone();
        let mut changes = self.step_edits_only(step, &done.changes, &mut observed)?;
        if let Some(plan_change) = self.sync_checkbox(step)? {
            // Staged with the stat of the file as synced, not as observed.
            observed.refresh_stat(&self.workdir, &plan_change.path);
            changes.retain(|c| c.path != plan_change.path);
            changes.push(plan_change);
        }
        let commit_message = match &step.checkpoint {
            Some(Checkpoint::Commit { message }) if !changes.is_empty() => Some(message),
            _ => None,
        };
        let Some(message) = commit_message else {
            self.state.save(&format!("step {n} attempt {a}: passed"))?;
            fault::point("after-record");
            return self.finish_checkpoint(step, done, &changes);
        };
        // The plan's message is written to git, so it passes the one
        // redaction function like everything else (DESIGN §11).
        let redacted = crate::redact::redact(message);
        if redacted != message.as_str() {
            self.warn(format!(
                "step {n}: the checkpoint message holds a secret; it is committed redacted"
            ));
        }
        // The commit exists before anything points at it; the state records
        // it (with the attempt) before the branch moves.
        let parent = self.repo.head()?.commit;
        let commit = self.repo.commit_changes(parent, &changes, &redacted)?;
        self.state
            .put_text(&self.state.step_paths(n).checkpoint(), &format!("{commit}\n"))?;
        self.state.save(&format!(
            "step {n} attempt {a}: passed; checkpoint {}",
            self.repo.short(commit)
        ))?;
        fault::point("after-record");
        fault::point("checkpoint-pending");
        self.land(step, commit, parent, &changes, &observed, &done.record)
    }

    /// The changes to commit for a passed step: only what the step did.
    ///
    /// * A change HEAD already has is dropped (an executor that committed by
    ///   itself, against the protocol, gets a warning instead of an empty
    ///   checkpoint commit).
    /// * A file that had uncommitted edits of the user's before the step is
    ///   committed as HEAD's version plus the step's own edits (a three-way
    ///   merge); the user's edits stay in the worktree, uncommitted, as they
    ///   were. When the two cannot be told apart, the whole file is committed
    ///   and a warning says so.
    fn step_edits_only(
        &mut self,
        step: &Step,
        changes: &[FileChange],
        observed: &mut Snapshot,
    ) -> Result<Vec<FileChange>> {
        use crate::git::EntryKind;
        let n = step.number;
        let head_tree = match self.repo.head()?.commit {
            Some(c) => self.repo.commit_tree(c)?,
            None => self.repo.empty_tree(),
        };
        let snapshot = self.kept_tree(&self.state.step_paths(n).snapshot())?;
        let mut out = Vec::new();
        let mut already = Vec::new();
        let mut untracked_gone = Vec::new();
        for change in changes {
            let head = self.repo.tree_entry(head_tree, &change.path)?;
            if head.is_none() && change.new.is_none() {
                untracked_gone.push(change.path.clone());
                continue;
            }
            if head == change.new {
                already.push(change.path.clone());
                continue;
            }
            let before = match snapshot {
                Some(tree) => self.repo.tree_entry(tree, &change.path)?,
                None => head,
            };
            let (Some((new_id, kind @ (EntryKind::Blob | EntryKind::Executable))), Some((before_id, _))) =
                (change.new, before)
            else {
                out.push(change.clone());
                continue;
            };
            match head {
                Some((head_id, EntryKind::Blob | EntryKind::Executable)) if head_id != before_id => {
                    let (base, ours, theirs) = (
                        self.repo.read_blob(before_id)?,
                        self.repo.read_blob(head_id)?,
                        self.repo.read_blob(new_id)?,
                    );
                    match crate::git::Repo::merge_text(&base, &ours, &theirs) {
                        Some(merged) => {
                            let id = self.repo.write_blob(&merged)?;
                            observed.forget_stat(&change.path);
                            out.push(FileChange {
                                path: change.path.clone(),
                                new: Some((id, kind)),
                            });
                        }
                        None => {
                            self.warn(format!(
                                "step {n}: '{}' had uncommitted changes before the step that overlap the step's; the checkpoint commits the whole file",
                                change.path
                            ));
                            out.push(change.clone());
                        }
                    }
                }
                None => {
                    self.warn(format!(
                        "step {n}: '{}' was an untracked file before the step; the checkpoint commits all of it",
                        change.path
                    ));
                    out.push(change.clone());
                }
                _ => out.push(change.clone()),
            }
        }
        if !untracked_gone.is_empty() {
            self.warn(format!(
                "step {n}: deleted the untracked file{} {}: git never tracked {}, so there is nothing to commit (its content is in the step's snapshot: git show {}:{}/files/<path>)",
                if untracked_gone.len() == 1 { "" } else { "s" },
                untracked_gone.join(", "),
                if untracked_gone.len() == 1 { "it" } else { "them" },
                self.state.ref_name,
                self.state.step_paths(n).snapshot()
            ));
        }
        if !already.is_empty() {
            self.warn(format!(
                "step {n}: HEAD already has {} (did the executor commit by itself?); not committed again",
                already.join(", ")
            ));
        }
        Ok(out)
    }

    /// At the end of a session run in a worktree that is about to be
    /// removed: the changes of passed steps whose Checkpoint committed
    /// nothing (`none`, or a command that did not commit) would be lost with
    /// it, so they are committed, exactly those paths, in one commit.
    pub(in crate::ultraplan::engine) fn commit_leftovers(&mut self, steps: &[&Step]) -> Result<()> {
        let mut paths = std::collections::BTreeSet::new();
        let mut numbers = Vec::new();
        for step in steps {
            let p = self.state.progress.step(step.number);
            if p.status != StepStatus::Passed || p.commit.is_some() {
                continue;
            }
            let record = self
                .state
                .read_text(&self.state.step_paths(step.number).record(p.attempts))?
                .unwrap_or_default();
            let files = files_modified(&record);
            if !files.is_empty() {
                numbers.push(step.number.to_string());
                paths.extend(files);
            }
        }
        if paths.is_empty() {
            return Ok(());
        }
        let current = self.repo.scan(&mut self.tracker)?;
        let head = current.head;
        let head_tree = match head {
            Some(c) => self.repo.commit_tree(c)?,
            None => self.repo.empty_tree(),
        };
        let changes: Vec<FileChange> = self
            .repo
            .changes(head_tree, current.tree)?
            .into_iter()
            .filter(|c| paths.contains(&c.path))
            .collect();
        if changes.is_empty() {
            return Ok(());
        }
        let session = self.session.map(|s| s.number).unwrap_or_default();
        let message = format!(
            "chore: keep the uncommitted changes of step{} {} (ultraplan session {session})",
            if numbers.len() == 1 { "" } else { "s" },
            numbers.join(", ")
        );
        let commit = self.repo.commit_changes(head, &changes, &message)?;
        self.repo.advance_head(head, commit, &format!("commit: {message}"))?;
        self.tracker.moved_head(commit);
        self.repo.stage(&changes, &current)?;
        self.warn(format!(
            "step{} {} passed without committing {}; committed as '{message}' so the merge keeps them",
            if numbers.len() == 1 { "" } else { "s" },
            numbers.join(", "),
            changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>().join(", ")
        ));
        self.state.save(&format!(
            "session {session}: kept uncommitted changes ({})",
            self.repo.short(commit)
        ))
    }

    /// A passed step whose checkpoint is not a commit of changes.
    fn finish_checkpoint(&mut self, step: &Step, done: &Attempt, changes: &[FileChange]) -> Result<StepEnd> {
        let n = step.number;
        self.carry_index_over(n)?;
        match &step.checkpoint {
            None => self.passed(step, None),
            Some(Checkpoint::Command { command }) => {
                let before = self.repo.head()?.commit;
                let finished = process::shell(
                    command,
                    &self.workdir,
                    Vec::new(),
                    self.opts.verify_timeout,
                    self.opts.transcript_cap,
                )?;
                if !finished.ending.success() {
                    self.warn(format!(
                        "step {n}: the checkpoint command '{command}' ended with {}; the step still passed",
                        finished.ending.describe()
                    ));
                }
                let after = self.repo.head()?.commit;
                let commit = after.filter(|c| Some(*c) != before);
                if let Some(c) = commit {
                    write_note(self.repo, c, &done.record)?;
                }
                self.passed(step, commit)
            }
            Some(Checkpoint::Commit { .. }) => {
                debug_assert!(changes.is_empty());
                self.warn(format!("step {n}: nothing changed, so there is no checkpoint commit"));
                self.passed(step, None)
            }
        }
    }

    /// Finishes a checkpoint recorded as pending by a killed process.
    pub(super) fn resume_checkpoint(&mut self, step: &Step, commit: Oid) -> Result<StepEnd> {
        let n = step.number;
        let info = self.repo.commit_info(commit)?;
        let parent = info.parents.first().copied();
        let base = match parent {
            Some(p) => self.repo.commit_tree(p)?,
            None => self.repo.empty_tree(),
        };
        let changes = self.repo.changes(base, info.tree)?;
        let a = self.state.progress.step(n).attempts;
        let record = self
            .state
            .read_text(&self.state.step_paths(n).record(a))?
            .unwrap_or_default();
        // Stat data is unknown after a crash: zeroed entries make git compare contents.
        self.land(
            step,
            commit,
            parent,
            &changes,
            &Snapshot::recorded(parent, info.tree),
            &record,
        )
    }

    fn land(
        &mut self,
        step: &Step,
        commit: Oid,
        parent: Option<Oid>,
        changes: &[FileChange],
        observed: &Snapshot,
        record: &str,
    ) -> Result<StepEnd> {
        let head = self.repo.head()?.commit;
        if head == parent {
            let message = self.repo.commit_info(commit)?.message;
            let subject = message.lines().next().unwrap_or("").to_owned();
            self.repo.advance_head(parent, commit, &format!("commit: {subject}"))?;
            self.tracker.moved_head(commit);
        } else if !head.is_some_and(|h| self.repo.is_ancestor(commit, h).unwrap_or(false)) {
            return Err(anyhow!(
                "HEAD moved while step {} was being committed; its checkpoint is commit {}",
                step.number,
                self.repo.short(commit)
            ));
        }
        fault::point("branch-moved");
        self.repo.stage(changes, observed)?;
        self.carry_index_over(step.number)?;
        fault::point("index-staged");
        write_note(self.repo, commit, record)?;
        fault::point("note-written");
        self.passed(step, Some(commit))
    }

    fn passed(&mut self, step: &Step, commit: Option<Oid>) -> Result<StepEnd> {
        let n = step.number;
        let p = self.state.progress.step_mut(n);
        p.status = StepStatus::Passed;
        p.error = None;
        p.completed_at = Some(now());
        p.commit = commit.map(|c| c.to_string());
        let suffix = commit.map(|c| format!(" ({})", self.repo.short(c))).unwrap_or_default();
        self.state.save(&format!("step {n}: passed{suffix}"))?;
        fault::point("step-done");
        Ok(StepEnd::Passed)
    }

    /// A passed task recorded in the plan file as its format does it (a
    /// task plan's checkbox and `<task>` status, spec-kit's and Kiro's boxes,
    /// a BMAD story's boxes and Status, Taskmaster's `status`); returned as a
    /// change to commit when the plan is tracked. Never inside a session's
    /// worktree (the orchestrator records after merging).
    fn sync_checkbox(&mut self, step: &Step) -> Result<Option<FileChange>> {
        if !writeback::records(self.plan.kind) || self.plan.kind == PlanKind::Phase || self.session.is_some() {
            return Ok(None);
        }
        let Some(relative) = self.input.in_worktree.clone() else {
            return Ok(None);
        };
        let path = self.workdir.join(&relative);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let date = chrono::Utc::now().format("%Y-%m-%d").to_string();
        let stamp = now();
        let stamp = writeback::Stamp {
            date: &date,
            timestamp: &stamp,
        };
        let Some(updated) = writeback::mark_done(self.plan.kind, &text, step, &self.input.choices, &stamp) else {
            return Ok(None);
        };
        std::fs::write(&path, &updated).with_context(|| format!("cannot update '{relative}'"))?;
        let head_tree = match self.repo.head()?.commit {
            Some(c) => self.repo.commit_tree(c)?,
            None => return Ok(None),
        };
        if self.repo.tree_entry(head_tree, &relative)?.is_none() {
            return Ok(None); // untracked plan: updated on disk, not committed
        }
        let id = self.repo.write_blob(updated.as_bytes())?;
        Ok(Some(FileChange {
            path: relative,
            new: Some((id, crate::git::EntryKind::Blob)),
        }))
    }
}

/// `result.files_modified` of a recorded attempt.
fn files_modified(record: &str) -> Vec<String> {
    let Ok(value) = crate::yaml::parse(record) else {
        return Vec::new();
    };
    value
        .get("result")
        .and_then(|r| r.get("files_modified"))
        .and_then(|f| f.as_sequence())
        .map(|seq| seq.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}
