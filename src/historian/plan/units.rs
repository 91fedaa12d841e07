//! The units of a branch's work (grouping's first step, DESIGN §10.2):
//! each change item belongs to the branch commit most of its lines come
//! from, after `fixup!`/`squash!`/`amend!` commits are folded into the
//! commit they name and the items of noise commits ("wip", "fix typo",
//! merges) are handed to the meaningful commit they rewrite or sit next to.
//! Grouping, attachment and ordering all start from these units.

use std::collections::BTreeMap;

use super::context::Context;
use super::reason::{self, Placement, Signal, Strength};

/// The unit (a branch commit index, after folding) each item belongs to;
/// `None` only for an item no commit of the branch touched. Why, it notes
/// in the context's record (`reason`).
pub fn units_of(ctx: &Context<'_>) -> Vec<Option<usize>> {
    let roots = &ctx.roots;
    // A unit is meaningful when its root commit's subject is.
    let meaningful = |k: usize| !ctx.kinds[roots[k]].is_noise();

    let mut out = Vec::with_capacity(ctx.changes.items.len());
    let mut reasons = Vec::with_capacity(ctx.changes.items.len());
    for (i, item) in ctx.changes.items.iter().enumerate() {
        let mut by_unit: BTreeMap<usize, u32> = BTreeMap::new();
        let mut every_unit: BTreeMap<usize, u32> = BTreeMap::new();
        for &(k, w) in &ctx.provenance.items[i] {
            if meaningful(k) {
                *by_unit.entry(roots[k]).or_default() += w;
            }
            *every_unit.entry(roots[k]).or_default() += w;
        }
        let heaviest = by_unit
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(u, _)| *u);
        let shares = |u: usize, signal: Signal| {
            let (share, rivals) = reason::unit_shares(&every_unit, u);
            Placement {
                signal,
                strength: Strength::Share(share),
                rivals,
            }
        };
        if let Some(u) = heaviest {
            // Folded when its lines for the unit came mostly from a fixup.
            let writer = ctx.provenance.items[i]
                .iter()
                .filter(|(k, _)| roots[*k] == u)
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
                .map_or(u, |(k, _)| *k);
            let signal = if writer == u {
                Signal::Provenance { commit: u }
            } else {
                Signal::Folded { fixup: writer, into: u }
            };
            reasons.push((i, shares(u, signal)));
            out.push(Some(u));
            continue;
        }
        // Only noise wrote this item. The commit it amends (a meaningful
        // one first: a typo fixed in a "wip" still belongs with that wip's
        // work), else the nearest meaningful commit touching the same file.
        let noise = ctx.provenance.primary(i);
        let file = item.file;
        let amended = noise.and_then(|k| {
            ctx.provenance.amends[file]
                .iter()
                .filter(|((by, of), _)| *by == k && roots[*of] != roots[k])
                .max_by(|a, b| {
                    (meaningful(a.0 .1), a.1)
                        .cmp(&(meaningful(b.0 .1), b.1))
                        .then(b.0 .1.cmp(&a.0 .1))
                })
                .map(|((_, of), _)| roots[*of])
        });
        let touches = &ctx.provenance.touches[file];
        let nearest = noise.and_then(|k| {
            touches
                .iter()
                .rev()
                .find(|&&j| j < k && meaningful(j))
                .or_else(|| touches.iter().find(|&&j| j > k && meaningful(j)))
                .map(|&j| roots[j])
        });
        // Unclaimed: the noise commit's own unit (its work stays together).
        let unit = amended.or(nearest).or(noise.map(|k| roots[k]));
        let signal = match (noise, amended, nearest) {
            (Some(noise), Some(into), _) => Signal::Amends { noise, into },
            (Some(noise), None, Some(into)) => Signal::Nearest { noise, into },
            (Some(noise), None, None) => Signal::NoiseOnly { noise },
            (None, _, _) => Signal::Untraced,
        };
        reasons.push((
            i,
            // How much of it the noise commit wrote.
            match noise {
                Some(k) => shares(roots[k], signal),
                None => Placement::rule(signal),
            },
        ));
        out.push(unit);
    }
    let mut record = ctx.record();
    for (i, placement) in reasons {
        record.unit(i, placement);
    }
    out
}

/// The items of each unit (the pool as `usize::MAX`), by file.
pub fn unit_files(ctx: &Context<'_>) -> BTreeMap<usize, BTreeMap<usize, Vec<usize>>> {
    let mut units: BTreeMap<usize, BTreeMap<usize, Vec<usize>>> = BTreeMap::new();
    for (i, unit) in units_of(ctx).iter().enumerate() {
        units
            .entry(unit.unwrap_or(usize::MAX))
            .or_default()
            .entry(ctx.changes.items[i].file)
            .or_default()
            .push(i);
    }
    units
}
