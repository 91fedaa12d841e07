//! The versioned export of the record (DESIGN §16.2): one YAML document that
//! carries a plan's run states — their whole commit chains, so an import
//! recreates `git log` of each state ref as the audit log — and the notes of
//! its checkpoints, from one repository to another. These are its types;
//! [`super::export`] writes it and [`super::import`] reads it.
//!
//! **Version 2** (written): a state commit in layout 2 is the list of paths
//! it changed (`changes`: path → `<mode> <id>`, or `<id>` alone for a file
//! of mode 100644, or null for a path removed), the file contents once each
//! in the document's `blobs` (text), `deltas` (text, as its changes from
//! another file of the export: [`super::delta`]) and `binary` (hexadecimal)
//! by id, a subtree written before named by its id; each commit carries its
//! author (or only the author's time, `at`, when the rest is the previous
//! commit's) and committer, so an import writes the same commits. A
//! checkpoint's note that is the text of a file of the export names it
//! (`blob`) instead of holding it. A state commit in layout 1 (a state an earlier version
//! wrote and no run has upgraded) is written as version 1 wrote it.
//!
//! **Version 1** (read): each commit's text files by content (`files`), and
//! the trees a step kept (`trees`) as the tree id with the files that differ
//! from the commit the step started from.
//!
//! Everything exported passes the one redaction function, so a record made
//! before a redaction rule existed does not leak through an export.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The version this program writes.
pub const VERSION: u32 = 2;
/// The versions this program reads.
pub const READS: [u32; 2] = [1, 2];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Document {
    pub version: u32,
    pub exported_at: String,
    pub generator: String,
    pub plans: Vec<PlanDoc>,
    /// Version 2: the text files of the states, once each, by blob id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub blobs: BTreeMap<String, String>,
    /// Version 2: text files as `<id of another file> <changes>` (see
    /// [`super::delta`]), by blob id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub deltas: BTreeMap<String, String>,
    /// Version 2: the files that are not UTF-8 text, in hexadecimal.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub binary: BTreeMap<String, String>,
    /// Version 2: the files whose text the export redacted (a secret stored
    /// before a redaction rule caught it): their text no longer matches
    /// their id, and an import stores them under a new one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
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
    /// The notes of the plan's checkpoint commits.
    pub notes: Vec<NoteDoc>,
    /// The state chains, for an import.
    pub states: Vec<StateDoc>,
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
    /// Absent when `at` is given.
    #[serde(default, skip_serializing_if = "AuthorDoc::is_unset")]
    pub author: AuthorDoc,
    /// Version 2: the author's time, the author being otherwise the
    /// previous commit's (of the same state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<i64>,
    /// Version 2: the committer, so the commit is written again as it was
    /// (absent: the author).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committer: Option<AuthorDoc>,
    /// Version 2, a commit in layout 2: every path it changed, as
    /// `<mode> <id>` (the content in the document's `blobs` or `binary`, or
    /// a tree written before), or null for a path it removed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub changes: BTreeMap<String, Option<String>>,
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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthorDoc {
    pub name: String,
    pub email: String,
    pub time: i64,
    pub offset: i32,
}

impl AuthorDoc {
    /// Not given (a commit that gives `at` instead).
    pub fn is_unset(&self) -> bool {
        *self == AuthorDoc::default()
    }
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
    /// The note's text (empty when `blob` names it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// Version 2: the file of the export whose text the note is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}
