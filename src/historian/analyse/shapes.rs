//! The shape of a hunk (issue 15): the names it substitutes for others, and
//! whether it only tidies ([`Shape`]: white space, a word's spelling).
//!
//! A mechanical change — a rename, `u_int32_t` written `uint32_t` across a
//! code base, one constant replaced by another — touches many files the
//! same way, and a reviewer sees it as one piece of work. A removed line and
//! the added line in its place that differ only in some names substitute
//! those names; the substitution `old>new` (each run of digits written
//! `#`, so that `u_int8_t>uint8_t` and `u_int32_t>uint32_t` are one) is the
//! hunk's shape, and two parts sharing one belong together (`affinity`).
//!
//! Lines are paired in order when a hunk removes as many lines as it adds;
//! a line changing more than [`MOST_NAMES`] names is a rewrite, not a
//! substitution, and numbers changing are a version's or a constant's
//! business (`versions`), not a name's.

use std::collections::BTreeSet;

use crate::historian::analyse::left_out::{list, number};

/// A line substituting more different names than this is a rewrite.
const MOST_NAMES: usize = 2;

/// The substitutions `old` lines become `new` ones by, paired in order.
pub fn substitutions<'a>(
    old: impl ExactSizeIterator<Item = &'a [u8]>,
    new: impl ExactSizeIterator<Item = &'a [u8]>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if old.len() != new.len() {
        return out;
    }
    for (a, b) in old.zip(new) {
        if a == b {
            continue;
        }
        let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
        let (x, y) = (tokens(&a), tokens(&b));
        if x.len() != y.len() {
            continue;
        }
        let mut line: BTreeSet<String> = BTreeSet::new();
        let mut names = true;
        for (s, t) in x.iter().zip(&y).filter(|(s, t)| s != t) {
            if !is_name(s) || !is_name(t) {
                names = false;
                break;
            }
            line.insert(format!("{}>{}", masked(s), masked(t)));
        }
        if names && !line.is_empty() && line.len() <= number("shapes::MOST_NAMES", MOST_NAMES, usize::MAX) {
            out.extend(line);
        }
    }
    out
}

/// A line's tokens: runs of word characters, and every other character
/// that is not white space on its own.
fn tokens(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        let word = c.is_alphanumeric() || c == '_';
        match (word, start) {
            (true, None) => start = Some(i),
            (true, Some(_)) => {}
            (false, s) => {
                if let Some(s) = s {
                    out.push(&line[s..i]);
                }
                start = None;
                if !c.is_whitespace() {
                    out.push(&line[i..i + c.len_utf8()]);
                }
            }
        }
    }
    if let Some(s) = start {
        out.push(&line[s..]);
    }
    out
}

/// What a hunk does when it only tidies: a reviewer sees every such hunk
/// of a change as one piece of work, the one whose subject says `reformat`
/// or `fix typos`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shape {
    /// Only white space changes: indentation, line breaks, blank lines.
    Whitespace,
    /// Each changed line corrects the spelling of one word (`recieve` to
    /// `receive`), and nothing else.
    Typo,
}

/// The shape a subject's word names, if any.
pub fn shape_named(word: &str) -> Option<Shape> {
    const WHITESPACE: &[&str] = &[
        "format",
        "formatting",
        "formatted",
        "reformat",
        "reformatted",
        "reformatting",
        "whitespace",
        "whitespaces",
        "indent",
        "indentation",
        "indenting",
        "reindent",
        "fmt",
        "rustfmt",
        "gofmt",
        "prettier",
        "black",
        "spaces",
        "tabs",
        "trailing",
        "style",
    ];
    const TYPO: &[&str] = &[
        "typo",
        "typos",
        "spelling",
        "misspelling",
        "misspellings",
        "misspelled",
        "grammar",
    ];
    if list("WHITESPACE", WHITESPACE).contains(&word) {
        Some(Shape::Whitespace)
    } else if list("TYPO", TYPO).contains(&word) {
        Some(Shape::Typo)
    } else {
        None
    }
}

/// The shapes of a hunk removing `old` and adding `new` lines: none when it
/// does more than tidy.
pub fn shapes<'a>(
    old: impl ExactSizeIterator<Item = &'a [u8]> + Clone,
    new: impl ExactSizeIterator<Item = &'a [u8]> + Clone,
) -> BTreeSet<Shape> {
    let mut out = BTreeSet::new();
    if old.clone().eq(new.clone()) {
        return out;
    }
    let squeezed = |lines: &mut dyn Iterator<Item = &'a [u8]>| -> Vec<u8> {
        lines.flatten().copied().filter(|b| !b.is_ascii_whitespace()).collect()
    };
    if squeezed(&mut old.clone()) == squeezed(&mut new.clone()) {
        out.insert(Shape::Whitespace);
        return out;
    }
    if old.len() == new.len()
        && old
            .zip(new)
            .filter(|(a, b)| a != b)
            .all(|(a, b)| respelled(&String::from_utf8_lossy(a), &String::from_utf8_lossy(b)))
    {
        out.insert(Shape::Typo);
    }
    out
}

/// Whether `b` is `a` with one word's spelling corrected: the lines differ
/// within one alphabetic word of three letters or more on each side, by at
/// most two letters.
fn respelled(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    // Widen the difference to whole words on both sides.
    let letter = |c: &char| c.is_alphabetic();
    let start = prefix - a[..prefix].iter().rev().take_while(|c| letter(c)).count();
    let (a_end, b_end) = (a.len() - suffix, b.len() - suffix);
    let tail = a[a_end..].iter().take_while(|c| letter(c)).count();
    let (x, y) = (&a[start..a_end + tail], &b[start..b_end + tail]);
    x.len() >= 3 && y.len() >= 3 && x.iter().chain(y).all(letter) && distance(x, y) <= 2
}

/// The edit distance of two short words.
fn distance(x: &[char], y: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=y.len()).collect();
    for (i, a) in x.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, b) in y.iter().enumerate() {
            let next = (diagonal + usize::from(a != b)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[y.len()]
}

/// A word token that is not a number.
fn is_name(token: &str) -> bool {
    token.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Each run of digits written `#`.
fn masked(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if !c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('#') {
            out.push('#');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subs(old: &[&str], new: &[&str]) -> Vec<String> {
        let old: Vec<&[u8]> = old.iter().map(|l| l.as_bytes()).collect();
        let new: Vec<&[u8]> = new.iter().map(|l| l.as_bytes()).collect();
        substitutions(old.into_iter(), new.into_iter()).into_iter().collect()
    }

    #[test]
    fn a_renamed_type_is_one_substitution_whatever_its_width() {
        assert_eq!(
            subs(
                &["\tu_int32_t\tflags;", "static u_int8_t x = 0;"],
                &["\tuint32_t flags;", "static uint8_t x = 0;"]
            ),
            ["u_int#_t>uint#_t"]
        );
    }

    fn shapes_of(old: &[&str], new: &[&str]) -> Vec<Shape> {
        let old: Vec<&[u8]> = old.iter().map(|l| l.as_bytes()).collect();
        let new: Vec<&[u8]> = new.iter().map(|l| l.as_bytes()).collect();
        shapes(old.into_iter(), new.into_iter()).into_iter().collect()
    }

    #[test]
    fn tidying_hunks_have_a_shape() {
        use Shape::*;
        assert_eq!(
            shapes_of(&["if (a) {", "b();"], &["if (a) {", "    b();"]),
            [Whitespace]
        );
        assert_eq!(shapes_of(&["f(a,", "  b);"], &["f(a, b);"]), [Whitespace]);
        assert_eq!(shapes_of(&[], &[""]), [Whitespace]);
        assert_eq!(shapes_of(&["/// We recieve it."], &["/// We receive it."]), [Typo]);
        assert_eq!(shapes_of(&["teh end"], &["the end"]), [Typo]);
    }

    #[test]
    fn changes_of_meaning_have_no_shape() {
        assert!(shapes_of(&["f(a, b);"], &["f(a, c);"]).is_empty());
        assert!(shapes_of(&["x = true;"], &["x = false;"]).is_empty());
        assert!(shapes_of(&["version = 1.2.3"], &["version = 1.2.4"]).is_empty());
        assert!(shapes_of(&["see the docs"], &["see the new docs"]).is_empty());
        assert!(shapes_of(&["a"], &["a", "b"]).is_empty());
        assert!(shapes_of(&["same"], &["same"]).is_empty());
        assert!(shapes_of(&[], &["// A new comment."]).is_empty());
    }

    #[test]
    fn rewrites_numbers_and_uneven_hunks_substitute_nothing() {
        // More than two names changed: a rewrite.
        assert!(subs(&["a = b(c);"], &["x = y(z);"]).is_empty());
        // A number changed: not a name.
        assert!(subs(&["limit = 10;"], &["limit = 20;"]).is_empty());
        // Tokens added: not a substitution.
        assert!(subs(&["f(a);"], &["f(a, b);"]).is_empty());
        // Lines added or removed: not paired.
        assert!(subs(&["old_name();"], &["new_name();", "more();"]).is_empty());
        // Only white space changed.
        assert!(subs(&["if (a) {"], &["if (a)  {"]).is_empty());
    }
}
