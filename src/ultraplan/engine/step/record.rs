//! Stage 4 of an attempt, record (DESIGN §6.2 4e–f, §8.3): what an attempt
//! leaves behind. The result in seed 000's schema — the executor's claims
//! plus ultraplan's observations — validated with the result validator,
//! under a metadata header; the same document is the attempt's
//! `attempt-<A>.yaml` in the run state and, for a passed step, the note on
//! its checkpoint commit. Beside it, the attempt's log and tree. Returns
//! what the checkpoint or the failure policy needs: the [`Attempt`].

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::execute::Executed;
use super::judge::Judgement;
use super::{fault, Attempt, Ledger, RunContext};

use crate::ultraplan::exec::{Claim, Executor, Outcome, Tokens};
use crate::ultraplan::plan::{Plan, Step};
use crate::ultraplan::result::{validate, Outcome as Validity, ValidationContext};

#[derive(Serialize)]
struct Verification {
    command: Option<String>,
    exit_code: Option<i64>,
    output_summary: String,
}

#[derive(Serialize)]
struct Metadata {
    duration_ms: u64,
    attempt: u32,
    executor_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_usd: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<Tokens>,
    /// What an agent executor reported about itself: claims, recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    turns: Option<u32>,
    /// This attempt continued the previous attempt's agent session.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    resumed: bool,
}

#[derive(Serialize)]
struct ResultDoc {
    status: &'static str,
    task_name: String,
    files_modified: Vec<String>,
    verification: Verification,
    done_criteria_met: bool,
    evidence: String,
    error: Option<String>,
    metadata: Metadata,
}

#[derive(Serialize)]
struct Record<'a> {
    logged_at: String,
    plan: &'a str,
    plan_id: &'a str,
    task_index: u32,
    session: Option<u32>,
    run_id: &'a str,
    attempt: u32,
    /// The validation of ultraplan's own result (below), built from what was
    /// observed.
    validation: &'static str,
    /// The validation of the result the executor wrote itself, when it wrote
    /// one (its violations are listed in `warnings` as "executor's result").
    #[serde(skip_serializing_if = "Option::is_none")]
    executor_result: Option<&'static str>,
    warnings: Vec<String>,
    result: serde_yaml::Value,
}

/// The facts of one attempt.
struct AttemptFacts<'a> {
    pub plan: &'a Plan,
    pub plan_path: &'a str,
    pub step: &'a Step,
    pub session: Option<u32>,
    pub run_id: &'a str,
    pub attempt: u32,
    pub executor: &'a Executor,
    pub outcome: &'a Outcome,
    /// The paths observed to change (the truth, not the executor's list).
    pub changed: Vec<String>,
    pub verify_exit: Option<i32>,
    pub verify_summary: String,
    pub passed: bool,
    pub blocked: bool,
    /// Why it failed (None when passed).
    pub reason: Option<String>,
    pub duration_ms: u64,
    pub warnings: Vec<String>,
    pub root: &'a Path,
}

/// Builds the record's YAML; returns it with the validation outcome word.
fn build(mut facts: AttemptFacts<'_>) -> (String, &'static str) {
    let step = facts.step;
    let status = if facts.passed {
        "success"
    } else if facts.blocked && facts.changed.is_empty() {
        "blocked"
    } else {
        "failure"
    };
    let mut evidence = facts
        .outcome
        .evidence
        .clone()
        .unwrap_or_else(|| match facts.outcome.claim {
            Claim::Success => format!("{} finished without a result of its own", facts.executor.id()),
            claim => format!("{} reported {}", facts.executor.id(), claim.as_str()),
        });
    if !step.unchecked.is_empty() {
        evidence.push_str(&format!(
            "\nnot checked by ultraplan (the plan's criteria, recorded): {}",
            step.unchecked.join("; ")
        ));
    }
    let result = ResultDoc {
        status,
        task_name: step.task_name(),
        files_modified: if status == "blocked" {
            Vec::new()
        } else {
            facts.changed.clone()
        },
        verification: Verification {
            command: if status == "blocked" {
                None
            } else {
                step.verify.as_ref().map(|v| v.command.clone())
            },
            exit_code: if status == "blocked" {
                None
            } else {
                facts.verify_exit.map(i64::from)
            },
            output_summary: facts.verify_summary.clone(),
        },
        done_criteria_met: facts.passed,
        evidence,
        error: if facts.passed {
            None
        } else {
            Some(facts.reason.clone().unwrap_or_else(|| "the step did not pass".into()))
        },
        metadata: Metadata {
            duration_ms: facts.duration_ms,
            attempt: facts.attempt,
            executor_id: facts.executor.id(),
            cost_usd: facts.outcome.cost_usd,
            tokens: facts.outcome.tokens.filter(|t| t.sum() > 0),
            model: facts.outcome.agent.as_ref().and_then(|a| a.model.clone()),
            session_id: facts.outcome.agent.as_ref().and_then(|a| a.session_id.clone()),
            turns: facts.outcome.agent.as_ref().and_then(|a| a.turns),
            resumed: facts.outcome.agent.as_ref().is_some_and(|a| a.resumed),
        },
    };
    let result_yaml = serde_yaml::to_string(&result).unwrap_or_default();
    let validation = validate(
        &result_yaml,
        ValidationContext {
            plan: Some(facts.plan),
            root: Some(facts.root),
        },
    );
    let mut warnings = std::mem::take(&mut facts.warnings);
    warnings.extend(validation.violations.iter().map(|f| format!("result: {}", f.message)));
    warnings.extend(validation.warnings.iter().map(|f| format!("result: {}", f.message)));
    // Cross-check the executor's own claims.
    if facts.outcome.claim == Claim::Success && !facts.passed && facts.reason.is_some() {
        warnings.push(format!(
            "{} claimed success, but the step did not pass",
            facts.executor.id()
        ));
    }
    let executor_result = executor_result(&facts, &mut warnings);
    let record = Record {
        logged_at: crate::ultraplan::state::now(),
        plan: facts.plan_path,
        plan_id: &facts.plan.plan_id,
        task_index: step.number,
        session: facts.session,
        run_id: facts.run_id,
        attempt: facts.attempt,
        validation: validation.outcome.as_str(),
        executor_result,
        warnings,
        result: crate::yaml::parse(&result_yaml).unwrap_or(serde_yaml::Value::Null),
    };
    (
        serde_yaml::to_string(&record).unwrap_or_default(),
        validation.outcome.as_str(),
    )
}

/// The validation of the result the executor wrote itself, when it wrote
/// one; its violations, and the files it listed that did not change, are
/// added to `warnings`.
fn executor_result(facts: &AttemptFacts<'_>, warnings: &mut Vec<String>) -> Option<&'static str> {
    let claimed = facts.outcome.result_yaml.as_ref()?;
    let own = validate(
        claimed,
        ValidationContext {
            plan: Some(facts.plan),
            root: Some(facts.root),
        },
    );
    if own.outcome == Validity::Invalid {
        warnings.extend(
            own.violations
                .iter()
                .map(|f| format!("executor's result: {}", f.message)),
        );
    }
    if let Ok(serde_yaml::Value::Mapping(m)) = crate::yaml::parse(claimed) {
        if let Some(claimed_files) = m.get("files_modified").and_then(|v| v.as_sequence()) {
            for f in claimed_files.iter().filter_map(|v| v.as_str()) {
                if !facts.changed.iter().any(|c| c == f) {
                    warnings.push(format!("executor listed '{f}' as modified, but it did not change"));
                }
            }
        }
    }
    Some(own.outcome.as_str())
}

/// Records the attempt `executed` made as `judged`: its record, log and
/// tree in the run state. Saved by the caller: with the pending
/// checkpoint when it passed.
pub(super) fn record_attempt(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    step: &Step,
    executed: Executed,
    judged: Judgement,
) -> Result<Attempt> {
    let n = step.number;
    let (a, outcome, started) = (executed.attempt, &executed.outcome, executed.started);
    let observed = judged.observed;
    let passed = judged.reason.is_none();
    let paths: Vec<String> = observed.changes.iter().map(|c| c.path.clone()).collect();
    let (record, _) = build(AttemptFacts {
        plan: cx.plan,
        plan_path: &cx.input.path,
        step,
        session: executed.fence.session,
        run_id: &ledger.state.progress.run_id.clone(),
        attempt: a,
        executor: &cx.opts.executor,
        outcome,
        changed: paths,
        verify_exit: judged.verify_exit,
        verify_summary: judged.verify_summary,
        passed,
        blocked: judged.blocked,
        reason: judged.reason.clone(),
        duration_ms: started.elapsed().as_millis() as u64,
        warnings: observed.warnings,
        root: &cx.workdir,
    });
    let mut log = outcome.transcript.clone();
    if let Some(v) = &step.verify {
        log.push_str(&format!("\n--- verify: {}\n{}", v.command, judged.verify_output));
    }
    let verify_output = judged.verify_output.clone();
    let verify_ran = judged.verify_exit.is_some() && step.verify.is_some();
    ledger.state.put_record(n, a, &record)?;
    ledger.state.put_text(&ledger.state.step_paths(n).transcript(a), &log)?;
    ledger.keep_tree(&ledger.state.step_paths(n).after(a), observed.tree.tree)?;
    ledger.state.progress.step_mut(n).error = judged.reason.clone();
    Ok(Attempt {
        passed,
        reason: judged.reason,
        observed: observed.tree,
        changes: observed.changes,
        record,
        blocked: judged.blocked,
        sandbox_blocked: judged.sandbox_blocked,
        verify_output: verify_ran.then_some(verify_output),
    })
}

/// Saves a failed attempt's record.
pub(super) fn record_failure(ledger: &mut Ledger<'_>, step: &Step, a: u32, done: &Attempt) -> Result<()> {
    let why = done.reason.as_deref().and_then(|r| r.lines().next()).unwrap_or("");
    ledger
        .state
        .save(&format!("step {} attempt {a}: failed ({why})", step.number))?;
    fault::point("after-record");
    Ok(())
}
