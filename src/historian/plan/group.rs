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

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use crate::git::BranchCommit;

use super::affinity::{self, Words};
use crate::historian::analyse::coupling::Coupling;
use crate::historian::analyse::items::ChangeSet;
use crate::historian::message::{self, Kind};
use crate::historian::analyse::provenance::Provenance;

/// Knobs of the heuristics, with the values the evaluation chose
/// (`benches/historian_eval.rs`).
#[derive(Clone, Debug)]
pub struct Tuning {
    /// Two parts of one commit join when their average affinity (the
    /// estimated chance they belong to one piece of work) reaches this.
    pub join_threshold: f64,
    /// A commit's unlinked code parts of at most this many lines ride along
    /// with its largest part.
    pub small_part_lines: usize,
    /// A name used by more than this share of the files links nothing.
    pub common_name_share: f64,
    /// How many commits behind the base are read for change coupling.
    pub coupling_history: usize,
    /// The affinity's coefficients (intercept first), when not the built-in
    /// ones: the evaluation harness fits its own.
    pub coefficients: Option<Vec<f64>>,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            join_threshold: 0.5,
            small_part_lines: 3,
            common_name_share: 0.5,
            coupling_history: crate::historian::analyse::coupling::HISTORY,
            coefficients: None,
        }
    }
}

/// Everything grouping reads.
pub struct Context<'a> {
    pub changes: &'a ChangeSet,
    pub provenance: &'a Provenance,
    pub commits: &'a [BranchCommit],
    pub kinds: Vec<Kind>,
    pub coupling: Coupling,
    /// The words the changed files answer to, read once when a message
    /// needs them ([`Context::branch_words`]).
    branch_words: OnceLock<Arc<BTreeSet<String>>>,
}

impl<'a> Context<'a> {
    pub fn new(
        changes: &'a ChangeSet,
        provenance: &'a Provenance,
        commits: &'a [BranchCommit],
        coupling: Coupling,
    ) -> Context<'a> {
        let kinds = commits
            .iter()
            .map(|c| message::kind(&c.message, c.parents.len()))
            .collect();
        Context {
            changes,
            provenance,
            commits,
            kinds,
            coupling,
            branch_words: OnceLock::new(),
        }
    }

    /// The words all changed files answer to (their stems, scopes and
    /// categories), which tell a subject's clauses about other work apart.
    pub fn branch_words(&self) -> Arc<BTreeSet<String>> {
        self.branch_words
            .get_or_init(|| {
                let mut words = BTreeSet::new();
                for file in &self.changes.files {
                    message::add_path_words(&file.path, &mut words);
                }
                Arc::new(words)
            })
            .clone()
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
/// `None` only for an item no commit of the branch touched.
pub fn units_of(ctx: &Context<'_>) -> Vec<Option<usize>> {
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
        // Unclaimed: the noise commit's own unit (its work stays together).
        out.push(amended.or(nearest).or(noise.map(|k| roots[k])));
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

/// Groups of items, each a future commit (unordered; see `order`).
pub fn group(ctx: &Context<'_>, tuning: &Tuning) -> Vec<Vec<usize>> {
    let changes = ctx.changes;
    let words = Words::new(changes, tuning.common_name_share);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for files in unit_files(ctx).values() {
        groups.extend(affinity::split_unit(ctx, files, &words, tuning));
    }
    super::attach::attach(ctx, &mut groups);
    join_path_conflicts(changes, &mut groups);
    for g in &mut groups {
        g.sort_unstable();
    }
    groups.sort();
    groups
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
        if let crate::historian::analyse::items::Status::Renamed { from } = &file.status {
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
