//! Reading an export back (DESIGN §16.2), version 2 or 1: the whole document
//! is checked first (its version, every author, time, path and object id,
//! every file a commit names, every note), then the run states are rebuilt
//! commit by commit and the notes added, all in one reference transaction at
//! the end — an import that fails anywhere writes no reference.
//!
//! * A state ref that does not exist is created. One that exists with the
//!   same content (the tips' trees agree) is left alone; one with other
//!   content is kept, and the imported state goes beside it under
//!   `refs/ultraplan/<slug>/imported/<name>`, unless `force` replaces it.
//! * A note on a commit this repository lacks is skipped and named; a
//!   different note already on a commit is kept unless `force`.
//! * A kept tree whose base commit is missing here, or that does not come
//!   out as the id the export names, is left out of its state and named.
//!
//! Everything read passes the one redaction function before it is stored.

mod read;

use read::{clean_path, decode_hex, oid, parse_change};
pub use read::{parse, MAX_BYTES};

use std::collections::{BTreeMap, HashMap};

use anyhow::{anyhow, bail, Result};

use super::exchange::{AuthorDoc, Document, PlanDoc, StateDoc, TreeDoc};
use crate::git::{Expect, Oid, RefUpdate, Repo, Signature, TreeEdit};
use crate::ultraplan::state::NOTES_REF;

/// What an import did.
#[derive(Debug, Default)]
pub struct Imported {
    /// State refs created or replaced, and where.
    pub states: Vec<String>,
    /// State refs already there with the same content.
    pub unchanged: Vec<String>,
    pub notes_added: usize,
    /// Things left out, each with why.
    pub skipped: Vec<String>,
}

fn redacted(text: &str) -> String {
    crate::redact::redact(text).into_owned()
}

/// Rebuilds a kept tree; `None` (with why) when it cannot come out as exported.
fn rebuild_tree(repo: &Repo, doc: &TreeDoc) -> Result<std::result::Result<Oid, String>> {
    let want = oid(&doc.id, "tree")?;
    let base_tree = match &doc.base {
        Some(b) => {
            let commit = oid(b, "base commit")?;
            if !repo.has_object(commit) {
                return Ok(Err(format!("its base commit {b} is not in this repository")));
            }
            repo.commit_tree(commit)?
        }
        None => repo.empty_tree(),
    };
    let mut edits = Vec::new();
    for (path, file) in &doc.files {
        clean_path(path)?;
        let path = path.clone();
        edits.push(match file {
            None => TreeEdit::Remove { path },
            Some(f) => {
                let bytes = if f.hex {
                    decode_hex(&f.text).ok_or_else(|| anyhow!("'{path}' holds hex that does not decode"))?
                } else {
                    redacted(&f.text).into_bytes()
                };
                let id = repo.write_blob(bytes)?;
                match f.kind.as_str() {
                    "file" => TreeEdit::Blob {
                        path,
                        id,
                        executable: false,
                    },
                    "executable" => TreeEdit::Blob {
                        path,
                        id,
                        executable: true,
                    },
                    "link" => TreeEdit::Link { path, id },
                    other => bail!("'{path}' has an unknown kind '{other}'"),
                }
            }
        });
    }
    edits.sort_by_key(|e| !matches!(e, TreeEdit::Remove { .. }));
    let tree = repo.edit_tree(Some(base_tree), &edits)?;
    Ok(if tree == want {
        Ok(tree)
    } else {
        Err("it does not come out as the tree exported".into())
    })
}

/// A plan, or a state of one, that the export lists twice: its references
/// would be written twice by one update. Refused before anything is written.
fn refuse_twice(doc: &Document) -> Result<()> {
    let mut plans: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, plan) in doc.plans.iter().enumerate() {
        if let Some(first) = plans.insert(plan.slug.as_str(), i) {
            bail!(
                "the export lists plan '{}' twice (plans {} and {}); nothing was imported",
                plan.slug,
                first + 1,
                i + 1
            );
        }
        let mut states = std::collections::HashSet::new();
        for state in &plan.states {
            if !states.insert(state.name.as_str()) {
                bail!(
                    "the export lists state '{}' of plan '{}' twice; nothing was imported",
                    state.name,
                    plan.slug
                );
            }
        }
    }
    Ok(())
}

/// Imports `doc` into `repo`.
pub fn import(repo: &Repo, doc: &Document, force: bool) -> Result<Imported> {
    let mut out = Imported::default();
    let mut updates = Vec::new();
    let mut notes = repo.notes_map(NOTES_REF)?;
    let notes_before = notes.clone();
    let mut blobs = HashMap::new();
    refuse_twice(doc)?;
    for plan in &doc.plans {
        if crate::git::component_problem(&plan.slug).is_some() || plan.slug.contains('/') {
            bail!("plan slug '{}' is not a name a plan's state can have", plan.slug);
        }
        for state in &plan.states {
            let valid_name = state.name == "run"
                || state
                    .name
                    .strip_prefix("session-")
                    .is_some_and(|n| n.parse::<u32>().is_ok());
            if !valid_name {
                bail!(
                    "plan '{}': state '{}' is neither 'run' nor 'session-<N>'",
                    plan.slug,
                    state.name
                );
            }
            let Some((tip, tip_tree)) = rebuild_chain(repo, doc, plan, state, &mut blobs, &mut out)? else {
                continue;
            };
            updates.extend(state_update(repo, plan, state, tip, tip_tree, force, &mut out)?);
        }
        import_notes(repo, plan, &mut notes, force, &mut out)?;
    }
    if notes != notes_before {
        let old = repo.read_ref(NOTES_REF)?;
        let commit = repo.write_notes_commit(
            &notes,
            &old.into_iter().collect::<Vec<_>>(),
            "Notes added by 'git ultraplan import'",
        )?;
        updates.push(RefUpdate {
            name: NOTES_REF.into(),
            new: Some(commit),
            expect: old.map_or(Expect::Absent, Expect::Value),
        });
    }
    repo.update_refs(&updates, "ultraplan: import")?;
    Ok(out)
}

/// The state's commits written again here (their files redacted), oldest
/// first: the tip and its tree, or `None` for a state without commits.
fn rebuild_chain(
    repo: &Repo,
    doc: &Document,
    plan: &PlanDoc,
    state: &StateDoc,
    blobs: &mut HashMap<String, Oid>,
    out: &mut Imported,
) -> Result<Option<(Oid, Oid)>> {
    // Each commit's tree is the one before with this commit's changes: the
    // edits stay proportional to what a commit changed, not to the chain.
    let mut tip: Option<Oid> = None;
    let mut tip_tree = repo.empty_tree();
    for (k, commit) in state.commits.iter().enumerate() {
        let at = || format!("{}/{} commit {}", plan.slug, state.name, k + 1);
        let mut edits = Vec::new();
        for path in &commit.removed {
            clean_path(path)?;
            edits.push(TreeEdit::Remove { path: path.clone() });
        }
        for (path, change) in &commit.changes {
            let Some(change) = change else {
                edits.push(TreeEdit::Remove { path: path.clone() });
                continue;
            };
            let (mode, id) = parse_change(change)?;
            let path = path.clone();
            edits.push(match mode {
                "160000" => TreeEdit::Commit {
                    path,
                    id: oid(id, "commit")?,
                },
                "040000" => {
                    let id = oid(id, "tree")?;
                    if !repo.has_object(id) {
                        out.skipped
                            .push(format!("{}: tree '{path}' left out: it was not rebuilt here", at()));
                        continue;
                    }
                    TreeEdit::Tree { path, id }
                }
                _ => {
                    let blob = match blobs.get(id) {
                        Some(b) => *b,
                        None => {
                            let bytes = match (doc.blobs.get(id), doc.binary.get(id)) {
                                (Some(text), _) => super::export::redact_as(&path, text).into_bytes(),
                                (None, Some(hex)) => decode_hex(hex).unwrap_or_default(),
                                (None, None) => bail!("{}: file {id} is not in the export", at()),
                            };
                            let b = repo.write_blob(bytes)?;
                            blobs.insert(id.to_owned(), b);
                            b
                        }
                    };
                    match mode {
                        "120000" => TreeEdit::Link { path, id: blob },
                        m => TreeEdit::Blob {
                            path,
                            id: blob,
                            executable: m == "100755",
                        },
                    }
                }
            });
        }
        for (path, text) in &commit.files {
            clean_path(path)?;
            let id = repo.write_blob(redacted(text).as_bytes())?;
            edits.push(TreeEdit::Blob {
                path: path.clone(),
                id,
                executable: false,
            });
        }
        for (path, tree) in &commit.trees {
            clean_path(path)?;
            match rebuild_tree(repo, tree)? {
                Ok(id) => edits.push(TreeEdit::Tree { path: path.clone(), id }),
                Err(why) => {
                    edits.push(TreeEdit::Remove { path: path.clone() });
                    out.skipped.push(format!("{}: tree '{path}' left out: {why}", at()));
                }
            }
        }
        // Removals first: a path may turn from a file into a folder.
        edits.sort_by_key(|e| !matches!(e, TreeEdit::Remove { .. }));
        tip_tree = repo.edit_tree(Some(tip_tree), &edits)?;
        let mut parents: Vec<Oid> = tip.into_iter().collect();
        for kept in &commit.kept {
            let id = oid(kept, "kept commit")?;
            if repo.has_object(id) {
                parents.push(id);
            } else {
                out.skipped
                    .push(format!("{}: kept commit {kept} is not in this repository", at()));
            }
        }
        let sign = |a: &AuthorDoc| Signature {
            name: a.name.clone(),
            email: a.email.clone(),
            time: a.time,
            offset: a.offset,
        };
        let message = redacted(&commit.message);
        // Version 2 leaves out a committer who is the author; version 1
        // names none (the commit is this repository's, made now).
        let committer = match (&commit.committer, doc.version) {
            (Some(c), _) => Some(sign(c)),
            (None, 1) => None,
            (None, _) => Some(sign(&commit.author)),
        };
        tip = Some(match committer {
            Some(c) => repo.write_commit_exactly(tip_tree, &parents, &message, &sign(&commit.author), &c)?,
            None => repo.write_commit_as(tip_tree, &parents, &message, &sign(&commit.author))?,
        });
    }
    Ok(tip.map(|tip| (tip, tip_tree)))
}

/// Where the rebuilt state goes: its own reference when new, nothing when the
/// same, over ours with `--force`, else beside ours under `imported/`.
fn state_update(
    repo: &Repo,
    plan: &PlanDoc,
    state: &StateDoc,
    tip: Oid,
    tip_tree: Oid,
    force: bool,
    out: &mut Imported,
) -> Result<Option<RefUpdate>> {
    let name = format!("refs/ultraplan/{}/{}", plan.slug, state.name);
    let existing = repo.read_ref(&name)?;
    let (target, expect) = match existing {
        None => (name, Expect::Absent),
        Some(old) if repo.commit_tree(old)? == tip_tree => {
            out.unchanged.push(name);
            return Ok(None);
        }
        Some(old) if force => (name, Expect::Value(old)),
        Some(_) => {
            let beside = format!("refs/ultraplan/{}/imported/{}", plan.slug, state.name);
            let expect = repo.read_ref(&beside)?.map_or(Expect::Absent, Expect::Value);
            (beside, expect)
        }
    };
    out.states.push(target.clone());
    Ok(Some(RefUpdate {
        name: target,
        new: Some(tip),
        expect,
    }))
}

/// The plan's notes, onto commits this repository has; a different note
/// already there is kept unless `--force`.
fn import_notes(
    repo: &Repo,
    plan: &PlanDoc,
    notes: &mut BTreeMap<Oid, Oid>,
    force: bool,
    out: &mut Imported,
) -> Result<()> {
    for note in &plan.notes {
        let commit = oid(&note.commit, "noted commit")?;
        if !repo.has_object(commit) {
            out.skipped
                .push(format!("the note of {} (a commit this repository lacks)", note.commit));
            continue;
        }
        let blob = repo.write_blob(redacted(&note.note).as_bytes())?;
        match notes.get(&commit) {
            Some(existing) if *existing == blob => {}
            Some(_) if !force => out.skipped.push(format!(
                "the note of {}: a different note is there (kept; --force replaces it)",
                note.commit
            )),
            _ => {
                notes.insert(commit, blob);
                out.notes_added += 1;
            }
        }
    }
    Ok(())
}
