//! Merging a session's branch: decided in memory, applied through git, and
//! refused without changing anything on a conflict or an untracked file in
//! the way.

use anyhow::{anyhow, Result};

use super::{ConflictRecord, Waves};
use crate::git::{MergePlan, Oid};
use crate::ultraplan::engine::{fault, Failure};
use crate::ultraplan::plan::Session;
use crate::ultraplan::state::{RunState, StepStatus};

impl<'a> Waves<'a> {
    /// Merges one session's branch; `false` when it conflicted or was refused
    /// (nothing changed then).
    pub(super) fn merge(&mut self, session: &Session, state: &mut RunState<'_>) -> Result<bool> {
        let n = session.number;
        let branch = self.refs.branch(n);
        let Some(tip) = self.repo.read_ref(&branch)? else {
            // Deleted under the run (sessions run elsewhere never get here
            // without one: see `distribute::orchestrator`). Nothing to merge:
            // the session failed, and a resumed run runs it again.
            self.not_merged(
                session,
                format!(
                    "the branch '{}' of session {n} is not in this repository any more; nothing is merged ('git ultraplan run --resume' runs the session again)",
                    branch.trim_start_matches("refs/heads/")
                ),
            );
            return Ok(false);
        };
        let current = self.repo.head()?;
        if current.branch != self.branch {
            // Someone switched branches while the sessions ran: the merges
            // belong on the branch the run started from.
            let name = |b: &Option<String>| b.clone().unwrap_or_else(|| "a detached HEAD".into());
            self.not_merged(
                session,
                format!(
                    "HEAD moved from {} to {} during the run; nothing more is merged (switch back and run --resume)",
                    name(&self.branch),
                    name(&current.branch)
                ),
            );
            return Ok(false);
        }
        let head = current.commit.ok_or_else(|| anyhow!("HEAD has no commit"))?;
        if self.repo.is_ancestor(tip, head)? {
            // The session committed nothing new: there is nothing to merge.
            if let Some(r) = self.sessions.get_mut(&n) {
                r.merged = true;
            }
            self.warn(format!("session {n} made no commits; nothing to merge"));
            return Ok(true);
        }
        let message = crate::redact::redact(&format!("merge: ultraplan session {n} — {}", session.title)).into_owned();
        let label = branch.trim_start_matches("refs/heads/").to_owned();
        let (paths, refused) = match self.repo.plan_merge(head, tip, &label, &message)? {
            MergePlan::Conflicts(paths) => (paths, None),
            MergePlan::Clean(commit) => match self.apply(n, head, commit, &message, state)? {
                Ok(()) => return Ok(true),
                Err(text) => (paths_in_refusal(&text), Some(text)),
            },
        };
        let why = match &refused {
            Some(text) => format!(
                "merging session {n} would overwrite files in the working tree: {} (git: {})",
                paths.join(", "),
                text.lines().next().unwrap_or("").trim_start_matches("error: ")
            ),
            None => format!("session {n} conflicts with what is merged: {}", paths.join(", ")),
        };
        self.not_merged(session, why);
        self.conflicts.push(ConflictRecord {
            session: n,
            paths,
            tip: tip.to_string(),
            refused,
        });
        Ok(false)
    }

    /// A clean merge of session `n` made real: recorded in the run state
    /// before anything changes (a resume after a kill knows it, and never
    /// makes it twice), checked out, committed. `Err` with git's words when
    /// git refuses to overwrite files in the worktree: nothing changed then.
    fn apply(
        &mut self,
        n: u32,
        head: Oid,
        commit: Oid,
        message: &str,
        state: &mut RunState<'_>,
    ) -> Result<std::result::Result<(), String>> {
        if let Some(r) = self.sessions.get_mut(&n) {
            r.merge_commit = Some(commit.to_string());
        }
        self.save(state, &format!("session {n}: merging ({})", self.repo.short(commit)))?;
        fault::point("merge-recorded");
        if let Err(text) = self.repo.checkout_merge(head, commit)? {
            if let Some(r) = self.sessions.get_mut(&n) {
                r.merge_commit = None;
            }
            return Ok(Err(text));
        }
        fault::point("merge-checked-out");
        self.repo.commit_merge(head, commit, message)?;
        fault::point("merge-committed");
        if let Some(r) = self.sessions.get_mut(&n) {
            r.merged = true;
        }
        self.save(state, &format!("session {n}: merged ({})", self.repo.short(commit)))?;
        Ok(Ok(()))
    }

    /// `session` is not merged, for `why`: the run stops there, nothing
    /// changed.
    fn not_merged(&mut self, session: &Session, why: String) {
        let n = session.number;
        if let Some(r) = self.sessions.get_mut(&n) {
            r.result = "merge-failed".into();
        }
        self.failure = Some(Failure {
            step: None,
            title: format!("session {n}: {}", session.title),
            status: StepStatus::Failed,
            policy: "stop; nothing changed".into(),
            error: why,
            attempts: 0,
        });
    }
}

/// The paths git names when it refuses to overwrite files: quoted in
/// `read-tree`'s "Untracked working tree file 'x' would be overwritten" and
/// "Entry 'x' not uptodate", or tab-indented in `merge`'s lists.
fn paths_in_refusal(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for line in text.lines() {
        if line.starts_with('\t') {
            paths.push(line.trim().to_owned());
        } else if line.contains("would be overwritten")
            || line.contains("not uptodate")
            || line.contains("would lose untracked files")
        {
            if let Some((_, rest)) = line.split_once('\'') {
                if let Some((path, _)) = rest.rsplit_once('\'') {
                    paths.push(path.to_owned());
                }
            }
        }
    }
    paths.sort();
    paths.dedup();
    paths
}

#[cfg(test)]
mod tests {
    #[test]
    pub(super) fn refusals_name_their_paths() {
        let read_tree = "error: Untracked working tree file 'out.txt' would be overwritten by merge.\nerror: Entry 'a b.txt' not uptodate. Cannot merge.";
        assert_eq!(super::paths_in_refusal(read_tree), vec!["a b.txt", "out.txt"]);
        let dir = "error: Updating 'out' would lose untracked files in it";
        assert_eq!(super::paths_in_refusal(dir), vec!["out"]);
        let merge = "error: The following untracked working tree files would be overwritten by merge:\n\tx.txt\n\ty.txt\nPlease move or remove them";
        assert_eq!(super::paths_in_refusal(merge), vec!["x.txt", "y.txt"]);
    }
}
