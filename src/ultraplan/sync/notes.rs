//! Merging a remote's notes into ours without ever dropping a side.
//!
//! A commit annotated on one side only takes that note; identical notes stay
//! one; two different notes on one commit become a YAML stream of both,
//! ordered by `logged_at` ([`note_stream::combine`]). A note one side edited
//! or removed since the two histories parted follows that side (a three-way
//! decision against their merge base), as for any other merge.
//!
//! Every note taken from the remote must read as YAML (a stream or one
//! document). When one does not, nothing is taken at all — ours stay as they
//! were and are not pushed — and the report names the commits: a broken note
//! is fixed where it was written, never dropped or papered over here.

use std::collections::BTreeMap;

use anyhow::Result;

use crate::git::{Oid, Repo};
use crate::redact::redact;
use crate::ultraplan::state::note_stream;

/// How the two notes histories relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Relation {
    /// The remote has no notes.
    NothingThere,
    Same,
    /// Ours contains theirs: nothing to take, ours to push.
    Ahead,
    /// Theirs contains ours: ours moves to theirs.
    FastForward,
    /// Both added notes: a merge commit with both as parents.
    Merged,
}

/// What merging decided (and, unless it was a dry run, wrote).
#[derive(Debug)]
pub struct NotesMerge {
    pub relation: Relation,
    /// The notes commit ours should point at, when it moves.
    pub new_head: Option<Oid>,
    /// Notes taken from the remote (new, or changed there).
    pub taken: usize,
    /// Commits whose two different notes became one stream.
    pub streams: Vec<Oid>,
    /// Commits whose remote note is not YAML, and why; when any, nothing was taken.
    pub set_aside: Vec<(Oid, String)>,
}

/// Merges `remote`'s notes commit into `local`'s. With `write` false
/// (`--dry-run`) nothing is written and `new_head` stays `None`.
pub fn merge(
    repo: &Repo,
    local: Option<Oid>,
    remote: Option<Oid>,
    remote_name: &str,
    write: bool,
) -> Result<NotesMerge> {
    let mut out = NotesMerge {
        relation: Relation::NothingThere,
        new_head: None,
        taken: 0,
        streams: Vec::new(),
        set_aside: Vec::new(),
    };
    let Some(theirs) = remote else {
        return Ok(out);
    };
    let Some(ours) = local else {
        out.relation = Relation::FastForward;
        let taken: Vec<(Oid, Oid)> = repo.notes_at(theirs)?.into_iter().collect();
        out.set_aside = unreadable(repo, &taken)?;
        if out.set_aside.is_empty() {
            out.taken = taken.len();
            out.new_head = write.then_some(theirs);
        }
        return Ok(out);
    };
    if ours == theirs {
        out.relation = Relation::Same;
        return Ok(out);
    }
    if repo.is_ancestor(theirs, ours)? {
        out.relation = Relation::Ahead;
        return Ok(out);
    }
    let our_notes = repo.notes_at(ours)?;
    let their_notes = repo.notes_at(theirs)?;
    if repo.is_ancestor(ours, theirs)? {
        out.relation = Relation::FastForward;
        let taken: Vec<(Oid, Oid)> = their_notes
            .iter()
            .filter(|(commit, blob)| our_notes.get(*commit) != Some(*blob))
            .map(|(c, b)| (*c, *b))
            .collect();
        out.set_aside = unreadable(repo, &taken)?;
        if out.set_aside.is_empty() {
            out.taken = taken.len();
            out.new_head = write.then_some(theirs);
        }
        return Ok(out);
    }
    out.relation = Relation::Merged;
    let base_notes = match repo.merge_base(ours, theirs)? {
        Some(base) => repo.notes_at(base)?,
        None => BTreeMap::new(),
    };
    let mut merged = our_notes.clone();
    let mut taken = Vec::new();
    let commits: std::collections::BTreeSet<Oid> = our_notes.keys().chain(their_notes.keys()).copied().collect();
    for commit in commits {
        let (o, t, b) = (
            our_notes.get(&commit),
            their_notes.get(&commit),
            base_notes.get(&commit),
        );
        match (o, t) {
            (Some(o), Some(t)) if o == t => {}
            // Only we changed it (or only we have it): ours stands.
            (_, t) if t == b => {}
            // Only they changed it (added, edited or removed): theirs.
            (o, Some(t)) if o == b => {
                merged.insert(commit, *t);
                taken.push((commit, *t));
            }
            (o, None) if o == b => {
                merged.remove(&commit);
            }
            (None, Some(t)) => {
                merged.insert(commit, *t);
                taken.push((commit, *t));
            }
            (Some(_), None) => {}
            (Some(o), Some(t)) => {
                let ours_text = String::from_utf8_lossy(&repo.read_blob(*o)?).into_owned();
                let theirs_text = String::from_utf8_lossy(&repo.read_blob(*t)?).into_owned();
                match note_stream::combine(&ours_text, &theirs_text) {
                    Ok(stream) => {
                        if write {
                            merged.insert(commit, repo.write_blob(redact(&stream).as_bytes())?);
                        }
                        out.streams.push(commit);
                    }
                    Err(e) => out.set_aside.push((commit, e.to_string())),
                }
            }
            (None, None) => {}
        }
    }
    out.set_aside.extend(unreadable(repo, &taken)?);
    if !out.set_aside.is_empty() {
        out.streams.clear();
        return Ok(out);
    }
    out.taken = taken.len() + out.streams.len();
    if write {
        let message = format!("Notes merged by 'git ultraplan sync' from '{remote_name}'");
        out.new_head = Some(repo.write_notes_commit(&merged, &[ours, theirs], &message)?);
    }
    Ok(out)
}

/// The notes among `taken` that do not read as YAML, with the reason.
fn unreadable(repo: &Repo, taken: &[(Oid, Oid)]) -> Result<Vec<(Oid, String)>> {
    let mut out = Vec::new();
    for (commit, blob) in taken {
        let text = String::from_utf8_lossy(&repo.read_blob(*blob)?).into_owned();
        if let Err(e) = note_stream::documents(&text) {
            out.push((*commit, e.to_string()));
        }
    }
    Ok(out)
}
