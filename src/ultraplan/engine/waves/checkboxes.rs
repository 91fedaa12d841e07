//! DESIGN §6.6 for plans run in sessions, on the integration branch and
//! never in a session's worktree: a GSD phase directory's passed tasks —
//! `- [ ] Task N:` lines and `<task>` statuses in their own plan files — once
//! after the last merge; a spec-kit plan's ticks (and any other format that
//! records passed tasks) after each wave's merges, so the boxes follow the
//! work wave by wave.

use anyhow::{Context, Result};

use super::Waves;
use crate::ultraplan::plan::{sync, writeback, PlanKind, Session};
use crate::ultraplan::state::{now, RunState, StepStatus};

impl Waves<'_> {
    pub(super) fn check_off_phase_tasks(&mut self, state: &RunState<'_>) -> Result<()> {
        let plan = self.input.plan;
        if plan.kind != PlanKind::Phase {
            return Ok(());
        }
        let date = chrono::Utc::now().format("%Y-%m-%d").to_string();
        let stamp = now();
        let mut texts: std::collections::BTreeMap<String, String> = Default::default();
        for step in &plan.steps {
            let Some((file, task)) = &step.origin else { continue };
            if state.progress.status(step.number) != StepStatus::Passed {
                continue;
            }
            let rel = format!("{}/{file}", self.plan_rel);
            let text = match texts.get(&rel) {
                Some(t) => t.clone(),
                None => std::fs::read_to_string(self.repo.workdir()?.join(&rel))
                    .with_context(|| format!("cannot read '{rel}'"))?,
            };
            let updated = sync::mark_task_done(&text, *task, &date, &stamp).unwrap_or(text);
            texts.insert(rel, updated);
        }
        let texts: Vec<(String, String)> = texts.into_iter().collect();
        self.commit_plan_texts(&texts, "chore: check off the phase's completed tasks")?;
        Ok(())
    }

    /// After wave `wave`'s merges: its sessions' passed tasks recorded in
    /// the plan file, in one commit.
    pub(super) fn check_off_wave(&mut self, wave: usize, sessions: &[&Session], state: &RunState<'_>) -> Result<()> {
        let plan = self.input.plan;
        if !writeback::records(plan.kind) || plan.kind == PlanKind::Phase {
            return Ok(());
        }
        let date = chrono::Utc::now().format("%Y-%m-%d").to_string();
        let stamp = now();
        let stamp = writeback::Stamp {
            date: &date,
            timestamp: &stamp,
        };
        let rel = self.plan_rel.to_owned();
        let mut text =
            std::fs::read_to_string(self.repo.workdir()?.join(&rel)).with_context(|| format!("cannot read '{rel}'"))?;
        let mut ticked = Vec::new();
        for n in sessions.iter().flat_map(|s| s.steps.iter()) {
            let Some(step) = plan.step(*n) else { continue };
            if state.progress.status(*n) != StepStatus::Passed {
                continue;
            }
            if let Some(updated) = writeback::mark_done(plan.kind, &text, step, &self.input.choices, &stamp) {
                text = updated;
                ticked.extend(step.source_id.clone());
            }
        }
        if ticked.is_empty() {
            return Ok(());
        }
        self.commit_plan_texts(
            &[(rel, text)],
            &format!("chore: tick {} (wave {wave})", ticked.join(", ")),
        )
    }
}
