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
mod memory;
mod quoted;
mod secret_names;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use regex::Captures;

/// Returns `text` with every recognised secret replaced by `[REDACTED:<kind>]`.
///
/// A quoted shell word (`'…'`, `"…"`) is also read as a text of its own: a
/// command line that passes a whole `.pgpass` line or an `htpasswd`
/// command as one argument hides it from the patterns that look for a line
/// or a command's end (see [`quoted::quoted_words`]).
pub fn redact(text: &str) -> Cow<'_, str> {
    if text.len() < memory::REMEMBERED_FROM {
        return redact_nested(text, QUOTING_DEPTH);
    }
    if let Some(known) = memory::remembered(text) {
        return known;
    }
    let out = redact_nested(text, QUOTING_DEPTH);
    memory::remember(text, &out);
    out
}

/// Starts redacting `text` on another thread when it is large enough to be
/// remembered: a [`redact`] of the same text meanwhile waits for it rather
/// than redacting it again. A run that will record a changed plan of
/// thousands of steps redacts it while it does the rest of its start.
pub fn redact_ahead(text: &str) {
    if text.len() < memory::REMEMBERED_FROM {
        return;
    }
    let Some(pending) = memory::begin(text) else {
        return;
    };
    let text = text.to_owned();
    // Not started (no thread to be had): `pending`, dropped with the
    // closure, lets `redact` do it.
    let _ = std::thread::Builder::new().name("redact".into()).spawn(move || {
        let out = redact_nested(&text, QUOTING_DEPTH);
        memory::remember(&text, &out);
        drop(pending);
    });
}

/// How many levels of quoting inside quoting are read (a command line
/// quoted again to be shown in another one, as a lock shows the
/// `--executor` it was given): each level reads the words once, so the
/// cost stays linear.
const QUOTING_DEPTH: usize = 3;

fn redact_nested(text: &str, depth: usize) -> Cow<'_, str> {
    // The words first, while their quotes are as written: a value the
    // patterns take whole may hold a quote, and the words after it would
    // be read with their quoting turned inside out.
    let words = match depth {
        0 => None,
        _ => quoted::redact_quoted_words(text, depth - 1),
    };
    match words {
        Some(s) => Cow::Owned(redact_text(&s).into_owned()),
        None => redact_text(text),
    }
}

/// [`redact`] without the second reading of quoted words.
fn redact_text(text: &str) -> Cow<'_, str> {
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

/// What redaction would find in `text`, for a message that must not repeat
/// it: `None` when nothing; else up to five `<kind> on line <N>` (or "a
/// secret" when only the whole text shows one, as a key block across lines).
pub fn secrets_found(text: &str) -> Option<String> {
    if matches!(redact(text), Cow::Borrowed(_)) {
        return None;
    }
    let mut found: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Cow::Owned(clean) = redact(line) else { continue };
        for kind in clean
            .split("[REDACTED:")
            .skip(1)
            .filter_map(|rest| rest.split_once(']'))
        {
            let shown = format!("{} on line {}", kind.0, i + 1);
            if !found.contains(&shown) {
                found.push(shown);
            }
        }
        if found.len() >= 5 {
            found.truncate(5);
            found.push("…".into());
            break;
        }
    }
    Some(if found.is_empty() {
        "a secret".into()
    } else {
        format!("a {}", found.join(", "))
    })
}

/// [`redact`] for a file of the stored state, by what the file is: a JSON
/// or YAML document has each string redacted as it reads once decoded (an
/// escape like `\"` or `\n` cannot split a secret from its name), then the
/// document as text; anything else is text.
pub fn redact_file<'t>(path: &str, text: &'t str) -> Cow<'t, str> {
    if path.ends_with(".json") {
        redact_json(text)
    } else if path.ends_with(".yaml") || path.ends_with(".yml") {
        redact_yaml(text)
    } else {
        redact(text)
    }
}

/// A JSON document: every string literal decoded, redacted and encoded
/// again in place (the layout and key order stay), and the value of a
/// member whose key says secret (`"password": "…"`) replaced whole. The
/// text around the literals is JSON syntax and is kept as it is.
pub fn redact_json(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut changed = false;
    // The key whose value the next literal is, if the text since it is `:`.
    let mut key: Option<(String, usize)> = None;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            // A number under a secret's key: `"pin": 1234`.
            let member = key.as_ref().filter(|(_, after)| text[*after..i].trim() == ":");
            if let Some((name, _)) = member.filter(|_| bytes[i] == b'-' || bytes[i].is_ascii_digit()) {
                let len = bytes[i..]
                    .iter()
                    .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .unwrap_or(bytes.len() - i);
                if secret_names::names_secret(name) {
                    out.push_str(&text[copied..i]);
                    out.push_str(&format!("\"[REDACTED:{}]\"", secret_names::kind_of(name)));
                    copied = i + len;
                    changed = true;
                }
                key = None;
                i += len;
                continue;
            }
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < bytes.len() && bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        let end = (i + 1).min(bytes.len());
        i = end;
        let Ok(decoded) = serde_json::from_str::<String>(&text[start..end]) else {
            key = None;
            continue;
        };
        let member_of = key
            .take()
            .filter(|(_, after)| text[*after..start].trim() == ":")
            .map(|(name, _)| name);
        // The member's value is judged as it reads once redacted, so that
        // redacting the result again judges the same text (idempotence).
        let text_clean = redact(&decoded);
        let replacement = match member_of
            .as_deref()
            .and_then(|name| assignments::keyed_secret(name, &text_clean))
        {
            Some(kind) => Some(format!("[REDACTED:{kind}]")),
            None => match text_clean {
                Cow::Owned(clean) => Some(clean),
                Cow::Borrowed(_) => None,
            },
        };
        if let Some(clean) = replacement {
            out.push_str(&text[copied..start]);
            out.push_str(&serde_json::to_string(&clean).unwrap_or_else(|_| "\"[REDACTED:secret]\"".into()));
            copied = end;
            changed = true;
        }
        if text[end..].trim_start().starts_with(':') {
            key = Some((decoded, end));
        }
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// A YAML document: every string in it redacted as it reads, and the value
/// of a key that says secret replaced whole; the document is written again
/// by `serde_yaml` (our records are its output, so they keep their shape).
/// Text that is not a YAML collection is redacted as text.
pub fn redact_yaml(text: &str) -> Cow<'_, str> {
    fn walk(value: &mut serde_yaml::Value, key: Option<&str>) -> bool {
        match value {
            serde_yaml::Value::Number(_) => match key.filter(|k| secret_names::names_secret(k)) {
                Some(k) => {
                    *value = serde_yaml::Value::String(format!("[REDACTED:{}]", secret_names::kind_of(k)));
                    true
                }
                None => false,
            },
            serde_yaml::Value::String(s) => {
                // Judged as it reads once redacted, as in `redact_json`.
                let clean = redact(s);
                if let Some(kind) = key.and_then(|k| assignments::keyed_secret(k, &clean)) {
                    *s = format!("[REDACTED:{kind}]");
                    return true;
                }
                match clean {
                    Cow::Owned(clean) => {
                        *s = clean;
                        true
                    }
                    Cow::Borrowed(_) => false,
                }
            }
            serde_yaml::Value::Sequence(items) => items.iter_mut().fold(false, |changed, v| walk(v, None) | changed),
            serde_yaml::Value::Mapping(map) => map
                .iter_mut()
                .fold(false, |changed, (k, v)| walk(v, k.as_str()) | changed),
            serde_yaml::Value::Tagged(tagged) => walk(&mut tagged.value, key),
            _ => false,
        }
    }
    let Ok(mut value) = crate::yaml::parse(text) else {
        return redact(text);
    };
    if !matches!(value, serde_yaml::Value::Mapping(_) | serde_yaml::Value::Sequence(_)) {
        return redact(text);
    }
    if !walk(&mut value, None) {
        return Cow::Borrowed(text);
    }
    match serde_yaml::to_string(&value) {
        Ok(written) => Cow::Owned(written),
        Err(_) => redact(text),
    }
}
