//! Redaction: the one function everything passes through before it is written
//! into git (notes, run state, transcripts, evidence, historian sessions).
//! Secrets are replaced by `[REDACTED:<kind>]`; the key of an assignment and
//! the host of a URL stay readable so the text still makes sense.
//!
//! Two kinds of evidence: the shape of a published token format
//! ([`formats`]: private keys, cloud and SaaS keys and tokens, JWTs,
//! authorization headers, URLs with credentials), and the name a value is
//! given ([`assignments`]: `SECRET_KEY=…`, `password: …`, `--api-key …`).
//!
//! Every pattern is a `regex` pattern (finite automata, no backtracking) and
//! every pass moves forward only, so redaction is linear in the text. It is
//! idempotent: redacting redacted text changes nothing, which lets a stored
//! value be compared with a freshly redacted one.

mod assignments;
mod formats;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use regex::Captures;

/// Returns `text` with every recognised secret replaced by `[REDACTED:<kind>]`.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut current = Cow::Borrowed(text);
    for format in formats::FORMATS.iter() {
        if !format.pattern.is_match(&current) {
            continue;
        }
        let replaced = format.pattern.replace_all(&current, |caps: &Captures<'_>| {
            let whole = caps.get(0).map_or("", |m| m.as_str());
            let Some(target) = caps.get(format.group) else {
                return whole.to_owned();
            };
            let start = target.start() - caps.get(0).map_or(0, |m| m.start());
            let end = start + target.as_str().len();
            format!("{}[REDACTED:{}]{}", &whole[..start], format.kind, &whole[end..])
        });
        if let Cow::Owned(s) = replaced {
            current = Cow::Owned(s);
        }
    }
    match assignments::redact_assignments(&current) {
        Some(s) => Cow::Owned(s),
        None => current,
    }
}

/// [`redact`] for bytes that may not be UTF-8: the text is redacted when it
/// is UTF-8 and otherwise its valid stretches are, the rest kept as is.
pub fn redact_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return match redact(text) {
            Cow::Borrowed(_) => Cow::Borrowed(bytes),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        };
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = false;
    for chunk in bytes.utf8_chunks() {
        match redact(chunk.valid()) {
            Cow::Borrowed(s) => out.extend_from_slice(s.as_bytes()),
            Cow::Owned(s) => {
                changed = true;
                out.extend_from_slice(s.as_bytes());
            }
        }
        out.extend_from_slice(chunk.invalid());
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(bytes)
    }
}
