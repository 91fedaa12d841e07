//! A checkpoint's note is one YAML document, or — when the same checkpoint
//! was recorded in two clones and `sync` merged them — a stream of several
//! (`---` between documents), ordered by `logged_at`. Every reader of notes
//! goes through [`documents`]; [`combine`] is the one way two notes become one.

use anyhow::{anyhow, Result};
use serde::Deserialize as _;

/// The documents of a note, in order. Empty documents (a leading `---`) are
/// skipped; a note that is not YAML is an error naming the document.
pub fn documents(text: &str) -> Result<Vec<serde_yaml::Value>> {
    let mut out = Vec::new();
    for (i, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let value = serde_yaml::Value::deserialize(doc).map_err(|e| {
            if i == 0 {
                anyhow!("the note is not YAML: {e}")
            } else {
                anyhow!("document {} of the note is not YAML: {e}", i + 1)
            }
        })?;
        if !value.is_null() {
            out.push(value);
        }
    }
    Ok(out)
}

/// The note holding every document of `ours` and `theirs` once, ordered by
/// `logged_at` (documents without it keep their place after those with it).
/// Both must parse: a note that is not YAML is never merged into a stream.
pub fn combine(ours: &str, theirs: &str) -> Result<String> {
    let mut texts: Vec<(String, String)> = Vec::new();
    for note in [ours, theirs] {
        documents(note)?;
        for raw in split_raw(note) {
            let key = documents(&raw)?
                .first()
                .and_then(|d| d.get("logged_at"))
                .and_then(|v| v.as_str())
                .unwrap_or("~")
                .to_owned();
            if !texts.iter().any(|(_, t)| t.trim() == raw.trim()) {
                texts.push((key, raw));
            }
        }
    }
    texts.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::new();
    for (i, (_, text)) in texts.iter().enumerate() {
        if i > 0 || texts.len() > 1 {
            out.push_str("---\n");
        }
        out.push_str(text.trim_end_matches('\n'));
        out.push('\n');
    }
    Ok(out)
}

/// The text of each document of a stream, split at `---` lines.
fn split_raw(text: &str) -> Vec<String> {
    let mut docs = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if line.trim_end() == "---" {
            if !current.trim().is_empty() {
                docs.push(std::mem::take(&mut current));
            }
            current.clear();
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    if !current.trim().is_empty() {
        docs.push(current);
    }
    docs
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "logged_at: 2026-01-02T10:00:00Z\nplan: p.md\nresult:\n  status: success\n";
    const B: &str = "logged_at: 2026-01-01T10:00:00Z\nplan: p.md\nresult:\n  status: failure\n";

    #[test]
    fn one_document_and_streams_read_alike() {
        assert_eq!(documents(A).unwrap().len(), 1);
        assert_eq!(documents(&format!("---\n{A}---\n{B}")).unwrap().len(), 2);
        let err = documents(&format!("{A}---\n: : [\n")).unwrap_err().to_string();
        assert!(err.contains("document 2"), "{err}");
        assert!(documents("key: [unclosed\n").is_err());
    }

    #[test]
    fn combining_keeps_both_sides_once_in_time_order() {
        let merged = combine(A, B).unwrap();
        let docs = documents(&merged).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0]["result"]["status"], "failure");
        assert_eq!(docs[1]["result"]["status"], "success");
        // Merging again (either way round) changes nothing.
        assert_eq!(combine(&merged, A).unwrap(), merged);
        assert_eq!(combine(B, &merged).unwrap(), merged);
        assert_eq!(combine(A, A).unwrap(), A);
        assert!(combine(A, "not: [yaml").is_err());
    }
}
