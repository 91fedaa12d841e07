//! Steps no attempt can pass unless the run takes the executor's word
//! (`--allow-unverified`, DESIGN §4.1): no Verify command, no check by a
//! person, no later step that checks them, and not skipped. Every format can
//! have them — a Kiro or spec-kit `tasks.md` mostly does — and `check` and
//! `run` name the same ones: `check` calls them a problem (NEEDS ATTENTION)
//! unless it is given `--allow-unverified` too, and `run` refuses to start
//! without the flag, naming them, rather than fail at the first of them
//! after running the steps before it.

use super::{Diagnostic, Plan, Severity, Step};

impl Plan {
    /// The steps that pass only with `--allow-unverified`, in plan order.
    pub fn unverified_steps(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(|s| is_unverified(s))
    }
}

/// Whether `step` passes only on the executor's word.
pub fn is_unverified(step: &Step) -> bool {
    step.verify.is_none() && step.human.is_none() && step.verified_by.is_none() && step.skip.is_none()
}

/// What `check` says about the plan's unverified steps: a problem (run
/// would fail them) or, with `--allow-unverified` (`allowed`), a warning
/// that they pass on the executor's word. `None` when every step is checked.
pub fn unverified_diagnostic(plan: &Plan, allowed: bool) -> Option<Diagnostic> {
    let steps: Vec<&Step> = plan.unverified_steps().collect();
    let first = steps.first()?;
    let numbers: Vec<u32> = steps.iter().map(|s| s.number).collect();
    let named = name_steps(&numbers);
    let (have, it, them) = agreeing(numbers.len());
    let (severity, message) = if allowed {
        (
            Severity::Warning,
            format!("{named} {have} no Verify command: --allow-unverified passes {them} on the executor's word"),
        )
    } else {
        (
            Severity::Problem,
            format!(
                "{named} {have} no Verify command, so {it} cannot pass: run refuses the plan without --allow-unverified (add a Verify, or check and run with --allow-unverified to take the executor's word)"
            ),
        )
    };
    Some(Diagnostic {
        line: first.line.max(1),
        severity,
        message,
    })
}

/// The words agreeing with `count` steps: has/have, it/they, it/them.
pub fn agreeing(count: usize) -> (&'static str, &'static str, &'static str) {
    if count == 1 {
        ("has", "it", "it")
    } else {
        ("have", "they", "them")
    }
}

/// `step 2`, `steps 1-3, 5`: step numbers, runs of three or more written
/// as a range, as the Execution Strategy writes them.
pub fn name_steps(numbers: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let mut j = i;
        while j + 1 < numbers.len() && numbers[j + 1] == numbers[j] + 1 {
            j += 1;
        }
        if j >= i + 2 {
            parts.push(format!("{}-{}", numbers[i], numbers[j]));
        } else {
            parts.extend(numbers[i..=j].iter().map(u32::to_string));
        }
        i = j + 1;
    }
    let word = if numbers.len() == 1 { "step" } else { "steps" };
    format!("{word} {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::name_steps;

    #[test]
    fn step_lists_write_runs_as_ranges() {
        assert_eq!(name_steps(&[2]), "step 2");
        assert_eq!(name_steps(&[1, 2]), "steps 1, 2");
        assert_eq!(name_steps(&[1, 2, 3, 5, 7, 8, 9, 10]), "steps 1-3, 5, 7-10");
    }
}
