//! The run's live progress: on a terminal the engine's events as a status
//! line; without one (CI, a pipe, a log file) one line as each step starts
//! and one as it ends, so a long run is never silent. `-q` silences both;
//! warnings too.

use std::io::IsTerminal;

use crate::cli::progress::StatusLine;
use crate::cli::Ui;
use crate::ultraplan::engine::{Event, Observer};

/// Live progress on a terminal, step lines elsewhere; warnings.
pub(super) struct LiveProgress<'a> {
    pub status: &'a StatusLine,
    pub ui: Ui,
}

impl LiveProgress<'_> {
    /// Whether steps are told as lines: not on a terminal (the status line
    /// does it there), and not with `-q`.
    fn lines(&self) -> bool {
        !self.ui.quiet && !std::io::stderr().is_terminal()
    }
}

impl Observer for LiveProgress<'_> {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Step {
                number,
                title,
                position,
                total,
            } => {
                let text = format!("step {number} ({position}/{total}): {title}");
                if self.lines() {
                    self.ui.note(&text);
                }
                self.status.set(text);
            }
            Event::Attempt { number, attempt, max } => {
                if attempt > 1 {
                    self.status.set(format!("step {number}: attempt {attempt}/{max}"));
                }
            }
            Event::Verifying { number } => self.status.set(format!("step {number}: verifying")),
            Event::Activity { number, text } => self.status.set_text(format!("step {number}: {text}")),
            Event::StepDone { number, status } => {
                self.status.clear();
                let line = format!("step {number}: {}", status.as_str());
                if self.lines() {
                    self.ui.note(&line);
                } else if !self.ui.quiet {
                    self.status.println(&line);
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
