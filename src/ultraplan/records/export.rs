//! Writing the export ([`super::exchange`], version 2) as a stream: the
//! header, then each plan — its runs and notes, then its state chains one
//! commit at a time — then every file the commits named, once. What is held
//! in memory is one plan's runs and the ids of the files still to write, not
//! the document.

mod files;
mod v1;

pub use files::redact_as;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Write;

use anyhow::{anyhow, Result};
use serde::Serialize;

use super::exchange::{AttemptDoc, AuthorDoc, CommitDoc, NoteDoc, RunDoc, VERSION};
use crate::git::{EntryKind, Oid, Repo};
use crate::ultraplan::result::Usage;
use crate::ultraplan::state::index::{self, Depth};
use crate::ultraplan::state::layout::{self, Layout};
use crate::ultraplan::state::{catalog, NOTES_REF};

fn redacted(text: &str) -> String {
    crate::redact::redact(text).into_owned()
}

/// Writes `value` (serialized as YAML) indented by `indent` spaces, the first
/// line after `- ` when `item`.
fn emit(out: &mut dyn Write, indent: usize, item: bool, value: &impl Serialize) -> Result<()> {
    let text = serde_yaml::to_string(value)?;
    let pad = " ".repeat(indent);
    for (i, line) in text.lines().enumerate() {
        let lead = match (item, i) {
            (true, 0) => format!("{pad}- "),
            (true, _) => format!("{pad}  "),
            (false, _) => pad.clone(),
        };
        if line.is_empty() {
            writeln!(out)?;
        } else {
            writeln!(out, "{lead}{line}")?;
        }
    }
    Ok(())
}

/// One key and its value, as a mapping of one entry.
fn field(out: &mut dyn Write, indent: usize, key: &str, value: &impl Serialize) -> Result<()> {
    emit(out, indent, false, &BTreeMap::from([(key, value)]))
}

/// What the export has written so far: trees (by id, later named, not
/// written again) and the files still to write.
#[derive(Default)]
struct Written {
    /// Trees an earlier commit wrote (an import has them when it reads a
    /// later commit; a tree written twice in one commit is written out twice).
    trees: HashSet<Oid>,
    /// Trees the commit being written writes.
    new_trees: HashSet<Oid>,
    /// Blob id → the first path it was named at (how it is redacted).
    blobs: BTreeMap<Oid, String>,
    /// Blob id → the file named before it that it may be written as a
    /// change of: the version at its path before, or the last file of its
    /// name (the record of the step before).
    bases: HashMap<Oid, Oid>,
    /// File name → the last blob named with it.
    last_by_name: HashMap<String, Oid>,
}

impl Written {
    /// Names blob `id` at `path`, which held `was` before.
    fn blob(&mut self, id: Oid, path: &str, was: Option<Oid>) {
        let name = path.rsplit('/').next().unwrap_or(path);
        if !self.blobs.contains_key(&id) {
            let base = was
                .filter(|w| self.blobs.contains_key(w))
                .or_else(|| self.last_by_name.get(name).copied());
            if let Some(base) = base.filter(|b| *b != id) {
                self.bases.insert(id, base);
            }
            self.blobs.insert(id, path.to_owned());
        }
        self.last_by_name.insert(name.to_owned(), id);
    }
}

#[derive(Serialize)]
struct PlanHead<'a> {
    slug: &'a str,
    path: &'a str,
    plan: &'a str,
    runs: &'a [RunDoc],
    notes: &'a [NoteDoc],
}

/// Writes the export of `slugs` (every plan with state when `None`) to
/// `out`; returns how many plans it holds.
pub fn export(
    repo: &Repo,
    slugs: Option<&[String]>,
    transcripts: bool,
    exported_at: &str,
    out: &mut dyn Write,
) -> Result<usize> {
    let notes = repo.notes_map(NOTES_REF)?;
    field(out, 0, "version", &VERSION)?;
    field(out, 0, "exported_at", &exported_at)?;
    field(
        out,
        0,
        "generator",
        &format!("git-ultraplan {}", env!("CARGO_PKG_VERSION")),
    )?;
    let mut written = Written::default();
    // Notes that name a record, and the checkpoint each is on.
    let mut note_blobs: Vec<(Oid, String)> = Vec::new();
    let mut count = 0;
    for slug in catalog::slugs(repo)? {
        if slugs.is_some_and(|s| !s.contains(&slug)) {
            continue;
        }
        let states = catalog::states(repo, &slug)?;
        let Some(first) = states.first() else { continue };
        if count == 0 {
            writeln!(out, "plans:")?;
        }
        count += 1;
        let plan_text = redacted(&first.read_text(layout::PLAN)?.unwrap_or_default());
        let mut runs = Vec::new();
        let mut checkpoints = BTreeSet::new();
        let mut records = HashSet::new();
        for state in &states {
            let name = state.ref_name.rsplit('/').next().unwrap_or("run").to_owned();
            for past in catalog::history(repo, &state.ref_name)? {
                runs.push(run_doc(repo, &name, past, &mut checkpoints, &mut records)?);
            }
        }
        let mut plan_notes = Vec::new();
        for c in checkpoints {
            let Ok(id) = c.parse::<Oid>() else { continue };
            if let Some(blob) = notes.get(&id) {
                let text = String::from_utf8_lossy(&repo.read_blob(*blob)?).into_owned();
                let clean = redacted(&text);
                // A note that is an attempt's record (as it mostly is)
                // names it: the record is written once, with the files.
                if clean == text && records.contains(blob) {
                    note_blobs.push((*blob, c.clone()));
                    plan_notes.push(NoteDoc {
                        commit: c,
                        note: String::new(),
                        blob: Some(blob.to_string()),
                    });
                } else {
                    plan_notes.push(NoteDoc {
                        commit: c,
                        note: clean,
                        blob: None,
                    });
                }
            }
        }
        emit(
            out,
            0,
            true,
            &PlanHead {
                slug: &slug,
                path: &first.progress.plan,
                plan: &plan_text,
                runs: &runs,
                notes: &plan_notes,
            },
        )?;
        writeln!(out, "  states:")?;
        for state in &states {
            let name = state.ref_name.rsplit('/').next().unwrap_or("run");
            let tip = state
                .head()
                .ok_or_else(|| anyhow!("'{}' has no commit", state.ref_name))?;
            writeln!(out, "  - name: {name}")?;
            state_commits(repo, tip, transcripts, &mut written, out)?;
        }
    }
    if count == 0 {
        writeln!(out, "plans: []")?;
    }
    // A record a note names that no state commit named (a state cut short).
    for (blob, commit) in note_blobs {
        written
            .blobs
            .entry(blob)
            .or_insert_with(|| format!("notes/{commit}.yaml"));
    }
    files::write_blobs(repo, &written, out)?;
    Ok(count)
}

fn run_doc(
    repo: &Repo,
    state: &str,
    past: catalog::PastRun,
    checkpoints: &mut BTreeSet<String>,
    records: &mut HashSet<Oid>,
) -> Result<RunDoc> {
    let p = &past.progress;
    let mut attempts = Vec::new();
    let mut run_usage = Usage::default();
    for a in &past.attempts {
        let record = match a.record(repo)? {
            Some((blob, text)) => {
                records.insert(blob);
                text
            }
            None => String::new(),
        };
        let value: serde_yaml::Value = crate::yaml::parse(&record).unwrap_or_default();
        let text = |v: &serde_yaml::Value| v.as_str().unwrap_or_default().to_owned();
        if let Some(c) = &a.commit {
            checkpoints.insert(c.clone());
        }
        let usage = Usage::of_record(&value);
        run_usage.add(&usage);
        attempts.push(AttemptDoc {
            step: a.step,
            attempt: a.attempt,
            status: text(&value["result"]["status"]),
            validation: text(&value["validation"]),
            warnings: value["warnings"]
                .as_sequence()
                .map(|s| s.iter().map(|w| redacted(&text(w))).collect())
                .unwrap_or_default(),
            duration_ms: value["result"]["metadata"]["duration_ms"].as_u64(),
            checkpoint: a.commit.clone(),
            cost_usd: usage.cost_usd,
            tokens: usage.tokens,
        });
    }
    Ok(RunDoc {
        state: state.to_owned(),
        run_id: p.run_id.clone(),
        mode: p.mode.clone(),
        status: p.status.as_str().to_owned(),
        started_at: p.started_at.clone(),
        updated_at: p.updated_at.clone(),
        executor: redacted(&p.executor),
        session: p.session,
        cost_usd: run_usage.cost_usd,
        tokens: run_usage.tokens,
        attempts,
    })
}

/// The chain ending at `tip`, oldest first, one commit at a time.
fn state_commits(repo: &Repo, tip: Oid, transcripts: bool, written: &mut Written, out: &mut dyn Write) -> Result<()> {
    let mut chain = Vec::new();
    let mut next = Some(tip);
    while let Some(c) = next {
        let info = repo.commit_info(c)?;
        next = info.parents.first().copied();
        chain.push(c);
    }
    chain.reverse();
    writeln!(out, "    commits:")?;
    let mut before: Option<Oid> = None;
    let mut flat_before: BTreeMap<String, (Oid, EntryKind)> = BTreeMap::new();
    let mut last_author: Option<crate::git::Signature> = None;
    for id in chain {
        let info = repo.branch_commit(id)?;
        let sign = |s: &crate::git::Signature| AuthorDoc {
            name: s.name.clone(),
            email: s.email.clone(),
            time: s.time,
            offset: s.offset,
        };
        // The author's time alone, when the rest is the commit before's.
        let same_author = last_author.as_ref().is_some_and(|a| {
            a.name == info.author.name && a.email == info.author.email && a.offset == info.author.offset
        });
        last_author = Some(info.author.clone());
        let mut doc = CommitDoc {
            message: redacted(&info.message),
            author: if same_author {
                AuthorDoc::default()
            } else {
                sign(&info.author)
            },
            at: same_author.then_some(info.author.time),
            // The committer, where it is not the author (an import takes
            // the author for it then).
            committer: (info.committer != info.author).then(|| sign(&info.committer)),
            changes: BTreeMap::new(),
            files: BTreeMap::new(),
            trees: BTreeMap::new(),
            removed: Vec::new(),
            kept: info.parents.iter().skip(1).map(|p| p.to_string()).collect(),
        };
        let layout = index::read(repo, info.tree, Depth::Run)
            .ok()
            .flatten()
            .map(|i| i.layout);
        if layout == Some(Layout::V1) {
            let now = v1::flatten_v1(repo, info.tree)?;
            v1::v1_changes(repo, info.tree, &flat_before, &now, transcripts, written, &mut doc)?;
            flat_before = now;
        } else {
            changes(repo, before, info.tree, "", transcripts, written, &mut doc.changes)?;
            flat_before.clear();
        }
        before = Some(info.tree);
        let new = std::mem::take(&mut written.new_trees);
        written.trees.extend(new);
        emit(out, 4, true, &doc)?;
    }
    Ok(())
}

/// The paths that differ from tree `old` to tree `new` under `prefix`: a
/// subtree written before is named by its id, a new one is entered.
fn changes(
    repo: &Repo,
    old: Option<Oid>,
    new: Oid,
    prefix: &str,
    transcripts: bool,
    written: &mut Written,
    out: &mut BTreeMap<String, Option<String>>,
) -> Result<()> {
    let old_entries: BTreeMap<String, (Oid, EntryKind)> = match old {
        Some(t) => repo.list_tree(t)?.into_iter().map(|(n, id, k)| (n, (id, k))).collect(),
        None => BTreeMap::new(),
    };
    let new_entries = repo.list_tree(new)?;
    let path_of = |name: &str| {
        if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}/{name}")
        }
    };
    let names: HashSet<&str> = new_entries.iter().map(|(n, _, _)| n.as_str()).collect();
    for name in old_entries.keys().filter(|n| !names.contains(n.as_str())) {
        out.insert(path_of(name), None);
    }
    for (name, id, kind) in &new_entries {
        let was = old_entries.get(name);
        if was == Some(&(*id, *kind)) {
            continue;
        }
        let path = path_of(name);
        if !transcripts && is_transcript(&path) {
            continue;
        }
        let mode = match kind {
            EntryKind::Tree => {
                if written.trees.contains(id) {
                    out.insert(path, Some(format!("040000 {id}")));
                    continue;
                }
                let old_tree = match was {
                    Some((t, EntryKind::Tree)) => Some(*t),
                    Some(_) => {
                        out.insert(path.clone(), None);
                        None
                    }
                    None => None,
                };
                changes(repo, old_tree, *id, &path, transcripts, written, out)?;
                written.new_trees.insert(*id);
                continue;
            }
            EntryKind::Blob => "100644",
            EntryKind::Executable => "100755",
            EntryKind::Link => "120000",
            EntryKind::Commit => {
                out.insert(path, Some(format!("160000 {id}")));
                continue;
            }
        };
        let was_blob = match was {
            Some((w, EntryKind::Blob | EntryKind::Executable)) => Some(*w),
            _ => None,
        };
        written.blob(*id, &path, was_blob);
        out.insert(
            path,
            Some(match mode {
                "100644" => id.to_string(),
                _ => format!("{mode} {id}"),
            }),
        );
    }
    Ok(())
}

fn is_transcript(path: &str) -> bool {
    path.starts_with(layout::STEPS) && path.ends_with(".log") && !path.contains("/files/")
}
