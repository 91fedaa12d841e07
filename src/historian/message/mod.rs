//! Commit messages (DESIGN §10.3): reading the branch's subjects — which are
//! noise ("wip", "fix typo"), which amend another commit (`fixup!`,
//! `squash!`, `amend!`), which carry a summary worth keeping — and writing
//! conventional-commit messages `<type>(<scope>): <summary>` with a body
//! listing what the commit holds and where it came from.
//!
//! This module reads what kind of commit a message describes; `subject`
//! takes a subject apart; `clauses` keeps the parts of a subject listing
//! several pieces of work that one new commit holds; `draft` writes the
//! new messages.

mod clauses;
pub mod credits;
mod draft;
mod fallback;
mod subject;
mod text;

use std::sync::LazyLock;

use regex::Regex;

pub use clauses::{add_path_words, has_clauses};
pub use draft::{Draft, FileLine, SUBJECT_WIDTH};
pub use fallback::is_fallback;
pub use subject::{parse_subject, Subject};
pub use text::{quote_path, without_controls};

use subject::summary_of;

/// The first control character of a message that git or a terminal
/// should not get (NUL makes a commit `git fsck` rejects; an escape
/// recolours whoever reads the log): any but tab, line feed and carriage
/// return.
pub fn control_character(message: &str) -> Option<char> {
    message
        .chars()
        .find(|&c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// What a branch commit's subject says about the commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A subject worth keeping.
    Normal,
    /// Real work under a subject that says nothing ("wip", "stuff").
    Wip,
    /// A small correction of earlier work ("fix typo", "lint", "address review").
    Fixup,
    /// `fixup!`, `squash!` or `amend!` followed by the subject it amends.
    FixupOf(String),
    /// A merge commit.
    Merge,
}

impl Kind {
    /// Whether the subject should not become (part of) a new subject.
    pub fn is_noise(&self) -> bool {
        !matches!(self, Kind::Normal)
    }
}

static FIXUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)^(
            fix(es|ed|ing)?(\s+(a|the|some|small|minor|silly|stupid))?\s+(typos?|spelling|whitespace|indentation|imports?|lint(ing)?|clippy|warnings?|formatting|fmt|style|tests?|build|ci|compilation|compile\s+errors?|merge\s+conflicts?|conflicts?|nits?|it)
            |(fix(es|ed)?|oops|whoops|typos?|nits?|nitpicks?|lint|linting|clippy|fmt|format(ting)?|reformat(ted)?|cargo\s+fmt|rustfmt|prettier|black|gofmt|style|tweaks?|cleanup|clean\s*up|minor|minor\s+(fix(es)?|changes?|cleanup|tweaks?)|small\s+(fix(es)?|changes?)|polish|fixup|forgot(ten)?\b.*|missed\b.*|oops\b.*)
            |address(ed)?\s+(code\s+)?(review|pr)?\s*(comments?|feedback|remarks|suggestions)
            |(code\s+)?review\s+(comments?|feedback|fixes)
            |pr\s+(comments?|feedback)
            |apply\s+suggestions?\s+from\s+code\s+review
            |(update|fix)\s+after\s+review
        )[.!]*$",
    )
    .expect("valid fixup pattern")
});

static WIP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)^(
            wip|w\.i\.p\.?|work\s+in\s+progress|tmp|temp|temporary|checkpoint|save|saving|save\s+(work|progress)|stuff|more|more\s+(stuff|changes|work)|
            changes|some\s+changes|update|updates|updated|misc|progress|continue|continued|again|asdf+|qwerty|foo|bar|test|testing|
            commit|first\s+(try|attempt)|try|trying|attempt|another\s+(try|attempt)|[.\-_x]+|\d+|done|ok|works?|working|it\s+works|
            almost|almost\s+(done|there)|progress\s+on\s+.*|wip\s+on\s+.*|todo
        )[.!]*$",
    )
    .expect("valid wip pattern")
});

/// The kind of a commit from its full message and parent count.
pub fn kind(message: &str, parents: usize) -> Kind {
    let subject = message.lines().next().unwrap_or("").trim();
    if parents > 1 || subject.starts_with("Merge branch ") || subject.starts_with("Merge remote-tracking branch ") {
        return Kind::Merge;
    }
    for prefix in ["fixup! ", "squash! ", "amend! "] {
        if let Some(rest) = subject.strip_prefix(prefix) {
            let mut target = rest.trim();
            // `fixup! fixup! x` amends whatever `x` is.
            while let Some(inner) = ["fixup! ", "squash! ", "amend! "]
                .iter()
                .find_map(|p| target.strip_prefix(p))
            {
                target = inner.trim();
            }
            return Kind::FixupOf(target.to_owned());
        }
    }
    match line_kind(subject) {
        // A body that says something makes the commit worth its words
        // (a squash of several commits, a "wip" explained below).
        Kind::Wip | Kind::Fixup if meaningful_body_line(message).is_some() => Kind::Normal,
        other => other,
    }
}

fn line_kind(line: &str) -> Kind {
    let plain = summary_of(line).to_lowercase();
    let plain = plain.trim();
    if plain.is_empty() || WIP.is_match(plain) {
        Kind::Wip
    } else if FIXUP.is_match(plain) {
        Kind::Fixup
    } else {
        noise_words(plain).unwrap_or(Kind::Normal)
    }
}

/// A subject made only of words that are noise on their own ("more wip",
/// "wip again", "more fixes", "typo fix", "wip: more stuff"): noise as a
/// whole, a fixup when one of its words is a fixup's. Each word is tried
/// against the same patterns as a whole subject, so the vocabulary stays
/// the patterns'; "wip parser" (a word that says something) stays a subject.
fn noise_words(plain: &str) -> Option<Kind> {
    let words: Vec<&str> = plain
        .split(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | ';' | '/' | '+' | '&'))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty() && !matches!(*w, "and" | "some" | "a" | "the" | "of" | "on" | "still" | "few"))
        .collect();
    if words.len() < 2 {
        return None;
    }
    let mut fixup = false;
    for word in &words {
        if WIP.is_match(word) {
            continue;
        }
        if !FIXUP.is_match(word) {
            return None;
        }
        fixup = true;
    }
    Some(if fixup { Kind::Fixup } else { Kind::Wip })
}

/// The first line of a body paragraph (or list item) that reads like a
/// subject of its own: three words or more, not a trailer, not noise.
fn meaningful_body_line(message: &str) -> Option<&str> {
    body_subjects(message).next()
}

/// Every line of a body that reads like a subject of its own (see
/// [`meaningful_body_line`]).
fn body_subjects(message: &str) -> impl Iterator<Item = &str> {
    let mut paragraph_start = false;
    message.lines().skip(1).filter_map(move |line| {
        let text = line.trim();
        if text.is_empty() {
            paragraph_start = true;
            return None;
        }
        let item = text
            .strip_prefix("* ")
            .or_else(|| text.strip_prefix("- "))
            .map(str::trim);
        let candidate = match (item, paragraph_start) {
            (Some(item), _) => Some(item),
            (None, true) => Some(text),
            (None, false) => None,
        };
        paragraph_start = false;
        let candidate = candidate?;
        let trailer = candidate
            .split_once(": ")
            .is_some_and(|(key, _)| !key.contains(' ') && key.contains('-') || key == "Signed-off-by");
        (!trailer
            && !candidate.starts_with('#')
            && !is_reference(candidate)
            && candidate.split_whitespace().count() >= 3
            && line_kind(candidate) == Kind::Normal)
            .then_some(candidate)
    })
}

/// A line pointing elsewhere rather than saying what changed: it holds a
/// URL (`[1] - https://…`, `See https://…`), or opens with a footnote's
/// mark (`[2] `).
fn is_reference(line: &str) -> bool {
    let footnote = line
        .strip_prefix('[')
        .and_then(|rest| rest.split_once(']'))
        .is_some_and(|(mark, _)| !mark.is_empty() && mark.chars().all(|c| c.is_ascii_digit()));
    footnote || line.contains("://")
}

/// The subjects a squash's body lists: the one-line paragraphs (a squash
/// made by `git rebase -i` keeps each commit's subject as its own
/// paragraph, its body as the paragraphs after it) and `* `/`- ` items (a
/// pull request squashed on a forge) that read like subjects: three words
/// or more, at most 100 characters, not a trailer, not noise. A paragraph
/// of several lines is prose, not a subject.
pub fn squashed_subjects(message: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    fn flush<'a>(paragraph: &mut Vec<&'a str>, out: &mut Vec<&'a str>) {
        if let [line] = paragraph.as_slice() {
            out.push(*line);
        }
        paragraph.clear();
    }
    for line in message.lines().skip(1) {
        let text = line.trim();
        if text.is_empty() {
            flush(&mut paragraph, &mut out);
        } else if let Some(item) = text.strip_prefix("* ").or_else(|| text.strip_prefix("- ")) {
            flush(&mut paragraph, &mut out);
            out.push(item.trim());
        } else {
            paragraph.push(text);
        }
    }
    flush(&mut paragraph, &mut out);
    out.retain(|candidate| {
        let trailer = candidate
            .split_once(": ")
            .is_some_and(|(key, _)| !key.contains(' ') && key.contains('-') || key == "Signed-off-by");
        !trailer
            && !candidate.starts_with('#')
            && !is_reference(candidate)
            && candidate.chars().count() <= 100
            && !candidate.ends_with(':')
            && candidate.split_whitespace().count() >= 3
            && line_kind(candidate) == Kind::Normal
    });
    out
}

/// `line` of `message` whole when it is the first line of a paragraph
/// wrapped over several lines, as projects without a subject line write
/// (`Fix a crash when the last pane closes, reported by` / `someone in
/// issue 12.`): the paragraph's first sentence on one line, without its
/// full stop. A line short of the width a wrap leaves ([`WRAPPED_WIDTH`]),
/// one ending a sentence, or one followed by a trailer or a list is whole
/// already. The caller shortens it to fit (`Draft::message`).
pub fn whole_subject(message: &str, line: &str) -> String {
    let line = line.trim();
    let Some(at) = message.find(line) else {
        return line.to_owned();
    };
    if line.chars().count() < WRAPPED_WIDTH || line.ends_with('.') {
        return credits::without_credit(line).to_owned();
    }
    let mut joined = line.to_owned();
    for next in message[at + line.len()..].lines().skip(1) {
        let next = next.trim();
        let trailer = next
            .split_once(": ")
            .is_some_and(|(key, _)| !key.is_empty() && !key.contains(' '));
        if next.is_empty() || trailer || ["-", "*", "#", ">"].iter().any(|p| next.starts_with(p)) {
            break;
        }
        joined.push(' ');
        joined.push_str(next);
        if next.ends_with('.') {
            break;
        }
    }
    let sentence = first_sentence(&joined);
    credits::without_credit(sentence).trim_end_matches('.').to_owned()
}

/// The text up to its first sentence's full stop: one followed by a
/// capital and not ending an initial (`G. Branden`); `rev. 1.12` goes on.
fn first_sentence(text: &str) -> &str {
    let mut from = 0;
    while let Some(at) = text[from..].find(". ").map(|i| i + from) {
        let word = text[..at].rsplit(' ').next().unwrap_or("");
        let next = text[at + 2..].chars().next();
        if word.chars().count() > 1 && next.is_some_and(char::is_uppercase) {
            return &text[..at];
        }
        from = at + 2;
    }
    text
}

/// The shortest first line taken for one wrapped into the next.
const WRAPPED_WIDTH: usize = 50;

/// The line a summary is taken from: the subject, or when the subject says
/// nothing, the first body line that does.
pub fn meaningful_subject(message: &str) -> &str {
    let subject = message.lines().next().unwrap_or("").trim();
    match line_kind(subject) {
        Kind::Normal => subject,
        _ => meaningful_body_line(message).unwrap_or(subject),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_first_line_is_read_whole() {
        let tmux = "Fix a crash when the last pane closes, reported by\nsomeone in issue 12.\n";
        assert_eq!(
            whole_subject(tmux, "Fix a crash when the last pane closes, reported by"),
            "Fix a crash when the last pane closes, reported by someone in issue 12"
        );
        // Up to the first sentence's end.
        let two =
            "Add a flag to resize the window to the size of the\nlargest client. The old size is kept otherwise.\n";
        assert_eq!(
            whole_subject(two, "Add a flag to resize the window to the size of the"),
            "Add a flag to resize the window to the size of the largest client"
        );
        // An initial or an abbreviation ends no sentence; an approval is
        // no part of what changed.
        let credit = "Add some PostScript and PDF features suggested by G. Branden\nRobinson. Thanks.\n";
        assert_eq!(
            whole_subject(credit, "Add some PostScript and PDF features suggested by G. Branden"),
            "Add some PostScript and PDF features suggested by G. Branden Robinson"
        );
        let rev = "Test related to roff_escape.c rev. 1.12 where the handling\nof missing arguments changed.\n";
        assert_eq!(
            whole_subject(rev, "Test related to roff_escape.c rev. 1.12 where the handling"),
            "Test related to roff_escape.c rev. 1.12 where the handling of missing arguments changed"
        );
        assert_eq!(
            whole_subject(
                "typo fix from Christian, ok schwarze@\n",
                "typo fix from Christian, ok schwarze@"
            ),
            "typo fix from Christian"
        );
        // Whole already: short, a sentence, or before a trailer or a list.
        for (message, line) in [
            ("Fix the parser\nSigned-off-by: A <a@example.com>\n", "Fix the parser"),
            (
                "Tidy the table of options and the parser, the whole lot.\nmore\n",
                "Tidy the table of options and the parser, the whole lot.",
            ),
            (
                "Rework how the table of options is read at startup and\n- sort it\n",
                "Rework how the table of options is read at startup and",
            ),
            (
                "Rework how the table of options is read at startup and\nReviewed-by: B\n",
                "Rework how the table of options is read at startup and",
            ),
        ] {
            assert_eq!(whole_subject(message, line), line, "{message}");
        }
    }

    #[test]
    fn kinds_of_subjects() {
        for (subject, expected) in [
            ("WIP", Kind::Wip),
            ("wip", Kind::Wip),
            ("more stuff", Kind::Wip),
            ("...", Kind::Wip),
            ("fix typo", Kind::Fixup),
            ("more wip", Kind::Wip),
            ("wip: more stuff", Kind::Wip),
            ("wip again", Kind::Wip),
            ("more fixes", Kind::Fixup),
            ("typo fix", Kind::Fixup),
            ("wip parser", Kind::Normal),
            ("more tests for the lexer", Kind::Normal),
            ("more tests", Kind::Normal),
            ("Fix typos.", Kind::Fixup),
            ("oops", Kind::Fixup),
            ("cargo fmt", Kind::Fixup),
            ("address review comments", Kind::Fixup),
            ("fixup! add parser", Kind::FixupOf("add parser".into())),
            ("squash! fixup! add parser", Kind::FixupOf("add parser".into())),
            ("Merge branch 'main' into feature", Kind::Merge),
            ("add parser", Kind::Normal),
            ("fix crash when the plan is empty", Kind::Normal),
            ("WIP: add lexer", Kind::Normal),
            ("feat(cli): add --json", Kind::Normal),
            ("wip\n\nthe parser reads expressions now", Kind::Normal),
            ("Lint\n\n* Support legacy flag defaults\n* Fix typing", Kind::Normal),
            ("wip\n\nSigned-off-by: A Person <a@example.com>", Kind::Wip),
        ] {
            assert_eq!(kind(subject, 1), expected, "{subject}");
        }
    }

    #[test]
    fn a_squash_lists_its_subjects_not_its_prose() {
        let message = "Add the parser\n\nIt reads expressions and\nstatements, nothing else.\n\nBump regex to 1.5\n\nwip\n\n* teach the lexer comments\n- Signed-off-by: x\n\nSigned-off-by: A Person <a@example.com>\n";
        assert_eq!(
            squashed_subjects(message),
            ["Bump regex to 1.5", "teach the lexer comments"]
        );
    }

    #[test]
    fn footnotes_and_links_name_no_piece_of_work() {
        let message = "Fix key list ordering\n\nThe serializer interface[1] expects the\noldest key first.\n\n[1] - https://example.com/serializer#Serializer\n\n[2] see the config docs for the order\n\n- https://example.com/issue/12\n";
        assert_eq!(squashed_subjects(message), Vec::<&str>::new());
        assert_eq!(
            body_subjects(message).collect::<Vec<_>>(),
            ["The serializer interface[1] expects the"]
        );
        assert_eq!(kind("wip\n\n[1] - https://example.com/a/b/c", 1), Kind::Wip);
    }
}
