//! What reading a plan found wrong: problems (the plan does not run) and
//! warnings, each at a line of the file. Kept apart from the model: a
//! [`super::Plan`] carries them, it is not made of them.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Problem,
    Warning,
}

/// A problem (the plan needs attention) or a warning, at a line of the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub line: usize,
    #[serde(skip)]
    pub severity: Severity,
    pub message: String,
}

/// Collects diagnostics while a plan is read.
#[derive(Default)]
pub(crate) struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    pub fn problem(&mut self, line: usize, message: impl Into<String>) {
        self.0.push(Diagnostic {
            line: line.max(1),
            severity: Severity::Problem,
            message: message.into(),
        });
    }

    pub fn warning(&mut self, line: usize, message: impl Into<String>) {
        self.0.push(Diagnostic {
            line: line.max(1),
            severity: Severity::Warning,
            message: message.into(),
        });
    }

    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.0
    }
}
