//! What a step's snapshot holds beyond the working tree (DESIGN §2 invariant
//! 3): the index as a tree (`index` in the step's entry, kept like the worktree
//! snapshot, secrets redacted and their raw bytes beside) and where HEAD, its
//! branch and the stash pointed (`git`). A step meets it at four moments,
//! one function each:
//!
//! * [`record`], when the step starts (or is verified in place): the
//!   worktree, the index, git's own files, the ignored files and the
//!   pointers.
//! * [`name_own_files_changed`], when an attempt is observed: git's own files
//!   (`config`, `hooks/*`, `info/*`, recorded as a tree, `own`) that changed
//!   are named (a new hook or a setting such as `core.fsmonitor` by name).
//! * [`put_back`], when a policy restores (revert, skip, the last attempt of
//!   any policy) or a resume undoes an attempt cut short: HEAD, the branch
//!   and the stash first — compare-and-swap from what they hold now, the
//!   step's commits and stashes kept reachable as extra parents of the state
//!   commit and named in one warning — then the worktree, then the index
//!   exactly as it was, git's own files and the ignored files.
//! * [`carry_index_over`], when a passed step's checkpoint lands: the index
//!   as the user had it, carried over to the new HEAD — what the executor
//!   staged is dropped, what the user had staged stays staged.

use anyhow::{anyhow, Result};

use super::{Ledger, RunContext, Watch};
use crate::git::{Oid, Pointers, Snapshot};

/// Records what step `n` starts from: the `worktree` (when given; a step
/// verified in place keeps the snapshot it has), the index, git's own
/// files, the ignored files and the pointers.
pub(super) fn record(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    watch: &mut Watch,
    n: u32,
    worktree: Option<Oid>,
) -> Result<()> {
    if let Some(tree) = worktree {
        ledger.keep_tree(&ledger.state.step_paths(n).snapshot(), tree)?;
    }
    let index = ledger.repo.index_tree()?.ok_or_else(|| crate::error::FatalWithHint {
        message: "the index has unmerged entries".into(),
        hint: "resolve them (git add / git rm) or 'git reset' before running a step".into(),
    })?;
    ledger.keep_tree(&ledger.state.step_paths(n).index(), index)?;
    let own = ledger.repo.own_files_tree()?;
    ledger.keep_whole_tree(&ledger.state.step_paths(n).own(), own)?;
    let ignored = ledger.repo.ignored_files(cx.opts.ignored_bound, &mut watch.tracker)?;
    ledger.keep_whole_tree(&ledger.state.step_paths(n).ignored(), ignored.tree)?;
    ledger
        .state
        .put_text(&ledger.state.step_paths(n).ignored_unkept(), &ignored.render_unkept())?;
    let pointers = ledger.repo.pointers()?;
    ledger
        .state
        .put_text(&ledger.state.step_paths(n).git(), &pointers.render())?;
    Ok(())
}

/// Puts everything back as it was before step `n`: HEAD, its branch and
/// the stash, then the working tree (from `current`, what is there now),
/// then the index, git's own files and the ignored files. Returns the
/// paths of the working tree it put back.
pub(super) fn put_back(ledger: &mut Ledger<'_>, n: u32, current: &Snapshot, snapshot: Oid) -> Result<Vec<String>> {
    put_pointers_back(ledger, n)?;
    let undone = ledger.repo.restore(current, snapshot, None)?;
    put_index_back(ledger, n)?;
    put_own_files_back(ledger, n)?;
    put_ignored_back(ledger, n)?;
    Ok(undone)
}

fn recorded_pointers(ledger: &Ledger<'_>, n: u32) -> Result<Option<Pointers>> {
    match ledger.state.read_text(&ledger.state.step_paths(n).git())? {
        None => Ok(None),
        Some(text) => Pointers::parse(&text)
            .map(Some)
            .ok_or_else(|| anyhow!("the run state's record of HEAD before step {n} is unreadable")),
    }
}

/// Puts HEAD, its branch and the stash back where they were before step
/// `n`, saying what was undone and keeping it reachable.
fn put_pointers_back(ledger: &mut Ledger<'_>, n: u32) -> Result<()> {
    let Some(recorded) = recorded_pointers(ledger, n)? else {
        return Ok(());
    };
    let put = ledger.repo.put_pointers_back(&recorded)?;
    if put.undone.is_empty() {
        return Ok(());
    }
    for commit in &put.kept {
        ledger.state.keep_commit(*commit);
    }
    let kept = match put.kept.as_slice() {
        [] => String::new(),
        ids => format!(
            "; {} kept, secrets redacted, in the run state (git log --merges {}) and as made in HEAD's reflog",
            ids.iter().map(|c| ledger.repo.short(*c)).collect::<Vec<_>>().join(", "),
            ledger.state.ref_name
        ),
    };
    ledger.warn(format!(
        "step {n}: undid what the step did to git: {}{kept}",
        put.undone.join("; ")
    ));
    Ok(())
}

/// Names what the attempt changed of git's own files since step `n`
/// began: a new hook, a risky setting, any other change.
pub(super) fn name_own_files_changed(ledger: &mut Ledger<'_>, n: u32) -> Result<()> {
    let Some(recorded) = ledger.kept_tree(&ledger.state.step_paths(n).own())? else {
        return Ok(());
    };
    let now = ledger.repo.own_files_tree()?;
    if now == recorded {
        return Ok(());
    }
    let mut what = Vec::new();
    for change in ledger.repo.changes(recorded, now)? {
        let before = ledger.repo.tree_entry(recorded, &change.path)?;
        let mut text = match (&before, &change.new) {
            (None, _) if change.path.starts_with("hooks/") => format!("a new hook {}", change.path),
            (None, _) => format!("a new {}", change.path),
            (_, None) => format!("removed {}", change.path),
            _ => change.path.clone(),
        };
        if change.path == "config" {
            let read = |e: Option<(Oid, crate::git::EntryKind)>| -> Result<String> {
                Ok(match e {
                    Some((id, _)) => String::from_utf8_lossy(&ledger.repo.read_blob(id)?).into_owned(),
                    None => String::new(),
                })
            };
            let added = crate::git::risky_settings_added(&read(before)?, &read(change.new)?);
            if !added.is_empty() {
                text = format!("config (setting {})", added.join(", "));
            }
        }
        what.push(text);
    }
    ledger.warn(format!(
        "step {n}: changed git's own files: {}; a restore puts them back, a passed step keeps them",
        what.join("; ")
    ));
    Ok(())
}

/// Puts git's own files back as they were before step `n`.
fn put_own_files_back(ledger: &mut Ledger<'_>, n: u32) -> Result<()> {
    if let Some(recorded) = ledger.kept_tree(&ledger.state.step_paths(n).own())? {
        let now = ledger.repo.own_files_tree()?;
        if now != recorded {
            ledger.repo.restore_own_files(now, recorded)?;
        }
    }
    Ok(())
}

/// Puts the ignored files back as they were before step `n`, naming what
/// could not be.
fn put_ignored_back(ledger: &mut Ledger<'_>, n: u32) -> Result<()> {
    let Some(tree) = ledger.kept_tree(&ledger.state.step_paths(n).ignored())? else {
        return Ok(());
    };
    let unkept = ledger
        .state
        .read_text(&ledger.state.step_paths(n).ignored_unkept())?
        .unwrap_or_default();
    let recorded = crate::git::IgnoredFiles::parse_unkept(tree, &unkept);
    let done = ledger.repo.restore_ignored(&recorded)?;
    if !done.lost.is_empty() {
        ledger.warn(format!(
                "step {n}: could not put back ignored {} the step changed: {} (beyond ultraplan.snapshotIgnoredMax, or inside a directory ignored as a whole)",
                if done.lost.len() == 1 { "file" } else { "files" },
                done.lost.join(", ")
            ));
    }
    if !done.new_dirs.is_empty() {
        ledger.warn(format!(
            "step {n}: left the ignored {} the step created: {}",
            if done.new_dirs.len() == 1 {
                "directory"
            } else {
                "directories"
            },
            done.new_dirs.join(", ")
        ));
    }
    Ok(())
}

/// Makes the index exactly what it was before step `n`.
fn put_index_back(ledger: &mut Ledger<'_>, n: u32) -> Result<()> {
    if let Some(index) = ledger.kept_tree(&ledger.state.step_paths(n).index())? {
        ledger.repo.restore_index(index)?;
    }
    Ok(())
}

/// After step `n` passed and HEAD may have moved (its checkpoint): the
/// index the user had, carried over to HEAD as it is now.
pub(super) fn carry_index_over(ledger: &mut Ledger<'_>, n: u32) -> Result<()> {
    let (Some(index), Some(recorded)) = (
        ledger.kept_tree(&ledger.state.step_paths(n).index())?,
        recorded_pointers(ledger, n)?,
    ) else {
        return Ok(());
    };
    let tree_of = |commit: Option<crate::git::Oid>| match commit {
        Some(c) => ledger.repo.commit_tree(c),
        None => Ok(ledger.repo.empty_tree()),
    };
    let old = tree_of(recorded.head.commit)?;
    let new = tree_of(ledger.repo.head()?.commit)?;
    let (carried, overlapping) = ledger.repo.carry_staged(index, old, new)?;
    ledger.repo.restore_index(carried)?;
    if !overlapping.is_empty() {
        ledger.warn(format!(
                "step {n}: your staged version of {} overlaps the checkpoint's changes; the index now holds the committed version (yours: git show {}:<path>)",
                overlapping.join(", "),
                ledger.repo.short(index)
            ));
    }
    Ok(())
}
