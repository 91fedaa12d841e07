//! Result YAML (DESIGN §9.1, seed 000): what an executor reports about a step,
//! and the validator that decides whether the report can be believed.

mod lines;
pub mod validate;

pub use validate::{validate, Finding, Outcome, Validation, ValidationContext};

#[cfg(test)]
mod tests;
