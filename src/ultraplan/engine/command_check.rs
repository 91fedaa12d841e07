//! A command judged against its `→ expected:` (DESIGN §6.3) — a step's
//! Verify, a session's entry or exit condition, a Verification item — runs
//! one way, whichever of the plan's types carries it: ultraplan runs it in
//! the strict shell itself and the exit code decides. A backticked literal
//! expectation must also appear in the output; a comparison (`>= 1`)
//! applies when the output is a number; prose is recorded and the exit
//! code alone decides.

use std::path::Path;
use std::time::Duration;

use super::RunOptions;
use crate::process::{self, Ending, Finished};
use crate::ultraplan::plan::{Check, ExpectedKind, Verify};

/// The outcome of running a check.
pub struct Checked {
    pub ending: Ending,
    pub output: String,
    pub duration: Duration,
    /// `None` when it passed, else why not.
    pub failure: Option<String>,
    /// A note about an expectation that could not apply.
    pub note: Option<String>,
}

impl Checked {
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }

    /// The last lines of the output, for summaries and feedback.
    pub fn tail(&self, lines: usize) -> String {
        tail(&self.output, lines)
    }

    /// Why a failed check failed, for the people reading the report,
    /// `status` and `log`: how it ended, the command, then the last lines
    /// of what it printed (a mismatch shows what the output was).
    pub fn explain(&self, command: &str) -> Option<String> {
        let failure = self.failure.as_ref()?;
        let mut text = format!("{failure}: {}", one_line(command));
        let shown = tail(&self.output, EXPLAINED_LINES);
        if shown.trim().is_empty() {
            text.push_str(" (no output)");
        }
        for line in shown.lines().filter(|l| !l.trim().is_empty()) {
            text.push('\n');
            text.extend(line.chars().take(200));
        }
        Some(text)
    }
}

/// Lines of output a failure's explanation shows.
const EXPLAINED_LINES: usize = 5;

/// A command as one line: a block's first line and how many more it has.
fn one_line(command: &str) -> String {
    let lines: Vec<&str> = command.trim().lines().collect();
    match lines.as_slice() {
        [] => "``".into(),
        [one] => format!("`{one}`"),
        [first, rest @ ..] => format!(
            "`{first}` (and {} more line{})",
            rest.len(),
            if rest.len() == 1 { "" } else { "s" }
        ),
    }
}

/// The last `lines` lines of `text`, redacted whole before it is cut: a key's body must not be shown without
/// the line that names it as a key.
pub fn tail(text: &str, lines: usize) -> String {
    let text = crate::redact::redact(text);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Runs `command` in the strict shell (`sh -o pipefail -c`, `-e` for a block; see
/// [`process::strict`]) in `cwd` and judges it against `expected`.
pub fn run_check(
    command: &str,
    expected: Option<(&str, ExpectedKind)>,
    cwd: &Path,
    env: Vec<(String, String)>,
    timeout: Duration,
    cap: usize,
) -> anyhow::Result<Checked> {
    let finished = process::strict_shell(command, cwd, env, timeout, cap)?;
    Ok(judge(&finished, expected))
}

/// Runs a Verify command, a condition or a Verification item as every check
/// of a run runs: in the strict shell in `cwd`, within the run's verify timeout and
/// transcript cap, judged against its `→ expected:`.
pub fn run_expecting(
    command: &str,
    expected: Option<&str>,
    kind: Option<ExpectedKind>,
    cwd: &Path,
    opts: &RunOptions,
) -> anyhow::Result<Checked> {
    run_check(
        command,
        expected.zip(kind),
        cwd,
        Vec::new(),
        opts.verify_timeout,
        opts.transcript_cap,
    )
}

pub fn judge(finished: &Finished, expected: Option<(&str, ExpectedKind)>) -> Checked {
    let output = finished.output();
    let mut note = None;
    let failure = if !finished.ending.success() {
        Some(format!("verify {}", finished.ending.describe()))
    } else {
        match expected {
            Some((literal, ExpectedKind::Literal)) if !contains_literal(&output, literal) => {
                Some(format!("verify output does not contain '{literal}'"))
            }
            Some((comparison, ExpectedKind::Comparison)) => match compare(&output, comparison) {
                Some(true) => None,
                Some(false) => Some(format!("verify output '{}' is not {comparison}", output.trim())),
                None => {
                    note = Some(format!("output is not a number, so '{comparison}' does not apply"));
                    None
                }
            },
            _ => None,
        }
    };
    Checked {
        ending: finished.ending,
        output,
        duration: finished.duration,
        failure,
        note,
    }
}

/// Whether `output` holds the expected literal (DESIGN §6.3): as a
/// substring, except that a literal beginning or ending with a digit is
/// not found inside a longer number — `3` is in `3 passed`, `(3)` and
/// `took 3.`, not in `13`, `35`, `3.5` or `0.3`. The common expectation
/// (a count) then means that number.
pub fn contains_literal(output: &str, literal: &str) -> bool {
    if literal.is_empty() {
        return true;
    }
    let digit_at = |text: &str, at: usize| text[at..].chars().next().is_some_and(|c| c.is_ascii_digit());
    let starts_digit = literal.starts_with(|c: char| c.is_ascii_digit());
    let ends_digit = literal.ends_with(|c: char| c.is_ascii_digit());
    output.match_indices(literal).any(|(at, _)| {
        let before = &output[..at];
        let after = &output[at + literal.len()..];
        let joins_before = starts_digit
            && (before.ends_with(|c: char| c.is_ascii_digit())
                || (before.ends_with('.') && before[..before.len() - 1].ends_with(|c: char| c.is_ascii_digit())));
        let joins_after = ends_digit
            && (after.starts_with(|c: char| c.is_ascii_digit()) || (after.starts_with('.') && digit_at(after, 1)));
        !joins_before && !joins_after
    })
}

/// Applies `>= 1` and friends to a numeric output (its last line); `None`
/// when the output is not a number.
pub fn compare(output: &str, comparison: &str) -> Option<bool> {
    let value: f64 = output.trim().lines().last()?.trim().parse().ok()?;
    let c = comparison.trim();
    let (op, rest) = ["<=", ">=", "==", "!=", "<", ">", "="]
        .iter()
        .find_map(|op| c.strip_prefix(op).map(|r| (*op, r)))?;
    let target: f64 = rest.trim().parse().ok()?;
    Some(match op {
        "<=" => value <= target,
        ">=" => value >= target,
        "<" => value < target,
        ">" => value > target,
        "!=" => value != target,
        _ => value == target,
    })
}

/// A command with what its output must show.
pub(in crate::ultraplan::engine) trait Expecting {
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
pub(in crate::ultraplan::engine) fn run(
    check: &impl Expecting,
    cwd: &Path,
    opts: &RunOptions,
) -> anyhow::Result<Checked> {
    let (command, expected, kind) = check.parts();
    run_expecting(command, expected, kind, cwd, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(code: i32, out: &str) -> Finished {
        Finished {
            ending: Ending::Exited(code),
            stdout: out.into(),
            stderr: String::new(),
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn exit_code_is_truth() {
        assert!(judge(&finished(0, "anything"), None).passed());
        assert!(!judge(
            &finished(1, "test result: ok"),
            Some(("test result: ok", ExpectedKind::Literal))
        )
        .passed());
        assert!(!judge(&finished(0, "nope"), Some(("test result: ok", ExpectedKind::Literal))).passed());
        assert!(judge(
            &finished(0, "x test result: ok. 1 passed"),
            Some(("test result: ok", ExpectedKind::Literal))
        )
        .passed());
        assert!(judge(
            &finished(0, "whatever"),
            Some(("non-77 exit code", ExpectedKind::Prose))
        )
        .passed());
    }

    #[test]
    fn a_number_is_not_found_inside_a_longer_number() {
        for (output, found) in [
            ("3", true),
            ("3 passed", true),
            ("tests: (3)", true),
            ("took 3.", true),
            ("3.5", false),
            ("13", false),
            ("35", false),
            ("0.3", false),
            ("v3 3.5 3", true),
        ] {
            assert_eq!(contains_literal(output, "3"), found, "{output}");
        }
        assert!(contains_literal("test result: ok. 1 passed", "test result: ok"));
        assert!(!contains_literal("version 1.2.3\n", "1.2"));
        assert!(contains_literal("version 1.2.3\n", "1.2.3"));
    }

    #[test]
    fn comparisons_apply_to_numbers() {
        assert!(judge(&finished(0, "3\n"), Some((">= 1", ExpectedKind::Comparison))).passed());
        assert!(!judge(&finished(0, "0\n"), Some((">= 1", ExpectedKind::Comparison))).passed());
        let not_a_number = judge(&finished(0, "many\n"), Some((">= 1", ExpectedKind::Comparison)));
        assert!(not_a_number.passed());
        assert!(not_a_number.note.is_some());
        assert_eq!(compare("2.5", "< 3"), Some(true));
        assert_eq!(compare("2", "== 2"), Some(true));
        assert_eq!(compare("2", "!= 2"), Some(false));
    }
}
