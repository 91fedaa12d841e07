//! Result YAML (DESIGN §9.1, seed 000): what an executor reports about a step,
//! and the validator that decides whether the report can be believed.

mod checker;
mod lines;
mod report;
mod sections;
mod task_match;
mod usage;
mod validate;

pub use report::{Finding, Outcome, Validation, ValidationContext};
pub use usage::{Tokens, Usage};
pub use validate::validate;

#[cfg(test)]
mod tests;
