//! A command judged against its `→ expected:` — a step's Verify, a session's
//! entry or exit condition, a Verification item — runs one way, whichever of
//! the plan's types carries it.

use std::path::Path;

use super::verify::{run_expecting, Checked};
use super::RunOptions;
use crate::ultraplan::plan::{Check, ExpectedKind, Verify};

/// A command with what its output must show.
pub(super) trait Expecting {
    fn parts(&self) -> (&str, Option<&str>, Option<ExpectedKind>);
}

impl Expecting for Verify {
    fn parts(&self) -> (&str, Option<&str>, Option<ExpectedKind>) {
        (&self.command, self.expected.as_deref(), self.expected_kind)
    }
}

impl Expecting for Check {
    fn parts(&self) -> (&str, Option<&str>, Option<ExpectedKind>) {
        (&self.command, self.expected.as_deref(), self.expected_kind)
    }
}

/// Runs `check` in the strict shell (`sh -o pipefail -c`, `-e` for a block) in `cwd` within the run's verify timeout and
/// transcript cap.
pub(super) fn run(check: &impl Expecting, cwd: &Path, opts: &RunOptions) -> anyhow::Result<Checked> {
    let (command, expected, kind) = check.parts();
    run_expecting(command, expected, kind, cwd, opts)
}
