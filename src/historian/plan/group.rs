//! Grouping change items into commits (DESIGN §10.2), deterministically.
//!
//! 1. **Provenance** (`units`). Each item starts with the branch commit most of its
//!    lines come from. `fixup!`/`squash!`/`amend!` commits join the commit
//!    they name. Items of noise commits ("wip", "fix typo", merges) go to
//!    the meaningful commit that owns the lines they rewrite, else to the
//!    nearest meaningful commit that touched the same file; what is left
//!    forms one pool.
//! 2. **Content.** Within one commit's items, files are linked when they
//!    belong together: a test and the code it tests (same stem, or a
//!    directory of the test named for the code: `regress/roff/`), files of
//!    the same stem (`parser.h`, `parser.c`), a hunk defining a name another
//!    hunk uses, a file naming another's stem (imports, `mod x;`), build
//!    files with each other, docs with docs, configuration with
//!    configuration. Each connected set becomes a commit; build,
//!    configuration and docs never join code. On a branch of two or more
//!    commits with messages of their own, each such commit is the author's
//!    cut: its parts stay together unless they are clearly apart
//!    (`Tuning::authors_cut`).
//! 3. **Attachment** (`attach`). Pieces that belong with another unit's
//!    work move there: a hunk only declaring a module (`pub mod x;`) joins
//!    the commit adding `x`; a new test of new code joins it when one of
//!    their units is noise.
//! 4. **Constraints.** A file removed where a directory of the same name is
//!    added (or the reverse) goes with the addition, so every intermediate
//!    tree can be written.
//!
//! Nothing here reads the clock or a hash map's order: the same branch
//! gives the same groups.

use std::collections::BTreeMap;

use super::affinity::{pairs_of, Part, Signals, MOST_PARTS};
use super::context::{Context, Tuning};
use super::count;
use super::fold::Union;
use super::pieces;
pub use super::pieces::Split;
use super::units::unit_files;
use crate::historian::analyse::items::ChangeSet;

/// `tuning` for a unit the author cut (`Tuning::authors_cut`): parts join
/// at a lower chance, and a unit of many files is no likelier one piece
/// of work for it (`Tuning::unit_size`): the cut is the author's count.
fn authors_cut(tuning: &Tuning) -> Tuning {
    let t = tuning.join_threshold.clamp(1e-9, 1.0 - 1e-9);
    let odds = (t / (1.0 - t)).ln() - tuning.authors_cut;
    Tuning {
        join_threshold: 1.0 / (1.0 + (-odds).exp()),
        // The author's commits already say how many pieces there are.
        unit_size: 0.0,
        ..tuning.clone()
    }
}

/// Each unit's split (the pool of noise commits' units last): groups of
/// items, unordered and not yet attached, each with its doubt.
pub fn splits(ctx: &Context<'_>, tuning: &Tuning) -> Vec<Split> {
    let mut out = Vec::new();
    let mut pool: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    let units = unit_files(ctx);
    let meaningful = |unit: usize| ctx.kinds.get(unit).is_some_and(|k| !k.is_noise());
    let cut_by_author = units.keys().filter(|&&u| meaningful(u)).count() >= 2;
    let cut = authors_cut(tuning);
    for (&unit, files) in &units {
        if !meaningful(unit) {
            pool.extend(files.iter().map(|(&f, items)| (unit, f, items.clone())));
            continue;
        }
        let commit = &ctx.commits[unit];
        let named = if tuning.count_from_message {
            count::subjects(&commit.message)
        } else {
            Vec::new()
        };
        let tuning = if cut_by_author && named.len() < 2 { &cut } else { tuning };
        out.push(pieces::split_unit(ctx, unit, files, tuning, &named));
    }
    if !pool.is_empty() {
        out.push(pieces::split_pool(ctx, pool, tuning));
    }
    out
}

/// Every two parts the splits of units naming no pieces of work weigh
/// (their items), with their signals and whether they share a file: what
/// the evaluation fits the weights on.
pub fn weighed_pairs(ctx: &Context<'_>, tuning: &Tuning) -> Vec<(Vec<usize>, Vec<usize>, Signals, bool)> {
    let mut sets: Vec<Vec<Part>> = Vec::new();
    let mut pool: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for (&unit, files) in &unit_files(ctx) {
        if ctx.kinds.get(unit).is_none_or(|k| k.is_noise()) {
            pool.extend(files.iter().map(|(&f, items)| (unit, f, items.clone())));
            continue;
        }
        let named = count::subjects(&ctx.commits[unit].message);
        if named.len() < 2 && files.len() <= MOST_PARTS {
            sets.push(pieces::unit_parts(ctx, unit, files, tuning, &[]));
        }
    }
    if !pool.is_empty() {
        sets.push(pieces::pool_parts(ctx, pool));
    }
    let mut out = Vec::new();
    for parts in sets.iter().filter(|p| p.len() <= MOST_PARTS) {
        for (a, b, f) in pairs_of(parts, ctx) {
            out.push((
                parts[a].items.clone(),
                parts[b].items.clone(),
                f,
                parts[a].file == parts[b].file,
            ));
        }
    }
    out
}

/// Groups of items, each a future commit (unordered; see `order`).
pub fn group(ctx: &Context<'_>, tuning: &Tuning) -> Vec<Vec<usize>> {
    finish(ctx, splits(ctx, tuning).into_iter().flat_map(|s| s.groups).collect())
}

/// The groups of the splits made into commits: pieces attached where they
/// belong, a path replaced by a directory kept with its replacement.
pub fn finish(ctx: &Context<'_>, mut groups: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
    super::attach::attach(ctx, &mut groups);
    join_path_conflicts(ctx, &mut groups);
    for g in &mut groups {
        g.sort_unstable();
    }
    groups.sort();
    groups
}

/// A removed file `a` and an added `a/x` (or the reverse) must be in one
/// commit: joins the groups holding them.
fn join_path_conflicts(ctx: &Context<'_>, groups: &mut Vec<Vec<usize>>) {
    let mut group_of = vec![0; ctx.changes.items.len()];
    for (g, items) in groups.iter().enumerate() {
        for &i in items {
            group_of[i] = g;
        }
    }
    let mut union = Union::new(groups.len());
    for (item, other, gone) in path_conflicts(ctx.changes) {
        union.join(group_of[item], group_of[other]);
        note_conflict(ctx, item, other, gone);
    }
    for (item, other, path) in submodule_entries(ctx.changes) {
        union.join(group_of[item], group_of[other]);
        let path = path.to_owned();
        ctx.record()
            .note_rule([item, other], super::reason::Signal::Submodule { path });
    }
    let mut merged: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (g, items) in groups.drain(..).enumerate() {
        merged.entry(union.find(g)).or_default().extend(items);
    }
    *groups = merged.into_values().collect();
}

/// The pairs of items that must be in one commit because one adds or
/// removes a submodule and the other changes `.gitmodules`, which maps it:
/// between the two, `git submodule` fails (no mapping for the path, or a
/// mapping to nothing). A submodule only moved to another commit keeps
/// its entry and pairs with nothing.
pub(super) fn submodule_entries(changes: &ChangeSet) -> Vec<(usize, usize, &str)> {
    let Some(map) = changes.files.iter().position(|f| f.path == ".gitmodules") else {
        return Vec::new();
    };
    let entries: Vec<usize> = (0..changes.items.len())
        .filter(|&i| changes.items[i].file == map)
        .collect();
    let gitlink = |e: &Option<crate::git::Entry>| e.is_some_and(|e| e.kind == crate::git::EntryKind::Commit);
    let mut out = Vec::new();
    for (i, it) in changes.items.iter().enumerate() {
        let file = &changes.files[it.file];
        if gitlink(&file.old) != gitlink(&file.new) {
            out.extend(entries.iter().map(|&e| (i, e, file.path.as_str())));
        }
    }
    out
}

/// The pairs of items that must be in one commit because one removes a
/// path (`gone`) the other puts a file under, or above: a file at one end
/// and a directory at the other. No tree holds both.
pub(super) fn path_conflicts(changes: &ChangeSet) -> Vec<(usize, usize, &str)> {
    let first_item: BTreeMap<&str, usize> = changes
        .items
        .iter()
        .enumerate()
        .rev()
        .map(|(i, it)| (changes.files[it.file].path.as_str(), i))
        .collect();
    let mut removed: Vec<(&str, usize)> = Vec::new();
    for (i, it) in changes.items.iter().enumerate() {
        let file = &changes.files[it.file];
        if file.new.is_none() {
            removed.push((file.path.as_str(), i));
        }
        if let crate::historian::analyse::items::Status::Renamed { from } = &file.status {
            removed.push((from.as_str(), i));
        }
    }
    let mut out = Vec::new();
    for (gone, item) in removed {
        let prefix = format!("{gone}/");
        for (path, &other) in first_item.range(prefix.as_str()..) {
            if !path.starts_with(&prefix) {
                break;
            }
            if changes.files[changes.items[other].file].new.is_some() {
                out.push((item, other, gone));
            }
        }
        // A removed `a/x` and an added file `a`.
        let mut at = gone;
        while let Some(cut) = at.rfind('/') {
            at = &gone[..cut];
            if let Some(&other) = first_item.get(at) {
                if changes.files[changes.items[other].file].new.is_some() {
                    out.push((item, other, gone));
                }
            }
        }
    }
    out
}

/// Notes why two items joined: the path `gone` is replaced.
fn note_conflict(ctx: &Context<'_>, item: usize, other: usize, gone: &str) {
    let path = gone.to_owned();
    ctx.record()
        .note_rule([item, other], super::reason::Signal::PathConflict { path });
}
