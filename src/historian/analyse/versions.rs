//! Version numbers in subjects (`1.4.2`, `v2.0`, `grep-0.3.1`): two
//! subjects naming different versions are two pieces of work, however
//! many words they share (`plan::count`: `build: Node.js@10.19` is no
//! repeat of `build: Node.js@12.16`).

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
    }
}
