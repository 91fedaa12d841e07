//! Result YAML (DESIGN §9.1, seed 000): what an executor reports about a step,
//! and the validator that decides whether the report can be believed.

mod checker;
mod lines;
mod rules;
mod sections;
mod task_match;
mod validation;

pub use rules::validate;
// Kept with the run state, where each attempt's summary holds its usage.
pub use crate::ultraplan::state::{Tokens, Usage};
pub use validation::{Finding, Outcome, Validation, ValidationContext};

#[cfg(test)]
mod tests;
