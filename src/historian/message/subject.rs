//! Taking a subject apart: its conventional `type(scope):` prefix, noise
//! prefixes (`WIP:`), and the summary in the imperative; and the type a
//! summary's first word suggests.

use std::sync::LazyLock;

use regex::Regex;

use crate::historian::analyse::left_out::list;

static CONVENTIONAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([a-zA-Z]+)(?:\(([^)]*)\))?(!)?:\s*(.*)$").expect("valid conventional pattern"));

static WIP_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(\[wip\]|wip:|wip\s+-|wip\s+)\s*").expect("valid wip prefix pattern"));

/// A subject split into its conventional parts, noise prefixes dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subject {
    pub commit_type: Option<String>,
    pub scope: Option<String>,
    pub summary: String,
}

/// The summary of `subject` without `type(scope):` or a `WIP:` prefix.
pub(super) fn summary_of(subject: &str) -> String {
    parse_subject(subject).summary
}

/// Reads `feat(parser): Added the parser.` as type `feat`, scope `parser`,
/// summary `add the parser`.
pub fn parse_subject(subject: &str) -> Subject {
    let mut text = subject.trim();
    let mut commit_type = None;
    let mut scope = None;
    if let Some(rest) = WIP_PREFIX.find(text) {
        text = &text[rest.end()..];
    }
    if let Some(caps) = CONVENTIONAL.captures(text) {
        let t = caps[1].to_lowercase();
        if list("KNOWN_TYPES", KNOWN_TYPES).contains(&t.as_str()) {
            commit_type = Some(t);
            scope = caps
                .get(2)
                .map(|m| m.as_str().trim().to_owned())
                .filter(|s| !s.is_empty());
            text = caps.get(4).map_or("", |m| m.as_str());
        }
    }
    // A component as the prefix (`docker: bump …`, `ignore/types: add …`,
    // `jq_next: simplify …`): the scope, not words of the summary.
    if commit_type.is_none() {
        if let Some((prefix, rest)) = text.split_once(": ") {
            let component = prefix.len() <= 30
                && prefix.starts_with(|c: char| c.is_ascii_lowercase())
                && prefix
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_./".contains(&b));
            if component && !rest.trim().is_empty() {
                scope = Some(prefix.to_owned());
                text = rest;
            } else if is_style_prefix(prefix) && !rest.trim().is_empty() {
                // `coding style: replace u_int* with uint*`: the kind of
                // change, said in words.
                commit_type = Some("style".to_owned());
                text = rest;
            }
        }
    }
    if let Some(rest) = WIP_PREFIX.find(text) {
        text = &text[rest.end()..];
    }
    let summary = imperative(text.trim().trim_end_matches(['.', '!', ' ']));
    Subject {
        commit_type,
        scope,
        summary,
    }
}

/// A prefix of up to three lowercase words naming a change of style
/// (`coding style`, `whitespace`, `style fixes`).
fn is_style_prefix(prefix: &str) -> bool {
    let words: Vec<&str> = prefix.split(' ').collect();
    words.len() <= 3
        && words
            .iter()
            .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()))
        && words
            .iter()
            .any(|w| matches!(*w, "style" | "whitespace" | "formatting" | "indentation"))
}

const KNOWN_TYPES: &[&str] = &[
    "feat", "fix", "refactor", "perf", "docs", "test", "tests", "build", "ci", "chore", "style", "revert", "deps",
];

/// The summary in the imperative, first letter lowercase unless it starts an
/// acronym or a name with capitals inside (`API`, `GitHub`).
fn imperative(summary: &str) -> String {
    let mut words = summary.splitn(2, ' ');
    let first = words.next().unwrap_or("");
    let rest = words.next();
    let lower = first.to_lowercase();
    let replaced = IMPERATIVE
        .iter()
        .find(|(past, _)| *past == lower)
        .map(|(_, present)| present.to_string());
    let first = match replaced {
        Some(p) => p,
        None => {
            let inner_capitals = first.chars().skip(1).any(|c| c.is_uppercase());
            if inner_capitals {
                first.to_owned()
            } else {
                lower
            }
        }
    };
    match rest {
        Some(rest) => format!("{first} {rest}"),
        None => first,
    }
}

const IMPERATIVE: &[(&str, &str)] = &[
    ("added", "add"),
    ("adds", "add"),
    ("adding", "add"),
    ("fixed", "fix"),
    ("fixes", "fix"),
    ("fixing", "fix"),
    ("updated", "update"),
    ("updates", "update"),
    ("updating", "update"),
    ("removed", "remove"),
    ("removes", "remove"),
    ("removing", "remove"),
    ("implemented", "implement"),
    ("implements", "implement"),
    ("changed", "change"),
    ("changes", "change"),
    ("refactored", "refactor"),
    ("refactors", "refactor"),
    ("moved", "move"),
    ("moves", "move"),
    ("renamed", "rename"),
    ("renames", "rename"),
    ("improved", "improve"),
    ("improves", "improve"),
    ("introduced", "introduce"),
    ("introduces", "introduce"),
    ("created", "create"),
    ("creates", "create"),
    ("deleted", "delete"),
    ("deletes", "delete"),
    ("replaced", "replace"),
    ("replaces", "replace"),
    ("bumped", "bump"),
    ("bumps", "bump"),
    ("upgraded", "upgrade"),
    ("cleaned", "clean"),
    ("made", "make"),
    ("makes", "make"),
    ("converted", "convert"),
    ("extracted", "extract"),
    ("simplified", "simplify"),
    ("supported", "support"),
    ("supports", "support"),
    ("documented", "document"),
    ("enabled", "enable"),
    ("disabled", "disable"),
    ("allowed", "allow"),
    ("allows", "allow"),
    ("reworked", "rework"),
    ("rewrote", "rewrite"),
    ("wrote", "write"),
    ("used", "use"),
    ("uses", "use"),
    ("handled", "handle"),
    ("handles", "handle"),
    ("ensured", "ensure"),
    ("ensures", "ensure"),
    ("prevented", "prevent"),
    ("prevents", "prevent"),
];

/// Whether `word` is a verb a summary starts with (`add`, `bump`, …).
pub(super) fn is_verb(word: &str) -> bool {
    let lower = word.to_lowercase();
    IMPERATIVE.iter().any(|(_, present)| *present == lower)
}

/// The conventional type a summary's first word suggests.
pub(super) fn type_from_words(summary: &str) -> Option<&'static str> {
    let mut words = summary.split_whitespace();
    let first = words.next()?.to_lowercase();
    // "Back out X" undoes X (Mercurial's word for a revert); "Back off
    // between retries" adds a backoff.
    let backs_out = first == "back" && words.next().is_some_and(|w| w.eq_ignore_ascii_case("out"));
    Some(match first.as_str() {
        "fix" | "correct" | "resolve" | "repair" | "prevent" | "handle" | "avoid" | "guard" | "restore" => "fix",
        "refactor" | "rename" | "move" | "extract" | "restructure" | "reorganize" | "reorganise" | "split"
        | "simplify" | "clean" | "tidy" | "replace" | "rework" | "inline" | "unify" | "merge" | "deduplicate" => {
            "refactor"
        }
        "optimize" | "optimise" | "speed" | "cache" | "perf" => "perf",
        "reformat" | "reindent" | "restyle" | "rustfmt" | "gofmt" | "prettify" => "style",
        "document" | "docs" => "docs",
        "test" | "tests" => "test",
        "bump" | "upgrade" | "downgrade" | "pin" => "build",
        "revert" => "revert",
        "back" if backs_out => "revert",
        "add" | "implement" | "support" | "introduce" | "create" | "allow" | "enable" | "new" | "make" | "show"
        | "print" | "report" | "accept" | "teach" | "let" | "expose" | "provide" => "feat",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_lose_their_noise() {
        let s = parse_subject("feat(parser): Added the expression parser.");
        assert_eq!(s.commit_type.as_deref(), Some("feat"));
        assert_eq!(s.scope.as_deref(), Some("parser"));
        assert_eq!(s.summary, "add the expression parser");
        assert_eq!(parse_subject("WIP: Fixed API timeouts").summary, "fix API timeouts");
        assert_eq!(parse_subject("GitHub action").summary, "GitHub action");
        assert_eq!(type_from_words("revert the August 14 commit"), Some("revert"));
        assert_eq!(type_from_words("Back out the August 14 commit"), Some("revert"));
        assert_eq!(type_from_words("Back off between retries"), None);
        assert_eq!(type_from_words("Reindent with tabs"), Some("style"));
        assert_eq!(parse_subject("Note: something").summary, "note: something");
        let component = parse_subject("docker: Bump to alpine 3.22");
        assert_eq!(component.commit_type, None);
        assert_eq!(component.scope.as_deref(), Some("docker"));
        assert_eq!(component.summary, "bump to alpine 3.22");
        assert_eq!(
            parse_subject("ignore/types: add AIDL file type").scope.as_deref(),
            Some("ignore/types")
        );
        let style = parse_subject("coding style: replace all occurences of u_int* with uint*");
        assert_eq!(style.commit_type.as_deref(), Some("style"));
        assert_eq!(style.scope, None);
        assert_eq!(style.summary, "replace all occurences of u_int* with uint*");
        // Words that are not a kind of change stay the summary's.
        assert_eq!(
            parse_subject("sync to OpenBSD: new manual").summary,
            "sync to OpenBSD: new manual"
        );
        assert_eq!(
            parse_subject("the big style guide rewrite of the year: done").commit_type,
            None
        );
    }
}
