//! DESIGN §6.6 for a GSD phase directory: after the last merge, on the
//! integration branch (never in a session worktree), each passed task's
//! `- [ ] Task N:` line and `<task>` status in its own plan file, committed
//! once.

use anyhow::{anyhow, Result};

use super::Waves;
use crate::ultraplan::plan::{sync, PlanKind};
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
            if state.progress.step(step.number).status != StepStatus::Passed {
                continue;
            }
            let rel = format!("{}/{file}", self.plan_rel);
            let text = match texts.get(&rel) {
                Some(t) => t.clone(),
                None => std::fs::read_to_string(self.repo.workdir()?.join(&rel))
                    .map_err(|e| anyhow!("cannot read '{rel}': {e}"))?,
            };
            let updated = sync::mark_task_done(&text, *task, &date, &stamp).unwrap_or(text);
            texts.insert(rel, updated);
        }
        let texts: Vec<(String, String)> = texts.into_iter().collect();
        self.commit_plan_texts(&texts, "chore: check off the phase's completed tasks")?;
        Ok(())
    }
}
