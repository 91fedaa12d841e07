//! Stage 2 of an attempt, observe (DESIGN §6.2 4b–c): what really changed
//! since the step's snapshot — the truth, not the executor's list — with
//! changes outside the step's scope put back, files git cannot store
//! removed, and what was written outside the repository named. Returns what
//! judging needs: the [`Observed`] tree and changes, and why the attempt
//! already fails, if it does.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Result;

use super::execute::Executed;
use super::scope::Fence;
use super::{fault, outside, restore, Ledger, RunContext, Watch};
use crate::git::{FileChange, Oid, Repo, Snapshot, TreeEdit};
use crate::ultraplan::plan::{pattern, Step};

/// What the worktree shows after the executor: the observed tree, the
/// allowed changes, and why the attempt already fails (scope, unstorable
/// files), if it does.
pub(super) struct Observed {
    pub tree: Snapshot,
    pub changes: Vec<FileChange>,
    pub reason: Option<String>,
    pub warnings: Vec<String>,
}

/// Observes what `executed` changed.
pub(super) fn observe(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    watch: &mut Watch,
    step: &Step,
    executed: &Executed,
) -> Result<Observed> {
    let n = step.number;
    let snapshot = executed.snapshot;
    let repo = ledger.repo;
    let mut tree = repo.scan(&mut watch.tracker)?;
    restore::name_own_files_changed(ledger, n)?;
    fault::point("after-observe");
    let mut changes = repo.changes(snapshot, tree.tree)?;
    if executed.base.is_none() {
        // Verifying what a person left: their edits to the plan itself
        // (a fixed Verify command) are theirs, neither the step's change
        // nor a violation; resume reads the plan as it is now.
        changes.retain(|c| Some(&c.path) != cx.input.in_worktree.as_ref());
    }
    let (violations, mut warnings) = scope_check(step, &changes, &executed.fence);
    warnings.extend(beyond_the_snapshot(repo, &cx.workdir, step, &changes)?);
    for w in &warnings {
        ledger.warn(format!("step {n}: {w}"));
    }
    let mut reason = unstorable_made(cx, ledger, n, &mut tree)?;
    if !violations.is_empty() {
        let paths: BTreeSet<String> = violations.iter().map(|(p, _)| p.clone()).collect();
        repo.restore(&tree, snapshot, Some(&paths))?;
        tree = overlay(repo, &tree, snapshot, &paths)?;
        changes.retain(|c| !paths.contains(&c.path));
        let why: Vec<String> = violations.into_iter().map(|(_, w)| w).collect();
        let why = format!("scope violation: {} (restored)", why.join("; "));
        reason = Some(match reason {
            Some(earlier) => format!("{earlier}; {why}"),
            None => why,
        });
    }
    let outside = (&executed.links, &executed.outside);
    if let Some(warning) = outside::written(cx, ledger, watch, n, outside, &changes)? {
        warnings.push(warning);
    }
    Ok(Observed {
        tree,
        changes,
        reason,
        warnings,
    })
}

/// Files the attempt made where git cannot store them (a spelling of
/// `.git`, DESIGN §2): a scope violation, removed. Files like that which
/// were there before the step are the user's and left alone.
fn unstorable_made(
    cx: &RunContext<'_>,
    ledger: &Ledger<'_>,
    n: u32,
    observed: &mut Snapshot,
) -> Result<Option<String>> {
    let Some(before) = ledger.state.read_text(&ledger.state.step_paths(n).unstorable())? else {
        return Ok(None); // a state from before this was recorded
    };
    let before: BTreeSet<String> = before.lines().map(str::to_owned).collect();
    let made: Vec<String> = observed.unstorable.difference(&before).cloned().collect();
    if made.is_empty() {
        return Ok(None);
    }
    crate::git::remove_files(&cx.workdir, &made)?;
    observed.unstorable.retain(|p| !made.contains(p));
    Ok(Some(format!(
        "scope violation: {} (a path git refuses to store: a spelling of .git) (removed)",
        made.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(", ")
    )))
}

/// Violations (path, why) and warnings for the observed changes.
fn scope_check(step: &Step, changes: &[FileChange], fence: &Fence) -> (Vec<(String, String)>, Vec<String>) {
    let (touch, never) = (&fence.touch, &fence.never);
    let mut violations = Vec::new();
    let mut warnings = Vec::new();
    for change in changes {
        let path = &change.path;
        if let Some(p) = never.iter().find(|p| pattern::matches(p, path)) {
            violations.push((path.clone(), fence.never_reason(path, p)));
        } else if !touch.is_empty() && !touch.iter().any(|p| pattern::matches(p, path)) {
            violations.push((path.clone(), format!("'{path}' is outside the Touch list")));
        } else if !step.files.is_empty() && !step.files.iter().any(|f| pattern::matches(&f.path, path)) {
            warnings.push(format!("'{path}' changed but is not in the step's Files"));
        }
    }
    (violations, warnings)
}

/// What the snapshot cannot hold, said rather than dropped: a declared
/// file that is a git repository of its own (git records only its
/// commit), and a symbolic link the step made that leads out of the
/// repository (what is written through it is in no snapshot).
fn beyond_the_snapshot(repo: &Repo, workdir: &Path, step: &Step, changes: &[FileChange]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for file in &step.files {
        let path = workdir.join(&file.path);
        if path.is_dir() && path.join(".git").exists() {
            out.push(format!(
                "'{}' is a git repository of its own: git records only its commit, so none of its files are committed or restored",
                file.path
            ));
        }
    }
    for change in changes {
        let Some((id, crate::git::EntryKind::Link)) = change.new else {
            continue;
        };
        let target = String::from_utf8_lossy(&repo.read_blob(id)?).into_owned();
        if leads_outside(&change.path, &target) {
            out.push(format!(
                "'{}' is a symbolic link to '{target}', outside the repository: what is written through it is in no snapshot, and no restore brings it back",
                change.path
            ));
        }
    }
    Ok(out)
}

/// `observed` with `paths` put back to their `snapshot` version, without
/// scanning the worktree again.
fn overlay(repo: &Repo, observed: &Snapshot, snapshot: Oid, paths: &BTreeSet<String>) -> Result<Snapshot> {
    let mut edits = Vec::new();
    for path in paths {
        edits.push(match repo.tree_entry(snapshot, path)? {
            Some((id, crate::git::EntryKind::Executable)) => TreeEdit::Blob {
                path: path.clone(),
                id,
                executable: true,
            },
            Some((id, crate::git::EntryKind::Link)) => TreeEdit::Link { path: path.clone(), id },
            Some((id, _)) => TreeEdit::Blob {
                path: path.clone(),
                id,
                executable: false,
            },
            None => TreeEdit::Remove { path: path.clone() },
        });
    }
    let tree = repo.edit_tree(Some(observed.tree), &edits)?;
    Ok(Snapshot::recorded(observed.head, tree))
}

/// Whether the link at `path` (repository-relative) with `target` points out
/// of the repository, judged lexically (the target may not exist yet).
fn leads_outside(path: &str, target: &str) -> bool {
    if target.starts_with('/') {
        return true;
    }
    let mut depth: i64 = path.matches('/').count() as i64;
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            _ => depth += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn links_that_lead_outside() {
        use super::leads_outside;
        assert!(leads_outside("x", "../y"));
        assert!(leads_outside("a/x", "../../y"));
        assert!(leads_outside("a/x", "/etc/passwd"));
        assert!(!leads_outside("a/x", "../y"));
        assert!(!leads_outside("a/x", "b/../../c"));
        assert!(leads_outside("a/x", "b/../../../c"));
        assert!(!leads_outside("x", "./y"));
    }
}
