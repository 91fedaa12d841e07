//! The Verify field as a plan writes it (DESIGN §6.3): a command and its
//! `→ expected:`, or prose for a person; also a Verification item or a
//! condition read as a check. Running it is the engine's (`engine::command_check`).

use super::is_none_value;
use crate::ultraplan::plan::markdown::{code_spans, plain, Field};
use crate::ultraplan::plan::{Check, Diagnostics, ExpectedKind, Verify};

/// Splits `text` at an `→ expected:` marker outside code spans: the text
/// before (arrows and dashes trimmed) and the expectation after.
pub(crate) fn split_expected(text: &str) -> (&str, Option<&str>) {
    // Most text has no `expected` in any case, known without lowercasing
    // it (no other letter lowercases to these).
    let marker = b"expected";
    if !text
        .as_bytes()
        .windows(marker.len())
        .any(|w| w.eq_ignore_ascii_case(marker))
    {
        return (text, None);
    }
    let lower = text.to_lowercase();
    let spans = code_spans(text);
    let mut from = 0;
    while let Some(found) = lower[from..].find("expected") {
        let at = from + found;
        from = at + "expected".len();
        if spans.iter().any(|s| s.start <= at && at < s.end) {
            continue;
        }
        let after = text[at + "expected".len()..].trim_start();
        let Some(after) = after.strip_prefix(':') else {
            continue;
        };
        let before = text[..at]
            .trim_end()
            .trim_end_matches(['→', '-', '>', '=', '—', '–', ',', ';', '|'])
            .trim_end();
        return (before, Some(after.trim()));
    }
    (text, None)
}

/// Classifies an expectation: a comparison (`>= 1`, backticked or not), a
/// backticked literal, or prose.
pub(crate) fn expectation(text: &str) -> (String, ExpectedKind) {
    let trimmed = text.trim();
    let spans = code_spans(trimmed);
    match spans.first() {
        Some(span) if span.start == 0 => {
            let literal = span.content.to_owned();
            let kind = if is_comparison(&literal) {
                ExpectedKind::Comparison
            } else {
                ExpectedKind::Literal
            };
            (literal, kind)
        }
        _ if is_comparison(trimmed) => (trimmed.to_owned(), ExpectedKind::Comparison),
        _ => (plain(trimmed), ExpectedKind::Prose),
    }
}

/// `>= 1`, `< 5`, `== 0`, `!= 2`: an operator and a number.
pub(crate) fn is_comparison(text: &str) -> bool {
    let t = text.trim();
    let op_len = ["<=", ">=", "==", "!=", "<", ">", "="]
        .iter()
        .find(|op| t.starts_with(*op))
        .map_or(0, |op| op.len());
    op_len > 0 && t[op_len..].trim().parse::<f64>().is_ok_and(f64::is_finite)
}

/// `>= NaN`, `< inf`, `== many`: an operator with no finite number after it,
/// which no output can satisfy.
pub(crate) fn is_broken_comparison(text: &str) -> bool {
    let t = text.trim().trim_matches('`').trim();
    let op_len = ["<=", ">=", "==", "!=", "<", ">"]
        .iter()
        .find(|op| t.starts_with(*op))
        .map_or(0, |op| op.len());
    op_len > 0 && !is_comparison(t)
}

/// A `` `command` → expected: `text` `` item (Verification, Exit Condition).
pub(crate) fn check_item(text: &str, line: usize) -> Option<Check> {
    let (before, expected) = split_expected(text);
    let spans = code_spans(before);
    let first = spans.first()?;
    // The command must lead the item; a backticked word inside prose is not a check.
    if !before[..first.start].trim().is_empty() {
        return None;
    }
    let (expected, expected_kind) = match expected {
        Some(e) if !e.is_empty() => {
            let (text, kind) = expectation(e);
            (Some(text), Some(kind))
        }
        _ => (None, None),
    };
    Some(Check {
        command: first.content.trim().to_owned(),
        expected,
        expected_kind,
        line,
    })
}

/// The text of a Verify written as prose (no code span, no fenced block,
/// not a command by `verify_text`'s rule): a check for a person.
pub(crate) fn prose_verify(field: &Field<'_>) -> Option<String> {
    let (before, _) = split_expected(field.value);
    if !code_spans(before).is_empty() {
        return None;
    }
    let text = plain(before);
    let prose = !text.is_empty()
        && !is_none_value(&text)
        && field.code_blocks().is_empty()
        && matches!(crate::ultraplan::plan::verify_text::read(&text), crate::ultraplan::plan::verify_text::Reading::Prose { commands, .. } if commands.is_empty());
    prose.then_some(text)
}

/// Verify: a backticked command on the line, or a fenced block on the next
/// lines, then optionally `→ expected: …` on the same or a later line.
pub(crate) fn verify(field: &Field<'_>, step: u32, diags: &mut Diagnostics) -> Option<Verify> {
    let (before, mut expected) = split_expected(field.value);
    let mut command = None;
    let spans = code_spans(before);
    if let Some(first) = spans.first() {
        if spans.len() > 1 {
            diags.warning(
                field.line,
                format!(
                    "step {step}: Verify has {} backticked commands; only the first is run",
                    spans.len()
                ),
            );
        }
        command = Some(first.content.trim().to_owned());
    } else if !before.trim().is_empty() {
        let text = plain(before);
        if is_none_value(&text) || crate::ultraplan::plan::verify_text::is_command(&text) {
            command = Some(text);
        } else if let crate::ultraplan::plan::verify_text::Reading::Prose { commands, .. } =
            crate::ultraplan::plan::verify_text::read(&text)
        {
            match commands.is_empty() {
                // "npm test passes": the command, the rest recorded.
                false => {
                    command = Some(commands.join(" && "));
                    expected = expected.or(Some(before.trim()));
                }
                true => {
                    diags.warning(
                        field.line,
                        format!("step {step}: Verify is prose, not a command ('{text}'); run stops there for a person to check it (or takes the executor's word with --allow-unverified)"),
                    );
                    return None;
                }
            }
        }
    }
    if command.is_none() {
        command = field
            .code_blocks()
            .into_iter()
            .next()
            .map(|block| block.code.trim().to_owned());
    }
    if expected.is_none() {
        expected = field
            .body
            .iter()
            .filter(|l| !l.fenced)
            .find_map(|l| split_expected(l.text.trim()).1);
    }
    let Some(command) = command.filter(|c| !c.is_empty()) else {
        diags.problem(
            field.line,
            format!("step {step}: Verify is empty; give a command, or 'none' to pass only with --allow-unverified"),
        );
        return None;
    };
    if is_none_value(&command) {
        diags.warning(
            field.line,
            format!("step {step}: Verify is '{command}'; the step can pass only with --allow-unverified"),
        );
        return None;
    }
    if let Some(e) = expected.filter(|e| is_broken_comparison(e)) {
        diags.problem(
            field.line,
            format!(
                "step {step}: expected '{e}' compares with something that is not a finite number; no output can pass"
            ),
        );
    }
    let (expected, expected_kind) = match expected.filter(|e| !e.is_empty()) {
        Some(e) => {
            let (text, kind) = expectation(e);
            (Some(text), Some(kind))
        }
        None => (None, None),
    };
    Some(Verify {
        command,
        expected,
        expected_kind,
    })
}
