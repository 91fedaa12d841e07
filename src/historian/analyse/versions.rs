//! Version numbers in changed lines and in subjects (`1.4.2`, `v2.0`,
//! `grep-0.3.1`): what ties a release's or a bump's subject to the
//! manifest and changelog lines it changed (`plan::subjects`).

use std::collections::BTreeSet;

/// The version numbers in a text: digits and dots, a dot between digits
/// at least once (`1.4.2` in `v1.4.2`, `grep-1.4.2` or `"1.4.2"`; not
/// `1.` or a lone `12`). A run of more than four numbers (an address, a
/// date) is none.
pub fn versions(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|run| run.trim_matches('.'))
        .filter(|run| {
            let numbers = run.split('.').count();
            (2..=4).contains(&numbers) && run.split('.').all(|n| !n.is_empty())
        })
}

/// The version numbers of `added` lines (minified or generated lines left
/// out, as [`super::syntax::words`] leaves them).
pub fn versions_added<'a>(added: impl IntoIterator<Item = &'a [u8]>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for raw in added {
        if raw.len() > 1000 {
            continue;
        }
        let line = String::from_utf8_lossy(raw);
        out.extend(versions(&line).map(str::to_owned));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_numbers_are_found_in_their_usual_dress() {
        let found = |text: &str| versions(text).map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(found("version = \"1.4.2\""), ["1.4.2"]);
        assert_eq!(found("v2.0 and grep-0.3.1, Node.js@10.19"), ["2.0", "0.3.1", "10.19"]);
        assert_eq!(found("## 1.2.0 (2026-11-23)"), ["1.2.0"]);
        // Not a version: a lone number, a full stop after one, an address.
        assert!(found("12 items.").is_empty());
        assert!(found("see 1. and 2.").is_empty());
        assert!(found("10.0.0.1.5").is_empty());
        let added = versions_added([&b"version = \"1.2.0\""[..], b"x = 3"]);
        assert_eq!(added.into_iter().collect::<Vec<_>>(), ["1.2.0"]);
    }
}
