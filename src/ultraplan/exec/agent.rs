//! The agent executors (`claude`, `codex`, `gemini`, `opencode`, `cursor`,
//! `aider`, `goose`, `qwen`, `amp`): a step's prompt given to the agent's
//! adapter ([`crate::agents`]), its run judged there, and what it reported
//! — final text, session, model, turns, tokens, cost — put in the outcome
//! as claims for the record. A retry continues the agent's own session when
//! the engine hands one over and the agent can resume: its prompt is then
//! only what failed. Nothing the agent says decides whether the step
//! passed: Verify does.

use std::time::{SystemTime, UNIX_EPOCH};

use super::{last_yaml_document, prompt, Claim, Context, Outcome, Request};
use crate::agents::{self, Access, Agent, Call};
use crate::process;

/// Evidence keeps this much of the agent's final text.
const EVIDENCE_CHARS: usize = 2000;

pub(super) fn run(
    agent: Agent,
    request: &Request<'_>,
    ctx: &Context<'_>,
    on_activity: &mut dyn FnMut(&str),
) -> anyhow::Result<Outcome> {
    let adapter = agent.adapter();
    let resume = request.resume.as_deref().filter(|_| adapter.resumes());
    let prompt = match resume {
        Some(_) => prompt::resumed(request, ctx),
        None => prompt::full(request, ctx),
    };
    let scratch = ctx
        .result_file
        .parent()
        .map(|d| d.join("agents"))
        .unwrap_or_else(std::env::temp_dir);
    if let Err(e) = std::fs::create_dir_all(&scratch) {
        return Ok(blocked(format!("cannot create '{}': {e}", scratch.display())));
    }
    let session_name = session_name(request);
    let call = Call {
        prompt: &prompt,
        resume,
        session_name: &session_name,
        workdir: ctx.workdir,
        scratch,
        access: Access::Edit,
    };
    let mut show = |a: &agents::Activity| on_activity(&format!("{}: {}", agent.name(), a.describe()));
    let launched = match agents::run(agent, ctx.agent, &call, ctx.timeout, ctx.cap, &mut show) {
        Ok(launched) => launched,
        Err(e) => return Ok(blocked(format!("{e:#}"))),
    };
    let report = &launched.report;
    let mut outcome = Outcome::new(if launched.failure.is_none() {
        Claim::Success
    } else {
        Claim::Failure
    });
    outcome.exit_code = Some(launched.ending.code());
    outcome.timed_out = launched.ending == process::Ending::TimedOut;
    outcome.interrupted = launched.ending == process::Ending::Interrupted;
    outcome.duration = launched.duration;
    outcome.transcript = launched.transcript.clone();
    outcome.error = launched.failure.clone();
    outcome.cost_usd = report.cost_usd;
    outcome.tokens = report.tokens;
    outcome.agent = Some(super::AgentClaims {
        model: report.model.clone(),
        session_id: launched.session.clone(),
        turns: report.turns,
        resumed: launched.resumed,
    });
    if let Some(text) = &report.final_text {
        outcome.result_yaml = last_yaml_document(text);
        outcome.evidence = Some(format!("{} said: {}", agent.name(), cut(text.trim(), EVIDENCE_CHARS)));
    }
    Ok(outcome)
}

fn blocked(why: String) -> Outcome {
    let mut outcome = Outcome::new(Claim::Blocked);
    outcome.error = Some(why);
    outcome
}

/// A name for a new session, for the agents whose sessions the caller
/// names (goose, aider): unique, readable, safe as a file name.
fn session_name(request: &Request<'_>) -> String {
    let plan: String = request
        .plan
        .plan_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(40)
        .collect();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "ultraplan-{plan}-step-{}-{:x}{:x}",
        request.step.number,
        nanos & 0xffff_ffff_ffff,
        std::process::id()
    )
}

/// The first `n` characters of `text`, marked when cut.
fn cut(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(n).collect::<String>())
    }
}
