//! A run refuses, before it writes anything, a plan whose steps it would
//! fail for want of a Verify command (no `--allow-unverified`): it names
//! them and says what to do, as `check` does — rather than running the
//! steps before the first of them and failing there. The steps looked at
//! are the ones this run would run: `--step N` one, `--session N` the
//! session's, and a resume those its recorded run has not passed or skipped.

use std::collections::BTreeSet;

use anyhow::Result;

use crate::git::Repo;
use crate::ultraplan::engine::Mode;
use crate::ultraplan::plan::unverified::{agreeing, is_unverified, name_steps};
use crate::ultraplan::plan::Plan;
use crate::ultraplan::state::index::Depth;
use crate::ultraplan::state::{Refs, RunState, StepStatus};

/// Refuses (fatal, with a hint) when a step this run would run can pass
/// only on the executor's word and `--allow-unverified` was not given.
pub(super) fn refuse_unverified(repo: &Repo, plan: &Plan, mode: Mode, path: &str, plan_arg: &str) -> Result<()> {
    // A plan with problems is refused for them first, as check lists them.
    if plan.problems().next().is_some() {
        return Ok(());
    }
    let wanted: Option<BTreeSet<u32>> = match mode {
        Mode::Execute | Mode::Resume => None,
        Mode::Step(n) => Some([n].into()),
        Mode::Session(n) | Mode::ResumeSession(n) => plan
            .sessions
            .iter()
            .find(|s| s.number == n)
            .map(|s| s.steps.iter().copied().collect()),
    };
    let candidates: Vec<u32> = plan
        .steps
        .iter()
        .filter(|s| is_unverified(s) && wanted.as_ref().is_none_or(|w| w.contains(&s.number)))
        .map(|s| s.number)
        .collect();
    if candidates.is_empty() {
        return Ok(());
    }
    let done = match mode {
        Mode::Resume | Mode::ResumeSession(_) => done_steps(repo, plan, path, mode)?,
        _ => BTreeSet::new(),
    };
    let steps: Vec<u32> = candidates.into_iter().filter(|n| !done.contains(n)).collect();
    if steps.is_empty() {
        return Ok(());
    }
    let (have, it, them) = agreeing(steps.len());
    let arg = crate::cli::shell::operand(plan_arg);
    // The same run again, with the flag.
    let again = match mode {
        Mode::Execute => String::new(),
        Mode::Resume => "--resume ".into(),
        Mode::Step(n) => format!("--step {n} "),
        Mode::Session(n) => format!("--session {n} "),
        Mode::ResumeSession(n) => format!("--resume --session {n} "),
    };
    Err(crate::error::FatalWithHint {
        message: format!(
            "{} of '{path}' {have} no Verify command, so {it} cannot pass; nothing was run",
            name_steps(&steps)
        ),
        hint: format!(
            "add a Verify command to {each} ('git ultraplan check {arg}' lists {them}), or take the executor's word for {them}: git ultraplan run {again}--allow-unverified {arg}",
            each = if steps.len() == 1 { "it" } else { "each" },
        ),
    }
    .into())
}

/// The steps the recorded run (and, for a run in sessions, its sessions'
/// runs) passed or skipped: a resume does not run them again.
fn done_steps(repo: &Repo, plan: &Plan, path: &str, mode: Mode) -> Result<BTreeSet<u32>> {
    let refs = Refs::of_plan(path);
    let mut names = vec![refs.state(mode.session())];
    if mode == Mode::Resume {
        names.extend(plan.sessions.iter().map(|s| refs.state(Some(s.number))));
    }
    let mut done = BTreeSet::new();
    for name in names {
        let Some(state) = RunState::load_at(repo, &name, Depth::Steps)? else {
            continue;
        };
        done.extend(
            state
                .progress
                .steps
                .iter()
                .filter(|(_, p)| matches!(p.status, StepStatus::Passed | StepStatus::Skipped))
                .map(|(n, _)| *n),
        );
    }
    Ok(done)
}
