//! GSD Core's end-of-phase verification (its `human_verify_mode:
//! end-of-phase`, the default since GSD Core #3309): the planner folds what a
//! person must look at into the tasks' `<verify><human-check>` blocks, and
//! they are reviewed together once the phase's automated work is done (GSD
//! writes them to `{phase}-HUMAN-UAT.md`). Here they become one last step
//! for a person: the run does everything it can, then stops once showing
//! every check, and `run --resume --answer` records an answer for each.
//!
//! Answers follow GSD's UAT rules: `pass`, `yes`, `y`, `ok`, `approved`,
//! `next` pass a check; `skip …` and `blocked …` leave it unverified (said
//! in the result, as GSD's `partial`); anything else is an issue, and an
//! issue fails the review. `--answer N=TEXT` answers check N; a bare
//! `--answer TEXT` answers every check not answered yet.

use std::collections::BTreeMap;

use super::human::{HumanCheck, HumanKind, ReviewItem};
use super::{FailurePolicy, OnFailure, Step};

/// The review step after `steps`: it checks the items, and each step whose
/// only check is its human-check (no command) is verified by it.
pub(crate) fn review_step(steps: &mut [Step], items: Vec<ReviewItem>) -> Step {
    let number = steps.iter().map(|s| s.number).max().unwrap_or(0) + 1;
    for step in steps.iter_mut() {
        if step.verify.is_none() && step.human.is_none() && items.iter().any(|i| i.step == step.number) {
            step.verified_by = Some(number);
        }
    }
    let count = items.len();
    Step {
        number,
        title: format!(
            "End-of-phase review: {count} check{} by a person",
            if count == 1 { "" } else { "s" }
        ),
        changes: String::new(),
        on_failure: OnFailure {
            action: FailurePolicy::Retry,
            instructions: Some("fix what the person reported, then 'run --resume' asks again".into()),
        },
        human: Some(HumanCheck {
            items,
            ..HumanCheck::new(HumanKind::Review, "Review the phase's work")
        }),
        check_only: true,
        task_type: Some("review".into()),
        line: steps.last().map_or(1, |s| s.line),
        ..Default::default()
    }
}

/// What a person said about one check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Not verified, and why (`skip …`, `blocked …`).
    Unverified(String),
    /// Something is wrong: the person's words.
    Issue(String),
}

/// GSD's rule: yes-words pass, skip/blocked leave the check unverified,
/// anything else is an issue.
pub fn classify(answer: &str) -> Verdict {
    let a = answer.trim();
    let lower = a.to_lowercase();
    let word = lower.trim_end_matches(['.', '!']);
    if matches!(
        word,
        "pass"
            | "passed"
            | "passes"
            | "yes"
            | "y"
            | "ok"
            | "okay"
            | "approved"
            | "approve"
            | "next"
            | "lgtm"
            | "looks good"
    ) {
        return Verdict::Pass;
    }
    for lead in ["skip", "skipped", "blocked"] {
        if lower == lead || lower.starts_with(&format!("{lead} ")) || lower.starts_with(&format!("{lead}:")) {
            return Verdict::Unverified(a.to_owned());
        }
    }
    Verdict::Issue(a.to_owned())
}

impl HumanCheck {
    /// Adds the `given` answers to `recorded` (check number → answer):
    /// `N=TEXT` (or `N: TEXT`) answers check N; a bare answer, every check
    /// not answered yet. An answer to a check that does not exist is refused.
    pub fn record_answers(&self, recorded: &mut BTreeMap<usize, String>, given: &[String]) -> Result<(), String> {
        let count = self.items.len();
        let mut bare = None;
        for answer in given {
            match numbered(answer) {
                Some((n, text)) if (1..=count).contains(&n) => {
                    if text.trim().is_empty() {
                        return Err(format!("the answer to check {n} is empty"));
                    }
                    recorded.insert(n, text.trim().to_owned());
                }
                Some((n, _)) => {
                    return Err(format!(
                    "there is no check {n}: the review has {count} (answer with --answer N=TEXT, N from 1 to {count})"
                ))
                }
                None if answer.trim().is_empty() => return Err("an answer is empty".into()),
                None => bare = Some(answer.trim().to_owned()),
            }
        }
        if let Some(text) = bare {
            for n in 1..=count {
                recorded.entry(n).or_insert_with(|| text.clone());
            }
        }
        Ok(())
    }

    /// The checks not answered yet.
    pub fn unanswered(&self, recorded: &BTreeMap<usize, String>) -> Vec<usize> {
        (1..=self.items.len()).filter(|n| !recorded.contains_key(n)).collect()
    }

    /// What the person is shown: the checks still to answer (all of them
    /// the first time), each with what to expect.
    pub fn review_prompt(&self, recorded: &BTreeMap<usize, String>) -> String {
        let open = self.unanswered(recorded);
        let mut out = format!(
            "End-of-phase review: the automated work is done; {} of {} check{} to do by hand:",
            open.len(),
            self.items.len(),
            if self.items.len() == 1 { "" } else { "s" }
        );
        for n in &open {
            let item = &self.items[n - 1];
            out.push_str(&format!("\n  {n}. {} (step {})", item.test, item.step));
            if let Some(e) = &item.expected {
                out.push_str(&format!("\n     expected: {e}"));
            }
            if let Some(w) = &item.why_human {
                out.push_str(&format!("\n     why by hand: {w}"));
            }
        }
        for (n, answer) in recorded {
            out.push_str(&format!("\n  {n}. answered: {answer}"));
        }
        out.push_str(
            "\nAnswer each with 'git ultraplan run --resume --answer N=pass' (or N='what is wrong'); a bare --answer answers every open check.",
        );
        out
    }
}

/// `N=TEXT`, `N: TEXT`.
fn numbered(answer: &str) -> Option<(usize, &str)> {
    let a = answer.trim_start();
    let digits = a.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let rest = a[digits..].trim_start();
    let text = rest.strip_prefix('=').or_else(|| rest.strip_prefix(':'))?;
    Some((a[..digits].parse().ok()?, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(n: usize) -> HumanCheck {
        HumanCheck {
            items: (1..=n)
                .map(|i| ReviewItem {
                    test: format!("check {i}"),
                    step: i as u32,
                    ..Default::default()
                })
                .collect(),
            ..HumanCheck::new(HumanKind::Review, "r")
        }
    }

    #[test]
    fn answers_by_number_and_bare() {
        let r = review(3);
        let mut rec = BTreeMap::new();
        r.record_answers(&mut rec, &["2=the button overlaps".into()]).unwrap();
        assert_eq!(r.unanswered(&rec), [1, 3]);
        r.record_answers(&mut rec, &["pass".into()]).unwrap();
        assert_eq!(rec[&1], "pass");
        assert_eq!(rec[&2], "the button overlaps");
        assert!(r.record_answers(&mut rec, &["4=pass".into()]).is_err());
        assert!(r.record_answers(&mut rec, &["1=".into()]).is_err());
    }

    #[test]
    fn gsd_words() {
        assert_eq!(classify("y"), Verdict::Pass);
        assert_eq!(classify("Approved."), Verdict::Pass);
        assert_eq!(
            classify("skip: no device"),
            Verdict::Unverified("skip: no device".into())
        );
        assert_eq!(
            classify("blocked by the server"),
            Verdict::Unverified("blocked by the server".into())
        );
        assert_eq!(
            classify("yes but the logo is cut"),
            Verdict::Issue("yes but the logo is cut".into())
        );
    }
}
