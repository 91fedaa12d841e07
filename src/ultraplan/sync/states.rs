//! What becomes of each run state and of the outcomes chain when a remote's
//! copy meets ours.
//!
//! A state that fast-forwards moves; one that diverged (the same plan run in
//! two clones) is kept apart: ours stays, the remote's stays under
//! `refs/ultraplan-remotes/<remote>/…` where `status` and `log` show it.
//! Outcomes have unique ids, so two outcome chains merge as a union of files.

use anyhow::Result;
use serde::Serialize;

use crate::git::{Oid, Repo, TreeEdit};
use crate::ultraplan::state::Progress;

/// The decision for one run state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Both hold the same state.
    Same,
    /// Only the remote has it: created here.
    Created,
    /// The remote continued ours: ours moves forward.
    FastForward,
    /// Ours continued the remote's (or the remote lacks it): pushed.
    Push,
    /// The two histories diverged: both kept.
    KeptApart,
    /// The remote continued it, but a live lock says it is running here: left
    /// for the next sync, so the running process's next update does not fail.
    RunningHere,
    /// The remote reference holds no git-ultraplan run state.
    NotAState,
}

/// Decides what to do with the state `local` (ours) and `remote` (theirs).
pub fn decide(repo: &Repo, local: Option<Oid>, remote: Option<Oid>, running_here: bool) -> Result<Action> {
    let Some(theirs) = remote else {
        return Ok(Action::Push);
    };
    if !is_run_state(repo, theirs) {
        return Ok(Action::NotAState);
    }
    let Some(ours) = local else {
        return Ok(Action::Created);
    };
    Ok(if ours == theirs {
        Action::Same
    } else if repo.is_ancestor(theirs, ours)? {
        Action::Push
    } else if repo.is_ancestor(ours, theirs)? {
        if running_here {
            Action::RunningHere
        } else {
            Action::FastForward
        }
    } else {
        Action::KeptApart
    })
}

/// Whether `id` is a commit whose tree holds a readable `progress.json`.
pub fn is_run_state(repo: &Repo, id: Oid) -> bool {
    let Ok(info) = repo.commit_info(id) else {
        return false;
    };
    matches!(
        repo.read_path(info.tree, "progress.json"),
        Ok(Some(bytes)) if serde_json::from_slice::<Progress>(&bytes).is_ok()
    )
}

/// The outcome of meeting the remote's outcomes chain.
#[derive(Debug, Default)]
pub struct OutcomesMerge {
    /// Where ours should point, when it moves.
    pub new_head: Option<Oid>,
    /// Files taken from the remote.
    pub taken: usize,
    /// Ours has something the remote lacks.
    pub push: bool,
    /// Paths both sides hold with different contents (ours kept).
    pub clashes: Vec<String>,
}

/// Merges the outcome chains as a union of their files.
pub fn merge_outcomes(repo: &Repo, local: Option<Oid>, remote: Option<Oid>, write: bool) -> Result<OutcomesMerge> {
    let mut out = OutcomesMerge::default();
    let Some(theirs) = remote else {
        out.push = local.is_some();
        return Ok(out);
    };
    let Some(ours) = local else {
        out.taken = repo.tree_files(repo.commit_tree(theirs)?)?.len();
        out.new_head = write.then_some(theirs);
        return Ok(out);
    };
    if ours == theirs {
        return Ok(out);
    }
    if repo.is_ancestor(theirs, ours)? {
        out.push = true;
        return Ok(out);
    }
    let our_tree = repo.commit_tree(ours)?;
    let our_files: std::collections::BTreeMap<String, Oid> = repo
        .tree_files(our_tree)?
        .into_iter()
        .map(|(p, id, _)| (p, id))
        .collect();
    let mut edits = Vec::new();
    for (path, id, kind) in repo.tree_files(repo.commit_tree(theirs)?)? {
        match our_files.get(&path) {
            None => edits.push(TreeEdit::Blob {
                path,
                id,
                executable: kind == crate::git::EntryKind::Executable,
            }),
            Some(ours_id) if *ours_id != id => out.clashes.push(path),
            Some(_) => {}
        }
    }
    out.taken = edits.len();
    if repo.is_ancestor(ours, theirs)? {
        out.new_head = write.then_some(theirs);
        return Ok(out);
    }
    out.push = true;
    if write {
        let tree = repo.edit_tree(Some(our_tree), &edits)?;
        out.new_head = Some(repo.write_commit(tree, &[ours, theirs], "outcomes: merged by 'git ultraplan sync'")?);
    }
    Ok(out)
}
