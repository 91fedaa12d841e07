//! Every weight, threshold and knob the planner is tuned by, in one place,
//! each with the reason it is there: the affinity's [`SIGNALS`] (and its
//! [`INTERCEPT`]), the [`Tuning`] knobs and the few constants the signals
//! read. Each stays only while leaving it out costs the evaluation's
//! held-out half (`benches/historian_eval`, figures in `benches/README.md`);
//! anything set from the evaluation is set on its tuning half.

/// One signal between two parts, its weight in the log-odds that they
/// belong to one piece of work, and why it weighs so.
pub struct Signal {
    pub name: &'static str,
    pub weight: f64,
    pub why: &'static str,
}

const fn signal(name: &'static str, weight: f64, why: &'static str) -> Signal {
    Signal { name, weight, why }
}

/// The log-odds of two parts with no signal at all: two pieces of work in
/// one commit are common, so two parts nothing links are more likely apart.
pub const INTERCEPT: f64 = -0.75;

/// The signals, in the order `affinity::features` reads them. The weights
/// began as those a logistic regression found on the pairs of parts of the
/// evaluation's tuning half (were the two written by one original
/// commit?), rounded; a refit after the pruning predicted pairs better but
/// planned worse, so they stay. Each signal stays only while leaving it out
/// costs the held-out half, alone or with the others that overlap it.
pub const SIGNALS: [Signal; 9] = [
    signal(
        "names in common (square root of Jaccard)",
        1.15,
        "two parts naming the same things work on the same thing; a few shared names already say much",
    ),
    signal(
        "rare names in common (weighted Jaccard)",
        0.40,
        "a rare name shared is a stronger link than a common one",
    ),
    signal(
        "change coupling strength",
        1.20,
        "files that changed together before the branch change together now",
    ),
    signal(
        "change coupling lift",
        0.90,
        "coupling that is not just one file changing with everything",
    ),
    signal(
        "a test naming the other's stem",
        0.65,
        "a test goes with the code it tests",
    ),
    signal(
        "a definition and its use",
        0.45,
        "a use needs its definition: they are one change or in order",
    ),
    signal(
        "a test or caller of what the other changes",
        0.70,
        "code calling a changed function (a test, a caller) follows the change",
    ),
    signal(
        "a file naming the other's stem",
        0.35,
        "an import or a mention of a module ties the two files",
    ),
    signal(
        "docs, build or configuration with code",
        -0.65,
        "housekeeping beside code is often a chore of its own",
    ),
];

/// The built-in weights: the intercept, then one per signal.
pub fn weights() -> Vec<f64> {
    std::iter::once(INTERCEPT)
        .chain(SIGNALS.iter().map(|s| s.weight))
        .collect()
}

/// A file's history word is in the subjects of at least this many of the
/// commits touching it (one or two subjects are chance, not the file's
/// vocabulary)…
pub const HISTORY_MIN: usize = 3;
/// …and this many times as often as in all subjects read (`fix` is every
/// file's word, so no file's).
pub const HISTORY_LIFT: f64 = 16.0;

/// From this many parts on, a word all of them answer to is left out: it
/// is the project's (its name in every path), telling no part apart; with
/// fewer parts, a shared word is as likely the work's own.
pub const MOST_COMMON: usize = 4;

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
            ask_below: 0.67,
            weights: None,
        }
    }
}
