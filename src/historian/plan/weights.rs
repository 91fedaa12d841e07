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
/// commit?), rounded; a refit predicted pairs better but planned worse, so
/// they stay. The last two, added after, were set by planning the tuning
/// half with each of a few weights. A signal stays while leaving it out
/// costs the held-out half at least 0.005 on the neutral squash or the
/// messy branch (each cost below: held-out mean, neutral / messy / joined
/// messages); the signals that cost less were removed one at a time,
/// the cheapest first, measuring again after each (benches/README.md).
pub const SIGNALS: [Signal; 6] = [
    signal(
        "names in common (square root of Jaccard)",
        1.15,
        "two parts naming the same things work on the same thing; a few shared names already say much (cost 0.033 / 0.016 / 0.012)",
    ),
    signal(
        "change coupling strength",
        1.20,
        "files that changed together before the branch change together now (cost 0.026 / 0.015 / 0.007)",
    ),
    signal(
        "a test or caller of what the other changes",
        0.70,
        "code calling a changed function (a test, a caller) follows the change: the def-use evidence of the syntax; without it the demo branch's parse fix loses its new test to a commit of its own (tests/cli/historian/clean.rs) (cost 0.0056 / 0 / 0.003)",
    ),
    signal(
        "a file naming the other's stem",
        0.35,
        "an import or a mention of a module ties the two files (cost 0.007 / 0.003 / 0.001)",
    ),
    signal(
        WRITTEN,
        1.0,
        "lines one branch commit wrote (or a later one rewrote: a `fix` of a `wip`) belong together more often than not, whatever its message says; 0 when one commit wrote every part, as in a squash (cost 0 / 0.035 / 0; weight set on the tuning half's messy branch, where 0.5 / 1 / 1.5 scored 0.820 / 0.824 / 0.817; discounting a commit's writing by the share it wrote, by how many parts it wrote into or by how well its parts cohere otherwise, or centring the signal on its mean, scored 0.812–0.823 there: not kept, benches/README.md)",
    ),
    signal(
        "no past commit in common",
        -0.5,
        "two parts whose base lines' past writers are known (blame at the base, `line_history`) and share no commit are likelier apart (one file's hunks so come from one original 0.64 of the time, against 0.86 where unknown; in a file two originals share, 0.33) (cost 0.002 / 0.008 / 0.007; weight set on the tuning half beside an overlap of past writers since removed, benches/README.md)",
    ),
];

/// The name of the signal saying one branch commit wrote both parts.
pub const WRITTEN: &str = "one branch commit writing both";

/// The built-in weights: the intercept, then one per signal.
pub fn weights() -> Vec<f64> {
    std::iter::once(INTERCEPT)
        .chain(SIGNALS.iter().map(|s| s.weight))
        .collect()
}

/// A word list or constant of `src/historian/` that stays: where it is,
/// what it is for, and what leaving it out cost the evaluation's held-out
/// half (mean, against the planner as tuned; `analyse::left_out` leaves it
/// out, `HISTORIAN_EVAL_LEAVE_OUT` measures it). A list or constant that
/// decides which lines go together stays only if that costs at least 0.005
/// on the neutral or messy regime (one reading messages: on joined
/// messages, where it acts); one that orders or types commits, writes a
/// message or bounds time, memory or output is judged by what it does
/// there, which the grouping score cannot see, and says so.
pub struct Kept {
    pub name: &'static str,
    pub place: &'static str,
    pub why: &'static str,
    pub cost: &'static str,
}

const fn kept(name: &'static str, place: &'static str, why: &'static str, cost: &'static str) -> Kept {
    Kept { name, place, why, cost }
}

/// The grouping cost of the category lists: they decide a commit's type
/// and its place in the order (DESIGN §10.2, §10.3), and grouping only
/// through whether a file is a test.
const ORDERS: &str =
    "a path's category: the commit's type (`build`, `docs`, `test`, `chore`) and its place in the order";

/// Where a bound or a format stands: not a tuning of the grouping.
const BOUND: &str = "not measured: a bound on time, memory or output, not a tuning";

/// The word lists and constants that stay, each with its reason and what
/// leaving it out cost.
pub const KEPT: [Kept; 39] = [
    kept("INTERCEPT", "plan/weights.rs", "two parts nothing links are more likely apart", "neutral −0.027, messy −0.068, joined −0.0075 (at 0)"),
    kept("VERBS", "plan/subject_line.rs", "a later paragraph opening with a verb names a piece of work; below the rule since the second pruning round, kept for now: the subjects it finds are what the split commits say (it writes messages), and its removal changes how every squash is counted (benches/README.md)", "joined −0.0030 (−0.0078 before the second round)"),
    kept("HISTORY", "analyse/coupling.rs", "how far back change coupling reads (0 would be no coupling at all)", "the reach of change coupling and the line history, whose signals cost 0.026 (change coupling strength, neutral) and 0.008 (no past commit in common, messy), held out"),
    kept("DEPENDENCY_FILES", "analyse/classify/category.rs", ORDERS, "neutral 0, joined +0.0006"),
    kept("CONFIG_FILES", "analyse/classify/category.rs", ORDERS, "none"),
    kept("CONFIG_DIRECTORIES", "analyse/classify/category.rs", ORDERS, "none"),
    kept("TEST_DIRECTORIES", "analyse/classify/category.rs", ORDERS, "neutral −0.0000, joined +0.0002"),
    kept("DOC_DIRECTORIES", "analyse/classify/category.rs", ORDERS, "joined +0.0004"),
    kept("DOC_NAMES", "analyse/classify/category.rs", ORDERS, "neutral −0.0001, joined +0.0009"),
    kept("DOC_EXTENSIONS", "analyse/classify/category.rs", ORDERS, "neutral −0.0001, joined +0.0003"),
    kept("SCHEMA_DIRECTORIES", "analyse/classify/category.rs", ORDERS, "none"),
    kept("SCHEMA_EXTENSIONS", "analyse/classify/category.rs", ORDERS, "none"),
    kept("INTERFACE_DIRECTORIES", "analyse/classify/category.rs", ORDERS, "none"),
    kept("CONFIG_EXTENSIONS", "analyse/classify/category.rs", ORDERS, "none"),
    kept("ASSET_EXTENSIONS", "analyse/classify/category.rs", "an asset's commit scope is `assets`", "none"),
    kept("CI_FILES", "analyse/classify/ci.rs", "a commit of CI files alone is typed `ci`", "none"),
    kept("CI_DIRECTORIES", "analyse/classify/ci.rs", "a commit of CI files alone is typed `ci`", "none"),
    kept("GENERIC", "analyse/classify/component.rs", "a commit's scope is its last directory that names something (`src`, `lib` do not)", "none"),
    kept("KNOWN_TYPES", "message/subject.rs", "a conventional-commit type opens a subject (`feat:`), other words do not: it writes messages (the Conventional Commits types), which the grouping score cannot see", "joined −0.0002"),
    kept("named::by_elimination", "plan/named.rs", "a commit of a squash no part of which answers to a subject says the one subject no other commit answers to (`deps: update regex` beside `make clippy happy`): it writes messages (the commits are as joined), which the grouping score cannot see", "writes messages: not a grouping"),
    kept("subject_line::PROSE", "plan/subject_line.rs", "a one-line body opening like prose (`The limits grow …`) is no second piece of work; kept below the rule (as VERBS is): without it such a squash splits", "joined −0.0003"),
    kept("draft PROSE", "message/draft/mod.rs", "a body line opening like prose is not drafted into a subject", "writes messages: not a grouping"),
    kept("split WORDS", "plan/split.rs", "option counts written as words, as the seed writes them", "writes questions: not a grouping"),
    kept("line_history CONTEXT", "analyse/line_history.rs", "the base lines either side of a pure insertion that stand for it in the line history: git's own default context (3), not tuned", "not measured apart: part of the signal 'no past commit in common' (messy −0.008 held out)"),
    kept("LARGEST_BLAMED", "analyse/line_history.rs", "files larger than 1 MiB are not followed back through history", BOUND),
    kept("SWEEPING", "analyse/coupling.rs", "a commit touching more files couples nothing: counting every two of its files would cost their square", "neutral −0.0003, joined −0.0009; a bound"),
    kept("moves MOST_PASSES", "plan/pieces/moves.rs", "passes of local moves at most (each O(parts²): a bound on time)", BOUND),
    kept("MOST_PARTS", "plan/affinity.rs", "a unit of more parts is split by component: weighing every pair would be quadratic", BOUND),
    kept("MOST_ALTERNATIVES", "plan/auto.rs", "readings offered by a question", BOUND),
    kept("auto MOST_NAMES", "plan/auto.rs", "names listed in a drafted body", BOUND),
    kept("MOST_OPTIONS", "plan/split.rs", "splits offered for a commit over the size limits", BOUND),
    kept("LARGEST_PARSED", "analyse/syntax.rs", "larger files are not parsed", BOUND),
    kept("LARGEST_DIFFED_FILE", "analyse/items.rs", "larger files are whole items", BOUND),
    kept("DIFF_LINES, LISTED", "execute/agent_grouping.rs", "what an agent is shown", BOUND),
    kept("TAIL_LINES", "execute/verify_each.rs", "the failing check's output shown", BOUND),
    kept("DIFF_CAP", "execute/writer.rs", "the diff a commit writer is sent", BOUND),
    kept("branch MOST", "execute/branch.rs", "attempts at a free branch name", BOUND),
    kept("WRAPPED_WIDTH, SUBJECT_WIDTH, draft LISTED", "message/", "the width and length of what is drafted", BOUND),
    kept("VERSION, ITEM_LINES", "session.rs, commands/plan_html.rs", "the session's format version; lines an item shows in HTML", BOUND),
];

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
    /// How much surer two parts of one file (the pieces two `wip` commits
    /// of a messy branch wrote into it, or its hunks when a message names
    /// more pieces of work than files) are to belong together than their
    /// other signals say (added to the affinity's log-odds).
    pub same_file: f64,
    /// How much surer, in log-odds, two parts of one commit are to belong
    /// together when the author already cut the branch into commits with
    /// messages of their own (two or more not `wip`/`fix`-like) and this commit's
    /// message names one piece of work: the author's cut is evidence, so
    /// such a commit is split only where its parts are clearly apart (the
    /// join threshold moves by as much: 0.45 → 0.25). Set on the
    /// evaluation's tuning half, clean-branch regime (benches/README.md):
    /// 0 / 0.65 / 0.9 / 1.2 (thresholds 0.45 / 0.30 / 0.25 / 0.20) scored
    /// 0.894 / 0.950 / 0.962 / 0.967 on branches already clean and 0.832 /
    /// 0.837 / 0.834 / 0.824 on such branches whose first commit holds two
    /// originals' work under the first's message; a squash (one commit) or
    /// a branch of `wip` commits never meets it, so it cannot move the
    /// neutral squash, the messy branch or joined messages. Leaving it out
    /// costs the held-out clean branch 0.078 and the tangled one 0.009.
    pub authors_cut: f64,
    /// With several subjects named: how much surer two parts sharing the
    /// most words with one subject are to belong together (and less sure
    /// when with two different subjects), in log-odds.
    pub subject_words: f64,
    /// Whether a part answers to a subject by the words of the names its
    /// lines use too (a test calling `parse_header`, a changelog line), not
    /// only by its path, kind and the names it defines.
    pub used_words: bool,
    /// A split less sure than this (`pieces::sureness`: how well its
    /// chances agree with it, 1 when every two parts are where their chance
    /// says, less `ask_per_file` for each e-fold of its files) is
    /// doubtful: `clean` asks. Set with `ask_per_file` on the evaluation's
    /// tuning half for the most accuracy on the cases decided alone while
    /// at most a sixth of its neutral and messy cases ask: the held-out half
    /// asks about half as often again, and a question on every fourth
    /// branch is as many as a person should get. Set again with the unit
    /// size (`HISTORIAN_EVAL_ASK_SWEEP`, tuning half, neutral / messy):
    /// below 0.32 / 0.34 / 0.36 / 0.37 it asks on 13.7 / 17.2 / 20.7 /
    /// 23.1% and 10.6 / 13.4 / 16.8 / 18.6% of the cases, and scores
    /// 0.822 / 0.824 / 0.827 / 0.827 and 0.837 alike on those decided
    /// alone.
    pub ask_below: f64,
    /// How much less sure a split is for each e-fold of the files it cuts
    /// (`pieces::sureness`): agreement alone says little of a split of many
    /// files, each call between them a chance to be wrong.
    pub ask_per_file: f64,
    /// How much surer, in log-odds, any two parts of a unit are to belong
    /// together for each e-fold of its files beyond two, when one commit
    /// wrote them all and no message names its pieces (`pieces::unit_size`):
    /// the pieces of work are few and the files many, and most pairs of a
    /// large unit have no signal at all (left as commits of their own, a
    /// squash of nine files or more scored below one commit). Not read on a
    /// branch the author cut (the commits are the author's count) nor where
    /// branch commits wrote the parts (`writers` links them). Set on the
    /// evaluation's tuning half (0.2 / 0.3 / 0.4 alike within 0.001 on the
    /// neutral squash); leaving it out costs the held-out half 0.024 on the
    /// neutral squash, 0.0002 on the messy branch, 0.003 on joined messages
    /// and 0.015 on a tangled first commit (benches/README.md).
    pub unit_size: f64,
    /// Whether the cut average linkage makes is then mended by local moves
    /// (`pieces::moves`): a part to another cluster or alone, two clusters
    /// merged, while the sum over the pairs placed together of their
    /// log-odds beyond the threshold's (each pair weighed by its lines,
    /// `move_lines`) rises. Joins are greedy and never undone: a part joined
    /// early can end beside parts it is surely apart from, and a large part
    /// is placed by the average of small ones. Tried on the evaluation's
    /// tuning half (issue 39, benches/README.md): neutral / messy 0.8156 /
    /// 0.8331 without, 0.8174 / 0.8394 with (unweighted pairs 0.8156 /
    /// 0.8353; the exact best partition for units of at most 10 parts
    /// added nothing and is not kept). Held out, leaving it out costs the
    /// messy branch 0.0059 and gains the neutral squash 0.0004.
    pub local_moves: bool,
    /// Each pair's weight in the moves' objective: the product of its
    /// parts' lines to this power (0.5: their geometric mean), as the score
    /// counts lines, so a large part is not placed for a small one's sake.
    /// Chosen before the others were tried; 0.25 / 0.5 / 0.75 / 1 scored
    /// 0.8164 / 0.8174 / 0.8162 / 0.8164 neutral and 0.8371 / 0.8394 /
    /// 0.8404 / 0.8399 messy on the tuning half.
    pub move_lines: f64,
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
            same_file: 2.05,
            authors_cut: 0.9,
            ask_below: 0.34,
            ask_per_file: 0.15,
            unit_size: 0.3,
            local_moves: true,
            move_lines: 0.5,
            weights: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{KEPT, SIGNALS};

    #[test]
    fn every_kept_list_and_signal_says_why_and_what_leaving_it_out_cost() {
        let mut names: Vec<&str> = KEPT.iter().map(|k| k.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), KEPT.len(), "a name twice");
        for k in &KEPT {
            assert!(!k.why.is_empty() && !k.cost.is_empty(), "{}", k.name);
        }
        for s in &SIGNALS {
            assert!(s.why.contains("cost"), "{}: {}", s.name, s.why);
        }
    }
}
