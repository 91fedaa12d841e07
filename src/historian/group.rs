//! Grouping change items into commits (DESIGN §10.2), deterministically.
//!
//! 1. **Provenance.** Each item starts with the branch commit most of its
//!    lines come from. `fixup!`/`squash!`/`amend!` commits join the commit
//!    they name. Items of noise commits ("wip", "fix typo", merges) go to
//!    the meaningful commit that owns the lines they rewrite, else to the
//!    nearest meaningful commit that touched the same file; what is left
//!    forms one pool.
//! 2. **Content.** Within one commit's items, files are linked when they
//!    belong together: a test and the code it tests (same stem), files of
//!    the same stem (`parser.h`, `parser.c`), a hunk defining a name another
//!    hunk uses, a file naming another's stem (imports, `mod x;`), build
//!    files with each other, docs with docs, configuration with
//!    configuration. Each connected set becomes a commit; build,
//!    configuration and docs never join code.
//! 3. **Constraints.** A file removed where a directory of the same name is
//!    added (or the reverse) goes with the addition, so every intermediate
//!    tree can be written.
//!
//! Nothing here reads the clock or a hash map's order: the same branch
//! gives the same groups.

use std::collections::{BTreeMap, BTreeSet};

use crate::git::BranchCommit;

use super::classify::{self, Category};
use super::items::ChangeSet;
use super::message::{self, Kind};
use super::provenance::Provenance;

/// Knobs of the heuristics, with the values the evaluation chose.
#[derive(Clone, Debug)]
pub struct Tuning {
    /// Join code files of one commit that share a component (directory prefix).
    pub join_component: bool,
    /// Join a commit's unlinked code parts of at most this many lines into its largest part.
    pub small_part_lines: usize,
    /// A name used by more than this share of the files links nothing.
    pub common_name_share: f64,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            join_component: true,
            small_part_lines: 3,
            common_name_share: 0.25,
        }
    }
}

/// Everything grouping reads.
pub struct Context<'a> {
    pub changes: &'a ChangeSet,
    pub provenance: &'a Provenance,
    pub commits: &'a [BranchCommit],
    pub kinds: Vec<Kind>,
}

impl<'a> Context<'a> {
    pub fn new(changes: &'a ChangeSet, provenance: &'a Provenance, commits: &'a [BranchCommit]) -> Context<'a> {
        let kinds = commits
            .iter()
            .map(|c| message::kind(&c.message, c.parents.len()))
            .collect();
        Context {
            changes,
            provenance,
            commits,
            kinds,
        }
    }
}

/// A disjoint-set forest over `0..n`, always keeping the smallest index as
/// the root so results do not depend on the order of unions.
pub(crate) struct Union {
    parent: Vec<usize>,
}

impl Union {
    pub(crate) fn new(n: usize) -> Union {
        Union {
            parent: (0..n).collect(),
        }
    }

    pub(crate) fn find(&mut self, x: usize) -> usize {
        let mut root = x;
        while self.parent[root] != root {
            root = self.parent[root];
        }
        let mut at = x;
        while self.parent[at] != root {
            let next = self.parent[at];
            self.parent[at] = root;
            at = next;
        }
        root
    }

    pub(crate) fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (low, high) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[high] = low;
        }
    }
}

/// The unit (a branch commit index, after folding) each item belongs to;
/// `None` for the pool of items no meaningful commit claims.
pub fn units(ctx: &Context<'_>) -> Vec<Option<usize>> {
    let n = ctx.commits.len();
    let mut folded = Union::new(n);
    // fixup!/squash!/amend! join the latest earlier commit with that subject.
    for (k, kind) in ctx.kinds.iter().enumerate() {
        if let Kind::FixupOf(target) = kind {
            let wanted = message::parse_subject(target).summary;
            let found = (0..k).rev().find(|&j| {
                let subject = ctx.commits[j].subject();
                subject == target
                    || (!wanted.is_empty() && message::parse_subject(subject).summary == wanted)
                    || subject.starts_with(target.as_str())
            });
            if let Some(j) = found {
                folded.join(j, k);
            }
        }
    }
    let roots: Vec<usize> = (0..n).map(|k| folded.find(k)).collect();
    // A unit is meaningful when its root commit's subject is.
    let meaningful = |k: usize| !ctx.kinds[roots[k]].is_noise();

    let mut out = Vec::with_capacity(ctx.changes.items.len());
    for (i, item) in ctx.changes.items.iter().enumerate() {
        let mut by_unit: BTreeMap<usize, u32> = BTreeMap::new();
        for &(k, w) in &ctx.provenance.items[i] {
            if meaningful(k) {
                *by_unit.entry(roots[k]).or_default() += w;
            }
        }
        let heaviest = by_unit
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(u, _)| *u);
        if let Some(u) = heaviest {
            out.push(Some(u));
            continue;
        }
        // Only noise wrote this item. The commit it amends, else the
        // nearest meaningful commit touching the same file.
        let noise = ctx.provenance.primary(i);
        let file = item.file;
        let amended = noise.and_then(|k| {
            ctx.provenance.amends[file]
                .iter()
                .filter(|((by, of), _)| *by == k && meaningful(*of))
                .max_by(|a, b| a.1.cmp(b.1).then(b.0 .1.cmp(&a.0 .1)))
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
        out.push(amended.or(nearest));
    }
    out
}

/// Groups of items, each a future commit (unordered; see `order`).
pub fn group(ctx: &Context<'_>, tuning: &Tuning) -> Vec<Vec<usize>> {
    let changes = ctx.changes;
    let unit_of = units(ctx);
    // Items by unit (the pool as usize::MAX), then by file.
    let mut units: BTreeMap<usize, BTreeMap<usize, Vec<usize>>> = BTreeMap::new();
    for (i, unit) in unit_of.iter().enumerate() {
        units
            .entry(unit.unwrap_or(usize::MAX))
            .or_default()
            .entry(changes.items[i].file)
            .or_default()
            .push(i);
    }
    let common = common_names(changes, tuning.common_name_share);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for files in units.values() {
        groups.extend(split_unit(changes, files, &common, tuning));
    }
    join_path_conflicts(changes, &mut groups);
    for g in &mut groups {
        g.sort_unstable();
    }
    groups.sort();
    groups
}

/// Names mentioned by more than `share` of the changed files (and at least
/// three): too common to say two files belong together.
fn common_names(changes: &ChangeSet, share: f64) -> BTreeSet<String> {
    let mut files_using: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for item in &changes.items {
        for name in &item.symbols.used {
            files_using.entry(name.as_str()).or_default().insert(item.file);
        }
    }
    let limit = ((changes.files.len() as f64) * share).max(3.0);
    files_using
        .into_iter()
        .filter(|(_, files)| files.len() as f64 > limit)
        .map(|(name, _)| name.to_owned())
        .collect()
}

/// One part of a unit: a file and what is known of it.
struct Part {
    items: Vec<usize>,
    path: String,
    category: Category,
    component: String,
    stem: String,
    tested_stem: String,
    defined: BTreeSet<String>,
    used: BTreeSet<String>,
    lines: usize,
}

fn split_unit(
    changes: &ChangeSet,
    files: &BTreeMap<usize, Vec<usize>>,
    common: &BTreeSet<String>,
    tuning: &Tuning,
) -> Vec<Vec<usize>> {
    let parts: Vec<Part> = files
        .iter()
        .map(|(&f, items)| {
            let path = changes.files[f].path.clone();
            let mut defined = BTreeSet::new();
            let mut used = BTreeSet::new();
            let mut lines = 0;
            for &i in items {
                let it = &changes.items[i];
                defined.extend(it.symbols.defined.iter().filter(|n| !common.contains(*n)).cloned());
                used.extend(it.symbols.used.iter().filter(|n| !common.contains(*n)).cloned());
                lines += it.lines;
            }
            Part {
                items: items.clone(),
                category: classify::category(&path),
                component: classify::component(&path),
                stem: classify::stem(&path),
                tested_stem: classify::tested_stem(&path),
                path,
                defined,
                used,
                lines,
            }
        })
        .collect();
    let mut links = Union::new(parts.len());
    for a in 0..parts.len() {
        for b in a + 1..parts.len() {
            if linked(&parts[a], &parts[b], tuning) {
                links.join(a, b);
            }
        }
    }
    let mut clusters: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for p in 0..parts.len() {
        clusters.entry(links.find(p)).or_default().push(p);
    }
    // Tiny unlinked code parts ride along with the unit's largest code part.
    let code_lines = |members: &Vec<usize>| -> Option<usize> {
        members
            .iter()
            .all(|&p| parts[p].category.is_code())
            .then(|| members.iter().map(|&p| parts[p].lines).sum())
    };
    let largest = clusters
        .iter()
        .filter_map(|(root, members)| code_lines(members).map(|l| (l, std::cmp::Reverse(*root))))
        .max()
        .map(|(_, std::cmp::Reverse(root))| root);
    if let Some(largest) = largest {
        let small: Vec<usize> = clusters
            .iter()
            .filter(|(root, members)| {
                **root != largest && code_lines(members).is_some_and(|l| l <= tuning.small_part_lines)
            })
            .map(|(root, _)| *root)
            .collect();
        for root in small {
            let members = clusters.remove(&root).unwrap_or_default();
            clusters.entry(largest).or_default().extend(members);
        }
    }
    clusters
        .into_values()
        .map(|members| members.iter().flat_map(|&p| parts[p].items.iter().copied()).collect())
        .collect()
}

fn linked(a: &Part, b: &Part, tuning: &Tuning) -> bool {
    use Category::*;
    match (a.category.is_code(), b.category.is_code()) {
        (true, true) => {}
        (false, false) => return a.category == b.category,
        _ => return false,
    }
    // A test and what it tests.
    let tests = |t: &Part, s: &Part| {
        t.category == Test
            && s.category != Test
            && t.tested_stem.len() >= 3
            && (t.tested_stem == s.stem || t.tested_stem == classify::scope(&s.path).to_ascii_lowercase())
    };
    if tests(a, b) || tests(b, a) {
        return true;
    }
    // Two tests of the same thing, or a header and its source.
    if a.stem == b.stem && a.stem.len() >= 3 && (a.category == Test) == (b.category == Test) {
        return true;
    }
    // A definition and its use.
    if a.defined.iter().any(|n| b.used.contains(n)) || b.defined.iter().any(|n| a.used.contains(n)) {
        return true;
    }
    // A file naming the other's stem (imports, `mod parser;`).
    let names = |x: &Part, y: &Part| y.stem.len() >= 4 && x.used.contains(&y.stem);
    if names(a, b) || names(b, a) {
        return true;
    }
    tuning.join_component && a.component == b.component && (a.category == Test) == (b.category == Test)
}

/// A removed file `a` and an added `a/x` (or the reverse) must be in one
/// commit: joins the groups holding them.
fn join_path_conflicts(changes: &ChangeSet, groups: &mut Vec<Vec<usize>>) {
    let mut group_of = vec![0; changes.items.len()];
    for (g, items) in groups.iter().enumerate() {
        for &i in items {
            group_of[i] = g;
        }
    }
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
        if let super::items::Status::Renamed { from } = &file.status {
            removed.push((from.as_str(), i));
        }
    }
    let mut union = Union::new(groups.len());
    for (gone, item) in removed {
        let prefix = format!("{gone}/");
        for (path, &other) in first_item.range(prefix.as_str()..) {
            if !path.starts_with(&prefix) {
                break;
            }
            if changes.files[changes.items[other].file].new.is_some() {
                union.join(group_of[item], group_of[other]);
            }
        }
        // A removed `a/x` and an added file `a`.
        let mut at = gone;
        while let Some(cut) = at.rfind('/') {
            at = &gone[..cut];
            if let Some(&other) = first_item.get(at) {
                if changes.files[changes.items[other].file].new.is_some() {
                    union.join(group_of[item], group_of[other]);
                }
            }
        }
    }
    let mut merged: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (g, items) in groups.drain(..).enumerate() {
        merged.entry(union.find(g)).or_default().extend(items);
    }
    *groups = merged.into_values().collect();
}
