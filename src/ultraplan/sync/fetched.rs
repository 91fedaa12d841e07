//! Reading what sync brought: run states kept apart, a remote's copy of a
//! note, and many notes at once (for sync's checks and the gate).

use anyhow::{anyhow, Result};
use serde::Serialize;

use super::names;
use crate::git::{Oid, Repo};
use crate::ultraplan::state::{note_stream, RunState, NOTES_REF};

/// Why each note blob of `notes` (`(commit, blob)` pairs) does not read as
/// YAML, in order (`None` when it reads). Sync checks what it takes with
/// [`note_stream::check`], which refuses exactly what the readers refuse
/// (duplicate keys included) without building the values.
pub(crate) fn check_notes(repo: &Repo, notes: &[(Oid, Oid)]) -> Result<Vec<Option<String>>> {
    on_all_cores(repo, notes, |text| {
        note_stream::check(text).err().map(|e| e.to_string())
    })
}

/// The documents of each note blob of `notes` (`(commit, blob)` pairs), in
/// order, or why one does not read as YAML.
pub(crate) fn read_notes(repo: &Repo, notes: &[(Oid, Oid)]) -> Result<Vec<ParsedNote>> {
    on_all_cores(repo, notes, |text| {
        note_stream::documents(text).map_err(|e| e.to_string())
    })
}

/// A note's documents, or why it is not YAML.
pub(crate) type ParsedNote = std::result::Result<Vec<serde_yaml::Value>, String>;

/// `read` applied to the text of each blob of `notes`, in order. The blobs
/// are read here, one after another (the object database is quickest warm
/// and on one thread); parsing is most of the work of a large sync or gate,
/// so big batches of texts are then parsed on every core.
fn on_all_cores<T: Send>(repo: &Repo, notes: &[(Oid, Oid)], read: impl Fn(&str) -> T + Sync) -> Result<Vec<T>> {
    let texts: Vec<String> = notes
        .iter()
        .map(|(_, blob)| Ok(String::from_utf8_lossy(&repo.read_blob(*blob)?).into_owned()))
        .collect::<Result<_>>()?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
    if texts.len() < 200 || threads < 2 {
        return Ok(texts.iter().map(|t| read(t)).collect());
    }
    let read = &read;
    let parts: Vec<Vec<T>> = std::thread::scope(|scope| {
        let handles: Vec<_> = texts
            .chunks(texts.len().div_ceil(threads))
            .map(|chunk| scope.spawn(move || chunk.iter().map(|t| read(t)).collect::<Vec<T>>()))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| anyhow!("a note reader stopped unexpectedly")))
            .collect::<Result<_>>()
    })?;
    Ok(parts.into_iter().flatten().collect())
}

/// A run state whose local and remote histories diverged, as left by `sync`.
#[derive(Clone, Debug, Serialize)]
pub struct Diverged {
    /// Our state reference.
    pub local: String,
    /// The remote's copy, kept beside it.
    pub remote_copy: String,
    pub remote: String,
}

/// Every remote copy of a run state that neither equals nor is contained in ours.
pub fn diverged(repo: &Repo) -> Result<Vec<Diverged>> {
    let mut out = Vec::new();
    for (tracking, theirs) in repo.refs_with_prefix("refs/ultraplan-remotes/")? {
        let Some(rest) = tracking.strip_prefix("refs/ultraplan-remotes/") else {
            continue;
        };
        let Some((remote, name)) = rest.split_once("/ultraplan/") else {
            continue;
        };
        let local = format!("refs/ultraplan/{name}");
        if names::kind(&local) != names::Kind::State {
            continue;
        }
        let Some(ours) = repo.read_ref(&local)? else { continue };
        if ours != theirs && !repo.is_ancestor(theirs, ours)? && !repo.is_ancestor(ours, theirs)? {
            out.push(Diverged {
                local,
                remote_copy: tracking.clone(),
                remote: remote.to_owned(),
            });
        }
    }
    Ok(out)
}

/// The diverged states of the plans `slugs`, each with the remote's state
/// as it reads (a copy that does not read is left out).
pub fn diverged_states<'r>(repo: &'r Repo, slugs: &[String]) -> Result<Vec<(Diverged, RunState<'r>)>> {
    Ok(diverged(repo)?
        .into_iter()
        .filter(|d| {
            slugs
                .iter()
                .any(|s| d.local.starts_with(&format!("refs/ultraplan/{s}/")))
        })
        .filter_map(|d| match RunState::load(repo, &d.remote_copy) {
            Ok(Some(state)) => Some((d, state)),
            _ => None,
        })
        .collect())
}

/// The hint that says how to pick one of two diverged states.
pub fn pick_hint(d: &Diverged) -> String {
    format!(
        "both are kept; to adopt '{remote}''s: git update-ref {local} {copy}\nto publish yours over it instead: git push --force-with-lease={local}:$(git rev-parse {copy}) {remote} {local}",
        remote = d.remote,
        local = d.local,
        copy = d.remote_copy
    )
}

/// Reads the note of `commit`, ours first, else any remote's copy fetched
/// by `sync` or by a plain `git fetch` after `sync --setup`.
pub fn find_note(repo: &Repo, commit: Oid) -> Result<Option<String>> {
    if let Some(note) = repo.note(NOTES_REF, commit)? {
        return Ok(Some(note));
    }
    for (name, _) in repo.refs_with_prefix("refs/notes/remotes/")? {
        if name.ends_with("/ultraplan") {
            if let Some(note) = repo.note(&name, commit)? {
                return Ok(Some(note));
            }
        }
    }
    Ok(None)
}
