//! What a step's snapshot holds beyond the working tree (DESIGN §2 invariant
//! 3): the index as a tree (`index` in the step's entry, kept like the worktree
//! snapshot, secrets redacted and their raw bytes beside) and where HEAD, its
//! branch and the stash pointed (`git`).
//!
//! * A restore (revert, skip, the last attempt of any policy, a resume after a
//!   crash) puts HEAD, the branch and the stash back first — compare-and-swap
//!   from what they hold now, the step's commits and stashes kept reachable as
//!   extra parents of the state commit and named in one warning — then the
//!   worktree, then the index exactly as it was.
//! * git's own files (`config`, `hooks/*`, `info/*`) are recorded as a tree
//!   (`own`); a change is named after each attempt (a new hook or
//!   a setting such as `core.fsmonitor` by name) and a restore puts them back.
//! * A passed step's checkpoint leaves the index as the user had it, carried
//!   over to the new HEAD: what the executor staged is dropped, what the user
//!   had staged stays staged.

use anyhow::{anyhow, Result};

use super::{fault, Run};
use crate::git::{FileChange, Oid, Pointers, Snapshot};

impl Run<'_> {
    /// Puts everything back as it was before step `n`: HEAD, its branch and
    /// the stash, then the working tree (from `current`, what is there now),
    /// then the index.
    pub(super) fn restore_step(&mut self, n: u32, current: &Snapshot, snapshot: Oid) -> Result<()> {
        self.put_pointers_back(n)?;
        self.repo.restore(current, snapshot, None)?;
        self.put_index_back(n)?;
        self.put_own_files_back(n)?;
        self.put_ignored_back(n)?;
        fault::point("after-restore");
        Ok(())
    }

    /// Records the index and the pointers before step `n` runs.
    pub(super) fn record_git(&mut self, n: u32) -> Result<()> {
        let index = self.repo.index_tree()?.ok_or_else(|| crate::error::FatalWithHint {
            message: "the index has unmerged entries".into(),
            hint: "resolve them (git add / git rm) or 'git reset' before running a step".into(),
        })?;
        self.keep_tree(&self.state.step_paths(n).index(), index)?;
        let own = self.repo.own_files_tree()?;
        self.keep_whole_tree(&self.state.step_paths(n).own(), own)?;
        let ignored = self.repo.ignored_files(self.opts.ignored_bound, &mut self.tracker)?;
        self.keep_whole_tree(&self.state.step_paths(n).ignored(), ignored.tree)?;
        self.state
            .put_text(&self.state.step_paths(n).ignored_unkept(), &ignored.render_unkept())?;
        let pointers = self.repo.pointers()?;
        self.state.put_text(&self.state.step_paths(n).git(), &pointers.render())
    }

    fn recorded_pointers(&self, n: u32) -> Result<Option<Pointers>> {
        match self.state.read_text(&self.state.step_paths(n).git())? {
            None => Ok(None),
            Some(text) => Pointers::parse(&text)
                .map(Some)
                .ok_or_else(|| anyhow!("the run state's record of HEAD before step {n} is unreadable")),
        }
    }

    /// Puts HEAD, its branch and the stash back where they were before step
    /// `n`, saying what was undone and keeping it reachable.
    pub(super) fn put_pointers_back(&mut self, n: u32) -> Result<()> {
        let Some(recorded) = self.recorded_pointers(n)? else {
            return Ok(());
        };
        let put = self.repo.put_pointers_back(&recorded)?;
        if put.undone.is_empty() {
            return Ok(());
        }
        for commit in &put.kept {
            self.state.keep_commit(*commit);
        }
        let kept = match put.kept.as_slice() {
            [] => String::new(),
            ids => format!(
                "; {} kept, secrets redacted, in the run state (git log --merges {}) and as made in HEAD's reflog",
                ids.iter().map(|c| self.repo.short(*c)).collect::<Vec<_>>().join(", "),
                self.state.ref_name
            ),
        };
        self.warn(format!(
            "step {n}: undid what the step did to git: {}{kept}",
            put.undone.join("; ")
        ));
        Ok(())
    }

    /// On a resume: the changes in the worktree since `recorded` (the last
    /// tree the run knows it left) for which `theirs` says the run cannot have
    /// made them are a person's, made while the run was stopped. They are
    /// adopted as if they had been there before the step — the step's
    /// snapshot and the attempt's `base` take them, so no restore reverts
    /// them and no checkpoint commits them — and a warning names them.
    /// Returns the new snapshot and base.
    pub(super) fn adopt_person_edits(
        &mut self,
        n: u32,
        recorded: Oid,
        current: &Snapshot,
        (snapshot, base): (Oid, Oid),
        theirs: impl Fn(&FileChange) -> Result<bool>,
    ) -> Result<(Oid, Oid)> {
        let mut edits = Vec::new();
        for change in self.repo.changes(recorded, current.tree)? {
            if theirs(&change)? {
                edits.push(change);
            }
        }
        if edits.is_empty() {
            return Ok((snapshot, base));
        }
        let snapshot = self.repo.tree_with(snapshot, &edits)?;
        let base = self.repo.tree_with(base, &edits)?;
        self.keep_tree(&self.state.step_paths(n).snapshot(), snapshot)?;
        let paths: Vec<&str> = edits.iter().map(|c| c.path.as_str()).collect();
        let whose = match self.leftovers_stopped {
            true => "yours, or the stopped processes the killed run left behind",
            false => "yours",
        };
        self.warn(format!(
            "step {n}: kept what changed while the run was stopped: {} (taken as {whose}: the step neither reverts nor commits it)",
            paths.join(", ")
        ));
        Ok((snapshot, base))
    }

    /// Names what the attempt changed of git's own files since step `n`
    /// began: a new hook, a risky setting, any other change.
    pub(super) fn own_files_changed(&mut self, n: u32) -> Result<()> {
        let Some(recorded) = self.kept_tree(&self.state.step_paths(n).own())? else {
            return Ok(());
        };
        let now = self.repo.own_files_tree()?;
        if now == recorded {
            return Ok(());
        }
        let mut what = Vec::new();
        for change in self.repo.changes(recorded, now)? {
            let before = self.repo.tree_entry(recorded, &change.path)?;
            let mut text = match (&before, &change.new) {
                (None, _) if change.path.starts_with("hooks/") => format!("a new hook {}", change.path),
                (None, _) => format!("a new {}", change.path),
                (_, None) => format!("removed {}", change.path),
                _ => change.path.clone(),
            };
            if change.path == "config" {
                let read = |e: Option<(Oid, crate::git::EntryKind)>| -> Result<String> {
                    Ok(match e {
                        Some((id, _)) => String::from_utf8_lossy(&self.repo.read_blob(id)?).into_owned(),
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
        self.warn(format!(
            "step {n}: changed git's own files: {}; a restore puts them back, a passed step keeps them",
            what.join("; ")
        ));
        Ok(())
    }

    /// Puts git's own files back as they were before step `n`.
    pub(super) fn put_own_files_back(&mut self, n: u32) -> Result<()> {
        if let Some(recorded) = self.kept_tree(&self.state.step_paths(n).own())? {
            let now = self.repo.own_files_tree()?;
            if now != recorded {
                self.repo.restore_own_files(now, recorded)?;
            }
        }
        Ok(())
    }

    /// Puts the ignored files back as they were before step `n`, naming what
    /// could not be.
    pub(super) fn put_ignored_back(&mut self, n: u32) -> Result<()> {
        let Some(tree) = self.kept_tree(&self.state.step_paths(n).ignored())? else {
            return Ok(());
        };
        let unkept = self
            .state
            .read_text(&self.state.step_paths(n).ignored_unkept())?
            .unwrap_or_default();
        let recorded = crate::git::IgnoredFiles::parse_unkept(tree, &unkept);
        let done = self.repo.restore_ignored(&recorded)?;
        if !done.lost.is_empty() {
            self.warn(format!(
                "step {n}: could not put back ignored {} the step changed: {} (beyond ultraplan.snapshotIgnoredMax, or inside a directory ignored as a whole)",
                if done.lost.len() == 1 { "file" } else { "files" },
                done.lost.join(", ")
            ));
        }
        if !done.new_dirs.is_empty() {
            self.warn(format!(
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
    pub(super) fn put_index_back(&mut self, n: u32) -> Result<()> {
        if let Some(index) = self.kept_tree(&self.state.step_paths(n).index())? {
            self.repo.restore_index(index)?;
        }
        Ok(())
    }

    /// After step `n` passed and HEAD may have moved (its checkpoint): the
    /// index the user had, carried over to HEAD as it is now.
    pub(super) fn carry_index_over(&mut self, n: u32) -> Result<()> {
        let (Some(index), Some(recorded)) = (
            self.kept_tree(&self.state.step_paths(n).index())?,
            self.recorded_pointers(n)?,
        ) else {
            return Ok(());
        };
        let tree_of = |commit: Option<crate::git::Oid>| match commit {
            Some(c) => self.repo.commit_tree(c),
            None => Ok(self.repo.empty_tree()),
        };
        let old = tree_of(recorded.head.commit)?;
        let new = tree_of(self.repo.head()?.commit)?;
        let (carried, overlapping) = self.repo.carry_staged(index, old, new)?;
        self.repo.restore_index(carried)?;
        if !overlapping.is_empty() {
            self.warn(format!(
                "step {n}: your staged version of {} overlaps the checkpoint's changes; the index now holds the committed version (yours: git show {}:<path>)",
                overlapping.join(", "),
                self.repo.short(index)
            ));
        }
        Ok(())
    }
}
