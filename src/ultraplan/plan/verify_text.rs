//! Telling a shell command from prose (issue 10, item 2).
//!
//! Plans put both in their Verify: `cargo test -q`, and also "README contains
//! the section; user can follow it". Running prose with `sh -c` fails with
//! exit 127 for reasons that have nothing to do with the step, so a Verify is
//! run only when it reads as a command. The rule, in order:
//!
//! 1. A fenced code block is a command, whatever it holds.
//! 2. Text that is one code span (`` `npm test` ``) is judged by its content;
//!    several lines that are each a command (list markers allowed) run in
//!    turn, joined with `&&`.
//! 3. Plain text is a command when all of these hold:
//!    * its first word (after `NAME=value` assignments) is written like a
//!      program: it starts with a lowercase letter, a digit, `.`, `/`, `~`,
//!      `_` or `[`, and holds only letters, digits and `._/+-~[`;
//!    * it is one line and does not end with a word and a full stop;
//!    * outside quotes it has no `, ` (a comma then a space) and none of the
//!      words prose uses to claim an outcome: `passes`, `pass`, `succeeds`,
//!      `succeed`, `returns`, `works`, `shows`, `should`, `must`, `can`,
//!      `contains`, `exists`, `exist`, `is`, `are`, `no`, `without`, `all`,
//!      `the`, `and` (a command writes `&&`), `with`, `when`, `then`.
//!      Words after a `-` (options) and inside quotes do not count.
//! 4. Prose that holds code spans which are commands by this rule (a span
//!    with a space, or starting with `./`, and not a bare file name) runs
//!    those commands, joined with `&&`: "`npm test` passes" runs `npm test`.
//! 5. Prose whose first clause is a command followed by "passes",
//!    "succeeds", "exits 0" (and the like) runs that command: "npm run build
//!    succeeds, no TypeScript errors" runs `npm run build`.
//!
//! In 4 and 5 the prose is kept as the expectation: recorded, and the exit
//! code alone decides (DESIGN §6.3).
//!
//! Anything else is a check for a person. The rule is measured on the GSD
//! fixtures (`tests/fixtures/plans/gsd/`): see the README's "Plan formats".

use super::markdown::code_spans;

/// Words that make a line prose when they stand outside quotes.
const PROSE_WORDS: &[&str] = &[
    "passes", "pass", "succeeds", "succeed", "returns", "works", "shows", "should", "must", "can", "contains",
    "exists", "exist", "is", "are", "no", "without", "all", "the", "and", "with", "when", "then",
];

/// Whether `text` (one Verify, no code spans around it) reads as a command.
pub fn is_command(text: &str) -> bool {
    let text = text.trim();
    let ends_sentence = text
        .split_whitespace()
        .last()
        .and_then(|w| w.strip_suffix('.'))
        .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_alphabetic()));
    if text.is_empty() || text.contains('\n') || ends_sentence {
        return false;
    }
    let words = unquoted_words(text);
    let Some(first) = words.iter().find(|w| !is_assignment(w)) else {
        return false;
    };
    let mut chars = first.chars();
    let starts_like_program = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '/' | '~' | '_' | '['));
    let program_chars = first
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '+' | '-' | '~' | '[' | ']'));
    if !starts_like_program || !program_chars {
        return false;
    }
    if outside_quotes(text).contains(", ") {
        return false;
    }
    !words.iter().any(|w| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        !w.starts_with('-') && PROSE_WORDS.contains(&bare.to_lowercase().as_str()) && bare == *w
    })
}

/// Code spans of prose that are commands: "`npm test` passes".
pub fn commands_in_prose(text: &str) -> Vec<String> {
    code_spans(text)
        .into_iter()
        .map(|s| s.content.trim().to_owned())
        .filter(|c| (c.contains(' ') || c.starts_with("./")) && is_command(c))
        .collect()
}

/// What a Verify says to do: a command to run, or prose for a person (with
/// the command found inside it, if any).
#[derive(Debug, PartialEq, Eq)]
pub enum Reading {
    Command(String),
    Prose { text: String, commands: Vec<String> },
}

/// Reads one Verify text (no fenced block): a single code span is the
/// command; plain text is judged by [`is_command`]; prose may hold commands.
pub fn read(text: &str) -> Reading {
    let t = text.trim();
    let spans = code_spans(t);
    if let [only] = spans.as_slice() {
        if only.start == 0 && only.end == t.len() {
            let inner = only.content.trim();
            return if is_command(inner) || inner.contains('|') || inner.contains("&&") {
                Reading::Command(inner.to_owned())
            } else {
                Reading::Prose {
                    text: inner.to_owned(),
                    commands: Vec::new(),
                }
            };
        }
    }
    if spans.is_empty() && is_command(t) {
        return Reading::Command(t.to_owned());
    }
    // Several lines, each a command (list markers allowed): all of them.
    let lines: Vec<&str> = t
        .lines()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.strip_prefix("- ")
                .or_else(|| l.strip_prefix("* "))
                .unwrap_or(l)
                .trim()
        })
        .collect();
    if lines.len() > 1 && spans.is_empty() && lines.iter().all(|l| is_command(l)) {
        return Reading::Command(lines.join(" && "));
    }
    let mut commands = commands_in_prose(t);
    if commands.is_empty() {
        commands.extend(command_that_passes(t));
    }
    Reading::Prose {
        text: t.to_owned(),
        commands,
    }
}

/// What prose says passes: "tsc --noEmit passes", "npm run build succeeds,
/// no TypeScript errors" — the first clause, a command followed by one of
/// [`PASS_PHRASES`].
fn command_that_passes(text: &str) -> Option<String> {
    let clause = text.split([',', ';']).next()?.trim();
    PASS_PHRASES.iter().find_map(|phrase| {
        let command = clause.strip_suffix(phrase)?.trim_end();
        (command.len() < clause.len() && is_command(command)).then(|| command.to_owned())
    })
}

/// Endings that claim a command exits 0.
const PASS_PHRASES: &[&str] = &[
    " passes",
    " succeeds",
    " exits 0",
    " exits with 0",
    " returns 0",
    " is green",
    " runs clean",
];

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
    })
}

/// The text with quoted parts (single, double, backticks) removed.
fn outside_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, '"' | '\'' | '`') => {
                quote = Some(c);
                out.push(' ');
            }
            None => out.push(c),
        }
    }
    out
}

fn unquoted_words(text: &str) -> Vec<String> {
    outside_quotes(text).split_whitespace().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_commands_are_commands() {
        for cmd in [
            "npm run build && npx vitest run",
            "test -f x",
            "cargo test -q",
            "grep -q 'fn main' src/main.rs",
            "pytest tests/test_module.py::test_behavior -x",
            "./scripts/check.sh",
            "[ -d dist ]",
            "CI=1 npm test -- --filter=feature",
            "npx tsc --noEmit",
            "go test ./...",
            "python3 -m pytest -q",
            "curl -sf http://localhost:3000/health | grep -q ok",
            "grep -c \"export function\" src/lib.ts",
            "node -e \"require('./dist')\"",
        ] {
            assert!(is_command(cmd), "{cmd}");
        }
    }

    #[test]
    fn prose_is_prose() {
        for text in [
            "README contains the section; user can follow it",
            "tsc --noEmit passes",
            "fetch tests pass for all endpoints",
            "npm run build succeeds, no TypeScript errors",
            "vercel ls shows deployment, fetch returns 200",
            "User type exported and usable",
            "All tests pass.",
            "Build output contains \"BUILD SUCCEEDED\", no errors",
            "MISSING — Wave 0 must create tests/auth.test.ts first",
            "manual check of the login page",
        ] {
            assert!(!is_command(text), "{text}");
        }
    }

    #[test]
    fn spans_in_prose_are_found() {
        assert_eq!(
            read("`npm test` passes and `npm run lint` is clean"),
            Reading::Prose {
                text: "`npm test` passes and `npm run lint` is clean".into(),
                commands: vec!["npm test".into(), "npm run lint".into()],
            }
        );
        assert_eq!(read("`cargo test -q`"), Reading::Command("cargo test -q".into()));
        assert_eq!(
            read("\n- npm test\n- npm run lint\n"),
            Reading::Command("npm test && npm run lint".into())
        );
        assert!(matches!(
            read("npm test\nThen check the page by hand"),
            Reading::Prose { .. }
        ));
        assert!(matches!(read("npm run build succeeds, no TypeScript errors"),
            Reading::Prose { commands, .. } if commands == ["npm run build"]));
        assert!(matches!(read("vercel ls shows deployment, fetch returns 200"),
            Reading::Prose { commands, .. } if commands.is_empty()));
        assert!(matches!(read("`src/app.ts` exports `App`"), Reading::Prose { commands, .. } if commands.is_empty()));
    }
}
