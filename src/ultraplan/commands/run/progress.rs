//! The run's live progress on a terminal: the engine's events as a status
//! line; warnings always.

use std::io::IsTerminal;

use crate::cli::progress::StatusLine;
use crate::cli::Ui;
use crate::ultraplan::engine::{Event, Observer};
use crate::ultraplan::state::StepStatus;

/// Live progress on a terminal; warnings always.
pub(super) struct LiveProgress<'a> {
    pub status: &'a StatusLine,
    pub ui: Ui,
}

impl Observer for LiveProgress<'_> {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Step {
                number,
                title,
                position,
                total,
            } => self.status.set(format!("step {number} ({position}/{total}): {title}")),
            Event::Attempt { number, attempt, max } => {
                if attempt > 1 {
                    self.status.set(format!("step {number}: attempt {attempt}/{max}"));
                }
            }
            Event::Verifying { number } => self.status.set(format!("step {number}: verifying")),
            Event::StepDone { number, status } => {
                self.status.clear();
                if !self.ui.quiet && std::io::stderr().is_terminal() {
                    let word = match status {
                        StepStatus::Passed => "passed",
                        other => other.as_str(),
                    };
                    self.status.println(&format!("step {number}: {word}"));
                }
            }
            Event::Warning(message) => {
                self.status.clear();
                self.ui.warning(message);
            }
            Event::Progress(line) => self.status.set_text(line),
        }
    }
}
