//! Stage 1 of an attempt, execute (DESIGN §6.2 4a): the attempt's start is
//! saved, then the executor makes the change — or nothing runs, when the
//! worktree is verified as a person left it. What lies outside the
//! repository is looked at first, so [`super::observe`] can tell what the
//! executor wrote there. Returns what observing needs: the [`Executed`].

use std::time::Instant;

use anyhow::Result;

use super::outside::{self, Links, Outside};
use super::person::Answer;
use super::scope::Fence;
use super::{fault, first_attempt, AttemptEnd, Event, Ledger, Phase, RunContext, Watch};
use crate::git::Oid;
use crate::process;
use crate::ultraplan::exec::{self, Claim, Outcome};
use crate::ultraplan::plan::Step;
use crate::ultraplan::state::StepStatus;

/// Where an attempt starts from.
pub(in crate::ultraplan::engine) struct Start {
    /// The step's snapshot: what the worktree was before the step.
    pub snapshot: Oid,
    /// The attempt's number.
    pub attempt: u32,
    /// The tree the executor starts from (`None`: the worktree as a person
    /// left it is verified, nothing runs).
    pub base: Option<Oid>,
    /// What the attempt before this one left to say.
    pub feedback: Option<String>,
    /// The step's fence.
    pub fence: Fence,
}

/// What an executed attempt hands to observing and judging.
pub(in crate::ultraplan::engine) struct Executed {
    pub snapshot: Oid,
    pub attempt: u32,
    pub base: Option<Oid>,
    pub fence: Fence,
    /// A person's answer, when the step needs one.
    pub answered: Option<Answer>,
    /// What the executor did and said.
    pub outcome: Outcome,
    pub started: Instant,
    /// The links leading out of the worktree, and what was outside before.
    pub links: Links,
    pub outside: Outside,
}

/// Executes attempt `start.attempt` of `step`: saved as started, then the
/// executor (unless a person did the work or the step only checks).
pub(super) fn execute(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    watch: &mut Watch,
    step: &Step,
    start: Start,
    answered: Option<Answer>,
) -> Result<Phase<Executed>> {
    let Start {
        snapshot,
        attempt: a,
        base,
        feedback,
        fence,
    } = start;
    begin_attempt(cx, ledger, step, a, base, feedback.as_deref())?;
    let started = Instant::now();
    let (links, outside) = outside::look(cx, watch, snapshot)?;
    let person_did_it = answered.is_some() && step.human.as_ref().is_some_and(|h| h.replaces_executor());
    let outcome = match base {
        Some(_) if !person_did_it && !step.check_only => run_executor(cx, ledger, step, a, feedback, &fence)?,
        _ => Outcome::verified_in_place(),
    };
    fault::point("after-executor");
    if outcome.interrupted || process::interrupted() {
        return Ok(Phase::End(AttemptEnd::Interrupted));
    }
    if outcome.claim == Claim::Waiting {
        let instructions = outcome.instructions.clone().unwrap_or_default();
        return Ok(Phase::End(AttemptEnd::Waiting(instructions)));
    }
    Ok(Phase::Go(Executed {
        snapshot,
        attempt: a,
        base,
        fence,
        answered,
        outcome,
        started,
        links,
        outside,
    }))
}

/// Saves that attempt `a` starts, from what (`base`, or the worktree as
/// it is) and with what feedback.
fn begin_attempt(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    step: &Step,
    a: u32,
    base: Option<Oid>,
    feedback: Option<&str>,
) -> Result<()> {
    let n = step.number;
    ledger.state.progress.step_mut(n).attempts = a;
    ledger.state.progress.step_mut(n).status = StepStatus::Running;
    match base {
        Some(base) => ledger.keep_tree(&ledger.state.step_paths(n).base(a), base)?,
        None => {
            ledger.state.put_text(
                &ledger.state.step_paths(n).in_place(a),
                "verify the worktree as it is\n",
            )?;
        }
    }
    if let Some(f) = feedback {
        ledger.state.put_text(&ledger.state.step_paths(n).feedback(a), f)?;
    }
    ledger.state.save(&format!("step {n} attempt {a}: started"))?;
    ledger.observer.event(Event::Attempt {
        number: n,
        attempt: a,
        max: cx.opts.max_attempts,
    });
    Ok(())
}

/// The executor makes attempt `a`'s change, told the step, its fence and
/// the feedback; a retry continues the agent session before it.
fn run_executor(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    step: &Step,
    a: u32,
    feedback: Option<String>,
    fence: &Fence,
) -> Result<Outcome> {
    let resume = previous_session(cx, ledger, step.number, a)?;
    let request = exec::Request {
        plan: cx.plan,
        plan_path: &cx.input.path,
        step,
        attempt: a,
        max_attempts: cx.opts.max_attempts,
        feedback,
        touch: fence.touch.clone(),
        never_touch: fence.never.clone(),
        session: fence.session,
        resume,
    };
    let ctx = exec::Context {
        workdir: &cx.workdir,
        timeout: cx.opts.executor_timeout,
        cap: cx.opts.transcript_cap,
        result_file: cx.result_file.clone(),
        agent: &cx.opts.agent,
    };
    let observer = &mut *ledger.observer;
    let number = step.number;
    exec::run(&cx.opts.executor, &request, &ctx, &mut |text| {
        observer.event(Event::Activity { number, text })
    })
}

/// The agent session the previous attempt of this execution of step `n`
/// recorded, when the same executor made it: a retry continues it.
fn previous_session(cx: &RunContext<'_>, ledger: &Ledger<'_>, n: u32, a: u32) -> Result<Option<String>> {
    if cx.opts.executor.agent().is_none() || a <= first_attempt(&ledger.state, n)? {
        return Ok(None);
    }
    let Some(record) = ledger.state.read_text(&ledger.state.step_paths(n).record(a - 1))? else {
        return Ok(None);
    };
    let Ok(doc) = crate::yaml::parse(&record) else {
        return Ok(None);
    };
    let meta = &doc["result"]["metadata"];
    let same_executor = meta["executor_id"].as_str() == Some(cx.opts.executor.id().as_str());
    Ok(meta["session_id"]
        .as_str()
        .filter(|id| same_executor && !id.is_empty() && !id.contains("[REDACTED"))
        .map(str::to_owned))
}
