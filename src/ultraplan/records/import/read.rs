//! Reading an export and checking it whole before anything is written:
//! its version, every author, time, path and object id, every file a
//! commit names, every note; version 2's short forms written out.

use std::collections::HashMap;

use anyhow::{anyhow, bail, Context as _, Result};

use crate::git::Oid;
use crate::ultraplan::records::exchange::{AuthorDoc, Document, READS};

/// The largest export read.
pub const MAX_BYTES: usize = 1 << 30;

/// Parses an export, refusing what this version cannot read, and checks it
/// whole ([`check`]) before anything is written.
pub fn parse(text: &str) -> Result<Document> {
    if text.len() > MAX_BYTES {
        bail!("the export is larger than {} MiB", MAX_BYTES >> 20);
    }
    // A byte-order mark some editors add is not part of the document.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value = crate::yaml::parse(text).map_err(|e| match e.line {
        Some(line) => anyhow!("line {line}: {e}"),
        None => anyhow!("{e}"),
    })?;
    let reads = READS.map(|v| v.to_string()).join(" and ");
    match value.get("version") {
        None => bail!("not a git-ultraplan export: it has no 'version'"),
        Some(v) => match v.as_u64() {
            Some(v) if READS.contains(&(v as u32)) && v <= u64::from(u32::MAX) => {}
            Some(v) => bail!("export version {v} is not one this git-ultraplan reads (it reads versions {reads})"),
            None => bail!(
                "'version' is {}, not a version number (this git-ultraplan reads versions {reads})",
                serde_yaml::to_string(v).unwrap_or_default().trim()
            ),
        },
    }
    if !text.is_empty() && !text.ends_with('\n') {
        bail!("the export ends in the middle of a line: it was cut short (export it again)");
    }
    // Read again from the text, so an error names the field and its line.
    let mut doc: Document = crate::yaml::parse_as(text)?;
    expand(&mut doc)?;
    check(&doc)?;
    Ok(doc)
}

/// Version 2's short forms written out: each delta as the text it stands
/// for (in `blobs`, checked against its id with the others), a note that
/// names a file as that file's text, an author given by `at` as the commit
/// before's with that time, a change `<id>` as `100644 <id>`.
fn expand(doc: &mut Document) -> Result<()> {
    let deltas = std::mem::take(&mut doc.deltas);
    let mut parsed: HashMap<&str, (&str, &str)> = HashMap::new();
    for (id, delta) in &deltas {
        let (base, ops) = delta
            .split_once(' ')
            .ok_or_else(|| anyhow!("file {id} is not '<id> <changes>'"))?;
        parsed.insert(id.as_str(), (base, ops));
    }
    for id in deltas.keys() {
        // The chain of deltas down to a file held whole, then up again.
        let mut chain = Vec::new();
        let mut at = id.as_str();
        while !doc.blobs.contains_key(at) {
            let Some((base, _)) = parsed.get(at) else {
                bail!("file {id} is a change of file {at}, which the export does not hold (cut short?)");
            };
            if chain.len() > deltas.len() {
                bail!("file {id} is a change of itself");
            }
            chain.push(at);
            at = base;
        }
        for link in chain.into_iter().rev() {
            let (base, ops) = parsed[link];
            let text = crate::ultraplan::records::delta::apply(&doc.blobs[base], ops)
                .with_context(|| format!("file {link}"))?;
            doc.blobs.insert(link.to_owned(), text);
        }
    }
    for plan in &mut doc.plans {
        for note in &mut plan.notes {
            if let Some(blob) = note.blob.take() {
                note.note = doc.blobs.get(&blob).cloned().ok_or_else(|| {
                    anyhow!(
                        "the note of {} names file {blob}, which the export does not hold",
                        note.commit
                    )
                })?;
            }
        }
        for state in &mut plan.states {
            let mut last: Option<AuthorDoc> = None;
            for (k, commit) in state.commits.iter_mut().enumerate() {
                if let Some(time) = commit.at.take() {
                    let mut author = last.clone().ok_or_else(|| {
                        anyhow!(
                            "plan '{}', state '{}', commit {}: 'at' without an author before it",
                            plan.slug,
                            state.name,
                            k + 1
                        )
                    })?;
                    author.time = time;
                    commit.author = author;
                }
                last = Some(commit.author.clone());
                for change in commit.changes.values_mut().flatten() {
                    if !change.contains(' ') {
                        *change = format!("100644 {change}");
                    }
                }
            }
        }
    }
    Ok(())
}

/// Everything an import would write, checked before it writes: authors git
/// accepts (`git fsck --strict` clean), paths inside a state, object ids,
/// the files each commit names present and whole, notes that are whole
/// records.
fn check(doc: &Document) -> Result<()> {
    for (id, text) in &doc.blobs {
        let want = oid(id, "file")?;
        if !doc.redacted.contains(id) && crate::git::blob_id(text.as_bytes()) != want {
            bail!("file {id} does not hold what its id says: the export was changed or cut short");
        }
    }
    for (id, hex) in &doc.binary {
        let bytes = decode_hex(hex).ok_or_else(|| anyhow!("file {id} holds hex that does not decode"))?;
        if crate::git::blob_id(&bytes) != oid(id, "file")? {
            bail!("file {id} does not hold what its id says: the export was changed or cut short");
        }
    }
    for plan in &doc.plans {
        for state in &plan.states {
            for (k, commit) in state.commits.iter().enumerate() {
                let at = || format!("plan '{}', state '{}', commit {}", plan.slug, state.name, k + 1);
                check_signature(&commit.author, "author").with_context(at)?;
                if let Some(c) = &commit.committer {
                    check_signature(c, "committer").with_context(at)?;
                }
                if commit.message.contains('\0') {
                    bail!("{}: the message holds a NUL byte, which git refuses", at());
                }
                for (path, change) in &commit.changes {
                    clean_path(path).with_context(at)?;
                    if let Some(change) = change {
                        let (mode, id) = parse_change(change).with_context(|| format!("{}: '{path}'", at()))?;
                        let known = doc.blobs.contains_key(id) || doc.binary.contains_key(id);
                        if matches!(mode, "100644" | "100755" | "120000") && !known {
                            bail!(
                                "{}: '{path}' names file {id}, which the export does not hold (cut short?)",
                                at()
                            );
                        }
                    }
                }
            }
        }
        for note in &plan.notes {
            let whole = crate::ultraplan::state::note_stream::documents(&note.note).is_ok_and(|docs| {
                !docs.is_empty()
                    && docs
                        .iter()
                        .all(|d| d.get("result").is_some_and(|r| r.get("metadata").is_some()))
            });
            if !whole {
                bail!(
                    "plan '{}': the note of {} is not a whole result record (the export was cut short or changed)",
                    plan.slug,
                    note.commit
                );
            }
        }
    }
    Ok(())
}

/// A signature git writes and `git fsck --strict` accepts.
fn check_signature(s: &AuthorDoc, what: &str) -> Result<()> {
    for (field, text) in [("name", &s.name), ("email", &s.email)] {
        if text.contains(['\0', '\n', '<', '>']) {
            bail!("the {what}'s {field} holds a character git refuses in a signature (NUL, newline, '<' or '>')");
        }
    }
    if s.time < 0 {
        bail!("the {what}'s time {} is before 1970, which git refuses", s.time);
    }
    // git writes offsets as ±HHMM: at most 99 hours 59 minutes.
    if s.offset.unsigned_abs() > 99 * 3600 + 59 * 60 {
        bail!(
            "the {what}'s time offset {} s is not one git can write (at most ±99:59)",
            s.offset
        );
    }
    Ok(())
}

/// `<mode> <id>` of a version-2 change.
pub(super) fn parse_change(change: &str) -> Result<(&str, &str)> {
    let (mode, id) = change
        .split_once(' ')
        .ok_or_else(|| anyhow!("'{change}' is not '<mode> <id>'"))?;
    if !matches!(mode, "100644" | "100755" | "120000" | "160000" | "040000") {
        bail!("'{mode}' is not a mode a state holds");
    }
    oid(id, "object")?;
    Ok((mode, id))
}

pub(super) fn clean_path(path: &str) -> Result<()> {
    let ok = !path.is_empty()
        && !path.starts_with('/')
        && path.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
        && crate::git::storable(path);
    if ok {
        Ok(())
    } else {
        bail!("'{path}' is not a path inside a state (relative, no '..', nothing git refuses)")
    }
}

pub(super) fn oid(text: &str, what: &str) -> Result<Oid> {
    text.parse().map_err(|_| anyhow!("{what} '{text}' is not an object id"))
}

/// The bytes a file given in hexadecimal stands for; `None` when it does
/// not decode.
pub(super) fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}
