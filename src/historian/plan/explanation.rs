//! The explanation of a plan (issue 15, item 2): what the planning steps
//! noted in the context's [`Record`] while deciding, per item and per
//! commit, with the candidate splits of every commit over the limits.

use std::collections::BTreeMap;

use super::context::Context;
use super::reason::{OwnAnswer, Placement, Record, Signal};
use super::split::{self, Limits, Split};
use super::CommitPlan;
use crate::historian::analyse::items::Status;

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
    /// The subject of its unit's message its piece answered to, when the
    /// planner split the unit by the subjects it names.
    pub subject: Option<String>,
    /// How its own path and names answer to that subject — how many more
    /// words they share with it than with any other, or by elimination —
    /// when they do; none when only the rest of its piece does.
    pub own_answer: Option<OwnAnswer>,
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
            unit: (!from_file).then(|| record.unit_of(i).cloned()).flatten(),
            placed: if from_file {
                Some(Placement::rule(Signal::PlanFile))
            } else {
                moved.get(&i).cloned().or_else(|| record.placed_of(i).cloned())
            },
            subject: (!from_file).then(|| record.answered_of(i).map(str::to_owned)).flatten(),
            own_answer: (!from_file).then(|| record.own_answer_of(i)).flatten(),
        })
        .collect();
    let questions = plan
        .commits
        .iter()
        .enumerate()
        .filter_map(|(c, commit)| {
            split::question(ctx, &commit.items, commit.keep, limits)
                .map(|candidates| QuestionReason { commit: c, candidates })
        })
        .collect();
    Explanation { items, questions }
}

/// Items ordering moved away from every item grouped with them: a package's
/// `__init__.py` or a deletion of moved lines (`present`).
fn moved_by_order(ctx: &Context<'_>, record: &Record, commit_of: &[usize]) -> BTreeMap<usize, Placement> {
    let mut out = BTreeMap::new();
    let Some(grouped) = record.groups() else {
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
