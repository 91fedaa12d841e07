//! Merging a remote's notes into ours without ever dropping a side.
//!
//! A commit annotated on one side only takes that note; identical notes stay
//! one; two different notes on one commit become a YAML stream of both,
//! ordered by `logged_at` ([`note_stream::combine`]). A note one side edited
//! or removed since the two histories parted follows that side (a three-way
//! decision against their merge base), as for any other merge.
//!
//! Every note taken from the remote must read as YAML (a stream or one
//! document). One that does not is skipped and named in the report; the
//! rest are taken, in a commit on ours alone (theirs is not its parent, as
//! not all of theirs was taken: the next sync meets the skipped note again
//! and names it again), and ours are not pushed until the remote's note is
//! fixed where it was written — never dropped or papered over here.

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
    /// Commits whose remote note is not YAML, and why: skipped, the rest taken.
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
        out.taken = taken.len() - out.set_aside.len();
        if out.set_aside.is_empty() {
            out.new_head = write.then_some(theirs);
        } else if write {
            out.new_head = Some(take_readable(
                repo,
                &BTreeMap::new(),
                &taken,
                &out.set_aside,
                None,
                remote_name,
            )?);
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
        out.taken = taken.len() - out.set_aside.len();
        if out.set_aside.is_empty() {
            out.new_head = write.then_some(theirs);
        } else if write && out.taken > 0 {
            out.new_head = Some(take_readable(
                repo,
                &our_notes,
                &taken,
                &out.set_aside,
                Some(ours),
                remote_name,
            )?);
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
    // A skipped note: ours stands for that commit.
    for (commit, _) in &out.set_aside {
        match our_notes.get(commit) {
            Some(o) => merged.insert(*commit, *o),
            None => merged.remove(commit),
        };
    }
    out.taken = taken
        .iter()
        .filter(|(c, _)| !out.set_aside.iter().any(|(s, _)| s == c))
        .count()
        + out.streams.len();
    // With a note skipped, a merge that changes nothing of ours writes
    // nothing (the next sync meets the same remote again).
    let changes_ours = out.set_aside.is_empty() || merged != our_notes;
    if write && changes_ours {
        let (parents, message) = if out.set_aside.is_empty() {
            (
                vec![ours, theirs],
                format!("Notes merged by 'git ultraplan sync' from '{remote_name}'"),
            )
        } else {
            (vec![ours], skipped_message(remote_name, &out.set_aside))
        };
        out.new_head = Some(repo.write_notes_commit(&merged, &parents, &message)?);
    }
    Ok(out)
}

/// Ours plus the notes of `taken` that are not set aside, as a notes commit
/// on `ours` alone.
fn take_readable(
    repo: &Repo,
    our_notes: &BTreeMap<Oid, Oid>,
    taken: &[(Oid, Oid)],
    set_aside: &[(Oid, String)],
    ours: Option<Oid>,
    remote_name: &str,
) -> Result<Oid> {
    let mut merged = our_notes.clone();
    for (commit, blob) in taken {
        if !set_aside.iter().any(|(c, _)| c == commit) {
            merged.insert(*commit, *blob);
        }
    }
    let parents: Vec<Oid> = ours.into_iter().collect();
    repo.write_notes_commit(&merged, &parents, &skipped_message(remote_name, set_aside))
}

fn skipped_message(remote_name: &str, set_aside: &[(Oid, String)]) -> String {
    let commits: Vec<String> = set_aside.iter().map(|(c, _)| c.to_string()).collect();
    format!(
        "Notes taken by 'git ultraplan sync' from '{remote_name}', skipping the notes on {} (not YAML)",
        commits.join(", ")
    )
}

/// The notes among `taken` that do not read as YAML, with the reason.
fn unreadable(repo: &Repo, taken: &[(Oid, Oid)]) -> Result<Vec<(Oid, String)>> {
    Ok(super::check_notes(repo, taken)?
        .into_iter()
        .zip(taken)
        .filter_map(|(why, (commit, _))| why.map(|why| (*commit, why)))
        .collect())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::git::Workspace;

    /// The git room's test runner, its output trimmed.
    fn git(dir: &Path, args: &[&str]) -> String {
        crate::git::testing::git(dir, args).trim().to_owned()
    }

    fn doc(at: &str, status: &str) -> String {
        format!("logged_at: {at}\nresult:\n  status: {status}\n")
    }

    #[test]
    fn each_side_keeps_what_only_it_changed_and_both_changes_become_a_stream() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().canonicalize().unwrap();
        git(&path, &["init", "-q", "-b", "main"]);
        let mut commits = Vec::new();
        for i in 0..5 {
            git(&path, &["commit", "-q", "--allow-empty", "-m", &format!("c{i}")]);
            commits.push(git(&path, &["rev-parse", "HEAD"]));
        }
        let note = |r: &str, c: &str, text: &str| git(&path, &["notes", "--ref", r, "add", "-f", "-m", text, c]);
        // The common base: notes on c0, c1, c2.
        for c in &commits[..3] {
            note("ours", c, &doc("2026-01-01T00:00:00Z", "success"));
        }
        git(&path, &["update-ref", "refs/notes/theirs", "refs/notes/ours"]);
        // Ours edits c0 and removes c1; theirs adds c3, and both edit c2.
        note("ours", &commits[0], &doc("2026-01-02T00:00:00Z", "success"));
        git(&path, &["notes", "--ref", "ours", "remove", &commits[1]]);
        note("ours", &commits[2], &doc("2026-01-03T00:00:00Z", "failure"));
        note("theirs", &commits[3], &doc("2026-01-04T00:00:00Z", "success"));
        note("theirs", &commits[2], &doc("2026-01-02T12:00:00Z", "success"));

        let ws = Workspace::discover_in(&path).unwrap();
        let repo = ws.repo().unwrap();
        let ours = repo.read_ref("refs/notes/ours").unwrap();
        let theirs = repo.read_ref("refs/notes/theirs").unwrap();
        let dry = merge(repo, ours, theirs, "origin", false).unwrap();
        assert_eq!(dry.relation, Relation::Merged);
        assert!(dry.new_head.is_none());
        let merged = merge(repo, ours, theirs, "origin", true).unwrap();
        assert_eq!(merged.taken, 2);
        assert_eq!(merged.streams.len(), 1);
        let head = merged.new_head.unwrap();
        let info = repo.commit_info(head).unwrap();
        assert_eq!(info.parents, vec![ours.unwrap(), theirs.unwrap()]);
        let text = |c: &str| -> Option<String> {
            let id = Oid::from_hex(c.as_bytes()).unwrap();
            repo.notes_at(head)
                .unwrap()
                .get(&id)
                .map(|b| String::from_utf8(repo.read_blob(*b).unwrap()).unwrap())
        };
        assert_eq!(text(&commits[0]).unwrap(), doc("2026-01-02T00:00:00Z", "success"));
        assert_eq!(text(&commits[1]), None);
        assert_eq!(text(&commits[3]).unwrap(), doc("2026-01-04T00:00:00Z", "success"));
        let stream = note_stream::documents(&text(&commits[2]).unwrap()).unwrap();
        assert_eq!(stream.len(), 2);
        assert_eq!(stream[0]["result"]["status"], "success");
        assert_eq!(stream[1]["result"]["status"], "failure");
        // Git reads the merged tree like its own.
        git(&path, &["update-ref", "refs/notes/ultraplan", &head.to_string()]);
        assert!(git(&path, &["notes", "--ref=ultraplan", "show", &commits[3]]).contains("2026-01-04"));
        assert_eq!(git(&path, &["notes", "--ref=ultraplan", "list"]).lines().count(), 3);
        // Merging the result with either side again takes nothing.
        let again = merge(repo, Some(head), theirs, "origin", true).unwrap();
        assert_eq!(again.relation, Relation::Ahead);

        // A note of theirs that is not YAML: skipped and named, the rest taken.
        note("theirs", &commits[4], "key: [unclosed");
        let theirs = repo.read_ref("refs/notes/theirs").unwrap();
        let skipped = merge(repo, ours, theirs, "origin", true).unwrap();
        assert_eq!(skipped.taken, 2);
        assert_eq!(skipped.set_aside.len(), 1);
        assert_eq!(skipped.set_aside[0].0.to_string(), commits[4]);
        let head = skipped.new_head.unwrap();
        assert_eq!(repo.commit_info(head).unwrap().parents, vec![ours.unwrap()]);
        let kept = repo.notes_at(head).unwrap();
        assert!(kept.contains_key(&Oid::from_hex(commits[3].as_bytes()).unwrap()));
        assert!(!kept.contains_key(&Oid::from_hex(commits[4].as_bytes()).unwrap()));
        // Again: nothing new is taken, the same note is named.
        let again = merge(repo, Some(head), theirs, "origin", true).unwrap();
        assert_eq!(again.new_head, None);
        assert_eq!(again.set_aside.len(), 1);
        assert_eq!(again.set_aside[0].0.to_string(), commits[4]);
    }
}
