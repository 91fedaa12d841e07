//! A session run in a worktree of its own (by a parallel run, which
//! removes the worktree when the session ends): the changes of passed
//! steps whose Checkpoint committed nothing (`none`, or a command that did
//! not commit) would be lost with it, so they are committed, exactly those
//! paths, in one commit on the session's branch, and the merge keeps them.

use anyhow::Result;

use super::ledger::Ledger;
use super::step::Watch;
use super::RunContext;
use crate::git::FileChange;
use crate::ultraplan::plan::Step;
use crate::ultraplan::state::StepStatus;

/// Commits what the passed steps among `steps` changed and left
/// uncommitted, when the session's worktree is about to be removed.
pub(super) fn keep(cx: &RunContext<'_>, ledger: &mut Ledger<'_>, watch: &mut Watch, steps: &[&Step]) -> Result<()> {
    let mut paths = std::collections::BTreeSet::new();
    let mut numbers = Vec::new();
    for step in steps {
        let p = ledger.state.progress.step(step.number);
        if p.status != StepStatus::Passed || p.commit.is_some() {
            continue;
        }
        let record = ledger
            .state
            .read_text(&ledger.state.step_paths(step.number).record(p.attempts))?
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
    let current = ledger.repo.scan(&mut watch.tracker)?;
    let head = current.head;
    let head_tree = match head {
        Some(c) => ledger.repo.commit_tree(c)?,
        None => ledger.repo.empty_tree(),
    };
    let changes: Vec<FileChange> = ledger
        .repo
        .changes(head_tree, current.tree)?
        .into_iter()
        .filter(|c| paths.contains(&c.path))
        .collect();
    if changes.is_empty() {
        return Ok(());
    }
    let session = cx.session.map(|s| s.number).unwrap_or_default();
    let message = format!(
        "chore: keep the uncommitted changes of step{} {} (ultraplan session {session})",
        if numbers.len() == 1 { "" } else { "s" },
        numbers.join(", ")
    );
    let commit = ledger.repo.commit_changes(head, &changes, &message)?;
    ledger.repo.advance_head(head, commit, &format!("commit: {message}"))?;
    watch.tracker.moved_head(commit);
    ledger.repo.stage(&changes, &current)?;
    ledger.warn(format!(
        "step{} {} passed without committing {}; committed as '{message}' so the merge keeps them",
        if numbers.len() == 1 { "" } else { "s" },
        numbers.join(", "),
        changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>().join(", ")
    ));
    ledger.state.save(&format!(
        "session {session}: kept uncommitted changes ({})",
        ledger.repo.short(commit)
    ))
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
