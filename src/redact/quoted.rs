//! Quoted shell words read as texts of their own: a command line that
//! passes a whole `.pgpass` line or an `htpasswd` command as one quoted
//! argument hides it from the patterns that look for a line's or a
//! command's end, so each quoted word is redacted again on its own.

use std::borrow::Cow;

use super::redact_nested;

/// Between the quoted words' texts when they are redacted as one: no
/// pattern reads across an empty line and a control character.
const WORD_SEPARATOR: &str = "\n\n\u{1}\n\n";

/// The quoted words of `text` redacted each as a text of its own, in one
/// pass over all of them (so the cost stays linear in `text`); `None` when
/// none changes.
pub(super) fn redact_quoted_words(text: &str, depth: usize) -> Option<String> {
    let words = quoted_words(text);
    if words.is_empty() {
        return None;
    }
    let joined: Vec<&str> = words.iter().map(|(_, w)| w.as_str()).collect();
    let joined = joined.join(WORD_SEPARATOR);
    let Cow::Owned(clean) = redact_nested(&joined, depth) else {
        return None;
    };
    let parts: Vec<&str> = clean.split(WORD_SEPARATOR).collect();
    let whole = |range: &std::ops::Range<usize>, part: &str| {
        let kind = part
            .split("[REDACTED:")
            .nth(1)
            .and_then(|k| k.split_once(']'))
            .map_or("secret", |(k, _)| k);
        (range.clone(), format!("'[REDACTED:{kind}]'"))
    };
    if parts.len() != words.len() {
        // A secret ran across a separator: the words are redacted whole.
        return Some(replace_words(
            text,
            words.iter().map(|(r, _)| whole(r, "[REDACTED:secret]")),
        ));
    }
    // Only what redaction changed is replaced, where the word spells it as
    // it reads: the quoting around it stays as written. Where the word
    // spells it more than once, which one changed is not known (the
    // quotes, once read, can make a match of a later one): the word is
    // redacted whole, so a second redaction finds nothing more.
    let changed = words
        .iter()
        .zip(parts)
        .filter(|((_, word), part)| word != part)
        .map(|((range, word), part)| {
            let (said, clean) = changed_middle(word, part);
            let raw = &text[range.clone()];
            match raw
                .find(said)
                .filter(|&at| !said.is_empty() && raw.rfind(said) == Some(at))
            {
                Some(at) => (
                    range.clone(),
                    format!("{}{clean}{}", &raw[..at], &raw[at + said.len()..]),
                ),
                None => whole(range, part),
            }
        });
    Some(replace_words(text, changed))
}

/// The part of `before` that differs from `after`, and what `after` has
/// there (common prefix and suffix left out, on character boundaries).
fn changed_middle<'a, 'b>(before: &'a str, after: &'b str) -> (&'a str, &'b str) {
    let (a, b) = (before.as_bytes(), after.as_bytes());
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !before.is_char_boundary(prefix) || !after.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = a.len().min(b.len()) - prefix;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    while !before.is_char_boundary(a.len() - suffix) || !after.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    (&before[prefix..a.len() - suffix], &after[prefix..b.len() - suffix])
}

fn replace_words(text: &str, words: impl Iterator<Item = (std::ops::Range<usize>, String)>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (range, with) in words {
        out.push_str(&text[copied..range.start]);
        out.push_str(&with);
        copied = range.end;
    }
    out.push_str(&text[copied..]);
    out
}

/// What ends a shell word outside quotes: a blank or an operator.
fn ends_word(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b';' | b'|' | b'&' | b'<' | b'>' | b'(' | b')')
}

/// The shell words of `text` that open with a quote and hold at least eight
/// characters once unquoted: where each is and what it says (quotes and
/// backslashes read as `sh` reads them; an unclosed quote runs to the end).
pub(super) fn quoted_words(text: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if ends_word(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        // Only a word that opens with a quote is kept: the others are only
        // read past (quotes inside them still join blanks to them).
        let opens_quoted = matches!(bytes[start], b'\'' | b'"');
        let mut word = Vec::new();
        let push = |word: &mut Vec<u8>, b: &[u8]| {
            if opens_quoted {
                word.extend_from_slice(b);
            }
        };
        let mut quoted = false;
        while i < bytes.len() && !ends_word(bytes[i]) {
            match bytes[i] {
                b'\'' => {
                    quoted = true;
                    let end = bytes[i + 1..]
                        .iter()
                        .position(|&b| b == b'\'')
                        .map_or(bytes.len(), |p| i + 1 + p);
                    push(&mut word, &bytes[i + 1..end]);
                    i = (end + 1).min(bytes.len());
                }
                b'"' => {
                    quoted = true;
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' {
                        if bytes[i] == b'\\' && matches!(bytes.get(i + 1), Some(b'"' | b'\\' | b'$' | b'`')) {
                            i += 1;
                        }
                        push(&mut word, &bytes[i..=i]);
                        i += 1;
                    }
                    i = (i + 1).min(bytes.len());
                }
                b'\\' if i + 1 < bytes.len() => {
                    push(&mut word, &bytes[i + 1..i + 2]);
                    i += 2;
                }
                _ => {
                    push(&mut word, &bytes[i..=i]);
                    i += 1;
                }
            }
        }
        if quoted && opens_quoted && word.len() >= 8 {
            if let Ok(word) = String::from_utf8(word) {
                out.push((start..i, word));
            }
        }
    }
    out
}
