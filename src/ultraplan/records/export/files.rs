//! The export's files section: every file the commits named, once — as
//! text redacted as the state stored it, as a delta from the file named
//! before it, or in hexadecimal.

use std::io::Write;

use anyhow::Result;

use super::{field, redacted, Written};
use crate::git::{Oid, Repo};

/// The files of the document, once each: as text, redacted as the state
/// wrote them (a kept tree's files as text, the state's own files by kind),
/// or in hexadecimal.
pub(super) fn write_blobs(repo: &Repo, written: &Written, out: &mut dyn Write) -> Result<()> {
    let mut binary = Vec::new();
    let mut changed = Vec::new();
    let mut deltas = Vec::new();
    let mut first = true;
    for (id, path) in &written.blobs {
        let bytes = repo.read_blob(*id)?;
        match String::from_utf8(bytes) {
            Ok(text) => {
                let clean = redact_as(path, &text);
                if clean != text {
                    changed.push(id.to_string());
                } else if let Some(delta) = delta_of(repo, written, *id, &text)? {
                    deltas.push((id.to_string(), delta));
                    continue;
                }
                if first {
                    writeln!(out, "blobs:")?;
                    first = false;
                }
                field(out, 2, &id.to_string(), &clean)?;
            }
            Err(e) => binary.push((*id, e.into_bytes())),
        }
    }
    if !deltas.is_empty() {
        writeln!(out, "deltas:")?;
        for (id, delta) in deltas {
            field(out, 2, &id, &delta)?;
        }
    }
    if !changed.is_empty() {
        field(out, 0, "redacted", &changed)?;
    }
    if !binary.is_empty() {
        writeln!(out, "binary:")?;
        for (id, bytes) in binary {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            field(out, 2, &id.to_string(), &hex)?;
        }
    }
    Ok(())
}

/// Blob `id` (its text `text`, which the export leaves as it is) as
/// `<base> <changes>` from the file named before it ([`Written::bases`]),
/// when that base is text the export leaves as it is too and the changes are
/// at most half as long as the text.
fn delta_of(repo: &Repo, written: &Written, id: Oid, text: &str) -> Result<Option<String>> {
    let Some(base) = written.bases.get(&id) else {
        return Ok(None);
    };
    let Some(base_path) = written.blobs.get(base) else {
        return Ok(None);
    };
    let Ok(base_text) = String::from_utf8(repo.read_blob(*base)?) else {
        return Ok(None);
    };
    if redact_as(base_path, &base_text) != base_text {
        return Ok(None);
    }
    let ops = crate::ultraplan::records::delta::diff(&base_text, text);
    let delta = format!("{base} {ops}");
    // Checked here, so an import never meets a delta that does not apply.
    let applies = crate::ultraplan::records::delta::apply(&base_text, &ops).is_ok_and(|t| t == text);
    Ok((applies && delta.len() * 2 <= text.len()).then_some(delta))
}

/// `text` redacted as the file at state path `path` was when stored.
pub fn redact_as(path: &str, text: &str) -> String {
    if path.contains("/files/") {
        redacted(text)
    } else {
        crate::redact::redact_file(path, text).into_owned()
    }
}
