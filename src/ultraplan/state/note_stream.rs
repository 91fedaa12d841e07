//! A checkpoint's note is one YAML document, or — when the same checkpoint
//! was recorded in two clones and `sync` merged them — a stream of several
//! (`---` between documents), ordered by `logged_at`. Every reader of notes
//! goes through [`documents`]; [`combine`] is the one way two notes become one.

use anyhow::{anyhow, Result};
use serde::Deserialize as _;

/// The documents of a note, in order. Empty documents (a leading `---`) are
/// skipped; a note that is not YAML is an error naming the document.
pub fn documents(text: &str) -> Result<Vec<serde_yaml::Value>> {
    let docs = crate::yaml::documents_as::<serde_yaml::Value>(text).map_err(|(i, e)| not_yaml(i, &e))?;
    Ok(docs.into_iter().filter(|v| !v.is_null()).collect())
}

fn not_yaml(i: usize, e: &crate::yaml::YamlError) -> anyhow::Error {
    if i == 0 {
        anyhow!("the note is not YAML: {e}")
    } else {
        anyhow!("document {} of the note is not YAML: {e}", i + 1)
    }
}

/// Whether a note reads as [`documents`] reads it, without building its
/// values: the same parser, the same refusal of a key twice in one mapping
/// and of an empty tag, the same error for the first document that fails.
/// A sync checks every note it takes this way, a third quicker than reading
/// them (`note_stream::tests::checking_refuses_what_reading_refuses`); the
/// notes this program writes are recognised without the parser at all
/// ([`super::note_plain`]).
pub fn check(text: &str) -> Result<()> {
    if super::note_plain::certainly_valid(text) {
        return Ok(());
    }
    crate::yaml::documents_as::<Checked>(text).map_err(|(i, e)| not_yaml(i, &e))?;
    Ok(())
}

/// A YAML value walked and dropped: what [`check`] deserializes.
struct Checked;

impl<'de> serde::Deserialize<'de> for Checked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(CheckVisitor)
    }
}

struct CheckVisitor;

impl<'de> serde::de::Visitor<'de> for CheckVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, _: bool) -> std::result::Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_unit<E>(self) -> std::result::Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_none<E>(self) -> std::result::Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Checked, D::Error> {
        Checked::deserialize(d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Checked, A::Error> {
        // Keys are kept (they are few and short); values are not.
        let mut keys = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<serde_yaml::Value>()? {
            if keys.contains(&key) {
                let shown = serde_yaml::to_string(&key).unwrap_or_default();
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate entry with key {}",
                    shown.trim_end()
                )));
            }
            keys.insert(key);
            map.next_value::<Checked>()?;
        }
        Ok(Checked)
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> std::result::Result<Checked, A::Error> {
        use serde::de::VariantAccess as _;
        let (tag, contents) = data.variant::<String>()?;
        if tag.is_empty() {
            return Err(serde::de::Error::custom("empty YAML tag is not allowed"));
        }
        contents.newtype_variant::<Checked>()
    }
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
    fn checking_refuses_what_reading_refuses() {
        for text in [
            A,
            "a: 1\na: 2\n",
            "a:\n  b: 1\n  b: 1\n",
            "? [1, 2]\n: x\n? [1, 2]\n: y\n",
            "1: x\n'1': y\n",
            "1: x\n1.0: y\n",
            "x: !tag 3\n",
            "x: ! 3\n",
            "- &a [1]\n- *a\n- *b\n",
            "key: [unclosed\n",
            "---\na: 1\n---\nb: 1\nb: 2\n",
            "",
            "\t- tab\n",
        ] {
            let (read, checked) = (documents(text).map(|_| ()), check(text));
            if text.contains("b: 2") || text.starts_with("a: 1\na: 2") {
                assert!(checked.is_err(), "{text:?}: a key twice is refused");
            }
            assert_eq!(read.is_ok(), checked.is_ok(), "{text:?}: {read:?} vs {checked:?}");
            if let (Err(r), Err(c)) = (read, checked) {
                let first = |e: anyhow::Error| e.to_string().split(':').next().unwrap_or_default().to_owned();
                assert_eq!(first(r), first(c), "{text:?}");
            }
        }
    }

    proptest::proptest! {
        /// Over YAML-ish text built from the pieces that trip parsers, the
        /// checker accepts exactly what the reader accepts.
        #[test]
        fn checking_agrees_with_reading(parts in proptest::collection::vec(0usize..16, 0..14)) {
            const PIECES: [&str; 16] = ["a: 1\n", "a: 2\n", "b:\n", "  c: x\n", "  c: y\n", "- 1\n", "---\n", "? k\n", ": v\n", "x: [1, 2\n", "]\n", "y: !t z\n", "z: {q: 1, q: 2}\n", "'a': 3\n", "&r s: *r\n", "\t\n"];
            let text: String = parts.iter().map(|i| PIECES[*i]).collect();
            proptest::prop_assert_eq!(documents(&text).is_ok(), check(&text).is_ok(), "{:?}", text);
        }
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

    #[test]
    fn a_note_we_write_reads() {
        assert!(documents(super::super::note_plain::tests::NOTE).is_ok());
    }

    proptest::proptest! {
        /// Whatever the quick check accepts, the reader reads: over text
        /// built from the pieces of our notes and the ones that trip parsers.
        #[test]
        fn what_the_quick_check_accepts_reads(parts in proptest::collection::vec(0usize..36, 0..16)) {
            const PIECES: [&str; 36] = [
                "a: 1\n", "a: 2\n", "b:\n", "  c: x\n", "  c: y\n", "- 1\n", "  - 2\n", "---\n",
                "x: [1, 2\n", "y: !t z\n", "'a': 3\n", "d: 'q''q'\n", "e: |-\n", "  text: ok\n",
                "    deeper\n", "\n", "f: >\n", "  - item\n", "g: []\n", "h: {}\n", "k: a:b\n",
                "m: x #y\n", "n: ~\n", "  p:\n", "      q: 1\n", "r: -1\n", "s: (x)\n", "t: 'a': b\n",
                "u: a, [b] {c}\n", "v: x!y&z*|>%@`\"'\n", "w: [a.rs, b/c]\n", "z: [a, [b]]\n",
                "o: [a,b]\n", "- [x, y]\n", "l: (1) - it's, \"so\"\n", "j: a\\b:c\n",
            ];
            let text: String = parts.iter().map(|i| PIECES[*i]).collect();
            if super::super::note_plain::certainly_valid(&text) {
                proptest::prop_assert!(documents(&text).is_ok(), "accepted but unreadable: {:?}", text);
            }
        }
    }
}
