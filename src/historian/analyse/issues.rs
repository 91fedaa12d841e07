//! Issue and pull-request numbers: `Fixes #1173` under a subject, and
//! `rgtest!(r1173, …)` or `issues/1173` in the regression test it added;
//! `(#2556)` in a subject, and the changelog line naming it. What ties a
//! fix's subject to the test and the changelog line written for it
//! (`plan::subjects`).

use std::collections::BTreeSet;

use crate::historian::analyse::left_out::list;

/// The most numbers kept for one item: a table of numbers names no issue.
const MOST: usize = 64;

/// The issue numbers a message refers to: two to seven digits right after
/// `#`, `GH-`, `issues/`, `pull/`, `` :issue:` `` or `` :pr:` `` (`Fixes
/// #1173`, `(#2556)`, a link to an issue). A bare number is none.
pub fn referenced(text: &str) -> BTreeSet<String> {
    const BEFORE: [&str; 6] = ["#", "GH-", "issues/", "pull/", ":issue:`", ":pr:`"];
    let mut out = BTreeSet::new();
    for (start, run) in digit_runs(text) {
        let head = &text[..start];
        if (2..=7).contains(&run.len()) && list("BEFORE", &BEFORE).iter().any(|b| head.ends_with(b)) {
            out.insert(run.to_owned());
        }
    }
    out
}

/// The numbers of `added` lines that could name an issue: a run of three
/// to seven digits, or of two after `#`, that is not part of a version or
/// a decimal (`1.2`) — `r1173`, `issue_1173`, `#42`. At most [`MOST`];
/// minified or generated lines are left out, as
/// [`super::syntax::words`] leaves them.
pub fn numbers_added<'a>(added: impl IntoIterator<Item = &'a [u8]>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for raw in added {
        if raw.len() > 1000 {
            continue;
        }
        let line = String::from_utf8_lossy(raw);
        for (start, run) in digit_runs(&line) {
            let end = start + run.len();
            let dotted = line[..start].ends_with('.')
                || (line[end..].starts_with('.') && line[end + 1..].starts_with(|c: char| c.is_ascii_digit()));
            let shortest = if line[..start].ends_with('#') { 2 } else { 3 };
            if !dotted && (shortest..=7).contains(&run.len()) {
                out.insert(run.to_owned());
                if out.len() >= MOST {
                    return out;
                }
            }
        }
    }
    out
}

/// Each run of ASCII digits in `text`, with the byte it starts at.
fn digit_runs(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() && !bytes[at].is_ascii_digit() {
            at += 1;
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            at += 1;
        }
        Some((start, &text[start..at]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(set: BTreeSet<String>) -> Vec<String> {
        set.into_iter().collect()
    }

    #[test]
    fn a_message_refers_to_the_numbers_after_a_hash_or_in_a_link() {
        assert_eq!(list(referenced("ignore: fix handling of **\n\nFixes #1173")), ["1173"]);
        assert_eq!(list(referenced("Fix setDateFormat (#2556)")), ["2556"]);
        assert_eq!(
            list(referenced("see https://github.com/o/r/issues/77 and pull/1200, GH-31")),
            ["1200", "31", "77"]
        );
        assert_eq!(list(referenced("Fix :issue:`4100` and :pr:`4101`")), ["4100", "4101"]);
        // A bare number, a one-digit issue and a version are none.
        assert!(referenced("bump to 1.2.3, retry 5000 times, #7").is_empty());
    }

    #[test]
    fn added_lines_hold_numbers_not_versions_or_decimals() {
        let found = numbers_added([
            &b"// See: https://github.com/BurntSushi/ripgrep/issues/1173"[..],
            b"rgtest!(r1173, |dir: Dir, mut cmd: TestCommand| {",
            b"version = \"1.22.333\"; x = 0.125; y = 42; see #42",
        ]);
        assert_eq!(list(found), ["1173", "42"]);
        let many: Vec<String> = (100..300).map(|n| format!("{n},")).collect();
        let table = many.concat();
        assert_eq!(numbers_added([table.as_bytes()]).len(), MOST);
    }
}
