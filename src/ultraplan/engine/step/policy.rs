//! The failure policy (DESIGN §6.5): what follows an attempt that did not
//! pass — escalate, skip, revert, retry — and what a retry carries over from
//! the attempt before it: the end of the failed Verify's output for the next
//! prompt, from this process or from the run state when a run resumed after
//! a crash. (The agent session a retry continues is [`super::execute`]'s.)

use anyhow::Result;

use super::{end, fault, restore, Attempt, Ledger, Next};
use crate::git::{Oid, Snapshot};
use crate::ultraplan::plan::{FailurePolicy, Step};
use crate::ultraplan::state::StepStatus;

/// The failure policy (DESIGN §6.5) after attempt `a`.
pub(super) fn after_failure(
    ledger: &mut Ledger<'_>,
    step: &Step,
    snapshot: Oid,
    a: u32,
    last: bool,
    done: &Attempt,
) -> Result<Next> {
    let reason = done.reason.clone().unwrap_or_else(|| "the step did not pass".into());
    if done.sandbox_blocked {
        return end(ledger, step, StepStatus::Blocked, Some(reason)).map(Next::End);
    }
    let policy = step.on_failure.action;
    if done.blocked && policy != FailurePolicy::Skip {
        // Trying again cannot help an executor that could not start.
        return end(ledger, step, StepStatus::Blocked, Some(reason)).map(Next::End);
    }
    let feedback = || {
        let mut f = format!("Attempt {a} failed: {reason}");
        if let (Some(output), Some(v)) = (&done.verify_output, &step.verify) {
            let tail = verify_tail(output);
            match tail.trim() {
                "" => f.push_str(&format!("\nVerify ({}) printed nothing.", v.command)),
                _ => f.push_str(&format!("\nVerify ({}) printed:\n{tail}", v.command)),
            }
        }
        if policy == FailurePolicy::Revert {
            f.push_str("\nThe worktree was restored to how it was before the step.");
        }
        if let Some(instructions) = &step.on_failure.instructions {
            f.push_str(&format!("\nOn failure ({}): {instructions}", policy.as_str()));
        }
        f
    };
    match policy {
        FailurePolicy::Escalate => end(ledger, step, StepStatus::Escalated, Some(reason)).map(Next::End),
        FailurePolicy::Skip => {
            put_back(ledger, step.number, &done.observed, snapshot)?;
            end(ledger, step, StepStatus::Skipped, Some(reason)).map(Next::End)
        }
        FailurePolicy::Revert | FailurePolicy::Retry if last => {
            put_back(ledger, step.number, &done.observed, snapshot)?;
            end(ledger, step, StepStatus::Failed, Some(reason)).map(Next::End)
        }
        FailurePolicy::Revert => {
            put_back(ledger, step.number, &done.observed, snapshot)?;
            Ok(Next::Retry {
                base: snapshot,
                feedback: feedback(),
            })
        }
        FailurePolicy::Retry => Ok(Next::Retry {
            base: done.observed.tree,
            feedback: feedback(),
        }),
    }
}

/// The Verify output attempt `a` of step `n` recorded in its log (for a
/// run that resumes after it), for the next prompt.
pub(super) fn recorded_verify_output(ledger: &Ledger<'_>, n: u32, a: u32) -> Result<Option<String>> {
    let log = ledger
        .state
        .read_text(&ledger.state.step_paths(n).transcript(a))?
        .unwrap_or_default();
    Ok(log.rfind("\n--- verify: ").map(|at| {
        let output = log[at + 1..].split_once('\n').map_or("", |(_, rest)| rest);
        output.to_owned()
    }))
}

/// Puts everything back as it was before step `n` (see [`restore`]).
fn put_back(ledger: &mut Ledger<'_>, n: u32, current: &Snapshot, snapshot: Oid) -> Result<()> {
    restore::put_back(ledger, n, current, snapshot)?;
    fault::point("after-restore");
    Ok(())
}

/// The end of a Verify's output for the next attempt's prompt.
fn verify_tail(output: &str) -> String {
    tail_of(output, VERIFY_TAIL_LINES, VERIFY_TAIL_BYTES)
}

/// How much of a failed Verify's output the next attempt is shown.
const VERIFY_TAIL_LINES: usize = 60;
const VERIFY_TAIL_BYTES: usize = 8 * 1024;

/// The last `lines` lines of `text`, at most `bytes` of them (cut at a
/// line), with a mark where the start was left out; redacted whole before
/// it is cut, so a key's body is not shown without the line naming it.
fn tail_of(text: &str, lines: usize, bytes: usize) -> String {
    let text = crate::redact::redact(text);
    let all: Vec<&str> = text.trim_end().lines().collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut size = 0;
    for line in all.iter().rev().take(lines) {
        if size + line.len() + 1 > bytes {
            break;
        }
        size += line.len() + 1;
        kept.push(line);
    }
    kept.reverse();
    let mut out = String::new();
    if kept.len() < all.len() {
        out.push_str(&format!("[… {} earlier lines …]\n", all.len() - kept.len()));
    }
    out.push_str(&kept.join("\n"));
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_tail_keeps_the_last_lines_within_bounds() {
        let text: String = (1..=100).map(|n| format!("line {n}\n")).collect();
        let t = super::tail_of(&text, 3, 1000);
        assert_eq!(t, "[… 97 earlier lines …]\nline 98\nline 99\nline 100");
        assert_eq!(super::tail_of("a\nb\n", 10, 1000), "a\nb");
        let t = super::tail_of(&text, 100, 20);
        assert_eq!(t, "[… 98 earlier lines …]\nline 99\nline 100");
    }
}
