//! Text from the branch made safe to write: a path as git quotes it, and a
//! line with its control characters gone. A file name may hold a line
//! break (which would start a trailer of its own in a body) or an escape;
//! a subject may hold a pasted colour code. Neither may reach a commit
//! message or a terminal as it is.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `path` as git prints it in a diff when it must (`core.quotePath`
/// aside): between double quotes with C escapes when it holds a control
/// character, a double quote or a backslash; as it is otherwise (letters
/// beyond ASCII included, as with `core.quotePath=false`).
pub fn quote_path(path: &str) -> Cow<'_, str> {
    if !path.chars().any(|c| c.is_control() || c == '"' || c == '\\') {
        return Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\x0b' => out.push_str("\\v"),
            '\x0c' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let mut bytes = [0; 4];
                for b in c.encode_utf8(&mut bytes).bytes() {
                    let _ = write!(out, "\\{b:03o}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// `line` without control characters: an escape sequence setting colours
/// or moving the cursor (`ESC [ … letter`) goes whole, any other control
/// character (a tab too) becomes a space, runs of spaces so made stay.
pub fn without_controls(line: &str) -> Cow<'_, str> {
    if !line.chars().any(char::is_control) {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // Parameters and intermediates, then one final letter.
                while let Some(&p) = chars.peek() {
                    chars.next();
                    if ('\x40'..='\x7e').contains(&p) {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(if c.is_control() { ' ' } else { c });
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_quoted_as_git_quotes_it_only_when_it_must_be() {
        assert_eq!(quote_path("src/main.rs"), "src/main.rs");
        assert_eq!(quote_path("docs/ünïcode.md"), "docs/ünïcode.md");
        assert_eq!(quote_path("a b"), "a b");
        assert_eq!(
            quote_path("x\nCo-authored-by: M <m@e>"),
            "\"x\\nCo-authored-by: M <m@e>\""
        );
        assert_eq!(quote_path("tab\there"), "\"tab\\there\"");
        assert_eq!(quote_path("esc\x1b[31mred"), "\"esc\\033[31mred\"");
        assert_eq!(quote_path("say \"hi\"\\"), "\"say \\\"hi\\\"\\\\\"");
        assert_eq!(quote_path("c1\u{85}"), "\"c1\\302\\205\"");
    }

    #[test]
    fn control_characters_leave_a_line_and_colour_codes_go_whole() {
        assert_eq!(without_controls("Fix the parser"), "Fix the parser");
        assert_eq!(without_controls("Fix \x1b[31mred\x1b[0m output"), "Fix red output");
        assert_eq!(without_controls("a\tb\x07c"), "a b c");
        assert_eq!(without_controls("cut \x1b[1;3"), "cut ");
        assert_eq!(without_controls("lone \x1bX"), "lone X");
    }
}
