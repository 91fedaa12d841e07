//! The On failure field: a policy keyword, then free text for the executor.

use crate::ultraplan::plan::markdown::Field;
use crate::ultraplan::plan::{Diagnostics, FailurePolicy, OnFailure};

/// On failure: a policy keyword (optionally backticked or bold), then a dash
/// and free text for the executor.
pub(crate) fn on_failure(field: &Field<'_>, step: u32, diags: &mut Diagnostics) -> Option<OnFailure> {
    let text = field.text().replace('\n', " ");
    let trimmed = text.trim_start_matches(['`', '*', '_', ' ']);
    let word: String = trimmed.chars().take_while(|c| c.is_alphabetic()).collect();
    let action = match word.to_lowercase().as_str() {
        "revert" => FailurePolicy::Revert,
        "retry" => FailurePolicy::Retry,
        "skip" => FailurePolicy::Skip,
        "escalate" => FailurePolicy::Escalate,
        _ => {
            diags.problem(
                field.line,
                format!(
                    "step {step}: unknown On failure action '{}' (expected revert, retry, skip or escalate)",
                    trimmed.split_whitespace().next().unwrap_or("")
                ),
            );
            return None;
        }
    };
    let rest = trimmed[word.len()..]
        .trim_start_matches(['`', '*', '_'])
        .trim_start()
        .trim_start_matches(['—', '–', '-', ':', ',', ';', '.'])
        .trim();
    Some(OnFailure {
        action,
        instructions: (!rest.is_empty()).then(|| rest.to_owned()),
    })
}
