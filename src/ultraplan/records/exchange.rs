//! The versioned export of the record (DESIGN §16.2): one YAML document that
//! carries a plan's run states — their whole commit chains, so an import
//! recreates `git log` of each state ref as the audit log — and the notes of
//! its checkpoints, from one repository to another.
//!
//! A state commit is written as what changed from its parent: text files
//! (progress, results, transcripts) by content, and the trees a step keeps
//! (its snapshot, index, attempt trees) as the tree id with the files that
//! differ from the commit the step started from (`steps/<N>/git`), so a
//! snapshot of 20,000 files costs only what the step's worktree changed. A
//! tree whose base this repository lacks is left out on import and named.
//! Everything exported passes the one redaction function, so a record made
//! before a redaction rule existed does not leak through an export.

use std::collections::BTreeMap;

use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};

use crate::git::{EntryKind, Oid, Repo};
use crate::ultraplan::result::Usage;
use crate::ultraplan::state::{catalog, NOTES_REF};

/// The only version this program writes and reads.
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Document {
    pub version: u32,
    pub exported_at: String,
    pub generator: String,
    pub plans: Vec<PlanDoc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanDoc {
    pub slug: String,
    pub path: String,
    /// The plan as its newest state recorded it.
    pub plan: String,
    /// Every run, for a reader: what happened, step by step.
    pub runs: Vec<RunDoc>,
    /// The state chains, for an import.
    pub states: Vec<StateDoc>,
    /// The notes of the plan's checkpoint commits.
    pub notes: Vec<NoteDoc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunDoc {
    pub state: String,
    pub run_id: String,
    pub mode: String,
    pub status: String,
    pub started_at: String,
    pub updated_at: String,
    pub executor: String,
    pub session: Option<u32>,
    /// What the run's attempts cost, as their executors reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<crate::ultraplan::result::Tokens>,
    pub attempts: Vec<AttemptDoc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptDoc {
    pub step: u32,
    pub attempt: u32,
    pub status: String,
    pub validation: String,
    pub warnings: Vec<String>,
    pub duration_ms: Option<u64>,
    pub checkpoint: Option<String>,
    /// What the attempt cost, as its executor reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<crate::ultraplan::result::Tokens>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateDoc {
    /// `run` or `session-<N>`: the ref under `refs/ultraplan/<slug>/`.
    pub name: String,
    /// Oldest first.
    pub commits: Vec<CommitDoc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommitDoc {
    pub message: String,
    pub author: AuthorDoc,
    /// Files added or changed: text by path.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
    /// Kept trees added or changed, by path.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub trees: BTreeMap<String, TreeDoc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Commits kept reachable as extra parents (a failed step's, undone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthorDoc {
    pub name: String,
    pub email: String,
    pub time: i64,
    pub offset: i32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeDoc {
    pub id: String,
    /// The commit whose tree the files below change; none: the files are all of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Path → content (`None`: removed from the base). Executable files and
    /// links are marked by a prefix in [`TreeFile`].
    pub files: BTreeMap<String, Option<TreeFile>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeFile {
    #[serde(default = "file_kind", skip_serializing_if = "is_blob")]
    pub kind: String,
    /// The content; hexadecimal when `hex` (bytes that are not UTF-8).
    pub text: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hex: bool,
}

fn file_kind() -> String {
    "file".into()
}

fn is_blob(kind: &str) -> bool {
    kind == "file"
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteDoc {
    pub commit: String,
    pub note: String,
}

fn redacted(text: &str) -> String {
    crate::redact::redact(text).into_owned()
}

fn text_of(repo: &Repo, id: Oid) -> Result<String> {
    Ok(String::from_utf8_lossy(&repo.read_blob(id)?).into_owned())
}

/// The state tree of a commit, flattened to what the export writes: files,
/// and the kept trees at `steps/<N>/<name>` as opaque units.
fn flatten(repo: &Repo, tree: Oid) -> Result<BTreeMap<String, (Oid, EntryKind)>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![(String::new(), tree, 0usize)];
    while let Some((prefix, id, depth)) = stack.pop() {
        for (name, oid, kind) in repo.list_tree(id)? {
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if kind == EntryKind::Tree && depth < 2 {
                stack.push((path, oid, depth + 1));
            } else {
                out.insert(path, (oid, kind));
            }
        }
    }
    Ok(out)
}

/// The commit step `N`'s kept trees are based on, from `steps/<N>/git`.
fn base_of(repo: &Repo, state_tree: Oid, path: &str) -> Result<Option<Oid>> {
    let Some(step) = path.strip_prefix("steps/").and_then(|r| r.split('/').next()) else {
        return Ok(None);
    };
    let name = path.rsplit('/').next().unwrap_or("");
    if name == "own" || name == "ignored" {
        return Ok(None);
    }
    let Some(bytes) = repo.read_path(state_tree, &format!("steps/{step}/git"))? else {
        return Ok(None);
    };
    Ok(crate::git::Pointers::parse(&String::from_utf8_lossy(&bytes)).and_then(|p| p.head.commit))
}

fn tree_doc(repo: &Repo, id: Oid, base: Option<Oid>) -> Result<TreeDoc> {
    let base_tree = match base {
        Some(c) => repo.commit_tree(c)?,
        None => repo.empty_tree(),
    };
    let mut files = BTreeMap::new();
    for change in repo.changes(base_tree, id)? {
        let file = match change.new {
            None => None,
            Some((blob, kind)) => {
                let bytes = repo.read_blob(blob)?;
                let (text, hex) = match String::from_utf8(bytes) {
                    Ok(text) => (redacted(&text), false),
                    Err(e) => (e.as_bytes().iter().map(|b| format!("{b:02x}")).collect(), true),
                };
                Some(TreeFile {
                    kind: match kind {
                        EntryKind::Executable => "executable",
                        EntryKind::Link => "link",
                        _ => "file",
                    }
                    .into(),
                    text,
                    hex,
                })
            }
        };
        files.insert(change.path, file);
    }
    Ok(TreeDoc {
        id: id.to_string(),
        base: base.map(|b| b.to_string()),
        files,
    })
}

fn state_doc(repo: &Repo, name: &str, tip: Oid, transcripts: bool) -> Result<StateDoc> {
    let mut chain = Vec::new();
    let mut next = Some(tip);
    while let Some(c) = next {
        let info = repo.branch_commit(c)?;
        next = info.parents.first().copied();
        chain.push(info);
    }
    chain.reverse();
    let mut commits = Vec::new();
    let mut before: BTreeMap<String, (Oid, EntryKind)> = BTreeMap::new();
    for info in chain {
        let now = flatten(repo, info.tree)?;
        let mut doc = CommitDoc {
            message: redacted(&info.message),
            author: AuthorDoc {
                name: info.author.name.clone(),
                email: info.author.email.clone(),
                time: info.author.time,
                offset: info.author.offset,
            },
            files: BTreeMap::new(),
            trees: BTreeMap::new(),
            removed: before.keys().filter(|p| !now.contains_key(*p)).cloned().collect(),
            kept: info.parents.iter().skip(1).map(|p| p.to_string()).collect(),
        };
        for (path, (id, kind)) in &now {
            if before.get(path) == Some(&(*id, *kind)) {
                continue;
            }
            if !transcripts && path.ends_with(".log") {
                continue;
            }
            match kind {
                EntryKind::Tree => {
                    let base = base_of(repo, info.tree, path)?;
                    doc.trees.insert(path.clone(), tree_doc(repo, *id, base)?);
                }
                _ => {
                    doc.files.insert(path.clone(), redacted(&text_of(repo, *id)?));
                }
            }
        }
        before = now;
        commits.push(doc);
    }
    Ok(StateDoc {
        name: name.to_owned(),
        commits,
    })
}

/// The export of `slugs` (every plan with state when `None`).
pub fn export(repo: &Repo, slugs: Option<&[String]>, transcripts: bool, exported_at: &str) -> Result<Document> {
    let notes = repo.notes_map(NOTES_REF)?;
    let mut plans = Vec::new();
    for slug in catalog::slugs(repo)? {
        if slugs.is_some_and(|s| !s.contains(&slug)) {
            continue;
        }
        let mut doc = PlanDoc {
            slug: slug.clone(),
            path: String::new(),
            plan: String::new(),
            runs: Vec::new(),
            states: Vec::new(),
            notes: Vec::new(),
        };
        let mut checkpoints = std::collections::BTreeSet::new();
        for state in catalog::states(repo, &slug)? {
            let name = state.ref_name.rsplit('/').next().unwrap_or("run").to_owned();
            if doc.path.is_empty() {
                doc.path = state.progress.plan.clone();
                doc.plan = redacted(&state.read_text("plan.md")?.unwrap_or_default());
            }
            for past in catalog::history(repo, &state.ref_name)? {
                let p = &past.progress;
                let mut attempts = Vec::new();
                let mut run_usage = Usage::default();
                for a in &past.attempts {
                    let value: serde_yaml::Value = serde_yaml::from_str(&a.record).unwrap_or_default();
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
                doc.runs.push(RunDoc {
                    state: name.clone(),
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
                });
            }
            let tip = state
                .head()
                .ok_or_else(|| anyhow!("'{}' has no commit", state.ref_name))?;
            doc.states.push(state_doc(repo, &name, tip, transcripts)?);
        }
        for c in checkpoints {
            let Ok(id) = c.parse::<Oid>() else { continue };
            if let Some(blob) = notes.get(&id) {
                doc.notes.push(NoteDoc {
                    commit: c,
                    note: redacted(&text_of(repo, *blob)?),
                });
            }
        }
        plans.push(doc);
    }
    Ok(Document {
        version: VERSION,
        exported_at: exported_at.to_owned(),
        generator: format!("git-ultraplan {}", env!("CARGO_PKG_VERSION")),
        plans,
    })
}
