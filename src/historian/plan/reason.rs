//! Why each change item is in its commit (issue 15, item 2): the signal
//! that decided it and how strong it was, recorded as data by the planning
//! steps where they decide, for `git historian plan --explain`.
//!
//! An item has two reasons. Its **unit** ([`units`](super::units)) says
//! which branch commit it belongs to: most of its lines came from it, or it
//! was folded in (a `fixup!`, a noise commit's lines). Its **placement**
//! says why it sits with the other items of its commit: the affinity link
//! that joined its file to another part of the unit, or a rule that moved
//! it (a module declaration joining its module, a new test joining its new
//! code, a path that must change in one commit, a package's `__init__.py`
//! coming first, a deletion of moved lines waiting for their re-adding).
//! The placement, when there is one, is the deciding signal; otherwise the
//! unit is.
//!
//! The steps write into the [`Record`] a [`Context`] carries; nothing here
//! changes a decision. The command layer renders what [`explain`] returns.

use std::collections::BTreeMap;

use super::affinity::{self, Pair, Part};
use super::context::Context;
use super::split::{self, Limits, Split};
use super::CommitPlan;
use crate::historian::analyse::classify;
use crate::historian::analyse::items::Status;

/// How strong a signal was.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strength {
    /// A rule, which holds whenever it applies.
    Rule,
    /// The share of the item's changed lines (0 to 1).
    Share(f64),
    /// The affinity: the estimated chance two parts belong to one piece of
    /// work (0 to 1), against the join threshold.
    Chance(f64),
}

/// What put an item where it is. Commits are indices into the branch's
/// commits, files into the change set's files.
#[derive(Clone, Debug, PartialEq)]
pub enum Signal {
    /// Most of its lines were written in this branch commit.
    Provenance { commit: usize },
    /// Its lines came from `fixup`, a `fixup!`/`squash!`/`amend!` commit
    /// folded into `into`.
    Folded { fixup: usize, into: usize },
    /// Only the noise commit `noise` ("wip", "fix typo") wrote it, rewriting
    /// lines of `into`.
    Amends { noise: usize, into: usize },
    /// Only the noise commit `noise` wrote it; `into` is the nearest
    /// meaningful commit that touched the same file.
    Nearest { noise: usize, into: usize },
    /// Only the noise commit `noise` wrote it, and nothing claims it.
    NoiseOnly { noise: usize },
    /// No branch commit wrote it (the branch's pool).
    Untraced,
    /// Its file joined the commit through its strongest link, to `file`,
    /// whose heaviest signal is `feature` (an [`affinity::FEATURES`] name).
    Linked { file: usize, feature: &'static str },
    /// Its file is a commit of its own: no link reached the threshold.
    Unlinked { threshold: f64 },
    /// A small code part riding along with the unit's largest code part
    /// (its file `file`).
    RidesAlong { file: usize, lines: usize },
    /// A unit too large to weigh pair by pair, split by component.
    ByComponent { component: String },
    /// A hunk only declaring modules, moved to the commit adding (or
    /// removing) the module.
    Declares { module: String },
    /// A new test moved to the commit adding the code it tests.
    TestOf { stem: String },
    /// A path that is a file at one end and a directory at the other:
    /// both changes must be in one commit.
    PathConflict { path: String },
    /// A new package's `__init__.py`, moved to the first commit adding a
    /// file of the package.
    PackageFirst { package: String },
    /// A deletion of lines moved elsewhere, moved to the commit by which
    /// they are all added again.
    AfterReAdd,
    /// Listed there by the plan file (`--plan`).
    PlanFile,
}

/// A candidate that lost.
#[derive(Clone, Debug, PartialEq)]
pub enum Rival {
    /// Another branch commit wrote this share of the item's lines.
    Commit { commit: usize, share: f64 },
    /// The strongest link to a file that went to another commit.
    File { file: usize, chance: f64 },
}

/// One decision about an item.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    pub signal: Signal,
    pub strength: Strength,
    /// The competing candidates, strongest first.
    pub rivals: Vec<Rival>,
}

impl Placement {
    pub fn rule(signal: Signal) -> Placement {
        Placement {
            signal,
            strength: Strength::Rule,
            rivals: Vec::new(),
        }
    }
}

/// What the planning steps noted while deciding, per item.
#[derive(Clone, Debug, Default)]
pub struct Record {
    units: BTreeMap<usize, Placement>,
    placed: BTreeMap<usize, Placement>,
    /// The groups before ordering, which may move pieces between them.
    grouped: Option<Vec<Vec<usize>>>,
}

impl Record {
    pub(super) fn unit(&mut self, item: usize, placement: Placement) {
        self.units.insert(item, placement);
    }

    pub(super) fn placed(&mut self, item: usize, placement: Placement) {
        self.placed.insert(item, placement);
    }

    pub(super) fn grouped(&mut self, groups: &[Vec<usize>]) {
        self.grouped = Some(groups.to_vec());
    }
}

/// Why one item is where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemReason {
    pub item: usize,
    /// The commit of the plan holding it (from 0).
    pub commit: usize,
    /// Which branch commit it belongs to.
    pub unit: Option<Placement>,
    /// Why it sits with the rest of its commit, when more than its unit.
    pub placed: Option<Placement>,
}

impl ItemReason {
    /// The deciding signal: the placement, else the unit.
    pub fn deciding(&self) -> Option<&Placement> {
        self.placed.as_ref().or(self.unit.as_ref())
    }
}

/// A commit over the limits: `clean` will ask, offering these splits (and
/// keeping it as one).
#[derive(Clone, Debug, PartialEq)]
pub struct QuestionReason {
    pub commit: usize,
    pub candidates: Vec<Split>,
}

/// Why the plan is what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// One per change item, by item.
    pub items: Vec<ItemReason>,
    pub questions: Vec<QuestionReason>,
}

/// The explanation of `plan`, from what the planner recorded in `ctx`
/// (nothing for a plan file, whose items all say [`Signal::PlanFile`]).
pub fn explain(ctx: &Context<'_>, plan: &CommitPlan, limits: Limits, from_file: bool) -> Explanation {
    let record = ctx.take_record();
    let mut commit_of = vec![0; ctx.changes.items.len()];
    for (c, commit) in plan.commits.iter().enumerate() {
        for &i in &commit.items {
            commit_of[i] = c;
        }
    }
    let moved = if from_file {
        BTreeMap::new()
    } else {
        moved_by_order(ctx, &record, &commit_of)
    };
    let items = (0..ctx.changes.items.len())
        .map(|i| ItemReason {
            item: i,
            commit: commit_of[i],
            unit: (!from_file).then(|| record.units.get(&i).cloned()).flatten(),
            placed: if from_file {
                Some(Placement::rule(Signal::PlanFile))
            } else {
                moved.get(&i).cloned().or_else(|| record.placed.get(&i).cloned())
            },
        })
        .collect();
    let questions = plan
        .commits
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.keep && split::size(ctx, &c.items).over(limits))
        .map(|(c, commit)| QuestionReason {
            commit: c,
            candidates: split::splits(ctx, &commit.items, limits),
        })
        .collect();
    Explanation { items, questions }
}

/// Items ordering moved away from every item grouped with them: a package's
/// `__init__.py` or a deletion of moved lines (`present`).
fn moved_by_order(ctx: &Context<'_>, record: &Record, commit_of: &[usize]) -> BTreeMap<usize, Placement> {
    let mut out = BTreeMap::new();
    let Some(grouped) = &record.grouped else {
        return out;
    };
    let changes = ctx.changes;
    for group in grouped.iter().filter(|g| g.len() > 1) {
        for &i in group {
            if group.iter().any(|&j| j != i && commit_of[j] == commit_of[i]) {
                continue;
            }
            let file = &changes.files[changes.items[i].file];
            let signal = match file.path.rsplit_once('/') {
                Some((package, "__init__.py")) if file.status == Status::Added => Signal::PackageFirst {
                    package: package.to_owned(),
                },
                _ => Signal::AfterReAdd,
            };
            out.insert(i, Placement::rule(signal));
        }
    }
    out
}

/// Notes why each part of a unit is in its cluster (`clusters` holds part
/// indices): its strongest link inside, else riding along or alone; and
/// its strongest link outside as the rival.
pub(super) fn note_split(
    ctx: &Context<'_>,
    parts: &[Part],
    pairs: &[Pair],
    coefficients: &[f64],
    threshold: f64,
    clusters: &[Vec<usize>],
) {
    let n = parts.len();
    let mut cluster_of = vec![0; n];
    for (c, members) in clusters.iter().enumerate() {
        for &p in members {
            cluster_of[p] = c;
        }
    }
    // Per part: the best link inside its cluster and outside, with the
    // signals of the inside one.
    let mut inside: Vec<Option<(f64, usize, usize)>> = vec![None; n];
    let mut outside: Vec<Option<(f64, usize)>> = vec![None; n];
    for (k, (a, b, f)) in pairs.iter().enumerate() {
        let chance = affinity::affinity(f, coefficients);
        for (p, q) in [(*a, *b), (*b, *a)] {
            if cluster_of[p] == cluster_of[q] {
                if inside[p].is_none_or(|(best, _, _)| chance > best) {
                    inside[p] = Some((chance, q, k));
                }
            } else if outside[p].is_none_or(|(best, _)| chance > best) {
                outside[p] = Some((chance, q));
            }
        }
    }
    let mut record = ctx.record();
    for p in 0..n {
        let rivals: Vec<Rival> = outside[p]
            .map(|(chance, q)| Rival::File {
                file: parts[q].file,
                chance,
            })
            .into_iter()
            .collect();
        let placement = match inside[p] {
            Some((chance, q, k)) if chance >= threshold => Placement {
                signal: Signal::Linked {
                    file: parts[q].file,
                    feature: heaviest_feature(&pairs[k].2, coefficients),
                },
                strength: Strength::Chance(chance),
                rivals,
            },
            Some((chance, q, _)) => Placement {
                signal: Signal::RidesAlong {
                    file: parts[largest(parts, &clusters[cluster_of[p]], p).unwrap_or(q)].file,
                    lines: parts[p].lines,
                },
                strength: Strength::Chance(chance),
                rivals,
            },
            None if n == 1 => continue,
            None => Placement {
                signal: Signal::Unlinked { threshold },
                strength: Strength::Chance(outside[p].map_or(0.0, |(c, _)| c)),
                rivals,
            },
        };
        for &i in &parts[p].items {
            record.placed(i, placement.clone());
        }
    }
}

/// The largest other part of a cluster.
fn largest(parts: &[Part], members: &[usize], not: usize) -> Option<usize> {
    members
        .iter()
        .copied()
        .filter(|&q| q != not)
        .max_by_key(|&q| (parts[q].lines, std::cmp::Reverse(q)))
}

/// The signal adding most to a pair's affinity.
fn heaviest_feature(signals: &affinity::Signals, coefficients: &[f64]) -> &'static str {
    signals
        .iter()
        .zip(&coefficients[1..])
        .zip(affinity::FEATURES)
        .map(|((x, w), name)| (x * w, name))
        .fold(
            ("", f64::MIN),
            |best, (v, name)| if v > best.1 { (name, v) } else { best },
        )
        .0
}

/// Notes the parts of a unit split by component.
pub(super) fn note_components(ctx: &Context<'_>, parts: &[Part]) {
    let mut record = ctx.record();
    for part in parts {
        let component = classify::component(&ctx.changes.files[part.file].path);
        for &i in &part.items {
            record.placed(
                i,
                Placement::rule(Signal::ByComponent {
                    component: component.clone(),
                }),
            );
        }
    }
}

/// Notes a rule that moved or joined `items`.
pub(super) fn note_rule(ctx: &Context<'_>, items: impl IntoIterator<Item = usize>, signal: Signal) {
    let mut record = ctx.record();
    for i in items {
        record.placed(i, Placement::rule(signal.clone()));
    }
}

/// The rivals of an item's unit: the other branch commits that wrote its
/// lines, by share, strongest first; and the share of `unit`.
pub(super) fn unit_shares(weights: &BTreeMap<usize, u32>, unit: usize) -> (f64, Vec<Rival>) {
    let total: u32 = weights.values().sum();
    let share = |w: u32| {
        if total == 0 {
            0.0
        } else {
            f64::from(w) / f64::from(total)
        }
    };
    let mut rivals: Vec<(u32, usize)> = weights
        .iter()
        .filter(|(k, _)| **k != unit)
        .map(|(k, w)| (*w, *k))
        .collect();
    rivals.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    (
        weights.get(&unit).copied().map_or(0.0, share),
        rivals
            .into_iter()
            .map(|(w, commit)| Rival::Commit {
                commit,
                share: share(w),
            })
            .collect(),
    )
}
