//! Secrets found by their name rather than their shape: `NAME=value` (an
//! environment dump), `name: value` (YAML), `"name": "value"` (JSON),
//! `--name=value` and `--name value` (a command line), where the name says
//! password, secret, token, credential or auth, or names a key (`API_KEY`,
//! `secret_key`, `AccountKey`).
//!
//! How far a value runs:
//! * quoted: to the closing quote (`\"` inside double quotes does not end it);
//! * a name at the start of a line (`NAME=value` of an environment dump or a
//!   `.env`/`.ini` file, `name: value` of YAML): to the end of the line, so
//!   spaces, `&`, `#` and quotes inside the value go with it;
//! * in a URL query (`?password=…&next=1`): to the next `&`, `#` or space;
//! * inside a quoted word (`echo 'password=…'`): to the word's closing quote;
//! * anywhere else: to the next space or `;`.
//!
//! Not secrets: placeholders (`$VAR`, `<…>`, `null`, `***`), values already
//! redacted, code (`token = lexer.next()`, `api_key = os.environ["X"]`,
//! `password: &str`), and names that describe a secret rather than hold it
//! (`SSH_KEY_PATH`, `ACCESS_TOKEN_TTL`, `private_key_id`).

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::secret_names::{kind_of, may_name_secret, names_secret};

/// `name` followed by `=` or `:`; the `line` group is there when the name
/// starts its line (after indentation, `export`, `declare -x` or `- `).
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r#"(?m)(?P<line>^[ \t]*(?:export[ \t]+|declare -x[ \t]+|- )?)?(?P<quote>["']?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)["']?(?P<sep>[ \t]*[=:])[ \t]*"#,
    )
});

/// A long command-line option followed by its value after a space.
static FLAG: LazyLock<Regex> = LazyLock::new(|| regex(r"--(?P<name>[A-Za-z][A-Za-z0-9_-]*)[ \t]+"));

fn regex(pattern: &str) -> Regex {
    // The patterns are constants, exercised by every redaction test.
    Regex::new(pattern).unwrap_or_else(|e| panic!("redaction pattern: {e}"))
}

/// How a value is delimited, from what stands around its name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extent {
    Line,
    Query,
    Word,
}

/// Where the value starting at `start` ends: (`value_start`, `value_end`,
/// `resume`), the resume point being past any closing quote. Scans only as
/// far as the value goes.
fn value_span(text: &str, start: usize, extent: Extent) -> (usize, usize, usize) {
    let bytes = text.as_bytes();
    // `'\''` opening a value: a shell word whose value starts with a quote.
    let start = if bytes[start..].starts_with(b"'\\''") {
        start + 3
    } else {
        start
    };
    let rest = &bytes[start..];
    match rest.first() {
        Some(&q @ (b'"' | b'\'')) => {
            let mut i = 1;
            while i < rest.len() {
                match rest[i] {
                    b'\\' if q == b'"' => i += 2,
                    b'\n' => break,
                    // A shell's `'\''` puts a quote inside a single-quoted word.
                    b'\'' if q == b'\'' && rest[i..].starts_with(b"'\\''") => i += 4,
                    b if b == q => return (start + 1, start + i, start + i + 1),
                    _ => i += 1,
                }
            }
            // Unterminated: everything to the end of the line.
            let end = start + i.min(rest.len());
            (start + 1, end, end)
        }
        _ => {
            let stop = |is_end: fn(u8) -> bool| rest.iter().position(|&b| is_end(b)).unwrap_or(rest.len());
            let end = match extent {
                Extent::Line => start + text[start..start + stop(|b| b == b'\n')].trim_end().len(),
                Extent::Query => start + stop(|b| matches!(b, b'&' | b'#') || b.is_ascii_whitespace()),
                Extent::Word => {
                    let word = stop(|b| b == b';' || b.is_ascii_whitespace());
                    start + text[start..start + word].trim_end_matches([',', ')', ']', '}']).len()
                }
            };
            (start, end, end)
        }
    }
}

/// How much of a value [`looks_harmless`] reads: enough for `$VAR`, `<…>`
/// and a call, and a bound that keeps a line of rejected values linear.
const PREFIX: usize = 64;

/// Decides from the value's first bytes alone that it is no secret: a
/// variable, a placeholder, a structure, an operator, code.
fn looks_harmless(rest: &str) -> bool {
    let mut cut = rest.len().min(PREFIX);
    while !rest.is_char_boundary(cut) {
        cut -= 1;
    }
    let prefix = rest[..cut].trim_start_matches(['"', '\'']);
    prefix.is_empty() || prefix.starts_with(['$', '<', '{', '=', ':', '>', '|', '\n', '\r']) || is_code(prefix)
}

/// Decides from the whole value that it is no secret: punctuation, a null,
/// a mask, a type name, or what was redacted already.
fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    // No letter or digit at all: punctuation, such as the `")` closing a
    // prompt string (`input("Password: ")`).
    !v.chars().any(char::is_alphanumeric)
        || v.chars().all(|c| matches!(c, '*' | 'x' | 'X' | '.'))
        || matches!(
            v.to_ascii_lowercase().as_str(),
            "null" | "none" | "nil" | "true" | "false" | "~" | "redacted" | "changeme" | "example" | "undefined"
        )
        || is_type(v)
        || already_redacted(v)
}

/// Nothing left but markers and punctuation (a `\n` escape at most).
fn already_redacted(v: &str) -> bool {
    if !v.contains("[REDACTED:") {
        return false;
    }
    let mut alphanumeric = 0;
    let mut s = v;
    while let Some(at) = s.find("[REDACTED:") {
        alphanumeric += s[..at].chars().filter(char::is_ascii_alphanumeric).count();
        s = match s[at..].find(']') {
            Some(close) => &s[at + close + 1..],
            None => "",
        };
    }
    alphanumeric += s.chars().filter(char::is_ascii_alphanumeric).count();
    alphanumeric < 3
}

/// A call or an index rather than a value: `next_token()`,
/// `os.environ["X"]`; a reference type: `&str`.
fn is_code(v: &str) -> bool {
    let ident_end = v
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(v.len());
    let starts_ident = v.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    (starts_ident && matches!(v[ident_end..].chars().next(), Some('(' | '[')))
        || (v.starts_with('&') && v[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '[' || c == '\''))
        || is_type(v)
}

/// A type in a declaration: `password: String,`.
fn is_type(v: &str) -> bool {
    const TYPES: &[&str] = &[
        "str",
        "string",
        "number",
        "bool",
        "boolean",
        "int",
        "bytes",
        "secret",
        "secretstring",
        "token",
        "any",
    ];
    let bare = v.trim_end_matches([',', ';', ')', '{', ' ']);
    TYPES.contains(&bare.to_ascii_lowercase().as_str()) || bare.starts_with("Option<") || bare.starts_with("Vec<")
}

/// A secret value found by a match: where it is, where to search on, and
/// its kind.
struct Found {
    start: usize,
    end: usize,
    resume: usize,
    kind: &'static str,
    /// False for a value read whole and found harmless: it is skipped, so
    /// no later match inside it scans it again.
    secret: bool,
}

/// Replaces the value of every assignment and command-line option whose
/// name says it is a secret; `None` when there is none.
pub(super) fn redact_assignments(text: &str) -> Option<String> {
    let first = replace_values(text, &ASSIGNMENT, assignment_value);
    let current = first.as_deref().unwrap_or(text);
    match replace_values(current, &FLAG, flag_value) {
        Some(second) => Some(second),
        None => first,
    }
}

/// One left-to-right pass: each match of `pattern` is asked for its value
/// (`value` must find none in a match without a name [`names_secret`]
/// accepts, as both callers' do).
/// Every search starts past the previous match, so the pass is linear.
fn replace_values(text: &str, pattern: &Regex, value: impl Fn(&str, &Captures<'_>) -> Option<Found>) -> Option<String> {
    let mut out = String::new();
    let mut copied = 0;
    let mut changed = false;
    let mut pos = 0;
    while pos <= text.len() {
        // The match alone first (no groups: much faster): one that holds
        // no name a secret could have is passed over, as `value` would.
        let Some(whole) = pattern.find_at(text, pos) else {
            break;
        };
        if !may_name_secret(whole.as_str()) {
            pos = whole.end().max(pos + 1);
            continue;
        }
        let Some(caps) = pattern.captures_at(text, pos) else {
            break;
        };
        let whole = caps.get(0).map_or(pos..text.len(), |m| m.range());
        pos = whole.end.max(pos + 1);
        let Some(found) = value(text, &caps) else { continue };
        if !found.secret {
            pos = found.resume.max(pos);
            continue;
        }
        if found.start < copied {
            continue;
        }
        out.push_str(&text[copied..found.start]);
        out.push_str("[REDACTED:");
        out.push_str(found.kind);
        out.push(']');
        copied = found.end;
        changed = true;
        pos = found.resume.max(pos);
    }
    if !changed {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// The secret value after `--name `, if the name says it is one.
fn flag_value(text: &str, caps: &Captures<'_>) -> Option<Found> {
    let name = caps.name("name")?.as_str();
    let value_start = caps.get(0)?.end();
    if !names_secret(name) || text[value_start..].starts_with('-') || looks_harmless(&text[value_start..]) {
        return None;
    }
    let (start, end, resume) = value_span(text, value_start, Extent::Word);
    Some(Found {
        start,
        end,
        resume,
        kind: kind_of(name),
        secret: start < end && !is_placeholder(&text[start..end]),
    })
}

/// The secret value of one assignment match, if it holds one.
fn assignment_value(text: &str, caps: &Captures<'_>) -> Option<Found> {
    let name_match = caps.name("name")?;
    let name = name_match.as_str();
    if !names_secret(name) {
        return None;
    }
    let value_start = caps.get(0)?.end();
    // `a::b`, `x == y`, `k => v` are no assignments; `$VAR` or a call is
    // no secret; `credential.https://host` is a URL, not `credential.https`
    // given a value.
    let url = caps.name("sep").is_some_and(|s| s.as_str().ends_with(':')) && text[value_start..].starts_with("//");
    if url || looks_harmless(&text[value_start..]) {
        return None;
    }
    let quoted_name = caps.name("quote").is_some_and(|q| !q.as_str().is_empty());
    // A name that starts its line is a key of an environment dump, a `.env`,
    // `.ini` or `.properties` file, or YAML: all end their values at the
    // end of the line.
    let at_line_start = caps.name("line").is_some() && !quoted_name;
    let before = text[..name_match.start()].chars().next_back();
    let extent = if at_line_start {
        Extent::Line
    } else if matches!(before, Some('?' | '&')) {
        Extent::Query
    } else {
        Extent::Word
    };
    let (start, mut end, mut resume) = value_span(text, value_start, extent);
    // A quote opening the name and not closed after it opened a word the
    // assignment is inside (`echo 'password=x'`): the word's closing quote
    // is no part of the value.
    let opened = caps.name("quote").map_or("", |q| q.as_str());
    if extent == Extent::Word && !opened.is_empty() && !text[name_match.end()..].starts_with(opened) {
        if let Some(at) = text[start..end].find(opened) {
            end = start + at;
            resume = end;
        }
    }
    Some(Found {
        start,
        end,
        resume,
        kind: kind_of(name),
        secret: start < end && !is_placeholder(&text[start..end]),
    })
}

/// The kind of secret a value under the key `name` is (a JSON or YAML
/// member), or `None` when the name does not say secret or the value is
/// harmless.
pub(super) fn keyed_secret(name: &str, value: &str) -> Option<&'static str> {
    (names_secret(name) && !looks_harmless(value) && !is_placeholder(value)).then(|| kind_of(name))
}
