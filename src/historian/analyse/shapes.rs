//! The shape of a hunk (issue 15): the names it substitutes for others.
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
        if names && !line.is_empty() && line.len() <= MOST_NAMES {
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
