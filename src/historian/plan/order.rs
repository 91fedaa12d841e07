//! The order of the new commits (DESIGN §10.3): dependencies and build
//! first, then configuration, schema, core source, interfaces, tests and
//! docs; within a category, the order the work was done on the branch; and
//! always a commit defining a name before a commit using it (unless they
//! use each other, when the category order decides).

use std::collections::{BTreeMap, BTreeSet};

use super::context::Context;
use crate::historian::analyse::classify::{self, Category};

/// Sorting facts about one group.
struct Facts {
    category: Category,
    /// The branch commit (unit of work) it draws most lines from.
    chronology: usize,
    defined: BTreeSet<String>,
    used: BTreeSet<String>,
}

/// The category a group is ordered by: code groups by their code (a
/// source-and-tests commit is a source commit), others by their heaviest.
pub fn group_category(ctx: &Context<'_>, items: &[usize]) -> Category {
    let mut lines: BTreeMap<Category, usize> = BTreeMap::new();
    for &i in items {
        let c = classify::category(ctx.changes.path(i));
        *lines.entry(c).or_default() += ctx.changes.items[i].lines.max(1);
    }
    let code: Option<Category> = lines
        .keys()
        .copied()
        .filter(|c| c.is_code() && *c != Category::Test)
        .min();
    code.unwrap_or_else(|| {
        lines
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(c, _)| *c)
            .unwrap_or(Category::Source)
    })
}

/// Puts `groups` in commit order.
pub fn order(ctx: &Context<'_>, groups: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
    let units = super::units::units_of(ctx);
    let facts: Vec<Facts> = groups.iter().map(|g| facts(ctx, g, &units)).collect();
    let n = groups.len();
    // Edges definer → user, between groups that do not both use the other.
    let mut after: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for a in 0..n {
        for b in 0..n {
            if a == b {
                continue;
            }
            let a_defines_for_b = facts[a]
                .defined
                .iter()
                .any(|name| facts[b].used.contains(name) && !facts[b].defined.contains(name));
            let b_defines_for_a = facts[b]
                .defined
                .iter()
                .any(|name| facts[a].used.contains(name) && !facts[a].defined.contains(name));
            if a_defines_for_b && !b_defines_for_a {
                after[b].insert(a);
            }
        }
    }
    let key = |g: usize| (facts[g].category, facts[g].chronology, g);
    let mut done = vec![false; n];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let ready = (0..n)
            .filter(|&g| !done[g] && after[g].iter().all(|&d| done[d]))
            .min_by_key(|&g| key(g));
        // A cycle of definitions: the category order breaks it.
        let next = ready.unwrap_or_else(|| {
            (0..n)
                .filter(|&g| !done[g])
                .min_by_key(|&g| key(g))
                .expect("a group is left")
        });
        done[next] = true;
        out.push(next);
    }
    let mut groups: Vec<Option<Vec<usize>>> = groups.into_iter().map(Some).collect();
    out.into_iter().filter_map(|g| groups[g].take()).collect()
}

fn facts(ctx: &Context<'_>, items: &[usize], units: &[Option<usize>]) -> Facts {
    // The unit of work the group draws most lines from dates it.
    let mut weights: BTreeMap<usize, usize> = BTreeMap::new();
    let mut defined = BTreeSet::new();
    let mut used = BTreeSet::new();
    for &i in items {
        if let Some(u) = units[i] {
            *weights.entry(u).or_default() += ctx.changes.items[i].lines.max(1);
        }
        defined.extend(ctx.changes.items[i].symbols.defined.iter().cloned());
        used.extend(ctx.changes.items[i].symbols.used.iter().cloned());
    }
    let chronology = weights
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, _)| *k)
        .unwrap_or(0);
    Facts {
        category: group_category(ctx, items),
        chronology,
        defined,
        used,
    }
}
