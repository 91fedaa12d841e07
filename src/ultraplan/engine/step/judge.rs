//! Stage 3 of an attempt, judge (DESIGN §6.2 4d, §6.3): ultraplan runs the
//! step's Verify itself — the exit code decides —, audits the Manifest
//! ([`super::manifest`]), takes a person's answer, and weighs what the
//! executor said. Returns what recording needs: the [`Judgement`], with the
//! observation it judged. Test first (a Verify run before the executor,
//! expected to fail) is judged here too.

use anyhow::Result;

use super::execute::Executed;
use super::observe::Observed;
use super::person::Answer;
use super::{command_check, fault, manifest, AttemptEnd, Event, Ledger, Phase, RunContext};
use crate::git::FileChange;
use crate::process;
use crate::ultraplan::exec::{Claim, Outcome};
use crate::ultraplan::plan::{PlanKind, Step, Verify};

/// What Verify (or what stands for it) said.
struct Verified {
    reason: Option<String>,
    exit: Option<i32>,
    summary: String,
    output: String,
    sandbox_blocked: bool,
}

impl Verified {
    fn not_run() -> Verified {
        Verified {
            reason: None,
            exit: None,
            summary: "not run".to_owned(),
            output: String::new(),
            sandbox_blocked: false,
        }
    }
}

/// The verdict on an attempt, with what was observed.
pub(super) struct Judgement {
    pub observed: Observed,
    pub reason: Option<String>,
    pub verify_exit: Option<i32>,
    pub verify_summary: String,
    pub verify_output: String,
    pub blocked: bool,
    pub sandbox_blocked: bool,
}

/// Judges what `executed` did, as `observed`: Verify (run by
/// ultraplan: the exit code decides), the Manifest, a person's answer,
/// and what the executor said about a failure.
pub(super) fn judge(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    step: &Step,
    executed: &Executed,
    observed: Observed,
) -> Result<Phase<Judgement>> {
    let outcome = &executed.outcome;
    let answer = executed.answered.as_ref();
    let answered = answer.map(|a| a.text.as_str());
    let mut observed = observed;
    let warnings = &mut observed.warnings;
    let mut reason = observed.reason.take();
    if let Some(answer) = answered {
        warnings.push(format!("answered by a person: {answer}"));
    } else if let (Some(h), Some(_)) = (&step.human, &step.verify) {
        warnings.push(format!("left for a person to check (not run): {}", h.text));
    }
    let mut verify = Verified::not_run();
    if reason.is_none() {
        verify = match verify_step(cx, ledger, step, outcome, answer, warnings)? {
            Phase::Go(verified) => verified,
            Phase::End(end) => return Ok(Phase::End(end)),
        };
        reason = verify.reason.take();
    }
    let (verify_exit, verify_summary, verify_output, sandbox_blocked) =
        (verify.exit, verify.summary, verify.output, verify.sandbox_blocked);
    let (reason, blocked) = weigh(cx, step, executed, &observed.changes, verify_exit, reason);
    Ok(Phase::Go(Judgement {
        observed,
        reason,
        verify_exit,
        verify_summary,
        verify_output,
        blocked,
        sandbox_blocked,
    }))
}

/// The verdict beyond Verify's (`reason`, `None` when it passed): the
/// Manifest's misses, a blocked executor that changed nothing, an agent's
/// own failure said first. Returns why the attempt fails, if it does, and
/// whether it was blocked.
fn weigh(
    cx: &RunContext<'_>,
    step: &Step,
    executed: &Executed,
    changes: &[FileChange],
    verify_exit: Option<i32>,
    reason: Option<String>,
) -> (Option<String>, bool) {
    let outcome = &executed.outcome;
    let mut reason = reason;
    if reason.is_none() {
        if let Some(manifest) = &step.manifest {
            let misses = manifest::audit(manifest, &cx.workdir, changes, step.checkpoint.as_ref());
            if !misses.is_empty() {
                reason = Some(misses.join("; "));
            }
        }
    }
    // The step asks for changes, the executor had nothing to run and
    // nothing changed: the work was not done, whatever Verify says
    // (DESIGN §5.2: `blocked`). A step without Changes only checks.
    if reason.is_none()
        && executed.answered.is_none()
        && outcome.claim == Claim::Blocked
        && changes.is_empty()
        && !step.changes.trim().is_empty()
    {
        reason = Some(match verify_exit {
                Some(0) => "nothing was changed, though Verify passes (if the step was done before, run it with --executor manual to verify it)".into(),
                _ => "nothing was changed".into(),
            });
    }
    if let (Some(r), Some(err)) = (&reason, &outcome.error) {
        if outcome.claim != Claim::Success && outcome.claim != Claim::Blocked {
            // An agent's own failure (its error, a limit, a hang) is
            // why the attempt failed; Verify's verdict follows it.
            reason = Some(match cx.opts.executor.agent() {
                Some(_) => format!("{err}; {r}"),
                None => format!("{r}; the executor said: {err}"),
            });
        }
    }
    let blocked = reason.is_some() && outcome.claim == Claim::Blocked;
    if blocked {
        if let Some(err) = &outcome.error {
            reason = Some(format!("{err}; {}", reason.unwrap_or_default()));
        }
    }
    (reason, blocked)
}

/// Runs the step's Verify — or takes a person's answer, an earlier
/// step's or the executor's word where there is none.
fn verify_step(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    step: &Step,
    outcome: &Outcome,
    answer: Option<&Answer>,
    warnings: &mut Vec<String>,
) -> Result<Phase<Verified>> {
    match &step.verify {
        Some(v) => run_verify(cx, ledger, step, v, warnings),
        None => Ok(stand_in(cx, ledger, step, outcome, answer, warnings)),
    }
}

/// Runs Verify `v` (run by ultraplan: the exit code decides).
fn run_verify(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    step: &Step,
    v: &Verify,
    warnings: &mut Vec<String>,
) -> Result<Phase<Verified>> {
    let n = step.number;
    ledger.observer.event(Event::Verifying { number: n });
    let checked = command_check::run(v, &cx.workdir, cx.opts)?;
    fault::point("after-verify");
    if process::interrupted() {
        return Ok(Phase::End(AttemptEnd::Interrupted));
    }
    let mut verified = Verified {
        exit: Some(checked.ending.code()),
        summary: summary(&checked.tail(10), &checked.ending.describe()),
        output: checked.output.clone(),
        ..Verified::not_run()
    };
    if let Some(note) = &checked.note {
        warnings.push(note.clone());
    }
    if let Some(failure) = checked.explain(&v.command) {
        verified.sandbox_blocked = cx.plan.kind == PlanKind::SessionSpec && n == 0 && checked.ending.code() == 77;
        verified.reason = Some(if verified.sandbox_blocked {
            "Step 0 exited 77: this sandbox cannot do what the session needs".into()
        } else {
            failure
        });
    }
    Ok(Phase::Go(verified))
}

/// What stands for a Verify the step has not got: a person's answer, the
/// executor's word until a later step checks it or under
/// `--allow-unverified`; else the step waits for a person or fails.
fn stand_in(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    step: &Step,
    outcome: &Outcome,
    answer: Option<&Answer>,
    warnings: &mut Vec<String>,
) -> Phase<Verified> {
    let n = step.number;
    let mut verified = Verified::not_run();
    match answer {
        Some(answer) => {
            verified.summary = format!("checked by a person: {}", answer.text);
            match answer.issues.clone() {
                Some(issues) => {
                    verified.exit = Some(1);
                    verified.reason = Some(issues);
                    // Fixed and resumed, the review asks every check again.
                    ledger.state.remove(&ledger.state.step_paths(n).answers());
                }
                None => verified.exit = Some(0),
            }
        }
        None if step.verified_by.is_some() && outcome.claim == Claim::Success => {
            let by = step.verified_by.unwrap_or_default();
            verified.exit = Some(0);
            verified.summary = format!(
                "no Verify of its own; taken on the executor's word until step {by} checks it ({})",
                cx.plan.step(by).map_or(String::new(), |s| s.title.clone())
            );
            warnings.push(verified.summary.clone());
        }
        None if cx.opts.allow_unverified && outcome.claim == Claim::Success => {
            verified.exit = Some(0);
            verified.summary = "no Verify command; accepted on the executor's word (--allow-unverified)".into();
            warnings.push(verified.summary.clone());
        }
        None => match &step.human {
            Some(h) => return Phase::End(AttemptEnd::Waiting(h.prompt())),
            None => {
                verified.reason = Some(
                    "the step has no Verify command (pass --allow-unverified to accept the executor's word)".into(),
                );
            }
        },
    }
    Phase::Go(verified)
}

/// Test first: the step's Verify before the executor, expected to fail
/// (RED); a pass warns that the step may already be done.
pub(super) fn test_first(cx: &RunContext<'_>, ledger: &mut Ledger<'_>, step: &Step) -> Result<()> {
    let n = step.number;
    let Some(v) = &step.verify else {
        ledger.warn(format!(
            "step {n}: Test first is given but there is no Verify to run it"
        ));
        return Ok(());
    };
    let checked = command_check::run(v, &cx.workdir, cx.opts)?;
    let verdict = if checked.passed() {
        ledger.warn(format!("step {n}: Verify already passes before the step (Test first expects it to fail); the step may already be done"));
        "GREEN (unexpected: already passes)"
    } else {
        "RED (fails as expected)"
    };
    ledger.state.put_text(
        &ledger.state.step_paths(n).test_first_log(),
        &format!("test first: {verdict}\n--- verify: {}\n{}", v.command, checked.output),
    )?;
    Ok(())
}

/// A Verify's summary for the record: how it ended and the tail of its output.
/// Verify's ending and the tail of its output, redacted before they are
/// joined and cut: a secret read as the output's own lines (`NAME=value` at
/// a line's start runs to its end) is found before a prefix moves it.
fn summary(tail: &str, ending: &str) -> String {
    let tail = crate::redact::redact(tail.trim());
    if tail.is_empty() {
        format!("{ending}, no output")
    } else {
        let cut: String = tail.chars().take(500).collect();
        format!("{ending}: {cut}")
    }
}
