//! What a plan hands to `sh`, the environment and a terminal must get there
//! as written: no NUL byte (no argument, variable or commit message can
//! carry one), no other control character or mark reordering text (the
//! report would carry it to the screen), and no command longer than one
//! argument may be (Linux's 128 KiB per argument: `sh -c <command>`). Refused as problems, so `check` says so and `run`
//! writes nothing, rather than a run stopping half-way with
//! `Argument list too long`.

use super::diagnostics::Diagnostics;
use super::model::Plan;

/// The longest command a step may hand to `sh -c`: one argument.
pub(super) const LONGEST_COMMAND: usize = 128 * 1024;

/// The first character of `text` no plan needs and a terminal or `sh`
/// would take amiss, with its line (counted from `first_line`): NUL, which
/// no argument, variable or commit message carries; any other control
/// character but tab and line breaks (an escape recolours or rewrites the
/// screen the report is read on); and the marks that reorder text on
/// screen (`U+202E`), which make a command read other than it runs.
pub(super) fn hidden_character(text: &str, first_line: usize) -> Option<(usize, char)> {
    let hidden = |c: char| {
        c.is_control() && !matches!(c, '\t' | '\n' | '\r')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    // Such a character is never printable ASCII: a large plan has a
    // character decoded only where its text is not, at line ends and
    // beyond ASCII, rather than at each byte.
    let printable_ascii = |b: &u8| (0x20..0x7f).contains(b);
    // Most plans are only that and line ends: known in one pass the
    // compiler makes wide (no early exit), before any character is decoded.
    let plain = |all: bool, b: &u8| all & (printable_ascii(b) || matches!(b, b'\t' | b'\n' | b'\r'));
    if text.as_bytes().iter().fold(true, plain) {
        return None;
    }
    let mut from = 0;
    while let Some(found) = text.as_bytes()[from..].iter().position(|b| !printable_ascii(b)) {
        let at = from + found;
        let c = text[at..].chars().next()?;
        if hidden(c) {
            return Some((first_line + text[..at].matches('\n').count(), c));
        }
        from = at + c.len_utf8();
    }
    None
}

/// Problems for every command of `plan` too long to run.
pub(super) fn check(plan: &Plan, diags: &mut Diagnostics) {
    let too_long = |what: &str, bytes: usize| {
        format!(
            "{what} is {} KiB, longer than one command line may be ({} KiB); put it in a script and run that",
            bytes.div_ceil(1024),
            LONGEST_COMMAND / 1024
        )
    };
    for step in &plan.steps {
        if let Some(v) = step.verify.as_ref().filter(|v| v.command.len() > LONGEST_COMMAND) {
            diags.problem(
                step.line,
                too_long(&format!("step {}'s Verify command", step.number), v.command.len()),
            );
        }
        for block in &step.code_blocks {
            if matches!(block.lang.as_str(), "sh" | "shell" | "bash") && block.code.len() > LONGEST_COMMAND {
                diags.problem(
                    block.line,
                    too_long(
                        &format!("step {}'s {} block", step.number, block.lang),
                        block.code.len(),
                    ),
                );
            }
        }
    }
    for check in plan.verification.iter().filter(|c| c.command.len() > LONGEST_COMMAND) {
        diags.problem(check.line, too_long("a Verification command", check.command.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::hidden_character;

    #[test]
    fn every_hidden_character_is_found_at_its_line_and_no_other() {
        assert_eq!(hidden_character("a\tb\r\nc — é ✓\n", 1), None);
        for c in [
            '\0', '\u{1b}', '\u{7f}', '\u{85}', '\u{9f}', '\u{202e}', '\u{2066}', '\u{2069}',
        ] {
            let text = format!("— é\nline {c} two\n");
            assert_eq!(hidden_character(&text, 3), Some((4, c)), "{c:?}");
        }
    }
}
