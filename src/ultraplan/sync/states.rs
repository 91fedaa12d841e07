//! What becomes of each run state and of the outcomes chain when a remote's
//! copy meets ours.
//!
//! A state that fast-forwards moves; one that diverged (the same plan run in
//! two clones) is kept apart: ours stays, the remote's stays under
//! `refs/ultraplan-remotes/<remote>/…` where `status` and `log` show it.
//! Outcomes have unique ids, so two outcome chains merge as a union of files
//! ([`merge_outcomes`], the one merge of outcome histories, on the git room's
//! [`Repo::chain_union`]). Every record taken from the other side is checked
//! first ([`record_problem`]): one that is not a record the store writes, or
//! a history that drops records ours holds, is refused and named, and
//! nothing of that chain is taken.

use anyhow::Result;
use serde::Serialize;

use crate::git::{ChainRelation, EntryKind, Oid, Repo, TreeEdit};
use crate::ultraplan::outcomes::store::record_problem;
use crate::ultraplan::state::index::{self, Depth};

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

/// Whether `id` is a commit whose tree holds a run state this version reads
/// (layout 1's `progress.json` or layout 2's `run.json`).
pub fn is_run_state(repo: &Repo, id: Oid) -> bool {
    let Ok(info) = repo.commit_info(id) else {
        return false;
    };
    matches!(index::read(repo, info.tree, Depth::Run), Ok(Some(_)))
}

/// What meeting another clone's outcomes chain does to ours.
#[derive(Debug, Default)]
pub struct OutcomesMerge {
    /// Where ours should point, when it moves.
    pub new_head: Option<Oid>,
    /// Records taken from theirs.
    pub taken: usize,
    /// Ours has something theirs lacks.
    pub push: bool,
    /// Paths both sides hold with different contents (ours kept).
    pub clashes: Vec<String>,
    /// Files of theirs that are no records (path, why); when any, nothing
    /// was taken and ours is not pushed over theirs.
    pub refused: Vec<(String, String)>,
}

/// Merges two outcome histories (this clone's tip and another's) as the
/// union of their records: when one contains the other, the newer one; else
/// a merge commit holding both. Outcome ids are unique, so the only path
/// both sides can hold differently is a plan re-extracted on both; then
/// ours is kept and named. Moves no reference: the caller (`sync`) does;
/// without `write` nothing is written and `new_head` is only said when it
/// is theirs.
pub fn merge_outcomes(repo: &Repo, local: Option<Oid>, remote: Option<Oid>, write: bool) -> Result<OutcomesMerge> {
    let mut out = OutcomesMerge::default();
    let Some(theirs) = remote else {
        out.push = local.is_some();
        return Ok(out);
    };
    let Some(ours) = local else {
        let files = repo.tree_files(repo.commit_tree(theirs)?)?;
        out.refused = refused(repo, files.iter().map(|(p, id, kind)| (p.as_str(), *id, *kind)))?;
        if out.refused.is_empty() {
            out.taken = files.len();
            out.new_head = write.then_some(theirs);
        }
        return Ok(out);
    };
    let union = repo.chain_union(ours, theirs)?;
    let taken = union.missing.iter().filter_map(|e| match e {
        TreeEdit::Blob { path, id, executable } => Some((
            path.as_str(),
            *id,
            if *executable {
                EntryKind::Executable
            } else {
                EntryKind::Blob
            },
        )),
        TreeEdit::Link { path, id } => Some((path.as_str(), *id, EntryKind::Link)),
        _ => None,
    });
    out.refused = refused(repo, taken)?;
    if union.relation == ChainRelation::TheirsContainsOurs {
        // Moving to theirs takes their version of every file, and drops
        // what they lack: both are checked.
        let their_tree = repo.commit_tree(theirs)?;
        for path in &union.conflicts {
            if let Some((id, kind)) = repo.tree_entry(their_tree, path)? {
                out.refused
                    .extend(refused(repo, std::iter::once((path.as_str(), id, kind)))?);
            }
        }
        let theirs_has: std::collections::HashSet<String> =
            repo.tree_files(their_tree)?.into_iter().map(|(p, _, _)| p).collect();
        for (path, _, _) in repo.tree_files(repo.commit_tree(ours)?)? {
            if !theirs_has.contains(&path) {
                out.refused
                    .push((path, "their history removes this record of ours".into()));
            }
        }
    }
    if !out.refused.is_empty() {
        return Ok(out);
    }
    out.taken = union.missing.len();
    out.clashes = union.conflicts.clone();
    match union.relation {
        ChainRelation::Same => {}
        ChainRelation::OursContainsTheirs => out.push = true,
        ChainRelation::TheirsContainsOurs => out.new_head = write.then_some(theirs),
        ChainRelation::Diverged => {
            out.push = true;
            if write {
                out.new_head = Some(repo.write_union(ours, theirs, &union, "outcomes: merge histories (union)")?);
            }
        }
    }
    Ok(out)
}

/// The files among `files` (path, blob, kind) that are no outcome records,
/// with why.
fn refused<'a>(repo: &Repo, files: impl Iterator<Item = (&'a str, Oid, EntryKind)>) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (path, id, kind) in files {
        let bytes = match kind {
            EntryKind::Blob | EntryKind::Executable | EntryKind::Link => repo.read_blob(id)?,
            _ => Vec::new(),
        };
        if let Some(why) = record_problem(path, kind, &bytes) {
            out.push((path.to_owned(), why));
        }
    }
    Ok(out)
}
