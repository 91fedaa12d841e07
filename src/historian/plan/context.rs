//! What the planning steps read: the analysis of a branch (its change
//! items, their provenance, the branch's commits and what kind each one is,
//! the change coupling) as one [`Context`], and the [`Tuning`] of the
//! heuristics. Built once per run; grouping, ordering, splitting and the
//! drafting of messages only read it.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::count::Reading;
use crate::git::BranchCommit;
use crate::historian::analyse::coupling::Coupling;
use crate::historian::analyse::items::ChangeSet;
use crate::historian::analyse::provenance::Provenance;
use crate::historian::message::{self, Kind};

use super::reason::Record;

/// Knobs of the heuristics. Each says why it is there; what leaving it
/// out costs, per regime, is in `benches/README.md`.
#[derive(Clone, Debug)]
pub struct Tuning {
    /// Two parts of one commit join when their average affinity (the
    /// estimated chance they belong to one piece of work) reaches this.
    pub join_threshold: f64,
    /// How many commits behind the base are read for change coupling.
    pub coupling_history: usize,
    /// Whether a unit whose message names several pieces of work
    /// (`count`) is split into about that many.
    pub count_from_message: bool,
    /// How strictly a later one-line paragraph of a message is read as a
    /// subject (`count::Reading`).
    pub reading: Reading,
    /// With such a count: parts join while more are left, and once that
    /// many are left only when their affinity reaches this.
    pub sure_join: f64,
    /// How much surer two hunks of one file are to belong together than
    /// their other signals say (added to the affinity's log-odds).
    pub same_file: f64,
    /// With several subjects named: how much surer two parts sharing the
    /// most words with one subject are to belong together (and less sure
    /// when with two different subjects), in log-odds.
    pub subject_words: f64,
    /// Whether a part answers to a subject by the words of the names its
    /// lines use too (a test calling `parse_header`, a changelog line), not
    /// only by its path, kind and the names it defines.
    pub used_words: bool,
    /// How much a word of a subject's body counts, against one of the
    /// subject itself, when a part is matched to a subject (0: bodies are
    /// not read).
    pub body_words: f64,
    /// With several subjects named: two parts of which one leans to several
    /// subjects alike (shares as many words with each) are surer to belong
    /// together when they lean to a common subject, less sure when not, by
    /// this share of `subject_words`.
    pub leaning_words: f64,
    /// Whether a part answers to a subject by the version numbers its added
    /// lines and the subject both name (`1.4.2`: a release, a bump), too.
    pub versions: bool,
    /// Whether a part answers to a subject by the issue numbers its added
    /// lines and the subject's message both name (`Fixes #1173` and the
    /// regression test `r1173`).
    pub issues: bool,
    /// Whether a part that only tidies (`shapes::Shape`: white space, a
    /// word's spelling) answers to a subject saying so (`reformat`, `fix
    /// typos`), by one more word.
    pub shapes: bool,
    /// How much a word of a subject counts, against one of a part's own,
    /// when it is a word of the part's file's history (the subjects of the
    /// commits that touched it before: `Words::with_history`); 0: not read.
    pub history_words: f64,
    /// The share of its words a subject saying the kind of file it changes
    /// (`docs:`, `changelog:`, `test:`, `ci:`, `deps:`) shares with a part
    /// of another kind; 1: as many as with one of its kind.
    pub subject_kinds: f64,
    /// With several subjects named and small clusters answering to none
    /// riding along (`unsupported_cuts`): a cluster of a part leaning to
    /// several subjects alike, of which only one no other part answers to,
    /// stays, as that subject's.
    pub unclaimed_subjects: bool,
    /// Whether a word written in two cases (`AppVeyor`, `GsonBuilder`) is
    /// also read whole (`appveyor`), as a path writes it.
    pub whole_words: bool,
    /// How many words a version number a part and a subject share counts
    /// for (`vocabulary::word_weight`).
    pub version_weight: f64,
    /// How many words an issue number a part and a subject share counts for.
    pub issue_weight: f64,
    /// With several subjects named, once that many clusters are left: two
    /// each answering wholly to subjects, different ones, never join.
    pub subject_veto: bool,
    /// With several subjects named: a small cluster answering to no subject
    /// is no commit of its own (`pieces::join_unsupported`).
    pub unsupported_cuts: bool,
    /// With small unsupported cuts riding along: when no more clusters
    /// answer to no subject than there are subjects no cluster answers to,
    /// they stay, each the work of one of those subjects by elimination
    /// (`pieces::join_unsupported`)…
    pub cluster_elimination: bool,
    /// …when each holds at least this share of the unit's lines: a sliver
    /// (a CI file beside a commit's code) is more often a part of another
    /// subject's work than the work of a subject its words miss.
    pub elimination_share: f64,
    /// With several subjects named: two parts answering to subjects pull
    /// together (or push apart) as hard as the less sure of them is of its
    /// subject — by how many more words it shares with it than with the
    /// next, from a quarter of `subject_words` (a word of a body) to twice.
    pub subject_margins: bool,
    /// Whether each hunk is a part of its own (held to its file's others
    /// by `same_file`) when no message names the pieces, rather than each
    /// file whole.
    pub hunk_parts: bool,
    /// A split whose chances agree with it less than this
    /// (`pieces::confidence`: 1 when every two parts are where their chance
    /// says) is doubtful: `clean` asks. Set on the evaluation's tuning
    /// half so that about a fifth of the neutral and messy cases ask: the
    /// confidence separates good splits from bad ones only weakly, and a
    /// question on every other branch would be a chore.
    pub ask_below: f64,
    /// The affinity's weights (intercept first), when not the built-in
    /// ones (`affinity::SIGNALS`): the evaluation leaves signals out.
    pub weights: Option<Vec<f64>>,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            join_threshold: 0.45,
            coupling_history: crate::historian::analyse::coupling::HISTORY,
            count_from_message: true,
            reading: Reading::Stops,
            sure_join: 0.8,
            subject_words: 1.5,
            used_words: true,
            body_words: 0.25,
            same_file: 2.05,
            leaning_words: 0.5,
            versions: true,
            issues: true,
            shapes: true,
            history_words: 1.0,
            subject_kinds: 0.5,
            unclaimed_subjects: true,
            whole_words: true,
            version_weight: 3.0,
            issue_weight: 1.5,
            subject_veto: true,
            unsupported_cuts: true,
            cluster_elimination: true,
            elimination_share: 0.1,
            subject_margins: true,
            hunk_parts: true,
            ask_below: 0.68,
            weights: None,
        }
    }
}

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
}
