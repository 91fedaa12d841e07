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
        self.push(line, Severity::Problem, message.into());
    }

    pub fn warning(&mut self, line: usize, message: impl Into<String>) {
        self.push(line, Severity::Warning, message.into());
    }

    fn push(&mut self, line: usize, severity: Severity, message: String) {
        // Most messages have nothing to escape: kept as they are, not copied.
        let message = if message.chars().any(escaped) {
            printable(&message)
        } else {
            message
        };
        self.0.push(Diagnostic {
            line: line.max(1),
            severity,
            message,
        });
    }

    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.0
    }
}

/// `message` with each control character but a line break or a tab written
/// as its escape (`\u{1b}`): a message quotes the plan (a title, a path),
/// and one about an escape sequence must not send it to the screen.
pub fn printable(message: &str) -> String {
    if !message.chars().any(escaped) {
        return message.to_owned();
    }
    message
        .chars()
        .map(|c| {
            if escaped(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A character [`printable`] writes as its escape.
fn escaped(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_shown_as_escapes() {
        assert_eq!(super::printable("path 'a\u{1b}[31mb'"), "path 'a\\u{1b}[31mb'");
        assert_eq!(super::printable("two\nlines\tok"), "two\nlines\tok");
    }
}
