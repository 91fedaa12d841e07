//! The order of the new commits (DESIGN §10.3): dependencies and build
//! first, then configuration, schema, core source, interfaces, tests and
//! docs; within a category, the order the work was done on the branch; and
//! always a commit defining a name before a commit using it, and one
//! removing a definition after those still mentioning the name (unless they
//! use each other, when the category order decides). Above all of it, the
//! rules of `present`: moved lines and new packages never go missing in
//! between.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

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
/// before `b` removes a definition they still use. Found through the names
/// (`pairs`), not by trying every two groups: a branch of thousands of
/// commits costs what its names link.
fn definition_edges(facts: &[Facts]) -> Vec<BTreeSet<usize>> {
    let mut after: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); facts.len()];
    let defines = pairs(facts, |f| &f.defined, |f, name| !f.defined.contains(name));
    for &(a, b) in &defines {
        if !defines.contains(&(b, a)) {
            after[b].insert(a);
        }
    }
    // A definition goes after the commits that stop using it.
    let removes = pairs(facts, |f| &f.undefined, |f, name| !f.undefined.contains(name));
    for &(a, b) in &removes {
        if !defines.contains(&(b, a)) {
            after[a].insert(b);
        }
    }
    after
}

/// Every two groups `(a, b)` such that `a` holds a name in `names(a)` that
/// `b` uses where `counts(b, name)`: with `defined` and "`b` does not
/// define it", the pairs where `a` defines a name `b` uses without defining
/// it. Each name links the groups holding it to those using it, so the cost
/// is what the names link rather than the square of the groups.
fn pairs<'f>(
    facts: &'f [Facts],
    names: impl Fn(&'f Facts) -> &'f BTreeSet<String>,
    counts: impl Fn(&Facts, &str) -> bool,
) -> HashSet<(usize, usize)> {
    let mut users: HashMap<&str, Vec<usize>> = HashMap::new();
    for (b, f) in facts.iter().enumerate() {
        for name in f.used.iter().filter(|name| counts(f, name)) {
            users.entry(name).or_default().push(b);
        }
    }
    let mut out = HashSet::new();
    for (a, f) in facts.iter().enumerate() {
        for name in names(f) {
            for &b in users.get(name.as_str()).into_iter().flatten() {
                if b != a {
                    out.insert((a, b));
                }
            }
        }
    }
    out
}

/// Groups that use each other's definitions (each defines a name the
/// other uses) can only come together: a use never lands before its
/// definition (DESIGN §10.2). They are joined.
fn join_definition_cycles(ctx: &Context<'_>, groups: &mut Vec<Vec<usize>>, units: &[Option<usize>]) {
    loop {
        let facts: Vec<Facts> = groups.iter().map(|g| facts(ctx, g, units)).collect();
        let defines = pairs(&facts, |f| &f.defined, |f, name| !f.defined.contains(name));
        // The first two (in the groups' order) that define for each other.
        let pair = defines
            .iter()
            .filter(|&&(a, b)| a < b && defines.contains(&(b, a)))
            .min()
            .copied();
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
    let key = |g: usize| (facts[g].category, facts[g].chronology, g);
    // A group no rule of `present` can hold back is free whenever it is not
    // done, and ready once the groups it waits for are: such groups wait in
    // sorted sets, so a branch of thousands of commits is ordered in
    // n log n; the few a rule can hold back are looked at again every turn.
    let mut waiting: Vec<usize> = after.iter().map(BTreeSet::len).collect();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (g, before) in after.iter().enumerate() {
        for &d in before {
            users[d].push(g);
        }
    }
    let ruled: Vec<usize> = (0..n).filter(|&g| rules.holds_back(g)).collect();
    let mut free_plain: BTreeSet<_> = (0..n).filter(|&g| !rules.holds_back(g)).map(key).collect();
    let mut ready_plain: BTreeSet<_> = free_plain.iter().filter(|k| waiting[k.2] == 0).copied().collect();
    let mut done = vec![false; n];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let free_ruled: Vec<usize> = ruled
            .iter()
            .copied()
            .filter(|&g| !done[g] && rules.blockers(g, &done).is_empty())
            .collect();
        let ready = ready_plain
            .first()
            .copied()
            .into_iter()
            .chain(free_ruled.iter().copied().filter(|&g| waiting[g] == 0).map(key))
            .min();
        // A cycle of definitions: the category order breaks it.
        let free = || {
            let ruled = free_ruled.iter().copied().map(key);
            free_plain.first().copied().into_iter().chain(ruled).min()
        };
        let Some((_, _, next)) = ready.or_else(free) else {
            // Every group left waits for another: follow the first group's
            // wait (for the first group it names) until it comes round.
            let first = (0..n).filter(|&g| !done[g]).min_by_key(|&g| key(g));
            let mut path = vec![first.expect("a group is left")];
            loop {
                let last = path[path.len() - 1];
                let waits_for = rules
                    .blockers(last, &done)
                    .into_iter()
                    .min_by_key(|&g| key(g))
                    .expect("a group that is not free waits for one");
                if let Some(at) = path.iter().position(|&g| g == waits_for) {
                    return Err(path.split_off(at));
                }
                path.push(waits_for);
            }
        };
        done[next] = true;
        free_plain.remove(&key(next));
        ready_plain.remove(&key(next));
        for &u in &users[next] {
            waiting[u] -= 1;
            if waiting[u] == 0 && !done[u] && !rules.holds_back(u) {
                ready_plain.insert(key(u));
            }
        }
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
    // Found through the names, as `definition_edges` finds them; each pair
    // named in the commits' order, then the two kinds of problem.
    let defines = pairs(&facts, |f| &f.defined, |f, name| !f.defined.contains(name));
    let removes = pairs(&facts, |f| &f.undefined, |f, name| !f.undefined.contains(name));
    let mut found: Vec<(usize, usize, u8, String)> = Vec::new();
    for &(b, a) in &defines {
        // `b` (later) defines what `a` (earlier) uses, and not the reverse.
        if a < b && !defines.contains(&(a, b)) {
            let (fa, fb) = (&facts[a], &facts[b]);
            let name = fb
                .defined
                .iter()
                .find(|n| fa.used.contains(*n) && !fa.defined.contains(*n));
            let name = name.expect("a pair is found through a name");
            let text = format!("commit {} uses '{name}', which commit {} defines later", a + 1, b + 1);
            found.push((a, b, 0, text));
        }
    }
    for &(a, b) in &removes {
        // `a` (earlier) removes a definition `b` (later) still uses.
        if a < b && !defines.contains(&(a, b)) {
            let (fa, fb) = (&facts[a], &facts[b]);
            let name = fa
                .undefined
                .iter()
                .find(|n| fb.used.contains(*n) && !fb.undefined.contains(*n));
            let name = name.expect("a pair is found through a name");
            let text = format!("commit {} removes '{name}', which commit {} still uses", a + 1, b + 1);
            found.push((a, b, 1, text));
        }
    }
    found.sort();
    let mut out: Vec<String> = found.into_iter().map(|(_, _, _, text)| text).collect();
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
