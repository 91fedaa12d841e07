//! Splitting one unit of work (a branch commit, with what was folded into
//! it) into the pieces a reviewer would see as separate commits.
//!
//! Each file of the unit is a part (each hunk, when a message names more
//! pieces of work than the unit has files).
//! For every two parts a few signals are read — the names both mention,
//! whether they changed together before the branch (change coupling), a
//! caller of a changed definition (a test, a use), a file naming the
//! other, whether one branch commit wrote both (`writers`: 0 when one
//! commit wrote every part, as in a squash), whether the base
//! lines both touch were last written by no past commit in common
//! (`line_history`: blame at the base) — and weighed
//! into the chance that they belong to one piece of work by a logistic
//! function. Parts then join by average linkage while the chance is at
//! least `join_threshold`, and local moves mend what the greedy joins did
//! (`pieces::moves`).
//!
//! The weights, each with its reason, are `weights::SIGNALS`; the
//! evaluation (`benches/historian_eval.rs`) scores the planner without each
//! of them, and a signal stays only while leaving it out costs the
//! held-out half.
//!
//! Joining the parts by these chances into a unit's pieces is `pieces`.
//!
//! Files are seldom cut: two hunks of one file are much surer to belong
//! together than their other signals say (`Tuning::same_file`), and with
//! a message naming several pieces of work a file is cut only where its
//! hunks answer to different ones of them (`subjects`).

use std::collections::{BTreeMap, BTreeSet};

use super::context::Context;
pub use super::weights::weights;
use super::weights::SIGNALS;
use super::writers::Writers;
use crate::historian::analyse::classify::{self, Category};
use crate::historian::analyse::coupling::Coupling;
use crate::historian::analyse::items::ChangeSet;
use crate::historian::analyse::line_history::share_a_writer;

/// Units with more files than this are split by component alone.
pub(super) const MOST_PARTS: usize = 300;

/// One part of a unit: a file and what is known of it.
pub struct Part {
    /// The unit (branch commit, after folding) its items come from.
    pub unit: usize,
    pub file: usize,
    pub(super) path: String,
    pub items: Vec<usize>,
    pub(super) category: Category,
    pub(super) component: String,
    stem: String,
    pub(super) defined: BTreeSet<String>,
    pub(super) used: BTreeSet<String>,
    /// The definitions its lines fall inside (`analyse::syntax`).
    pub(super) enclosing: BTreeSet<String>,
    /// The words of the headings its items fall under (`analyse::sections`).
    pub(super) heading: BTreeSet<String>,
    pub lines: usize,
}

/// The parts of unit `unit`: one per file.
pub fn parts(changes: &ChangeSet, unit: usize, files: &BTreeMap<usize, Vec<usize>>) -> Vec<Part> {
    parts_of(changes, files.iter().map(|(&f, items)| (unit, f, items.clone())))
}

/// The parts of unit `unit` with each hunk of a file changed hunk by hunk
/// a part of its own.
pub(super) fn hunk_parts(changes: &ChangeSet, unit: usize, files: &BTreeMap<usize, Vec<usize>>) -> Vec<Part> {
    let pieces = files.iter().flat_map(|(&f, items)| {
        if changes.files[f].is_hunked() {
            items.iter().map(|&i| (unit, f, vec![i])).collect::<Vec<_>>()
        } else {
            vec![(unit, f, items.clone())]
        }
    });
    parts_of(changes, pieces)
}

/// A part for each (unit, file, items).
pub(super) fn parts_of(changes: &ChangeSet, pieces: impl Iterator<Item = (usize, usize, Vec<usize>)>) -> Vec<Part> {
    pieces
        .map(|(unit, f, items)| {
            let file = &changes.files[f];
            let path = file.path.as_str();
            let mut defined = BTreeSet::new();
            let mut used = BTreeSet::new();
            let mut enclosing = BTreeSet::new();
            let mut lines = 0;
            let mut heading = BTreeSet::new();
            for &i in &items {
                let it = &changes.items[i];
                heading.extend(it.symbols.heading.iter().cloned());
                defined.extend(it.symbols.defined.iter().cloned());
                used.extend(it.symbols.used.iter().cloned());
                enclosing.extend(it.symbols.enclosing.iter().cloned());
                lines += it.lines;
            }
            Part {
                unit,
                file: f,
                path: path.to_owned(),
                items,
                category: classify::category(path),
                component: classify::component(path),
                stem: classify::stem(path),
                defined,
                used,
                enclosing,
                heading,
                lines,
            }
        })
        .collect()
}

/// The signals for two parts, in the order of [`SIGNALS`]; `written` is
/// how far one branch commit wrote both (`writers`), `in_common` whether
/// some past commit last wrote base lines of both
/// (`LineHistory::in_common`; `None` when either's are unknown).
pub fn features(a: &Part, b: &Part, coupling: &Coupling, written: f64, in_common: Option<bool>) -> Signals {
    let flag = |x: bool| if x { 1.0 } else { 0.0 };
    let shared: Vec<&String> = a.used.intersection(&b.used).collect();
    let union = a.used.union(&b.used).count().max(1);
    let jaccard = shared.len() as f64 / union as f64;
    let calls = |x: &Part, y: &Part| {
        x.enclosing
            .iter()
            .any(|n| y.used.contains(n) && !y.enclosing.contains(n))
    };
    let names = |x: &Part, y: &Part| y.stem.len() >= 4 && x.used.contains(&y.stem);
    [
        jaccard.sqrt(),
        coupling.strength(a.file, b.file),
        flag(calls(a, b) || calls(b, a)),
        flag(names(a, b) || names(b, a)),
        written,
        flag(in_common == Some(false)),
    ]
}

/// Two parts (by index) and their signals.
pub type Pair = (usize, usize, Signals);

/// The signals of a pair, in the order of [`SIGNALS`].
pub type Signals = [f64; SIGNALS.len()];

/// The chance two parts belong together, from their signals and the
/// weights (the intercept first, then one per signal).
pub fn affinity(features: &Signals, weights: &[f64]) -> f64 {
    let z = weights[0] + features.iter().zip(&weights[1..]).map(|(x, w)| x * w).sum::<f64>();
    1.0 / (1.0 + (-z).exp())
}

/// The signals of every two of `parts` (the first before the second).
pub fn pairs_of(parts: &[Part], ctx: &Context<'_>) -> Vec<Pair> {
    let n = parts.len();
    let writers = Writers::of(parts.iter().map(|p| &p.items[..]), ctx.provenance, &ctx.roots);
    let amends = ctx.amends();
    let lines = &ctx.coupling.lines;
    let past: Vec<Option<Vec<u32>>> = parts.iter().map(|p| lines.writers(&p.items)).collect();
    let mut out = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for a in 0..n {
        for b in a + 1..n {
            let written = writers.together(a, b, &amends);
            let in_common = match (&past[a], &past[b]) {
                (Some(x), Some(y)) => Some(share_a_writer(x, y)),
                _ => None,
            };
            out.push((a, b, features(&parts[a], &parts[b], &ctx.coupling, written, in_common)));
        }
    }
    out
}
