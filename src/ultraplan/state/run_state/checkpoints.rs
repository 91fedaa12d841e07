//! The commit a resume walks back to ([`Progress::checkpoints_tip`]): one
//! whose history holds every passed step's checkpoint, kept as the
//! checkpoints land.
//!
//! [`Progress::checkpoints_tip`]: super::super::progress::Progress::checkpoints_tip

use anyhow::Result;

use super::RunState;
use crate::git::Oid;

impl RunState<'_> {
    /// Keeps [`Progress::checkpoints_tip`] a commit whose history holds
    /// every passed step's checkpoint, given the checkpoints that `landed`
    /// since the last save: one landed on the tip (or is the only one) is
    /// the new tip; otherwise the tip is no longer known.
    pub(super) fn follow_checkpoints(&mut self, landed: &[(u32, String)]) -> Result<()> {
        let [(n, commit)] = landed else {
            if !landed.is_empty() {
                self.progress.checkpoints_tip = None;
            }
            return Ok(());
        };
        let alone = !self
            .progress
            .steps
            .iter()
            .any(|(m, step)| m != n && step.passed_checkpoint().is_some());
        let on_tip = match (&self.progress.checkpoints_tip, commit.parse::<Oid>()) {
            (Some(tip), Ok(id)) if self.repo.has_object(id) => {
                self.repo
                    .commit_info(id)?
                    .parents
                    .first()
                    .map(|p| p.to_string())
                    .as_ref()
                    == Some(tip)
            }
            _ => false,
        };
        self.progress.checkpoints_tip = (alone || on_tip).then(|| commit.to_string());
        Ok(())
    }
}
