//! Steps for a person (issue 10, issue 40): a checkpoint task waits instead
//! of the executor, a prose Verify after it, an end-of-phase review once
//! the automated work is done; `--resume --answer` answers them.
//!
//! A `gate="blocking-human"` checkpoint (GSD Core) takes only an answer
//! given after the run stopped at it and showed it: never one given ahead
//! (to an earlier check, or before the run reached it), never
//! `--allow-unverified`.

use std::collections::BTreeMap;

use super::{Ledger, RunContext};
use crate::ultraplan::plan::review::{classify, Verdict};
use crate::ultraplan::plan::{HumanKind, Step};
use crate::ultraplan::state::StepStatus;

/// A person's answer to a step that needs one.
pub(super) struct Answer {
    /// What they answered (an end-of-phase review: every check's answer).
    pub text: String,
    /// The issues they reported in a review, failing the step.
    pub issues: Option<String>,
}

impl Answer {
    fn given(text: String) -> Answer {
        Answer { text, issues: None }
    }
}

/// What passes between the run and a person, from step to step: the
/// `--answer`s not yet given to a waiting step, and what they are asked to
/// do where the run waits.
pub(crate) struct Person {
    answers: Vec<String>,
    pub instructions: Option<String>,
}

impl Person {
    pub fn new(answers: Vec<String>) -> Person {
        Person {
            answers,
            instructions: None,
        }
    }

    /// The answer for a step that needs a person, `Ok(None)` when it needs
    /// none (yet), or `Err(prompt)` when it must wait: a checkpoint task waits
    /// instead of the executor for an answer (one naming an option, for a
    /// decision) — given on `--resume`, also to a session run again in a new
    /// worktree; a prose Verify takes the answer when verified in place.
    pub(super) fn answer(
        &mut self,
        cx: &RunContext<'_>,
        ledger: &mut Ledger<'_>,
        step: &Step,
        in_place: bool,
    ) -> std::result::Result<Option<Answer>, String> {
        let Some(human) = &step.human else {
            return Ok(None);
        };
        if human.kind == HumanKind::Review {
            return self.review_answer(ledger, step);
        }
        if !human.replaces_executor() && (!in_place || step.verify.is_some()) {
            // A prose check is answered after the person saw the executor's work.
            return Ok(None);
        }
        // blocking-human: only after the run stopped here and showed it
        // (this run, or the one a session started over replaces).
        let shown = (in_place && ledger.state.progress.status(step.number) == StepStatus::Waiting)
            || ledger
                .state
                .read_text("shown-to-a-person")
                .ok()
                .flatten()
                .is_some_and(|t| t.lines().any(|l| l.trim() == step.number.to_string()));
        if human.blocking && !shown {
            return Err(human.prompt());
        }
        let given = (!self.answers.is_empty()).then(|| self.answers.remove(0));
        match given {
            Some(given) => match human.accept(&given) {
                Some(answer) => Ok(Some(Answer::given(answer))),
                None => Err(format!(
                    "'{given}' is not one of the options; answer with an option id\n{}",
                    human.prompt()
                )),
            },
            // --allow-unverified takes the word for a prose check, as on the first run.
            None if !human.replaces_executor() && cx.opts.allow_unverified && !human.blocking => Ok(None),
            None => Err(human.prompt()),
        }
    }

    /// An end-of-phase review: the answers given now are added to those
    /// recorded (in the run state, `steps/<n>/answers`); while a check is
    /// open the run waits showing the open ones; once every check has an
    /// answer, the summary — and the issues, which fail the step.
    fn review_answer(&mut self, ledger: &mut Ledger<'_>, step: &Step) -> std::result::Result<Option<Answer>, String> {
        let Some(human) = &step.human else {
            return Ok(None);
        };
        let path = ledger.state.step_paths(step.number).answers();
        let mut recorded: BTreeMap<usize, String> = ledger
            .state
            .read_text(&path)
            .ok()
            .flatten()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let given = std::mem::take(&mut self.answers);
        if let Err(why) = human.record_answers(&mut recorded, &given) {
            return Err(format!("{why}\n{}", human.review_prompt(&recorded)));
        }
        if !given.is_empty() {
            let json = serde_json::to_string(&recorded).unwrap_or_default();
            if let Err(e) = ledger.state.put_text(&path, &json) {
                return Err(format!("cannot record the answers: {e:#}"));
            }
        }
        if !human.unanswered(&recorded).is_empty() {
            return Err(human.review_prompt(&recorded));
        }
        let mut summary = Vec::new();
        let mut issues = Vec::new();
        let mut unverified = Vec::new();
        for (n, answer) in &recorded {
            let item = &human.items[n - 1];
            summary.push(format!("{n}. {}: {answer}", item.test));
            match classify(answer) {
                Verdict::Pass => {}
                Verdict::Unverified(why) => unverified.push(format!("check {n} ({}): {why}", item.test)),
                Verdict::Issue(what) => issues.push(format!("check {n} ({}): {what}", item.test)),
            }
        }
        if !unverified.is_empty() {
            ledger.warn(format!(
                "step {}: not verified by the person: {}",
                step.number,
                unverified.join("; ")
            ));
        }
        Ok(Some(Answer {
            text: summary.join("; "),
            issues: (!issues.is_empty()).then(|| format!("the person reported: {}", issues.join("; "))),
        }))
    }
}
