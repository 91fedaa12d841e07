//! A session spec's entry and exit conditions (DESIGN §4.2, §6): the entry
//! condition is checked once before the first step and stops the run when
//! it fails; the exit conditions are checked after the last step and fail the
//! run when one does. Prose conditions are reported, not checked.

use anyhow::Result;

use super::ledger::Ledger;
use super::{command_check, Failure, RunContext};
use crate::ultraplan::state::StepStatus;

/// A session spec's entry condition; `Some` when it stops the run.
pub(super) fn entry(cx: &RunContext<'_>, ledger: &mut Ledger<'_>) -> Result<Option<Failure>> {
    let Some(condition) = cx.plan.session_spec.as_ref().and_then(|s| s.entry_condition.clone()) else {
        return Ok(None);
    };
    match &condition.check {
        None => ledger.warn(format!(
            "the entry condition '{}' cannot be checked automatically; assuming it holds",
            condition.text
        )),
        Some(check) => {
            let checked = command_check::run(check, &cx.workdir, cx.opts)?;
            if let Some(why) = checked.failure.clone() {
                ledger.state.progress.status = crate::ultraplan::state::RunStatus::Stopped;
                ledger.state.save(&format!("entry condition failed: {why}"))?;
                return Ok(Some(Failure {
                    step: None,
                    title: "entry condition".into(),
                    status: StepStatus::Blocked,
                    policy: "stop".into(),
                    error: format!(
                        "entry condition '{}' failed: {why}\n{}",
                        condition.text,
                        checked.tail(10)
                    ),
                    attempts: 0,
                }));
            }
        }
    }
    ledger.state.progress.entry_condition_checked = true;
    ledger.state.save("entry condition: passed")?;
    Ok(None)
}

/// A session spec's exit conditions: whether every command passed (prose
/// items are reported, not checked), and the last that failed.
pub(super) fn exit(cx: &RunContext<'_>, ledger: &mut Ledger<'_>) -> Result<(bool, Option<Failure>)> {
    let mut failure = None;
    let conditions = cx
        .plan
        .session_spec
        .as_ref()
        .map(|s| s.exit_conditions.clone())
        .unwrap_or_default();
    let mut all = true;
    let mut log = String::new();
    for condition in conditions {
        match &condition.check {
            None => log.push_str(&format!("- not checked (prose): {}\n", condition.text)),
            Some(check) => {
                let checked = command_check::run(check, &cx.workdir, cx.opts)?;
                let verdict = if checked.passed() { "PASS" } else { "FAIL" };
                all &= checked.passed();
                log.push_str(&format!(
                    "- {verdict}: {} ({})\n",
                    check.command,
                    checked.ending.describe()
                ));
                if !checked.passed() {
                    failure = Some(Failure {
                        step: None,
                        title: "exit condition".into(),
                        status: StepStatus::Failed,
                        policy: "stop".into(),
                        error: format!(
                            "exit condition `{}` failed: {}",
                            check.command,
                            checked.failure.unwrap_or_default()
                        ),
                        attempts: 0,
                    });
                }
            }
        }
    }
    ledger.state.put_text("exit-conditions.log", &log)?;
    Ok((all, failure))
}
