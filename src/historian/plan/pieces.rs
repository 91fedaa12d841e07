//! A unit's parts joined into the pieces of work it holds, by the chances
//! `affinity` gives every two of them: average linkage while the chance is
//! at least `join_threshold` (`Tuning`), then local moves while they bring
//! more pairs to the side of the threshold their chance is on (`moves`).
//!
//! A unit whose message names several pieces of work (`count`) is split
//! into about that many: parts join until that many are left, then only
//! when the affinity is nearly sure (`sure_join`), and the subjects pull
//! and push parts as `named` says. The noise commits of a branch (`wip`,
//! `fix`, `more`) are one pool ([`split_pool`]): their parts join across
//! commits by the same signals; which commit wrote them is one signal
//! among the others (`writers`), not a boundary (a `wip` commit's
//! boundaries help but do not decide: one may hold the end of one piece of
//! work and the start of another).
//!
//! A split is only as sure as the chances it was made from agree with it
//! (`doubt::confidence`): below `Tuning::ask_below`, the split carries a
//! [`Doubt`] with the readings it weighed, and `clean` asks a person
//! rather than guess.

use std::collections::BTreeMap;

use super::affinity::{affinity, hunk_parts, pairs_of, parts, parts_of, Pair, Part, Signals, MOST_PARTS};
use super::context::{Context, Tuning};
use super::linkage::Linkage;
use super::named::Named;
use super::reason::PartFacts;
use super::subjects::pieces_by_subject;
use super::weights::{SIGNALS, WRITTEN};

mod doubt;
mod moves;

use doubt::{confidence, doubt};
pub use doubt::{Doubt, KEEP_AS_ONE};

/// A unit's (or the pool's) groups of items, and how sure the cut is.
#[derive(Clone, Debug, Default)]
pub struct Split {
    pub groups: Vec<Vec<usize>>,
    pub doubt: Option<Doubt>,
}

/// Splits one unit (branch commit `unit`, with its `files`) into groups;
/// `named` are the pieces of work its message names (`count`).
pub fn split_unit(
    ctx: &Context<'_>,
    unit: usize,
    files: &BTreeMap<usize, Vec<usize>>,
    tuning: &Tuning,
    named: &[&str],
) -> Split {
    if files.len() > MOST_PARTS {
        return by_component(ctx, parts(ctx.changes, unit, files));
    }
    let parts = unit_parts(ctx, unit, files, tuning, named);
    let wanted = named.len() >= 2;
    let named = wanted.then(|| Named::new(&parts, named, tuning));
    cluster(ctx, &parts, tuning, named.as_ref())
}

/// The parts of a unit: its files, or, as its message names more pieces
/// than it has files, its hunks, or files cut by the subjects their hunks
/// answer to; with no pieces named, its files whole.
pub fn unit_parts(
    ctx: &Context<'_>,
    unit: usize,
    files: &BTreeMap<usize, Vec<usize>>,
    tuning: &Tuning,
    named: &[&str],
) -> Vec<Part> {
    let wanted = Some(named.len()).filter(|&k| k >= 2);
    let few_items = files.values().map(Vec::len).sum::<usize>() <= MOST_PARTS;
    match wanted {
        Some(k) if few_items && files.len() < k => hunk_parts(ctx.changes, unit, files),
        Some(_) if few_items => {
            let pieces = pieces_by_subject(ctx.changes, files, named, tuning);
            parts_of(ctx.changes, pieces.into_iter().map(|(f, items)| (unit, f, items)))
        }
        _ => parts(ctx.changes, unit, files),
    }
}

/// Splits the pool of the branch's noise commits: `pieces` are (unit,
/// file, items), one per file a noise commit's unit holds.
pub fn split_pool(ctx: &Context<'_>, pieces: Vec<(usize, usize, Vec<usize>)>, tuning: &Tuning) -> Split {
    let parts = pool_parts(ctx, pieces);
    if parts.len() > MOST_PARTS {
        return by_component(ctx, parts);
    }
    cluster(ctx, &parts, tuning, None)
}

/// The parts of the pool: each (unit, file).
pub fn pool_parts(ctx: &Context<'_>, pieces: Vec<(usize, usize, Vec<usize>)>) -> Vec<Part> {
    parts_of(ctx.changes, pieces.into_iter())
}

/// A sweeping commit: weighing every pair would take too long, and such a
/// commit goes to a size question anyway. By component.
fn by_component(ctx: &Context<'_>, parts: Vec<Part>) -> Split {
    let mut groups: BTreeMap<(String, bool), Vec<usize>> = BTreeMap::new();
    let mut record = ctx.record();
    for p in &parts {
        let signal = super::reason::Signal::ByComponent {
            component: p.component.clone(),
        };
        record.note_rule(p.items.iter().copied(), signal);
        groups
            .entry((p.component.clone(), p.category.is_code()))
            .or_default()
            .extend(p.items.iter().copied());
    }
    Split {
        groups: groups
            .into_values()
            .map(|mut items| {
                items.sort_unstable();
                items
            })
            .collect(),
        doubt: None,
    }
}

/// Joins `parts` by average linkage on their chances (shifted by the
/// same-file bonus and the message's subjects); the groups and the doubt.
/// The steps: weigh every two parts, join while the chance holds, note
/// why, and say how sure the result is.
fn cluster(ctx: &Context<'_>, parts: &[Part], tuning: &Tuning, named: Option<&Named<'_>>) -> Split {
    let weights = tuning.weights.clone().unwrap_or_else(super::affinity::weights);
    let pairs = pairs_of(parts, ctx);
    let weighed = weigh(parts, &pairs, &weights, tuning, named);
    // With the pieces named, the count decides and a join must be nearly
    // sure once that many are left.
    let threshold = if named.is_some() {
        tuning.sure_join
    } else {
        tuning.join_threshold
    };
    let mut joins = join(parts.len(), &pairs, &weighed, threshold, named);
    let mut clusters = living(&joins.linkage);
    // Joins are greedy: moves then undo those the chances disagree with.
    if named.is_none() && tuning.local_moves {
        let w = moves::gains(parts, &pairs, &weighed, threshold, tuning);
        if let Some(better) = moves::improved(&w, &clusters) {
            let (refused, before_last) = moves::calls(parts.len(), &pairs, &weighed, &better);
            joins.refused = refused;
            joins.before_last = before_last;
            clusters = better;
        }
    }
    let facts: Vec<PartFacts<'_>> = parts
        .iter()
        .enumerate()
        .map(|(p, part)| PartFacts {
            file: part.file,
            items: &part.items,
            lines: part.lines,
            subject: named.and_then(|m| m.about[p]),
        })
        .collect();
    note_split(ctx, &facts, &pairs, &weighed, &weights, threshold, &clusters);
    if let Some(m) = named {
        m.note(ctx, parts, &clusters);
    }
    // A message naming the pieces decides; otherwise the closest call
    // says how sure the split is.
    let doubt = match named {
        Some(_) => None,
        None => {
            let confidence = confidence(parts, &pairs, &weighed, &clusters);
            doubt(
                parts,
                &clusters,
                joins.refused,
                joins.before_last,
                threshold,
                confidence,
                tuning,
            )
        }
    };
    let groups = items_of_clusters(parts, &clusters);
    let doubt = doubt
        .map(|d| Doubt {
            alternatives: d
                .alternatives
                .into_iter()
                .map(|(label, c)| (label, items_of_clusters(parts, &c)))
                .filter(|(_, g)| *g != groups)
                .collect(),
            ..d
        })
        .filter(|d| !d.alternatives.is_empty());
    Split { groups, doubt }
}

/// The chance of every pair (in the order of `pairs`): the affinity of
/// its signals, made surer for two hunks of one file (`same_file`) and
/// pulled or pushed by the subjects a message names.
fn weigh(parts: &[Part], pairs: &[Pair], weights: &[f64], tuning: &Tuning, named: Option<&Named<'_>>) -> Vec<f64> {
    let size = unit_size(parts, pairs, tuning);
    pairs
        .iter()
        .map(|(a, b, f)| {
            let mut shift = 0.0;
            if parts[*a].file == parts[*b].file {
                shift += tuning.same_file;
            }
            if let Some(named) = named {
                shift += named.pull(*a, *b, tuning);
            } else {
                shift += size;
            }
            shifted(affinity(f, weights), shift)
        })
        .collect()
}

/// How much surer any two parts of a unit of many are to belong together
/// when nothing but their content speaks (`Tuning::unit_size`): when no
/// branch commit's boundary runs between them (one commit wrote every
/// part: a squash, a commit of its own), their files are many and the
/// pieces of work few, so two parts with no signal between them are
/// likelier one piece's than in a unit of two. Where branch commits wrote
/// the parts, which commit wrote which already links them (`writers`).
fn unit_size(parts: &[Part], pairs: &[Pair], tuning: &Tuning) -> f64 {
    let written = SIGNALS
        .iter()
        .position(|s| s.name == WRITTEN)
        .expect("the writers' signal");
    let one_writer = pairs.iter().all(|(_, _, f)| f[written] == 0.0);
    let files = parts
        .iter()
        .map(|p| p.file)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if one_writer && files > 2 {
        tuning.unit_size * (files as f64 / 2.0).ln()
    } else {
        0.0
    }
}

/// What joining left: the clusters, the best join refused (its chance and
/// the two clusters, as positions among the living ones), and the
/// clusters before the last join made with that join's chance.
struct Joins {
    linkage: Linkage,
    refused: Option<(f64, usize, usize)>,
    before_last: Option<(Vec<Vec<usize>>, f64)>,
}

/// Average linkage: the closest two clusters join while their chance
/// reaches `threshold`. With the pieces named, joins are made regardless
/// until that many clusters are left.
fn join(n: usize, pairs: &[Pair], weighed: &[f64], threshold: f64, named: Option<&Named<'_>>) -> Joins {
    let wanted = named.map(|m| m.named.len());
    let mut linkage = Linkage::new(chances(n, pairs, weighed));
    let mut before_last = None;
    let mut refused = None;
    while let Some((v, x, y)) = linkage.closest() {
        let joins = match wanted {
            Some(k) if linkage.left > k => true,
            _ => v >= threshold,
        };
        if !joins {
            refused = Some((v, x, y));
            break;
        }
        if wanted.is_none() {
            before_last = Some((living(&linkage), v));
        }
        linkage.join(x, y);
    }
    let refused = refused.and_then(|(v, x, y)| {
        let at = |slot: usize| linkage.living().position(|s| s == slot);
        Some((v, at(x)?, at(y)?))
    });
    Joins {
        linkage,
        refused,
        before_last,
    }
}

/// The chance of every two of `n` parts (`weighed`, in the order of
/// `pairs`) as a symmetric matrix, 0 on the diagonal.
fn chances(n: usize, pairs: &[Pair], weighed: &[f64]) -> Vec<Vec<f64>> {
    let mut chance = vec![vec![0.0; n]; n];
    for ((a, b, _), &x) in pairs.iter().zip(weighed) {
        chance[*a][*b] = x;
        chance[*b][*a] = x;
    }
    chance
}

/// Each cluster's items, sorted.
fn items_of_clusters(parts: &[Part], clusters: &[Vec<usize>]) -> Vec<Vec<usize>> {
    clusters
        .iter()
        .map(|members| {
            let mut items: Vec<usize> = members.iter().flat_map(|&p| parts[p].items.iter().copied()).collect();
            items.sort_unstable();
            items
        })
        .collect()
}

/// The chance `x` made surer by `shift` in log-odds.
fn shifted(x: f64, shift: f64) -> f64 {
    if shift == 0.0 {
        return x;
    }
    1.0 / (1.0 + ((1.0 - x) / x.max(1e-12)).max(1e-300) * (-shift).exp())
}

/// The living clusters' parts.
fn living(linkage: &Linkage) -> Vec<Vec<usize>> {
    linkage.living().map(|x| linkage.members[x].clone()).collect()
}

/// Notes why each part is in its cluster (`reason`): the chance of each
/// link as the joins weighed it (`weighed`, after the pull of the
/// message's subjects) and the signal adding most to it.
fn note_split(
    ctx: &Context<'_>,
    facts: &[PartFacts<'_>],
    pairs: &[Pair],
    weighed: &[f64],
    weights: &[f64],
    threshold: f64,
    clusters: &[Vec<usize>],
) {
    use super::reason::Link;
    let heaviest = |f: &Signals| {
        f.iter()
            .zip(&weights[1..])
            .zip(&SIGNALS)
            .map(|((x, w), signal)| (x * w, signal.name))
            .fold(
                ("", f64::MIN),
                |best, (v, name)| if v > best.1 { (name, v) } else { best },
            )
            .0
    };
    let links: Vec<Link> = pairs
        .iter()
        .zip(weighed)
        .map(|((a, b, f), &chance)| Link {
            a: *a,
            b: *b,
            chance,
            feature: heaviest(f),
        })
        .collect();
    ctx.record().note_split(facts, &links, threshold, clusters);
}
