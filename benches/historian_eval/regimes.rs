//! How a group of original commits reaches the planner: the regimes of
//! the evaluation ([`Regime`]) and each group rebuilt as one of them
//! ([`case`]).

use std::collections::{BTreeMap, BTreeSet};

use ultraplan::git::{Oid, Repo};
use ultraplan::historian::analyse::items::ChangeSet;
use ultraplan::historian::analyse::provenance::{self, Provenance};
use ultraplan::historian::execute::build::Builder;

use super::sources::{Case, Group, Lcg, Prepared};

/// How a group of original commits reaches the planner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Regime {
    /// Squashed into one commit with one neutral message: a tangled commit.
    Neutral,
    /// Rebuilt as 3–8 `wip`/`fix`/`more` commits whose hunks interleave the
    /// originals (some of A, then of B, then the rest of A).
    Messy,
    /// Squashed into one commit keeping the messages joined, as `git rebase
    /// -i` joins them.
    Joined,
    /// The originals themselves (their trees, messages and authors; the tip
    /// is the last): a branch that is already clean, where the best plan
    /// keeps it as it is (`HISTORIAN_EVAL_REGIMES=clean`).
    Clean,
    /// The originals as a clean branch, but the first two squashed into
    /// one commit under the first's message (a commit that says one thing
    /// and holds two; with two originals, the whole branch): what trusting
    /// the author's commits can cost (`HISTORIAN_EVAL_REGIMES=tangled`).
    Tangled,
}

pub const REGIMES: [Regime; 5] = [
    Regime::Neutral,
    Regime::Messy,
    Regime::Joined,
    Regime::Clean,
    Regime::Tangled,
];

impl Regime {
    pub fn label(self) -> &'static str {
        match self {
            Regime::Neutral => "neutral squash",
            Regime::Messy => "messy branch",
            Regime::Joined => "joined messages",
            Regime::Clean => "clean branch",
            Regime::Tangled => "tangled first commit",
        }
    }
}

/// The neutral message of a tangled commit: says nothing of its work.
pub const NEUTRAL: &str = "Update\n";
/// The messages of a messy branch's commits.
const MESSY: [&str; 6] = ["wip", "fix", "more", "wip", "more work", "fixes"];

/// `group` rebuilt as `regime`'s branch; `None` when it cannot be rebuilt
/// (a path that is a file at one step and a directory at another).
pub fn case(repo: &Repo, group: &Group, prepared: &Prepared, regime: Regime, seed: u64) -> Option<Case> {
    let last = group.originals.last()?;
    if regime == Regime::Clean {
        // The originals as they are: nothing to write, their provenance is
        // the truth's.
        return Some(Case {
            changes: prepared.changes.clone(),
            branch: group.originals.clone(),
            seen: prepared.truth.clone(),
            originals: group.originals.clone(),
            truth: prepared.truth.clone(),
            coupling: prepared.coupling.clone(),
        });
    }
    let author = &group.originals[0].author;
    let tip = match regime {
        Regime::Neutral => repo.write_commit_as(last.tree, &[group.base], NEUTRAL, author).ok()?,
        Regime::Joined => {
            let message = group
                .originals
                .iter()
                .map(|c| c.message.trim_end())
                .collect::<Vec<_>>()
                .join("\n\n")
                + "\n";
            repo.write_commit_as(last.tree, &[group.base], &message, author).ok()?
        }
        Regime::Messy => messy(repo, &prepared.changes, &prepared.truth, group, seed)?,
        Regime::Clean => last.id,
        Regime::Tangled => {
            let first = &group.originals[0];
            let second = &group.originals[1];
            let a = repo
                .write_commit_as(second.tree, &[group.base], &first.message, &first.author)
                .ok()?;
            match group.originals.get(2) {
                Some(third) => repo
                    .write_commit_as(third.tree, &[a], &third.message, &third.author)
                    .ok()?,
                None => a,
            }
        }
    };
    let branch = repo.branch_commits(group.base, tip).ok()?;
    // The branch ends in the originals' tree: the same items.
    let mut changes = prepared.changes.clone();
    changes.tip = tip;
    let seen = provenance::trace(repo, &changes, &branch).ok()?;
    Some(Case {
        changes,
        branch,
        seen,
        originals: group.originals.clone(),
        truth: prepared.truth.clone(),
        coupling: prepared.coupling.clone(),
    })
}

/// The messy branch of a group: its items, each given to the original that
/// wrote most of it, cut per original into 1–3 chunks (a start, more, a fix
/// to it later) so that there are 3–8 in all where the items allow, the
/// chunks interleaved at random keeping each original's in order, one
/// `wip`-like commit per chunk, and one commit in four or so also taking the
/// next chunk of another original (work on two things committed at once).
fn messy(repo: &Repo, changes: &ChangeSet, truth: &Provenance, group: &Group, seed: u64) -> Option<Oid> {
    let mut random = Lcg(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut by_original: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..changes.items.len() {
        by_original.entry(truth.primary(i).unwrap_or(0)).or_default().push(i);
    }
    let items = changes.items.len();
    let wanted = (3 + random.below(6) as usize).min(items);
    // Chunks per original: one each, then more to the larger ones at random.
    let mut chunks: BTreeMap<usize, usize> = by_original.keys().map(|&o| (o, 1)).collect();
    let mut total: usize = chunks.len();
    let mut guard = 0;
    while total < wanted && guard < 64 {
        guard += 1;
        let keys: Vec<usize> = by_original
            .iter()
            .filter(|(o, list)| chunks[o] < 3 && chunks[o] < list.len())
            .map(|(o, _)| *o)
            .collect();
        if keys.is_empty() {
            break;
        }
        let o = keys[random.below(keys.len() as u64) as usize];
        *chunks.get_mut(&o).expect("an original") += 1;
        total += 1;
    }
    // Each original's items in chunks (in path order, cut at random places).
    let mut queues: Vec<std::collections::VecDeque<Vec<usize>>> = Vec::new();
    for (o, list) in &by_original {
        let n = chunks[o];
        let mut cuts: BTreeSet<usize> = BTreeSet::new();
        while cuts.len() + 1 < n {
            cuts.insert(1 + random.below((list.len() - 1) as u64) as usize);
        }
        let mut queue = std::collections::VecDeque::new();
        let mut start = 0;
        for &cut in cuts.iter().chain(std::iter::once(&list.len())) {
            queue.push_back(list[start..cut].to_vec());
            start = cut;
        }
        queues.push(queue);
    }
    let mut builder = Builder::new(repo, changes);
    let author = &group.originals[0].author;
    let mut tip = group.base;
    loop {
        let open: Vec<usize> = (0..queues.len()).filter(|&q| !queues[q].is_empty()).collect();
        if open.is_empty() {
            break;
        }
        let q = open[random.below(open.len() as u64) as usize];
        let mut chunk = queues[q].pop_front().expect("an open queue");
        // Now and then a commit carries work of two originals: the end of
        // one and the start of another, committed together.
        let others: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&o| o != q && !queues[o].is_empty())
            .collect();
        if !others.is_empty() && random.below(4) == 0 {
            let o = others[random.below(others.len() as u64) as usize];
            chunk.extend(queues[o].pop_front().expect("an open queue"));
            chunk.sort_unstable();
        }
        let prepared = builder.prepare(&chunk).ok()?;
        let message = format!("{}\n", MESSY[random.below(MESSY.len() as u64) as usize]);
        tip = builder.commit(prepared, &message, author).ok()?;
    }
    Some(tip)
}
