//! The `manual` executor: a person makes the change. It prints what the step
//! asks for and the run stops (exit 3, status `waiting`); `run --resume`
//! then verifies what is in the worktree like any attempt.

use super::{Claim, Outcome, Request};

pub(super) fn run(request: &Request<'_>) -> Outcome {
    let step = request.step;
    let mut text = format!("Step {}: {}\n", step.number, step.title);
    if !step.files.is_empty() {
        let files: Vec<&str> = step.files.iter().map(|f| f.path.as_str()).collect();
        text.push_str(&format!("Files: {}\n", files.join(", ")));
    }
    if !step.changes.is_empty() {
        text.push_str(&format!("Changes:\n{}\n", indent(&step.changes)));
    }
    if let Some(verify) = &step.verify {
        text.push_str(&format!("Verify: {}\n", verify.command));
        if let Some(expected) = &verify.expected {
            text.push_str(&format!("Expected: {expected}\n"));
        }
    }
    if let Some(feedback) = &request.feedback {
        text.push_str(&format!("Previous attempt:\n{}\n", indent(feedback)));
    }
    let mut outcome = Outcome::new(Claim::Waiting);
    outcome.instructions = Some(text);
    outcome
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n")
}
