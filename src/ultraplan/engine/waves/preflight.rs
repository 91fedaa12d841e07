//! DESIGN §7.1's pre-flight: no tracked changes, every step in a session,
//! the plan committed.

use anyhow::{anyhow, Context, Result};

use super::Waves;
use crate::git::{EntryKind, FileChange, Snapshot};

/// DESIGN §2 invariant 6 for the one file a parallel run commits itself: a
/// plan that holds what looks like a secret is not committed (the sessions
/// read it from the commit, so a redacted copy would not run as written).
/// The run refuses, naming the kind and line, never the secret.
fn refuse_secrets(rel: &str, text: &[u8], branch: Option<&str>) -> Result<()> {
    let Some(found) = crate::redact::secrets_found(&String::from_utf8_lossy(text)) else {
        return Ok(());
    };
    Err(crate::error::FatalWithHint {
        message: format!(
            "the plan '{rel}' holds what looks like {found}; a parallel run would commit it as it is to {}",
            branch.map_or("HEAD".to_owned(), |b| format!("'{}'", b.trim_start_matches("refs/heads/")))
        ),
        hint: format!(
            "take the secret out of the plan (let the step read it from the environment),\nor commit the plan yourself if it must hold it: git add {p} && git commit -m 'add the plan' {p}",
            p = crate::cli::shell::operand(rel)
        ),
    }
    .into())
}

impl<'a> Waves<'a> {
    /// DESIGN §7.1, the refusals (before anything changes): no tracked
    /// changes but the plan's own; untracked files are listed. Every step
    /// belongs to a session, or a parallel run would silently not run it.
    pub(super) fn refuse_dirt(&mut self) -> Result<Vec<String>> {
        let plan = self.input.plan;
        let orphans: Vec<String> = plan
            .steps
            .iter()
            .filter(|st| !plan.sessions.iter().any(|s| s.steps.contains(&st.number)))
            .map(|st| st.number.to_string())
            .collect();
        if !orphans.is_empty() {
            return Err(crate::error::FatalWithHint {
                message: format!(
                    "step{} {} belong{} to no session of the Execution Strategy, so a parallel run would not run {}",
                    if orphans.len() == 1 { "" } else { "s" },
                    orphans.join(", "),
                    if orphans.len() == 1 { "s" } else { "" },
                    if orphans.len() == 1 { "it" } else { "them" },
                ),
                hint: "add them to a session, or run every step here with --fg".into(),
            }
            .into());
        }
        let dirt = self.repo.dirt()?;
        // The plan itself may differ from its commit (a person fixed it
        // before --resume): it is committed alone below, like an untracked one.
        let tracked: Vec<&String> = dirt.tracked.iter().filter(|p| !self.is_plan_file(p)).collect();
        if !tracked.is_empty() {
            let shown: Vec<&str> = tracked.iter().take(10).map(|p| p.as_str()).collect();
            return Err(crate::error::FatalWithHint {
                message: format!(
                    "uncommitted changes to tracked files: {}{}",
                    shown.join(", "),
                    if tracked.len() > 10 { ", …" } else { "" }
                ),
                hint: "session worktrees see only committed work: commit or stash these first,\nor run the steps here with --fg".into(),
            }
            .into());
        }
        let untracked: Vec<String> = dirt.untracked.into_iter().filter(|p| !self.is_plan_file(p)).collect();
        if !untracked.is_empty() {
            let shown: Vec<&str> = untracked.iter().take(10).map(String::as_str).collect();
            self.warn(format!(
                "untracked files stay in this worktree, unseen by the sessions: {}{} (a merge that would overwrite one is refused)",
                shown.join(", "),
                if untracked.len() > 10 { ", …" } else { "" }
            ));
        }
        self.refuse_plan_secrets()?;
        Ok(untracked)
    }

    /// The plan files [`Waves::track_plan`] would commit (untracked, or
    /// changed since their commit) must hold no secret: see
    /// [`refuse_secrets`]. Checked with the refusals, before anything is
    /// written.
    fn refuse_plan_secrets(&self) -> Result<()> {
        let head = self.repo.head()?;
        let head_tree = self.repo.tree_of(head.commit)?;
        for rel in self.plan_files()? {
            let text = crate::ultraplan::plan::load::read_plan_file(&self.repo.workdir()?.join(&rel))?;
            let committed = match self.repo.tree_entry(head_tree, &rel)? {
                Some((id, _)) => self.repo.read_blob(id)? == text,
                None => false,
            };
            if !committed {
                refuse_secrets(&rel, &text, head.branch.as_deref())?;
            }
        }
        Ok(())
    }

    /// DESIGN §7.1: the plan committed (alone) when the worktrees would not
    /// see it as it is: untracked, or changed since its last commit.
    pub(super) fn track_plan(&mut self) -> Result<()> {
        let head = self
            .repo
            .head()?
            .commit
            .ok_or_else(|| anyhow!("the repository has no commits yet"))?;
        let head_tree = self.repo.commit_tree(head)?;
        let mut changes = Vec::new();
        let mut added = false;
        for rel in self.plan_files()? {
            let text = crate::ultraplan::plan::load::read_plan_file(&self.repo.workdir()?.join(&rel))?;
            let blob = self.repo.write_blob(&text)?;
            let committed = self.repo.tree_entry(head_tree, &rel)?;
            if committed.is_none_or(|(id, _)| id != blob) {
                let kind = match committed {
                    Some((_, EntryKind::Executable)) => EntryKind::Executable,
                    _ => EntryKind::Blob,
                };
                added |= committed.is_none();
                changes.push(FileChange {
                    path: rel,
                    new: Some((blob, kind)),
                });
            }
        }
        if !changes.is_empty() {
            let message = if added {
                "chore: track plan file for parallel execution"
            } else {
                "chore: update plan file for parallel execution"
            };
            let commit = self.repo.commit_changes(Some(head), &changes, message)?;
            self.repo
                .advance_head(Some(head), commit, &format!("commit: {message}"))?;
            self.repo
                .stage(&changes, &Snapshot::recorded(Some(commit), head_tree))?;
            self.warn(format!(
                "committed the plan '{}' so that the worktrees see it",
                self.plan_rel
            ));
        }
        Ok(())
    }

    /// Writes `texts` (plan files: path, new contents) to the worktree and
    /// commits those that differ from HEAD, alone, on the user's branch.
    pub(super) fn commit_plan_texts(&mut self, texts: &[(String, String)], message: &str) -> Result<()> {
        let Some(head) = self.repo.head()?.commit else {
            return Ok(());
        };
        let head_tree = self.repo.commit_tree(head)?;
        let mut changes = Vec::new();
        for (rel, text) in texts {
            let blob = self.repo.write_blob(text.as_bytes())?;
            if self.repo.tree_entry(head_tree, rel)?.is_some_and(|(id, _)| id != blob) {
                std::fs::write(self.repo.workdir()?.join(rel), text)
                    .with_context(|| format!("cannot update '{rel}'"))?;
                changes.push(FileChange {
                    path: rel.clone(),
                    new: Some((blob, EntryKind::Blob)),
                });
            }
        }
        if changes.is_empty() {
            return Ok(());
        }
        let commit = self.repo.commit_changes(Some(head), &changes, message)?;
        self.repo
            .advance_head(Some(head), commit, &format!("commit: {message}"))?;
        self.repo
            .stage(&changes, &Snapshot::recorded(Some(commit), head_tree))?;
        Ok(())
    }

    /// The plan's files: the plan, or a GSD phase directory's `*-PLAN.md`.
    fn plan_files(&self) -> Result<Vec<String>> {
        let full = self.repo.workdir()?.join(self.plan_rel);
        if !full.is_dir() {
            return Ok(vec![self.plan_rel.to_owned()]);
        }
        let names = crate::ultraplan::plan::load::phase_files(&full)?;
        Ok(names.into_iter().map(|n| format!("{}/{n}", self.plan_rel)).collect())
    }

    /// Whether `path` is the plan or one of a phase directory's plans.
    fn is_plan_file(&self, path: &str) -> bool {
        path == self.plan_rel
            || path
                .strip_prefix(self.plan_rel)
                .and_then(|rest| rest.strip_prefix('/'))
                .is_some_and(|name| !name.contains('/') && crate::ultraplan::plan::phase::is_plan_file(name))
    }
}
