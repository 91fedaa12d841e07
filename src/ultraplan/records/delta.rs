//! A text file of an export written as its changes from another file the
//! export holds (the version of `run.json` before it, the record of the step
//! before): a JSON array of operations applied to the other file's text from
//! its start — a positive number copies that many bytes, a negative one
//! skips that many, a string is inserted. What is not copied or skipped at
//! the end is dropped.
//!
//! The changes are found token by token (runs of letters, digits and
//! `-_.+`, and each other character alone), so an id or a number that
//! changed is replaced whole rather than matched letter by letter.

use anyhow::{anyhow, bail, Context as _, Result};
use serde_json::Value;

/// The tokens of `text`, as byte lengths in order.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let word = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '+');
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        let w = word(c);
        if i > start && !(w && in_word) {
            out.push(&text[start..i]);
            start = i;
        }
        in_word = w;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The operations that turn `old` into `new`.
pub fn diff(old: &str, new: &str) -> String {
    let (a, b) = (tokens(old), tokens(new));
    let mut ops: Vec<Value> = Vec::new();
    let push_copy = |ops: &mut Vec<Value>, n: i64| {
        if n == 0 {
            return;
        }
        match ops.last_mut() {
            Some(Value::Number(last)) if last.as_i64().is_some_and(|l| (l > 0) == (n > 0)) => {
                *last = (last.as_i64().unwrap_or(0) + n).into();
            }
            _ => ops.push(n.into()),
        }
    };
    let len = |t: &[&str]| t.iter().map(|s| s.len() as i64).sum::<i64>();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
        match op {
            similar::DiffOp::Equal { old_index, len: n, .. } => {
                push_copy(&mut ops, len(&a[old_index..old_index + n]));
            }
            similar::DiffOp::Delete { old_index, old_len, .. } => {
                push_copy(&mut ops, -len(&a[old_index..old_index + old_len]))
            }
            similar::DiffOp::Insert { new_index, new_len, .. } => {
                insert(&mut ops, b[new_index..new_index + new_len].concat())
            }
            similar::DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                push_copy(&mut ops, -len(&a[old_index..old_index + old_len]));
                insert(&mut ops, b[new_index..new_index + new_len].concat());
            }
        }
    }
    // Whatever is left of `old` at the end is dropped anyway.
    while matches!(ops.last(), Some(Value::Number(n)) if n.as_i64().is_some_and(|n| n < 0)) {
        ops.pop();
    }
    serde_json::to_string(&ops).unwrap_or_default()
}

fn insert(ops: &mut Vec<Value>, text: String) {
    match ops.last_mut() {
        Some(Value::String(last)) => last.push_str(&text),
        _ => ops.push(Value::String(text)),
    }
}

/// `old` with the operations `ops` applied.
pub fn apply(old: &str, ops: &str) -> Result<String> {
    let ops: Vec<Value> = serde_json::from_str(ops).context("its changes are not a JSON list")?;
    let mut out = String::with_capacity(old.len());
    let mut at = 0usize;
    for op in ops {
        match op {
            Value::String(text) => out.push_str(&text),
            Value::Number(n) => {
                let n = n
                    .as_i64()
                    .ok_or_else(|| anyhow!("'{n}' is not a whole number of bytes"))?;
                let end = at
                    .checked_add(n.unsigned_abs() as usize)
                    .filter(|end| *end <= old.len() && old.is_char_boundary(*end))
                    .ok_or_else(|| anyhow!("its changes run past the end of the file they change"))?;
                if n > 0 {
                    out.push_str(&old[at..end]);
                }
                at = end;
            }
            other => bail!("'{other}' is neither a number of bytes nor a text to insert"),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_time_and_count_are_written_as_changes() {
        let old = r#"{"current_step":4,"status":"in-progress","updated_at":"2026-11-29T04:02:21Z"}"#;
        let new = r#"{"current_step":5,"status":"in-progress","updated_at":"2026-11-29T04:02:22Z"}"#;
        let ops = diff(old, new);
        assert_eq!(apply(old, &ops).unwrap(), new);
        // The step's number and the time's seconds, each replaced whole.
        assert_eq!(ops, r#"[16,-1,"5",55,-3,"22Z",2]"#);
    }

    #[test]
    fn any_texts_round_trip() {
        let cases = [
            ("", ""),
            ("", "new"),
            ("old", ""),
            ("same", "same"),
            ("a b c", "a x c d"),
            ("héllo wörld\n", "hello wörld!\n"),
            ("line 1\nline 2\n", "line 0\nline 1\nline 2\nline 3"),
        ];
        for (old, new) in cases {
            assert_eq!(apply(old, &diff(old, new)).unwrap(), new, "{old:?} → {new:?}");
        }
    }

    #[test]
    fn changes_past_the_end_are_refused() {
        assert!(apply("abc", "[4]").is_err());
        assert!(apply("abc", "[-2, 2]").is_err());
        assert!(apply("é", "[1]").is_err(), "inside a character");
        assert!(apply("abc", "[true]").is_err());
        assert!(apply("abc", "{}").is_err());
        assert_eq!(apply("abc", r#"[1, -1, "X", 1]"#).unwrap(), "aXc");
    }
}
