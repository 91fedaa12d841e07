//! Pieces that belong with work another unit holds (DESIGN §10.2), moved
//! there once every unit is split:
//!
//! * **a module declaration joins the module it declares**: a hunk that
//!   only wires modules in (`pub mod export;`, `from .export import x`,
//!   `require('./export')`) goes to the commit adding (or removing) the file
//!   of that stem, so neither commit is left with half the module;
//! * **a test joins the code it tests**: a test file added on the branch
//!   whose stem names a source file added on the branch (`tests/export.rs`,
//!   `export_test.go`, `ExportTest.java`, `export.spec.ts` for `export.*`)
//!   goes to that file's commit — when the two come from different units of
//!   work and one of them is a noise unit ("wip", "more stuff"). Within one
//!   unit the affinity has weighed the pair already, and a meaningful
//!   commit's boundary is the author's own word.
//!
//! Only whole files and declaration-only hunks move, and only to one
//! group: a stem naming files in two groups moves nothing. Moving tests
//! between two meaningful commits would overrule the author's own
//! boundary (a test added beside another file's code is often its own
//! work); the rule is for branches like the demo's, where the code came in
//! "wip" commits and its test under a real subject.

use std::collections::BTreeMap;

use super::context::Context;
use super::reason::Signal;
use super::units;
use crate::historian::analyse::classify::{self, Category};

/// Where the code of each stem lives: its group and file, or `None` when
/// files of that stem are in several groups (or split between groups).
type Homes = BTreeMap<String, Option<(usize, usize)>>;

/// Moves declarations and tests into the groups of what they declare or
/// test; groups left empty are dropped.
pub fn attach(ctx: &Context<'_>, groups: &mut Vec<Vec<usize>>) {
    let changes = ctx.changes;
    let mut group_of = vec![usize::MAX; changes.items.len()];
    for (g, items) in groups.iter().enumerate() {
        for &i in items {
            group_of[i] = g;
        }
    }
    // The group of each file, when all its items are in one; its first item.
    let mut file_group: Vec<Option<usize>> = vec![None; changes.files.len()];
    let mut first_item: Vec<Option<usize>> = vec![None; changes.files.len()];
    for (i, item) in changes.items.iter().enumerate() {
        let (g, f) = (group_of[i], item.file);
        file_group[f] = match first_item[f] {
            None => Some(g),
            Some(_) => file_group[f].filter(|&h| h == g),
        };
        first_item[f].get_or_insert(i);
    }
    // Code added or removed (what a declaration wires in or out), and code
    // added (what a new test tests).
    let mut wired: Homes = BTreeMap::new();
    let mut added: Homes = BTreeMap::new();
    let note = |homes: &mut Homes, stem: String, f: usize| {
        let at = file_group[f].map(|g| (g, f));
        homes
            .entry(stem)
            .and_modify(|was| *was = was.filter(|w| at.is_some_and(|a| a.0 == w.0)))
            .or_insert(at);
    };
    for (f, file) in changes.files.iter().enumerate() {
        let category = classify::category(&file.path);
        if !category.is_code() || category == Category::Test {
            continue;
        }
        let stem = classify::stem(&file.path);
        if file.old.is_none() || file.new.is_none() {
            note(&mut wired, stem.clone(), f);
        }
        if file.old.is_none() && file.new.is_some() {
            note(&mut added, stem, f);
        }
    }
    let mut moves: Vec<(usize, usize)> = Vec::new();
    for (i, item) in changes.items.iter().enumerate() {
        let symbols = &item.symbols;
        if !symbols.only_modules {
            continue;
        }
        let mut targets = symbols
            .modules
            .iter()
            .map(|m| wired.get(m).copied().flatten().map(|t| t.0));
        if let Some(Some(g)) = targets.next() {
            if targets.all(|t| t == Some(g)) && g != group_of[i] {
                moves.push((i, g));
                let module = symbols.modules.iter().next().cloned().unwrap_or_default();
                ctx.record().note_rule([i], Signal::Declares { module });
            }
        }
    }
    let units = units::units_of(ctx);
    let unit = |f: usize| first_item[f].and_then(|i| units[i]);
    let noise = |u: Option<usize>| u.is_none_or(|u| ctx.kinds[u].is_noise());
    for (f, file) in changes.files.iter().enumerate() {
        if file.old.is_some() || file.new.is_none() || classify::category(&file.path) != Category::Test {
            continue;
        }
        let stem = classify::tested_stem(&file.path);
        let Some(Some((g, source))) = added.get(&stem).copied() else {
            continue;
        };
        let (Some(from), test_unit, code_unit) = (file_group[f], unit(f), unit(source)) else {
            continue;
        };
        if stem.len() >= 3 && g != from && test_unit != code_unit && (noise(test_unit) || noise(code_unit)) {
            moves.extend(first_item[f].into_iter().map(|i| (i, g)));
            ctx.record().note_rule(first_item[f], Signal::TestOf { stem });
        }
    }
    if moves.is_empty() {
        return;
    }
    let mut moved = vec![false; changes.items.len()];
    for (i, g) in moves {
        // A new test file of module lines only is both: the first move holds.
        if std::mem::replace(&mut moved[i], true) {
            continue;
        }
        let from = group_of[i];
        groups[from].retain(|&x| x != i);
        groups[g].push(i);
        group_of[i] = g;
    }
    groups.retain(|g| !g.is_empty());
}
