//! Result YAML (DESIGN §9.1, seed 000): what an executor reports about a step,
//! and the validator that decides whether the report can be believed.

mod checker;
mod lines;
mod rules;
mod sections;
mod task_match;
mod usage;
mod validation;

pub use rules::validate;
pub use usage::{Tokens, Usage};
pub use validation::{Finding, Outcome, Validation, ValidationContext};

#[cfg(test)]
mod tests;
