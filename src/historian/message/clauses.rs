//! A subject that lists several pieces of work ("export to tsv + tests, bump
//! version") cut down to the clauses about what one new commit holds: when
//! the branch's work is untangled, the commit holding only `Cargo.toml`
//! should read "bump version", not the whole list.
//!
//! A clause is *here* when one of its words names something the commit
//! holds (a file's stem or scope, or its category: "tests" for test files,
//! "bump", "version" or "deps" for build files, "docs" or "readme" for
//! documentation), *elsewhere* when it names only things of the branch the
//! commit does not hold, and *neutral* otherwise. Elsewhere clauses are
//! dropped, and only when a clause is here too: a subject with no clause
//! about the commit, or none about other work, is kept whole.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::subject::{is_verb, type_from_words};
use crate::historian::analyse::classify::{self, Category};

/// `, `, `; `, ` + `, ` & `, ` and ` (and `, and `) between clauses.
static SEPARATOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\s*[,;]\s+(?:and\s+)?|\s+[+&]\s+|\s+and\s+").expect("valid clause separator pattern")
});

/// The clauses of `summary`, each with the separator before it (empty for
/// the first).
fn split(summary: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut separator = "";
    for m in SEPARATOR.find_iter(summary) {
        let clause = summary[start..m.start()].trim();
        if !clause.is_empty() {
            out.push((separator, clause));
            separator = m.as_str();
        }
        start = m.end();
    }
    let clause = summary[start..].trim();
    if !clause.is_empty() {
        out.push((separator, clause));
    }
    out
}

/// Whether `summary` lists more than one clause.
pub fn has_clauses(summary: &str) -> bool {
    split(summary).len() > 1
}

/// A word in the one form both sides are compared in: lowercase, one
/// plural `s` dropped (`tests` and `test`, `docs` and `doc` meet).
fn normal(word: &str) -> String {
    let lower = word.to_lowercase();
    match lower.strip_suffix('s') {
        Some(single) if single.len() >= 3 && !single.ends_with('s') && !single.ends_with('u') => single.to_owned(),
        _ => lower,
    }
}

/// The words of a category a subject names it by.
fn category_words(category: Category) -> &'static [&'static str] {
    match category {
        Category::Test => &["test", "tests", "testing", "spec", "specs", "unittest"],
        Category::Build => &[
            "bump",
            "version",
            "deps",
            "dep",
            "dependency",
            "dependencies",
            "upgrade",
            "downgrade",
            "build",
        ],
        Category::Docs => &["doc", "docs", "readme", "documentation", "document", "changelog"],
        Category::Config => &["ci", "config", "configuration", "workflow", "workflows"],
        Category::Schema => &["schema", "migration", "migrations"],
        Category::Source | Category::Interface => &[],
    }
}

/// Adds the words `path` answers to: its stem, scope and tested stem (and
/// their longer parts, `to_tsv` → `tsv` is too short, `csv_export` →
/// `export`), and its category's words.
pub fn add_path_words(path: &str, words: &mut BTreeSet<String>) {
    let category = classify::category(path);
    let mut names = vec![classify::stem(path), classify::scope(path)];
    if category == Category::Test {
        names.push(classify::tested_stem(path));
    }
    for name in names {
        if name.len() >= 3 {
            words.insert(normal(&name));
        }
        for part in name.split(|c: char| !c.is_alphanumeric()) {
            if part.len() >= 4 {
                words.insert(normal(part));
            }
        }
    }
    words.extend(category_words(category).iter().map(|w| normal(w)));
}

/// Adds the words a defined name answers to: itself and its parts
/// (`parse_statement`, `parseStatement` → `parse`, `statement`).
pub fn add_name_words(name: &str, words: &mut BTreeSet<String>) {
    if name.len() >= 3 {
        words.insert(normal(name));
    }
    let mut part = String::new();
    let mut parts = Vec::new();
    for c in name.chars() {
        if !c.is_alphanumeric() || (c.is_uppercase() && part.chars().last().is_some_and(char::is_lowercase)) {
            parts.push(std::mem::take(&mut part));
        }
        if c.is_alphanumeric() {
            part.push(c);
        }
    }
    parts.push(part);
    words.extend(parts.iter().filter(|p| p.len() >= 4).map(|p| normal(p)));
}

/// How many words of `text` name something the commit holds (`here`), and
/// how many file names in it (`CHANGELOG.md`, `src/lib.rs`) name only
/// other files of the branch (`branch`).
pub fn relevance(text: &str, here: &BTreeSet<String>, branch: &BTreeSet<String>) -> (usize, usize) {
    let mut seen = BTreeSet::new();
    let mut in_here = 0;
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() >= 3) {
        let w = normal(word);
        if seen.insert(w.clone()) && here.contains(&w) {
            in_here += 1;
        }
    }
    let elsewhere = text
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|t| {
            t.rsplit_once('.').is_some_and(|(name, ext)| {
                !name.is_empty() && (1..=5).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphabetic())
            })
        })
        .filter(|file| {
            let stem = normal(&classify::stem(file));
            !here.contains(&stem) && branch.contains(&stem)
        })
        .count();
    (in_here, elsewhere)
}

fn mentions(clause: &str, words: &BTreeSet<String>) -> bool {
    clause
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .any(|w| words.contains(&normal(w)))
}

fn starts_with_verb(clause: &str) -> bool {
    clause
        .split_whitespace()
        .next()
        .is_some_and(|w| is_verb(w) || type_from_words(w).is_some())
}

/// The clauses of `summary` about the commit holding `paths`, given the
/// words of all the branch's changed files; `None` when the summary should
/// stay whole.
pub fn focus<'a>(summary: &str, paths: impl IntoIterator<Item = &'a str>, branch: &BTreeSet<String>) -> Option<String> {
    let clauses = split(summary);
    if clauses.len() < 2 || branch.is_empty() {
        return None;
    }
    let mut here_words = BTreeSet::new();
    for path in paths {
        add_path_words(path, &mut here_words);
    }
    let here: Vec<bool> = clauses.iter().map(|(_, c)| mentions(c, &here_words)).collect();
    let elsewhere: Vec<bool> = clauses
        .iter()
        .zip(&here)
        .map(|((_, c), &h)| !h && mentions(c, branch))
        .collect();
    if !here.iter().any(|&h| h) || !elsewhere.iter().any(|&e| e) {
        return None;
    }
    let mut out = String::new();
    for (k, (separator, clause)) in clauses.iter().enumerate() {
        if elsewhere[k] {
            continue;
        }
        if out.is_empty() {
            // "add lexer and parser" for the parser alone: "add parser".
            let (_, first) = clauses[0];
            if k > 0 && starts_with_verb(first) && !starts_with_verb(clause) {
                if let Some(verb) = first.split_whitespace().next() {
                    out.push_str(verb);
                    out.push(' ');
                }
            }
        } else {
            out.push_str(separator);
        }
        out.push_str(clause);
    }
    // A bare word ("tests") says less than the whole list.
    (out.split_whitespace().count() >= 2).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(paths: &[&str]) -> BTreeSet<String> {
        let mut words = BTreeSet::new();
        for p in paths {
            add_path_words(p, &mut words);
        }
        words
    }

    #[test]
    fn clauses_and_their_separators() {
        assert_eq!(
            split("export to tsv + tests, bump version"),
            [("", "export to tsv"), (" + ", "tests"), (", ", "bump version")]
        );
        assert_eq!(
            split("a; b & c, and d"),
            [("", "a"), ("; ", "b"), (" & ", "c"), (", and ", "d")]
        );
        assert_eq!(split("add parser"), [("", "add parser")]);
        assert_eq!(split(", x,"), [("", "x,")]);
    }

    #[test]
    fn each_commit_keeps_the_clauses_about_it() {
        let branch = words(&[
            "Cargo.toml",
            "src/lib.rs",
            "src/export.rs",
            "tests/export.rs",
            "README.md",
        ]);
        let summary = "export to tsv + tests, bump version";
        assert_eq!(focus(summary, ["Cargo.toml"], &branch).as_deref(), Some("bump version"));
        assert_eq!(
            focus(summary, ["src/export.rs", "tests/export.rs"], &branch).as_deref(),
            Some("export to tsv + tests")
        );
        assert_eq!(
            focus(summary, ["src/export.rs"], &branch).as_deref(),
            Some("export to tsv")
        );
        let lexer = words(&["src/parser.rs", "tests/lexer.rs"]);
        assert_eq!(
            focus("parser, tests", ["tests/lexer.rs"], &lexer),
            None,
            "a bare word says less"
        );
        assert_eq!(focus(summary, ["README.md"], &branch), None, "no clause is about it");
    }

    #[test]
    fn a_dropped_first_clause_lends_its_verb() {
        let branch = words(&["src/lexer.rs", "src/parser.rs"]);
        assert_eq!(
            focus("add lexer and parser", ["src/parser.rs"], &branch).as_deref(),
            Some("add parser")
        );
        assert_eq!(
            focus("add lexer and parser", ["src/lexer.rs"], &branch).as_deref(),
            Some("add lexer")
        );
        assert_eq!(
            focus("add lexer and parser", ["src/lexer.rs", "src/parser.rs"], &branch),
            None
        );
    }

    #[test]
    fn clauses_about_nothing_in_particular_stay() {
        let branch = words(&["src/parse.rs", "tests/parse.rs", "docs/guide.md"]);
        // "trim whitespace" names nothing of the branch: kept.
        assert_eq!(
            focus("trim whitespace and empty fields in parse", ["src/parse.rs"], &branch),
            None
        );
        assert_eq!(
            focus(
                "handle quotes in parse; document it in the guide",
                ["src/parse.rs"],
                &branch
            )
            .as_deref(),
            Some("handle quotes in parse")
        );
        assert_eq!(
            focus("handle quotes in parse; update docs", ["docs/guide.md"], &branch).as_deref(),
            Some("update docs")
        );
    }
}
