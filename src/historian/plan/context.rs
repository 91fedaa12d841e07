//! What the planning steps read: the analysis of a branch (its change
//! items, their provenance, the branch's commits and what kind each one is,
//! the change coupling) as one [`Context`], and the [`Tuning`] of the
//! heuristics. Built once per run; grouping, ordering, splitting and the
//! drafting of messages only read it.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::git::BranchCommit;
use crate::historian::analyse::coupling::Coupling;
use crate::historian::analyse::items::ChangeSet;
use crate::historian::analyse::provenance::Provenance;
use crate::historian::message::{self, Kind};

use super::reason::Record;
pub use super::weights::Tuning;
use super::writers::{self, Amends};

/// Everything grouping reads.
pub struct Context<'a> {
    pub changes: &'a ChangeSet,
    pub provenance: &'a Provenance,
    pub commits: &'a [BranchCommit],
    pub kinds: Vec<Kind>,
    /// Each commit's unit (`fold::fold`): itself, or the commit a
    /// `fixup!` folds into.
    pub roots: Vec<usize>,
    pub coupling: Coupling,
    /// The words the changed files answer to, read once when a message
    /// needs them ([`Context::branch_words`]).
    branch_words: OnceLock<Arc<BTreeSet<String>>>,
    /// Which commits of the branch amend which, read once ([`Context::amends`]).
    amends: OnceLock<Arc<Amends>>,
    /// Why each item went where it did, as the steps decided ([`super::reason`]).
    record: Mutex<Record>,
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
            .collect::<Vec<_>>();
        Context {
            changes,
            provenance,
            commits,
            roots: super::fold::fold(commits, &kinds),
            kinds,
            coupling,
            branch_words: OnceLock::new(),
            amends: OnceLock::new(),
            record: Mutex::default(),
        }
    }

    /// The unit branch commit `k` belongs to.
    pub fn unit_of_commit(&self, k: usize) -> usize {
        self.roots.get(k).copied().unwrap_or(k)
    }

    /// Where the planning steps note their reasons.
    pub(super) fn record(&self) -> MutexGuard<'_, Record> {
        // A step that panicked holding it left notes only: still readable.
        self.record.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The reasons noted so far, leaving none.
    pub(super) fn take_record(&self) -> Record {
        std::mem::take(&mut *self.record())
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

    /// For every two commits of the branch of which the later rewrote the
    /// earlier's lines, how much of its work that was (`writers::amends`).
    pub fn amends(&self) -> Arc<Amends> {
        self.amends
            .get_or_init(|| Arc::new(writers::amends(self.provenance, &self.roots)))
            .clone()
    }
}
