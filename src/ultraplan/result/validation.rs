//! What validating a result reports — its outcome, the violations and
//! warnings found, the task it was matched to — and what the validator is
//! given besides the result.

use std::path::Path;

use serde::Serialize;

use crate::ultraplan::plan::Plan;

/// What the validator knows besides the result itself.
#[derive(Clone, Copy, Default)]
pub struct ValidationContext<'a> {
    /// The plan whose task the result reports on; enables name matching and
    /// the files-in-the-task's-list check.
    pub plan: Option<&'a Plan>,
    /// The repository root, for "file does not exist" warnings.
    pub root: Option<&'a Path>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Outcome {
    #[serde(rename = "VALID")]
    Valid,
    #[serde(rename = "VALID_WITH_WARNINGS")]
    ValidWithWarnings,
    #[serde(rename = "INVALID")]
    Invalid,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Valid => "VALID",
            Outcome::ValidWithWarnings => "VALID_WITH_WARNINGS",
            Outcome::Invalid => "INVALID",
        }
    }
}

/// One violation or warning: the field at fault and its line, when known.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub line: Option<usize>,
    pub field: String,
    pub message: String,
}

/// The task a result was matched to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchedTask {
    pub number: u32,
    pub name: String,
    /// `exact` or `prefix`.
    #[serde(rename = "match")]
    pub how: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct Validation {
    pub outcome: Outcome,
    pub violations: Vec<Finding>,
    pub warnings: Vec<Finding>,
    pub task: Option<MatchedTask>,
}
