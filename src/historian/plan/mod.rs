//! The commit plan: which change items each new commit holds and its
//! message, checked to use every item exactly once before anything is
//! written (DESIGN §10.2), and its file form (DESIGN §10.5):
//!
//! ```yaml
//! base: <commit>        # optional: the plan was made for this base…
//! tip: <commit>         # …and this tip; a different tip is refused
//! commits:
//!   - message: "feat(parser): add the parser"
//!     files: [src/parser.rs]          # whole files (every hunk of a modified file)
//!     hunks: ["src/lib.rs#2"]         # single hunks, counted from 1
//! ```
//!
//! `plan --json` prints the same shape, so a person or a tool can edit it and
//! give it back with `clean --plan`.
//!
//! The room around it makes that plan from the analysis (read as one
//! [`context`]), in the order data flows: the branch's [`units`] of work
//! [`group`]ed into commits (split where [`affinity`] is low, by
//! [`linkage`], pieces
//! [`attach`]ed where they belong), put in [`order`] (never losing what is
//! [`present`] at both ends in between), each commit's size
//! weighed against the limits ([`split`]), and the whole assembled with
//! drafted messages by the [`auto`]matic planner.
//! A plan from `--plan` skips all of that and is only checked.
//!
//! Not to be confused with `ultraplan::plan`, the task plans git-ultraplan
//! runs: a historian plan is a list of commits to write.

pub mod affinity;
pub mod attach;
pub mod auto;
pub mod context;
pub mod count;
pub mod explanation;
pub mod fold;
pub mod group;
pub mod linkage;
pub mod named;
pub mod order;
pub mod pieces;
pub mod present;
pub mod reason;
pub mod split;
pub mod subject_line;
pub mod subjects;
pub mod units;
pub mod vocabulary;
pub mod weights;
pub mod writers;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::analyse::items::ChangeSet;

/// One commit of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedCommit {
    pub message: String,
    /// Item indices, sorted.
    pub items: Vec<usize>,
    /// The person answered "Keep as one commit" for it: no size question.
    pub keep: bool,
}

impl PlannedCommit {
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }
}

/// The commits to build, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommitPlan {
    pub commits: Vec<PlannedCommit>,
}

/// The plan file's shape.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tip: Option<String>,
    pub commits: Vec<PlanFileCommit>,
    /// What `plan --json --explain` adds: read and ignored, so its output
    /// can be given back as it is.
    #[serde(default, skip_serializing)]
    pub explanation: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanFileCommit {
    pub message: String,
    #[serde(default)]
    pub files: Vec<String>,
    #[serde(default)]
    pub hunks: Vec<String>,
    /// Only in stored sessions: the size question was answered with "keep".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep: bool,
}

/// What is wrong with a plan, item by item.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problems {
    pub missing: Vec<String>,
    /// An item and the commits (from 1) that hold it.
    pub doubled: Vec<(String, Vec<usize>)>,
    /// A name that is no change item, and the commit (from 1) naming it.
    pub unknown: Vec<(String, usize)>,
    /// Anything else, as sentences.
    pub other: Vec<String>,
}

impl Problems {
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty() && self.doubled.is_empty() && self.unknown.is_empty() && self.other.is_empty()
    }

    /// One line per problem.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for name in &self.missing {
            out.push(format!("missing: {name}"));
        }
        for (name, commits) in &self.doubled {
            let list: Vec<String> = commits.iter().map(|c| c.to_string()).collect();
            out.push(format!("doubled: {name} (commits {})", list.join(", ")));
        }
        for (name, commit) in &self.unknown {
            out.push(format!("unknown: {name} (commit {commit}) is not a change item"));
        }
        out.extend(self.other.iter().cloned());
        out
    }
}

impl CommitPlan {
    /// Checks that every item is used exactly once, that no commit is empty
    /// or without a message, and that a file never waits for a directory
    /// of the same name to be removed after it (a path that is a file at one
    /// end and a directory at the other).
    pub fn check(&self, changes: &ChangeSet) -> Problems {
        let mut problems = Problems::default();
        let mut owner: Vec<Vec<usize>> = vec![Vec::new(); changes.items.len()];
        for (c, commit) in self.commits.iter().enumerate() {
            if commit.items.is_empty() {
                problems.other.push(format!("commit {} holds no change item", c + 1));
            }
            if commit.message.trim().is_empty() {
                problems.other.push(format!("commit {} has no message", c + 1));
            }
            if let Some(ch) = crate::historian::message::control_character(&commit.message) {
                problems.other.push(format!(
                    "commit {}'s message holds the control character U+{:04X}",
                    c + 1,
                    u32::from(ch)
                ));
            }
            for &i in &commit.items {
                match owner.get_mut(i) {
                    Some(o) => o.push(c + 1),
                    None => problems.unknown.push((format!("item {i}"), c + 1)),
                }
            }
        }
        for (i, commits) in owner.iter().enumerate() {
            match commits.len() {
                0 => problems.missing.push(changes.item_name(i)),
                1 => {}
                _ => problems.doubled.push((changes.item_name(i), commits.clone())),
            }
        }
        if problems.missing.is_empty() && problems.doubled.is_empty() {
            problems.other.extend(self.path_conflicts(changes, &owner));
        }
        problems
    }

    /// A file removed where a directory is added (or the reverse) must be
    /// removed in the same commit or before.
    fn path_conflicts(&self, changes: &ChangeSet, owner: &[Vec<usize>]) -> Vec<String> {
        let commit_of_file = |path: &str| -> Option<(usize, bool)> {
            let f = changes.files.iter().position(|f| f.path == path)?;
            let item = changes.items.iter().position(|it| it.file == f)?;
            let removed = changes.files[f].new.is_none();
            Some((owner[item][0], removed))
        };
        let mut out = Vec::new();
        let removed: Vec<&str> = changes
            .files
            .iter()
            .filter(|f| f.new.is_none())
            .map(|f| f.path.as_str())
            .chain(changes.files.iter().filter_map(|f| match &f.status {
                super::analyse::items::Status::Renamed { from } => Some(from.as_str()),
                _ => None,
            }))
            .collect();
        for gone in removed {
            let prefix = format!("{gone}/");
            for file in changes.files.iter().filter(|f| f.new.is_some()) {
                // A removed file `a` and an added `a/x`, or a removed `a/x` and an added `a`.
                let conflict = file.path.starts_with(&prefix) || gone.starts_with(&format!("{}/", file.path));
                if !conflict {
                    continue;
                }
                let Some((adder, _)) = commit_of_file(&file.path) else {
                    continue;
                };
                let remover = commit_of_file(gone).map(|(c, _)| c).or_else(|| {
                    changes
                        .files
                        .iter()
                        .position(
                            |f| matches!(&f.status, super::analyse::items::Status::Renamed { from } if from == gone),
                        )
                        .and_then(|f| changes.items.iter().position(|it| it.file == f))
                        .map(|item| owner[item][0])
                });
                if let Some(remover) = remover {
                    if remover > adder {
                        out.push(format!(
                            "commit {adder} adds '{}' but '{gone}' is only removed in commit {remover}: remove it in the same commit or before",
                            file.path
                        ));
                    }
                }
            }
        }
        out
    }

    /// The plan in its file form.
    pub fn to_file(&self, changes: &ChangeSet) -> PlanFile {
        let mut per_file_commits: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (c, commit) in self.commits.iter().enumerate() {
            for &i in &commit.items {
                per_file_commits.entry(changes.items[i].file).or_default().push(c);
            }
        }
        let whole = |file: usize| {
            let commits = &per_file_commits[&file];
            commits.iter().all(|c| *c == commits[0])
        };
        PlanFile {
            base: Some(changes.base.to_string()),
            tip: Some(changes.tip.to_string()),
            explanation: None,
            commits: self
                .commits
                .iter()
                .map(|commit| {
                    let mut files = Vec::new();
                    let mut hunks = Vec::new();
                    for &i in &commit.items {
                        let item = &changes.items[i];
                        if item.hunk.is_none() || whole(item.file) {
                            let path = changes.files[item.file].path.clone();
                            if files.last() != Some(&path) {
                                files.push(path);
                            }
                        } else {
                            hunks.push(changes.item_name(i));
                        }
                    }
                    PlanFileCommit {
                        message: commit.message.clone(),
                        files,
                        hunks,
                        keep: commit.keep,
                    }
                })
                .collect(),
        }
    }

    /// Reads a plan file against the change set; any name that is no item,
    /// any item missing or doubled, is a problem.
    pub fn from_file(file: &PlanFile, changes: &ChangeSet) -> Result<CommitPlan, Problems> {
        let index = changes.index();
        let mut problems = Problems::default();
        let mut commits = Vec::with_capacity(file.commits.len());
        if file.commits.is_empty() {
            problems.other.push("the plan has no commits".into());
        }
        for (c, fc) in file.commits.iter().enumerate() {
            let mut items = Vec::new();
            for name in &fc.files {
                let name = name.trim().trim_start_matches("./");
                match index.by_path.get(name) {
                    Some(list) => items.extend(list.iter().copied()),
                    None => problems.unknown.push((name.to_owned(), c + 1)),
                }
            }
            for name in &fc.hunks {
                let name = name.trim().trim_start_matches("./");
                match index.by_name.get(name) {
                    Some(i) if changes.items[*i].hunk.is_some() => items.push(*i),
                    Some(_) => problems.other.push(format!(
                        "'{name}' (commit {}) is a whole-file item: list it under files",
                        c + 1
                    )),
                    None => problems.unknown.push((name.to_owned(), c + 1)),
                }
            }
            items.sort_unstable();
            commits.push(PlannedCommit {
                message: fc.message.trim_end().to_owned() + "\n",
                items,
                keep: fc.keep,
            });
        }
        let plan = CommitPlan { commits };
        let mut checked = plan.check(changes);
        checked.unknown.extend(problems.unknown);
        checked.other.extend(problems.other);
        // A duplicate within one commit (a file and one of its hunks) shows
        // as that commit twice.
        if checked.is_empty() {
            Ok(plan)
        } else {
            Err(checked)
        }
    }

    /// Parses a plan file (YAML, or JSON as `plan --json` prints it).
    pub fn parse_file(text: &str) -> Result<PlanFile, String> {
        let text = text.trim_start_matches('\u{feff}');
        crate::yaml::parse_as::<PlanFile>(text).map_err(|e| match e.line {
            Some(line) => format!("line {line}: {}", strip_location(&e.message)),
            None => e.message,
        })
    }
}

fn strip_location(message: &str) -> String {
    match message.find(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
