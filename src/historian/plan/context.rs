//! What the planning steps read: the analysis of a branch (its change
//! items, their provenance, the branch's commits and what kind each one is,
//! the change coupling) as one [`Context`], and the [`Tuning`] of the
//! heuristics. Built once per run; grouping, ordering, splitting and the
//! drafting of messages only read it.

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use crate::git::BranchCommit;
use crate::historian::analyse::coupling::Coupling;
use crate::historian::analyse::items::ChangeSet;
use crate::historian::analyse::provenance::Provenance;
use crate::historian::message::{self, Kind};

/// Knobs of the heuristics, with the values the evaluation chose
/// (`benches/historian_eval.rs`).
#[derive(Clone, Debug)]
pub struct Tuning {
    /// Two parts of one commit join when their average affinity (the
    /// estimated chance they belong to one piece of work) reaches this.
    pub join_threshold: f64,
    /// A commit's unlinked code parts of at most this many lines ride along
    /// with its largest part.
    pub small_part_lines: usize,
    /// A name used by more than this share of the files links nothing.
    pub common_name_share: f64,
    /// How many commits behind the base are read for change coupling.
    pub coupling_history: usize,
    /// Whether a unit whose message names several pieces of work
    /// (`count`) is split into about that many.
    pub count_from_message: bool,
    /// With such a count: parts join while more are left, and once that
    /// many are left only when their affinity reaches this.
    pub sure_join: f64,
    /// When the hunks of one file may go to different commits.
    pub hunk_parts: HunkParts,
    /// How much surer two hunks of one file are to belong together than
    /// their other signals say (added to the affinity's log-odds).
    pub same_file: f64,
    /// With several subjects named: how much surer two parts sharing the
    /// most words with one subject are to belong together (and less sure
    /// when with two different subjects), in log-odds.
    pub subject_words: f64,
    /// The affinity's coefficients (intercept first), when not the built-in
    /// ones: the evaluation harness fits its own.
    pub coefficients: Option<Vec<f64>>,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            join_threshold: 0.5,
            small_part_lines: 3,
            common_name_share: 0.5,
            coupling_history: crate::historian::analyse::coupling::HISTORY,
            count_from_message: true,
            sure_join: 0.9,
            hunk_parts: HunkParts::Never,
            subject_words: 0.75,
            same_file: 2.0,
            coefficients: None,
        }
    }
}

/// When the hunks of one file are parts of their own, free to go to
/// different commits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HunkParts {
    /// Files are kept whole.
    Never,
    /// When a unit's message names more pieces of work than it has files.
    WhenFewerFiles,
    /// Whenever a unit's message names several pieces of work.
    WithCount,
}

/// Everything grouping reads.
pub struct Context<'a> {
    pub changes: &'a ChangeSet,
    pub provenance: &'a Provenance,
    pub commits: &'a [BranchCommit],
    pub kinds: Vec<Kind>,
    pub coupling: Coupling,
    /// The words the changed files answer to, read once when a message
    /// needs them ([`Context::branch_words`]).
    branch_words: OnceLock<Arc<BTreeSet<String>>>,
}

impl<'a> Context<'a> {
    pub fn new(
        changes: &'a ChangeSet,
        provenance: &'a Provenance,
        commits: &'a [BranchCommit],
        coupling: Coupling,
    ) -> Context<'a> {
        let kinds = commits
            .iter()
            .map(|c| message::kind(&c.message, c.parents.len()))
            .collect();
        Context {
            changes,
            provenance,
            commits,
            kinds,
            coupling,
            branch_words: OnceLock::new(),
        }
    }

    /// The words all changed files answer to (their stems, scopes and
    /// categories), which tell a subject's clauses about other work apart.
    pub fn branch_words(&self) -> Arc<BTreeSet<String>> {
        self.branch_words
            .get_or_init(|| {
                let mut words = BTreeSet::new();
                for file in &self.changes.files {
                    message::add_path_words(&file.path, &mut words);
                }
                Arc::new(words)
            })
            .clone()
    }
}
