//! The order of the new commits (DESIGN §10.3): dependencies and build
//! first, then configuration, schema, core source, interfaces, tests and
//! docs; within a category, the order the work was done on the branch; and
//! always a commit defining a name before a commit using it, and one
//! removing a definition after those still mentioning the name (unless they
//! use each other, when the category order decides). Above all of it, the
//! rules of `present`: moved lines and new packages never go missing in
//! between.

use std::collections::{BTreeMap, BTreeSet};

use super::context::Context;
use super::present;
use crate::historian::analyse::classify::{self, Category};

/// Sorting facts about one group.
struct Facts {
    category: Category,
    /// The branch commit (unit of work) it draws most lines from.
    chronology: usize,
    /// Names it defines (adds a definition of).
    defined: BTreeSet<String>,
    /// Names whose definition it only removes.
    undefined: BTreeSet<String>,
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

/// Puts `groups` in commit order, keeping the rules of `present`: groups in
/// a cycle of those rules are joined, and the pieces `present` moves may
/// change groups.
pub fn order(ctx: &Context<'_>, mut groups: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
    let units = super::units::units_of(ctx);
    join_definition_cycles(ctx, &mut groups, &units);
    let detached = present::detach(ctx, &mut groups);
    let sequence = loop {
        match sequence(ctx, &groups, &units, &detached) {
            Ok(sequence) => break sequence,
            Err(cycle) => join(&mut groups, &cycle),
        }
    };
    let mut groups: Vec<Option<Vec<usize>>> = groups.into_iter().map(Some).collect();
    let mut out: Vec<Vec<usize>> = sequence.into_iter().filter_map(|g| groups[g].take()).collect();
    present::reattach(ctx, &mut out, detached);
    out
}

/// Edges definer → user: `after[b]` holds the groups `b` uses a definition
/// of (and that do not use one of `b`'s), and the groups that must come
/// before `b` removes a definition they still use.
fn definition_edges(facts: &[Facts]) -> Vec<BTreeSet<usize>> {
    let n = facts.len();
    let mut after: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for a in 0..n {
        for b in 0..n {
            if a == b {
                continue;
            }
            let a_defines_for_b = defines_for(&facts[a], &facts[b]);
            let b_defines_for_a = defines_for(&facts[b], &facts[a]);
            if a_defines_for_b && !b_defines_for_a {
                after[b].insert(a);
            }
            // A definition goes after the commits that stop using it.
            let a_removes_for_b = facts[a]
                .undefined
                .iter()
                .any(|name| facts[b].used.contains(name) && !facts[b].undefined.contains(name));
            if a_removes_for_b && !b_defines_for_a {
                after[a].insert(b);
            }
        }
    }
    after
}

/// Whether `a` defines a name `b` uses without defining it.
fn defines_for(a: &Facts, b: &Facts) -> bool {
    a.defined
        .iter()
        .any(|name| b.used.contains(name) && !b.defined.contains(name))
}

/// Groups that use each other's definitions (each defines a name the
/// other uses) can only come together: a use never lands before its
/// definition (DESIGN §10.2). They are joined.
fn join_definition_cycles(ctx: &Context<'_>, groups: &mut Vec<Vec<usize>>, units: &[Option<usize>]) {
    loop {
        let facts: Vec<Facts> = groups.iter().map(|g| facts(ctx, g, units)).collect();
        let n = groups.len();
        let pair = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .find(|&(a, b)| defines_for(&facts[a], &facts[b]) && defines_for(&facts[b], &facts[a]));
        let Some((a, b)) = pair else { return };
        let moved = groups.remove(b);
        groups[a].extend(moved);
        groups[a].sort_unstable();
        let mut record = ctx.record();
        record.note_rule(groups[a].iter().copied(), super::reason::Signal::DefinitionCycle);
    }
}

/// The groups' indices in commit order, or a cycle of `present`'s rules
/// (groups each waiting for the next, the last for the first).
fn sequence(
    ctx: &Context<'_>,
    groups: &[Vec<usize>],
    units: &[Option<usize>],
    detached: &present::Detached,
) -> Result<Vec<usize>, Vec<usize>> {
    let facts: Vec<Facts> = groups.iter().map(|g| facts(ctx, g, units)).collect();
    let rules = present::Rules::new(ctx, groups, detached);
    let n = groups.len();
    let after = definition_edges(&facts);
    let key = |g: &usize| (facts[*g].category, facts[*g].chronology, *g);
    let mut done = vec![false; n];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let free: Vec<usize> = (0..n)
            .filter(|&g| !done[g] && rules.blockers(g, &done).is_empty())
            .collect();
        let ready = free
            .iter()
            .copied()
            .filter(|&g| after[g].iter().all(|&d| done[d]))
            .min_by_key(key);
        // A cycle of definitions: the category order breaks it.
        let next = ready.or_else(|| free.iter().copied().min_by_key(key));
        let Some(next) = next else {
            // Every group left waits for another: follow the first group's
            // wait (for the first group it names) until it comes round.
            let mut path = vec![(0..n).filter(|&g| !done[g]).min_by_key(key).expect("a group is left")];
            loop {
                let last = path[path.len() - 1];
                let waits_for = rules
                    .blockers(last, &done)
                    .into_iter()
                    .min_by_key(key)
                    .expect("a group that is not free waits for one");
                if let Some(at) = path.iter().position(|&g| g == waits_for) {
                    return Err(path.split_off(at));
                }
                path.push(waits_for);
            }
        };
        done[next] = true;
        out.push(next);
    }
    Ok(out)
}

/// Joins the groups `cycle` into the first of them.
fn join(groups: &mut Vec<Vec<usize>>, cycle: &[usize]) {
    let mut cycle = cycle.to_vec();
    cycle.sort_unstable();
    cycle.dedup();
    let into = cycle[0];
    for &g in cycle[1..].iter().rev() {
        let items = groups.remove(g);
        groups[into].extend(items);
    }
    groups[into].sort_unstable();
}

fn facts(ctx: &Context<'_>, items: &[usize], units: &[Option<usize>]) -> Facts {
    // The unit of work the group draws most lines from dates it.
    let mut weights: BTreeMap<usize, usize> = BTreeMap::new();
    let mut defined = BTreeSet::new();
    let mut undefined = BTreeSet::new();
    let mut used = BTreeSet::new();
    for &i in items {
        if let Some(u) = units[i] {
            *weights.entry(u).or_default() += ctx.changes.items[i].lines.max(1);
        }
        let symbols = &ctx.changes.items[i].symbols;
        defined.extend(symbols.defined.difference(&symbols.undefined).cloned());
        undefined.extend(symbols.undefined.iter().cloned());
        used.extend(symbols.used.iter().cloned());
    }
    // Removed here and defined again by another of its items: moved.
    let undefined: BTreeSet<String> = undefined.difference(&defined).cloned().collect();
    let chronology = weights
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, _)| *k)
        .unwrap_or(0);
    Facts {
        category: group_category(ctx, items),
        chronology,
        defined,
        undefined,
        used,
    }
}

/// What is wrong with the order of `groups` as given (a grouping from
/// elsewhere: `clean --agent`), by the rules [`order`] keeps: a commit
/// defining a name before the commits using it (unless they use each
/// other), a definition removed only after the commits that stop using it,
/// and the rules of `present` (moved lines never missing in between, a new
/// package's `__init__.py` no later than the package). One sentence per
/// problem, commits counted from 1; empty when the order holds.
pub fn problems(ctx: &Context<'_>, groups: &[Vec<usize>]) -> Vec<String> {
    let units = super::units::units_of(ctx);
    let facts: Vec<Facts> = groups.iter().map(|g| facts(ctx, g, &units)).collect();
    let mut out = Vec::new();
    for (a, fa) in facts.iter().enumerate() {
        for (b, fb) in facts.iter().enumerate().skip(a + 1) {
            // `b` (later) defines what `a` (earlier) uses, and not the reverse.
            let b_defines_for_a = fb
                .defined
                .iter()
                .find(|n| fa.used.contains(*n) && !fa.defined.contains(*n));
            let a_defines_for_b = fa
                .defined
                .iter()
                .any(|n| fb.used.contains(n) && !fb.defined.contains(n));
            if let (Some(name), false) = (b_defines_for_a, a_defines_for_b) {
                out.push(format!(
                    "commit {} uses '{name}', which commit {} defines later",
                    a + 1,
                    b + 1
                ));
            }
            // `a` (earlier) removes a definition `b` (later) still uses.
            let removed_early = fa
                .undefined
                .iter()
                .find(|n| fb.used.contains(*n) && !fb.undefined.contains(*n));
            if let (Some(name), false) = (removed_early, a_defines_for_b) {
                out.push(format!(
                    "commit {} removes '{name}', which commit {} still uses",
                    a + 1,
                    b + 1
                ));
            }
        }
    }
    let rules = present::Rules::new(ctx, groups, &present::Detached::default());
    let mut done = vec![false; groups.len()];
    for g in 0..groups.len() {
        let waits: Vec<String> = rules.blockers(g, &done).iter().map(|b| (b + 1).to_string()).collect();
        if !waits.is_empty() {
            out.push(format!(
                "commit {} must come after commit {} (lines it moves or a package it needs would be missing in between)",
                g + 1,
                waits.join(", ")
            ));
        }
        done[g] = true;
    }
    out
}
