//! What a multi-session run records: its state (with `sessions.json`), a
//! resumed run's merged sessions, the plan's Verification, and the report.

use anyhow::{Context, Result};

use super::{Checked, SessionRecord, Waves};
use crate::ultraplan::engine::{RunReport, RunResult, StepReport};
use crate::ultraplan::state::{now, Progress, RunState, RunStatus, Summary};

impl<'a> Waves<'a> {
    /// The recorded multi-session run `--resume` continues, if any.
    pub(super) fn resumable(&self) -> Result<Option<RunState<'a>>> {
        if self.opts.mode != crate::ultraplan::engine::Mode::Resume {
            return Ok(None);
        }
        let Some(state) = RunState::load(self.repo, &self.refs.run())? else {
            return Ok(None);
        };
        Ok(state.read_text("sessions.json")?.is_some().then_some(state))
    }

    /// Finishes a merge a killed run left half-applied: its commit recorded
    /// as pending, the working tree and index already holding it, HEAD not
    /// yet moved. Runs before the pre-flight (which would see the merge as
    /// uncommitted changes).
    pub(super) fn finish_pending_merge(&mut self, state: &RunState<'_>) -> Result<()> {
        let Some((session, commit)) = self.pending_merge(state)? else {
            return Ok(());
        };
        let info = self.repo.commit_info(commit)?;
        let subject = info.message.lines().next().unwrap_or("").to_owned();
        self.repo.advance_head(
            info.parents.first().copied(),
            commit,
            &format!("merge: {subject} (finished on resume)"),
        )?;
        self.warn(format!(
            "finished the merge of session {session} that a killed run had applied but not committed"
        ));
        Ok(())
    }

    /// The session and merge commit a killed run recorded as pending and
    /// applied to the working tree and index, but not to HEAD.
    pub(super) fn pending_merge(&self, state: &RunState<'_>) -> Result<Option<(u32, crate::git::Oid)>> {
        let text = state.read_text("sessions.json")?.unwrap_or_default();
        let recorded: Vec<SessionRecord> = serde_json::from_str(&text).unwrap_or_default();
        let Some(head) = self.repo.head()?.commit else {
            return Ok(None);
        };
        for old in recorded.iter().filter(|r| !r.merged) {
            let Some(Ok(commit)) = old.merge_commit.as_deref().map(str::parse::<crate::git::Oid>) else {
                continue;
            };
            let info = self.repo.commit_info(commit)?;
            if info.parents.first() == Some(&head) && self.repo.index_tree()? == Some(info.tree) {
                return Ok(Some((old.number, commit)));
            }
        }
        Ok(None)
    }

    /// Resumes a recorded run: a session whose merge is still in HEAD's
    /// history stays merged; every other session runs again from the start in
    /// a fresh worktree (its old worktree and branch were removed when that
    /// run ended) at its wave's recorded base, and its own state says it
    /// started over.
    pub(super) fn continue_state(&mut self, mut state: RunState<'a>, head: crate::git::Oid) -> Result<RunState<'a>> {
        let text = state.read_text("sessions.json")?.unwrap_or_default();
        let recorded: Vec<SessionRecord> =
            serde_json::from_str(&text).context("unreadable sessions.json in the run state")?;
        let mut kept = Vec::new();
        for old in recorded {
            let Some(record) = self.sessions.get_mut(&old.number) else {
                continue;
            };
            // Merged or not, a session of a wave that began starts from its base.
            record.base = old.base.clone();
            // A merge commit in HEAD's history is merged, even when the run
            // was killed before it could record so.
            let still_merged = match old.merge_commit.as_deref().map(str::parse::<crate::git::Oid>) {
                Some(Ok(commit)) => self.repo.is_ancestor(commit, head)?,
                Some(Err(_)) => false,
                None => old.merged, // it had nothing to merge
            };
            if still_merged {
                record.result = old.result;
                record.merged = true;
                record.merge_commit = old.merge_commit;
                kept.push(old.number.to_string());
            }
        }
        state.progress.mode = "resume".into();
        state.progress.status = RunStatus::InProgress;
        state.progress.summary = None;
        state.put_text(crate::ultraplan::state::layout::PLAN, self.input.text)?;
        let message = match kept.is_empty() {
            true => "resumed; no session is merged yet".to_owned(),
            false => format!("resumed; merged sessions kept: {}", kept.join(", ")),
        };
        self.save(&mut state, &message)?;
        Ok(state)
    }

    pub(super) fn start_state(&mut self) -> Result<RunState<'a>> {
        let plan = self.input.plan;
        let t = now();
        let progress = Progress {
            schema_version: "1".into(),
            plan: self.input.path.clone(),
            plan_type: plan.kind.as_str().into(),
            started_at: t.clone(),
            updated_at: t,
            mode: "execute".into(),
            total_steps: plan.sessions.iter().map(|s| s.steps.len()).sum(),
            current_step: 0,
            status: RunStatus::InProgress,
            steps: plan
                .sessions
                .iter()
                .flat_map(|s| s.steps.iter().map(|n| (*n, Default::default())))
                .collect(),
            entry_condition_checked: false,
            exit_condition_checked: false,
            summary: None,
            run_id: crate::ultraplan::engine::run_id(),
            session: None,
            executor: self.opts.executor.id(),
            plan_blob: crate::ultraplan::state::write_text(self.repo, self.input.text)?.to_string(),
            attempts_recorded: 0,
            checkpoints_tip: None,
            touched: Default::default(),
        };
        let mut state = RunState::start(self.repo, &self.refs.run(), progress, self.input.text)?;
        state.put_text(
            "sessions.json",
            &serde_json::to_string_pretty(&self.sessions.values().collect::<Vec<_>>())?,
        )?;
        state.save(&format!("run {}: started (sessions)", state.progress.run_id))?;
        Ok(state)
    }

    pub(super) fn save(&self, state: &mut RunState<'_>, message: &str) -> Result<()> {
        state.put_text(
            "sessions.json",
            &serde_json::to_string_pretty(&self.sessions.values().collect::<Vec<_>>())?,
        )?;
        state.save(message)
    }

    pub(super) fn verification(&mut self) -> Result<Vec<Checked>> {
        let root = self.repo.workdir()?.to_owned();
        let (out, failure) = crate::ultraplan::engine::plan_verification::run(self.input.plan, &root, self.opts)?;
        if failure.is_some() {
            self.failure = failure;
        }
        Ok(out)
    }

    /// What the sessions that stopped for a person ask of them, as each
    /// session showed it (an end-of-phase review with the answers its
    /// session recorded so far).
    fn waiting_prompts(&self, steps: &[StepReport]) -> Option<String> {
        let plan = self.input.plan;
        let prompts: Vec<String> = steps
            .iter()
            .filter(|s| s.result == "waiting")
            .filter_map(|s| {
                let human = plan.step(s.number)?.human.as_ref()?;
                if human.kind != crate::ultraplan::plan::HumanKind::Review {
                    return Some(human.prompt());
                }
                let session = plan.sessions.iter().find(|x| x.steps.contains(&s.number))?;
                let recorded = RunState::load(self.repo, &self.refs.state(Some(session.number)))
                    .ok()
                    .flatten()
                    .and_then(|st| st.read_text(&st.step_paths(s.number).answers()).ok().flatten())
                    .and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or_default();
                Some(human.review_prompt(&recorded))
            })
            .collect();
        (!prompts.is_empty()).then(|| prompts.join("\n\n"))
    }

    pub(super) fn finish(&mut self, state: &mut RunState<'_>, result: RunResult) -> Result<RunReport> {
        let plan = self.input.plan;
        state.progress.status = match result {
            RunResult::Completed => RunStatus::Completed,
            RunResult::Failed => RunStatus::Failed,
            RunResult::Stopped | RunResult::Interrupted => RunStatus::Stopped,
        };
        let steps: Vec<StepReport> = plan
            .sessions
            .iter()
            .flat_map(|s| s.steps.iter())
            .map(|n| {
                let p = state.progress.step(*n);
                StepReport {
                    number: *n,
                    title: plan.step(*n).map(|s| s.title.clone()).unwrap_or_default(),
                    result: p.status.as_str(),
                    attempts: p.attempts,
                    commit: p.commit.clone(),
                }
            })
            .collect();
        let failed_at_step = steps
            .iter()
            .find(|s| matches!(s.result, "failed" | "escalated" | "blocked" | "waiting"))
            .map(|s| s.number);
        let count = |r: &str| steps.iter().filter(|s| s.result == r).count();
        state.progress.summary = Some(Summary {
            result: result.as_str().into(),
            steps_total: steps.len(),
            steps_passed: count("passed"),
            steps_failed: count("failed") + count("escalated") + count("blocked") + count("waiting"),
            steps_skipped: count("skipped"),
            steps_not_reached: count("pending") + count("running"),
            failed_at_step,
            exit_condition: "n/a".into(),
        });
        let message = format!("run {}: {}", state.progress.run_id, result.as_str());
        self.save(state, &message)?;
        // The sessions' attempts are in their own states.
        let mut usage = crate::ultraplan::result::Usage::default();
        for session in &plan.sessions {
            if let Some(s) = RunState::load(self.repo, &self.refs.session(session.number))? {
                usage.add(&s.progress.usage());
            }
        }
        let instructions = self.waiting_prompts(&steps);
        Ok(RunReport {
            plan: self.input.path.clone(),
            plan_type: plan.kind.as_str(),
            mode: self.opts.mode.name(),
            result,
            steps,
            failed_at_step,
            exit_condition: "n/a",
            progress_ref: state.ref_name.clone(),
            failure: self.failure.clone(),
            instructions,
            warnings: self.warnings.clone(),
            run_id: state.progress.run_id.clone(),
            session: None,
            verification: Vec::new(),
            usage,
        })
    }
}
