//! Stage 5 of a passed attempt, checkpoint (DESIGN §6.4).
//!
//! A `git commit -m` checkpoint is made by ultraplan: the commit is built from
//! HEAD's tree plus exactly the step's allowed observed changes, its id is
//! saved in the run state ("pending"), then the branch moves (compare-and-swap),
//! the index learns the committed paths, and the note is written. Resuming a
//! pending checkpoint repeats whichever of those had not happened, so a step is
//! never run again after its checkpoint.

use anyhow::{anyhow, Context, Result};

use super::{fault, restore, Attempt, Ledger, RunContext, StepEnd, Watch};
use crate::git::{EntryKind, FileChange, Oid, Snapshot};
use crate::process;
use crate::ultraplan::plan::{writeback, Checkpoint, PlanKind, Step};
use crate::ultraplan::state::{now, write_note, StepStatus};

/// The checkpoint of a passed attempt: the step's own changes committed
/// (or the plan's checkpoint command run), the branch moved, the note written.
pub(super) fn checkpoint(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    watch: &mut Watch,
    step: &Step,
    a: u32,
    done: &Attempt,
) -> Result<StepEnd> {
    let n = step.number;
    let mut observed = done.observed.clone();
    let mut changes = step_edits_only(ledger, step, &done.changes, &mut observed)?;
    if let Some(plan_change) = sync_checkbox(cx, step)? {
        // Staged with the stat of the file as synced, not as observed.
        observed.refresh_stat(&cx.workdir, &plan_change.path);
        changes.retain(|c| c.path != plan_change.path);
        changes.push(plan_change);
    }
    let commit_message = match &step.checkpoint {
        Some(Checkpoint::Commit { message }) if !changes.is_empty() => Some(message),
        _ => None,
    };
    let Some(message) = commit_message else {
        ledger.state.save(&format!("step {n} attempt {a}: passed"))?;
        fault::point("after-record");
        return finish_checkpoint(cx, ledger, step, done, &changes);
    };
    // The plan's message is written to git, so it passes the one
    // redaction function like everything else (DESIGN §11).
    let redacted = crate::redact::redact(message);
    if redacted != message.as_str() {
        ledger.warn(format!(
            "step {n}: the checkpoint message holds a secret; it is committed redacted"
        ));
    }
    // The commit exists before anything points at it; the state records
    // it (with the attempt) before the branch moves.
    let parent = ledger.repo.head()?.commit;
    let commit = ledger.repo.commit_changes(parent, &changes, &redacted)?;
    ledger
        .state
        .put_text(&ledger.state.step_paths(n).checkpoint(), &format!("{commit}\n"))?;
    ledger.state.save(&format!(
        "step {n} attempt {a}: passed; checkpoint {}",
        ledger.repo.short(commit)
    ))?;
    fault::point("after-record");
    fault::point("checkpoint-pending");
    let pending = Pending {
        commit,
        parent,
        changes: &changes,
        observed: &observed,
        record: &done.record,
    };
    land(ledger, watch, step, pending)
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
    ledger: &mut Ledger<'_>,
    step: &Step,
    changes: &[FileChange],
    observed: &mut Snapshot,
) -> Result<Vec<FileChange>> {
    let n = step.number;
    let head_tree = match ledger.repo.head()?.commit {
        Some(c) => ledger.repo.commit_tree(c)?,
        None => ledger.repo.empty_tree(),
    };
    let snapshot = ledger.kept_tree(&ledger.state.step_paths(n).snapshot())?;
    let mut out = Vec::new();
    let mut already = Vec::new();
    let mut untracked_gone = Vec::new();
    for change in changes {
        let head = ledger.repo.tree_entry(head_tree, &change.path)?;
        if head.is_none() && change.new.is_none() {
            untracked_gone.push(change.path.clone());
            continue;
        }
        if head == change.new {
            already.push(change.path.clone());
            continue;
        }
        let before = match snapshot {
            Some(tree) => ledger.repo.tree_entry(tree, &change.path)?,
            None => head,
        };
        out.push(own_edits(ledger, n, change, head, before, observed)?);
    }
    if !untracked_gone.is_empty() {
        ledger.warn(format!(
                "step {n}: deleted the untracked file{} {}: git never tracked {}, so there is nothing to commit (its content is in the step's snapshot: git show {}:{}/files/<path>)",
                if untracked_gone.len() == 1 { "" } else { "s" },
                untracked_gone.join(", "),
                if untracked_gone.len() == 1 { "it" } else { "them" },
                ledger.state.ref_name,
                ledger.state.step_paths(n).snapshot()
            ));
    }
    if !already.is_empty() {
        ledger.warn(format!(
            "step {n}: HEAD already has {} (did the executor commit by itself?); not committed again",
            already.join(", ")
        ));
    }
    Ok(out)
}

/// What step `n` itself did to a file it changed: `change` where HEAD had
/// the file as it was `before` the step; HEAD's version plus the step's own
/// edits where the user had edited it, uncommitted (a three-way merge; the
/// whole file, said in a warning, when they overlap).
fn own_edits(
    ledger: &mut Ledger<'_>,
    n: u32,
    change: &FileChange,
    head: Option<(Oid, EntryKind)>,
    before: Option<(Oid, EntryKind)>,
    observed: &mut Snapshot,
) -> Result<FileChange> {
    let (Some((new_id, kind @ (EntryKind::Blob | EntryKind::Executable))), Some((before_id, _))) = (change.new, before)
    else {
        return Ok(change.clone());
    };
    match head {
        Some((head_id, EntryKind::Blob | EntryKind::Executable)) if head_id != before_id => {
            let (base, ours, theirs) = (
                ledger.repo.read_blob(before_id)?,
                ledger.repo.read_blob(head_id)?,
                ledger.repo.read_blob(new_id)?,
            );
            match crate::git::Repo::merge_text(&base, &ours, &theirs) {
                Some(merged) => {
                    let id = ledger.repo.write_blob(&merged)?;
                    observed.forget_stat(&change.path);
                    Ok(FileChange {
                        path: change.path.clone(),
                        new: Some((id, kind)),
                    })
                }
                None => {
                    ledger.warn(format!(
                        "step {n}: '{}' had uncommitted changes before the step that overlap the step's; the checkpoint commits the whole file",
                        change.path
                    ));
                    Ok(change.clone())
                }
            }
        }
        None => {
            ledger.warn(format!(
                "step {n}: '{}' was an untracked file before the step; the checkpoint commits all of it",
                change.path
            ));
            Ok(change.clone())
        }
        _ => Ok(change.clone()),
    }
}

/// A passed step whose checkpoint is not a commit of changes.
fn finish_checkpoint(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    step: &Step,
    done: &Attempt,
    changes: &[FileChange],
) -> Result<StepEnd> {
    let n = step.number;
    restore::carry_index_over(ledger, n)?;
    match &step.checkpoint {
        None => passed(ledger, step, None),
        Some(Checkpoint::Command { command }) => {
            let before = ledger.repo.head()?.commit;
            let finished = process::shell(
                command,
                &cx.workdir,
                Vec::new(),
                cx.opts.verify_timeout,
                cx.opts.transcript_cap,
            )?;
            if !finished.ending.success() {
                ledger.warn(format!(
                    "step {n}: the checkpoint command '{command}' ended with {}; the step still passed",
                    finished.ending.describe()
                ));
            }
            let after = ledger.repo.head()?.commit;
            let commit = after.filter(|c| Some(*c) != before);
            if let Some(c) = commit {
                write_note(ledger.repo, c, &done.record)?;
            }
            passed(ledger, step, commit)
        }
        Some(Checkpoint::Commit { .. }) => {
            debug_assert!(changes.is_empty());
            ledger.warn(format!("step {n}: nothing changed, so there is no checkpoint commit"));
            passed(ledger, step, None)
        }
    }
}

/// Finishes a checkpoint recorded as pending by a killed process.
pub(super) fn resume_checkpoint(
    ledger: &mut Ledger<'_>,
    watch: &mut Watch,
    step: &Step,
    commit: Oid,
) -> Result<StepEnd> {
    let n = step.number;
    let info = ledger.repo.commit_info(commit)?;
    let parent = info.parents.first().copied();
    let base = match parent {
        Some(p) => ledger.repo.commit_tree(p)?,
        None => ledger.repo.empty_tree(),
    };
    let changes = ledger.repo.changes(base, info.tree)?;
    let a = ledger.state.progress.step(n).attempts;
    let record = ledger
        .state
        .read_text(&ledger.state.step_paths(n).record(a))?
        .unwrap_or_default();
    // Stat data is unknown after a crash: zeroed entries make git compare contents.
    let observed = Snapshot::recorded(parent, info.tree);
    let pending = Pending {
        commit,
        parent,
        changes: &changes,
        observed: &observed,
        record: &record,
    };
    land(ledger, watch, step, pending)
}

fn land(ledger: &mut Ledger<'_>, watch: &mut Watch, step: &Step, pending: Pending<'_>) -> Result<StepEnd> {
    let Pending {
        commit,
        parent,
        changes,
        observed,
        record,
    } = pending;
    let head = ledger.repo.head()?.commit;
    if head == parent {
        let message = ledger.repo.commit_info(commit)?.message;
        let subject = message.lines().next().unwrap_or("").to_owned();
        ledger
            .repo
            .advance_head(parent, commit, &format!("commit: {subject}"))?;
        watch.tracker.moved_head(commit);
    } else if !head.is_some_and(|h| ledger.repo.is_ancestor(commit, h).unwrap_or(false)) {
        return Err(anyhow!(
            "HEAD moved while step {} was being committed; its checkpoint is commit {}",
            step.number,
            ledger.repo.short(commit)
        ));
    }
    fault::point("branch-moved");
    ledger.repo.stage(changes, observed)?;
    restore::carry_index_over(ledger, step.number)?;
    fault::point("index-staged");
    write_note(ledger.repo, commit, record)?;
    fault::point("note-written");
    passed(ledger, step, Some(commit))
}

fn passed(ledger: &mut Ledger<'_>, step: &Step, commit: Option<Oid>) -> Result<StepEnd> {
    let n = step.number;
    let p = ledger.state.progress.step_mut(n);
    p.status = StepStatus::Passed;
    p.error = None;
    p.completed_at = Some(now());
    p.commit = commit.map(|c| c.to_string());
    let suffix = commit
        .map(|c| format!(" ({})", ledger.repo.short(c)))
        .unwrap_or_default();
    let message = format!("step {n}: passed{suffix}");
    match step.checkpoint {
        // Done again on a resume, so the step's end must be saved now.
        Some(Checkpoint::Command { .. }) => ledger.state.save(&message)?,
        // A resume finds the checkpoint (recorded as pending) landed, or
        // the attempt recorded as passed with nothing to commit, and ends
        // the step the same way: the next save carries this one.
        _ => ledger.state.save_later(&message),
    }
    fault::point("step-done");
    Ok(StepEnd::Passed)
}

/// A passed task recorded in the plan file as its format does it (a
/// task plan's checkbox and `<task>` status, spec-kit's and Kiro's boxes,
/// a BMAD story's boxes and Status, Taskmaster's `status`); returned as a
/// change to commit when the plan is tracked. Never inside a session's
/// worktree (the orchestrator records after merging).
fn sync_checkbox(cx: &RunContext<'_>, step: &Step) -> Result<Option<FileChange>> {
    if !writeback::records(cx.plan.kind) || cx.plan.kind == PlanKind::Phase || cx.session.is_some() {
        return Ok(None);
    }
    let Some(relative) = cx.input.in_worktree.clone() else {
        return Ok(None);
    };
    let path = cx.workdir.join(&relative);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let date = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let stamp = now();
    let stamp = writeback::Stamp {
        date: &date,
        timestamp: &stamp,
    };
    let Some(updated) = writeback::mark_done(cx.plan.kind, &text, step, &cx.input.choices, &stamp) else {
        return Ok(None);
    };
    std::fs::write(&path, &updated).with_context(|| format!("cannot update '{relative}'"))?;
    let head_tree = match cx.repo.head()?.commit {
        Some(c) => cx.repo.commit_tree(c)?,
        None => return Ok(None),
    };
    if cx.repo.tree_entry(head_tree, &relative)?.is_none() {
        return Ok(None); // untracked plan: updated on disk, not committed
    }
    let id = cx.repo.write_blob(updated.as_bytes())?;
    Ok(Some(FileChange {
        path: relative,
        new: Some((id, crate::git::EntryKind::Blob)),
    }))
}

/// A checkpoint commit made and recorded in the run state, not landed yet.
struct Pending<'p> {
    commit: Oid,
    /// HEAD when it was made: the branch moves from here.
    parent: Option<Oid>,
    changes: &'p [FileChange],
    /// The worktree as committed, for the index.
    observed: &'p Snapshot,
    /// The attempt's record, the commit's note.
    record: &'p str,
}
