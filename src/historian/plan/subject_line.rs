//! What one line of a commit message reads as (`count`): a subject (short,
//! no trailer, no link, no full stop — or one sentence opening like a
//! subject), a sentence of a body (`This …`, `The …`), a `commit <id>`
//! line of `git merge --squash` — and how a message's first paragraph says
//! its author writes the later ones ([`Style`]).

use crate::historian::analyse::left_out::list;
use crate::historian::message::credits::{ends_in_approval, is_approval, without_credit};

pub(super) fn is_commit_line(line: &str) -> bool {
    line.strip_prefix("commit ")
        .is_some_and(|id| id.len() >= 7 && id.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether one line reads like a commit's subject.
pub(super) fn reads_as_subject(line: &str) -> bool {
    let words = line.split_whitespace().count();
    let lower = line.to_ascii_lowercase();
    // `Signed-off-by: …`, `Ref: …`, `Fixes: …`; not `fix(parser): …`, nor
    // a path or a name as the scope (`ignore/types: …`, `main.c: …`,
    // `jq_next: …`).
    let trailer = line.split_once(':').is_some_and(|(key, _)| {
        let kind = key.split('(').next().unwrap_or(key).trim_end_matches('!');
        let conventional = !kind.is_empty()
            && kind
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        let scope = key.contains(['/', '.', '_']);
        !key.is_empty() && !key.contains(' ') && !conventional && !scope
    });
    let reference = [
        "fixes #",
        "closes #",
        "fix #",
        "close #",
        "resolves #",
        "refs #",
        "see #",
        "cc @",
    ]
    .iter()
    .any(|p| lower.starts_with(p));
    // A release's subject is often its version alone: `v2.34.1`, `ignore-0.4.33`.
    let version = words == 1 && line.bytes().any(|b| b.is_ascii_digit()) && line.contains('.');
    (words >= 2 || version)
        && !is_approval(line)
        && !is_wordless(line)
        && line.chars().count() <= 120
        && !line.ends_with('.')
        && !line.ends_with(':')
        && !line.ends_with(',')
        && !trailer
        && !reference
        && !lower.contains("://")
        && !["#", ">", "-", "|", "```", "("].iter().any(|p| line.starts_with(p))
}

/// Whether a line says nothing in words: `cvs: ------`, a rule of dashes.
fn is_wordless(line: &str) -> bool {
    let said = line.split_once(": ").map_or(line, |(_, rest)| rest);
    !said.chars().any(char::is_alphanumeric)
}

/// Whether a paragraph closes a message: its lines all are sign-offs and
/// other `…-by:` trailers (`Signed-off-by: …`, `Co-authored-by: …`), a
/// `Change-Id:`, OpenBSD's approval (`ok gilles@`) — [`Closing::Only`] — or its last line ends in an approval
/// (`…; ok gilles@`) — [`Closing::After`]. In a join of messages, what
/// follows them opens the next message.
pub(super) fn closes_message(lines: &[&str]) -> Closing {
    let closing = |line: &str| {
        let lower = line.to_ascii_lowercase();
        let trailer = lower.split_once(": ").is_some_and(|(key, _)| {
            !key.contains(' ') && (key.ends_with("-by") || ["change-id", "cc", "bug", "link"].contains(&key))
        });
        trailer || is_approval(line)
    };
    if !lines.is_empty() && lines.iter().all(|l| closing(l)) {
        Closing::Only
    } else if lines.last().is_some_and(|l| is_approval(l) || ends_in_approval(l)) {
        Closing::After
    } else {
        Closing::No
    }
}

/// How a paragraph closes a message ([`closes_message`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Closing {
    /// It does not.
    No,
    /// After words of its own: it may open a message too.
    After,
    /// With trailers and credits only.
    Only,
}

/// Whether the first line of a paragraph after trailers can open a message:
/// not a quoted commit, a list, a quote, an aside or a link.
pub(super) fn opens_message(line: &str) -> bool {
    !is_commit_line(line)
        && !line.starts_with(['*', '-', '#', '(', '>', '|'])
        && !line.contains("://")
        && !is_wordless(line)
        && !is_approval(line)
}

/// Whether a line ending in a full stop reads like a subject all the same:
/// one sentence that opens like a subject (`Added a test for the parser.`,
/// not `Fixes #12.` or `Detected by clang-tidy.`).
pub(super) fn is_subject_sentence(line: &str) -> bool {
    let Some(sentence) = line.strip_suffix('.') else {
        return false;
    };
    !sentence.contains(". ") && !sentence.ends_with('.') && opens_like_subject(line) && reads_as_subject(sentence)
}

/// How the author of a message's first piece of work writes: read from its
/// first paragraph, and the later ones read alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Style {
    /// The first subject ends in a full stop (`Considerable fixes.`): a
    /// later one-line sentence is a subject whatever word opens it.
    pub stops: bool,
}

impl Style {
    pub fn of(first: &str) -> Style {
        let subject = first.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        Style {
            stops: subject.ends_with('.'),
        }
    }
}

/// Whether a paragraph its approval closes (`use a lock; ok gilles@`) is
/// an OpenBSD message of its own: one line opening like a subject.
pub(super) fn opens_approved(lines: &[&str]) -> bool {
    matches!(lines, [line] if opens_like_subject(without_credit(line)) && not_prose(line))
}

/// One sentence, ending in a full stop, that reads like a subject but for
/// it (`Considerable fixes.`), not two (`Fixes #12. See above.`) nor a
/// credit (`Found by the fuzzer.`, `Found long ago by the fuzzer.`).
pub(super) fn is_one_sentence(line: &str) -> bool {
    let credit = |s: &str| s.split_whitespace().take(4).any(|w| w.eq_ignore_ascii_case("by"));
    line.strip_suffix('.')
        .is_some_and(|s| !s.contains(". ") && !s.ends_with('.') && !credit(s) && reads_as_subject(s))
}

/// Verbs subjects open with, in the imperative (`Add`), the third person
/// (`Adds`) or the past (`Added`) once the ending is cut.
#[rustfmt::skip]
const VERBS: [&str; 200] = [
    "accept", "add", "address", "adjust", "adopt", "align", "allocate", "allow", "apply", "attempt", "audit",
    "avoid", "backfill", "backport", "banish", "break", "bring", "bump", "cache", "call", "capture", "cast",
    "catch", "change", "check", "clarify", "clean", "cleanup", "clear", "close", "complete", "configure",
    "connect", "consolidate", "convert", "cope", "copy", "correct", "create", "declare", "deepen", "default",
    "define", "delete", "deprecate", "derive", "detect", "disable", "disallow", "display", "do", "document",
    "don't", "dont", "drop", "eliminate", "emit", "enable", "enforce", "enhance", "ensure", "escape", "expand",
    "explain", "expose", "extend", "extract", "fail", "fix", "flip", "fold", "follow", "format", "free",
    "generate", "get", "give", "guard", "handle", "harden", "hide", "honor", "ignore", "implement", "import",
    "improve", "include", "incorporate", "increase", "initialize", "inline", "install", "integrate",
    "introduce", "keep", "kill", "let", "limit", "load", "log", "make", "mark", "mention", "merge", "migrate",
    "modify", "move", "normalize", "optimize", "parse", "pass", "permit", "pin", "plug", "polish", "port",
    "prefer", "prepare", "preserve", "prevent", "print", "promote", "provide", "put", "quote", "raise", "read",
    "rebuild", "reduce", "refactor", "reformat", "register", "reject", "release", "remove", "rename", "render",
    "reorder", "replace", "report", "require", "reset", "resolve", "respect", "restore", "restructure", "retry",
    "return", "reuse", "revert", "revise", "reword", "rework", "rewrite", "run", "save", "send", "set",
    "shorten", "show", "simplify", "skip", "sort", "specify", "speed", "split", "standardize", "start", "stop",
    "store", "strip", "support", "suppress", "surface", "switch", "sync", "take", "teach", "test", "throw",
    "tidy", "tighten", "track", "treat", "trim", "try", "turn", "tweak", "unbreak", "unify", "update",
    "upgrade", "use", "validate", "verify", "warn", "wire", "wrap", "write", "zap",
];

/// Words a body's sentence opens with and a subject seldom does. Kept
/// though leaving it out cost only 0.0005 on joined messages (held-out
/// half): without it a one-line body (`Tune the client` then `The limits
/// grow with the load`) reads as a second piece of work and the commit is
/// split (`weights::KEPT`).
#[rustfmt::skip]
const PROSE: [&str; 44] = [
    "a", "after", "also", "an", "and", "as", "based", "because", "before", "but", "by", "currently", "for", "here",
    "however", "i", "if", "in", "instead", "it", "it's", "its", "note", "now", "on", "otherwise", "previously",
    "see", "since", "so", "thanks", "that", "the", "there", "these", "they", "this", "those", "to", "we", "when",
    "which", "with", "without",
];

/// Whether a line does not open like a body's sentence (`This …`, `The …`,
/// `When …`).
pub fn not_prose(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    let word = first
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
        .to_ascii_lowercase();
    list("subject_line::PROSE", &PROSE)
        .binary_search(&word.as_str())
        .is_err()
}

/// Whether a line opens like a subject rather than a sentence of a body:
/// a conventional prefix (`fix(parser): …`, `docs: …`), a version, or a
/// verb first (`Add …`, `Fixes …`, `Removed …`).
pub fn opens_like_subject(line: &str) -> bool {
    let rest = match line.split_once(": ") {
        Some((prefix, rest)) if !prefix.contains(' ') && prefix.len() <= 30 => return !rest.is_empty(),
        _ => line,
    };
    let first = rest.split_whitespace().next().unwrap_or("");
    if first.bytes().any(|b| b.is_ascii_digit()) && first.contains('.') {
        return true;
    }
    let word = first.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase();
    // `Clean-up in …` opens as `Clean …` does; `Dynamically allocate …`
    // and `Always store …` as their verb.
    let word = word.split_once('-').map_or(word.as_str(), |(head, _)| head);
    if is_verb(word) {
        return true;
    }
    let adverb = word.len() > 4 && word.ends_with("ly") || ["always", "never"].contains(&word);
    // The verb after an adverb in the imperative only: `Mainly quotes.` is
    // no subject.
    adverb
        && rest.split_whitespace().nth(1).is_some_and(|second| {
            let second = second.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase();
            list("VERBS", &VERBS).binary_search(&second.as_str()).is_ok()
        })
}

/// Whether a lowercase word is one of [`VERBS`], in any of its forms
/// (`add`, `adds`, `added`, `applied`, `stopped`).
fn is_verb(word: &str) -> bool {
    let known = |w: &str| list("VERBS", &VERBS).binary_search(&w).is_ok();
    known(word)
        || ["s", "es", "d", "ed"]
            .iter()
            .any(|end| word.strip_suffix(end).is_some_and(known))
        || word.strip_suffix("ied").is_some_and(|stem| known(&format!("{stem}y")))
        || word.len() > 4 && word.ends_with("ped") && known(&word[..word.len() - 3])
        || word.strip_suffix("ing").is_some_and(|stem| {
            let doubled = stem.len() > 2 && stem.as_bytes()[stem.len() - 1] == stem.as_bytes()[stem.len() - 2];
            known(stem) || known(&format!("{stem}e")) || doubled && known(&stem[..stem.len() - 1])
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn word_lists_are_sorted_for_binary_search() {
        for list in [&super::VERBS[..], &super::PROSE[..]] {
            let unsorted: Vec<_> = list.windows(2).filter(|w| w[0] >= w[1]).collect();
            assert!(unsorted.is_empty(), "{unsorted:?}");
        }
    }
}
