//! Splitting one unit of work (a branch commit, with what was folded into
//! it) into the pieces a reviewer would see as separate commits.
//!
//! Each file of the unit is a part. For every two parts a few signals are
//! read — the names both mention, whether they changed together before the
//! branch (change coupling), a test naming the code it tests, a definition
//! and its use, a file naming the other, their directories, kinds (code,
//! tests, docs, build, configuration) and sizes — and weighed into the
//! chance that they belong to one piece of work by a logistic function.
//! Parts then join by average linkage while the chance is at least
//! `join_threshold`.
//!
//! The weights are set by hand from the rates the evaluation harness
//! (`benches/historian_eval.rs`) measured for each signal on squashed runs
//! of public repositories' histories. A logistic regression the harness
//! fits on the same signals (`HISTORIAN_EVAL_FIT=1`) does no better when
//! cross-validated across repositories (0.806 against 0.810), so the
//! simpler, explainable weights stay.
//!
//! A unit whose message names several pieces of work (`count`: a squash
//! keeps the subjects it joined) is split into about that many: parts join
//! until that many are left, then only when the affinity is nearly sure
//! (`sure_join`), and two parts sharing the most words with one subject are
//! surer to belong together (with two different subjects, less sure).
//!
//! Files are not cut: the hunks of one file in one unit stay together (in
//! the evaluation, 91% of such hunk pairs came from one commit). Letting
//! them part when a message names more pieces than the unit has files
//! (`HunkParts`) scored no better on the evaluation's tuning half, so it is
//! off by default.

use std::collections::{BTreeMap, BTreeSet};

use super::context::{Context, HunkParts, Tuning};
use super::count;
use crate::historian::analyse::classify::{self, Category};
use crate::historian::analyse::coupling::Coupling;
use crate::historian::analyse::items::{ChangeSet, Status};

/// What the names of a change set say: which are too common to link
/// anything, and how rare each one is.
pub struct Words {
    common: BTreeSet<String>,
    /// How many files mention each name.
    files_using: BTreeMap<String, usize>,
    files: usize,
}

impl Words {
    /// Names mentioned by more than `share` of the changed files (and more
    /// than three) are common.
    pub fn new(changes: &ChangeSet, share: f64) -> Words {
        let mut using: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
        for item in &changes.items {
            for name in &item.symbols.used {
                using.entry(name.as_str()).or_default().insert(item.file);
            }
        }
        let limit = ((changes.files.len() as f64) * share).max(3.0);
        Words {
            common: using
                .iter()
                .filter(|(_, files)| files.len() as f64 > limit)
                .map(|(name, _)| name.to_string())
                .collect(),
            files_using: using.iter().map(|(n, f)| (n.to_string(), f.len())).collect(),
            files: changes.files.len().max(1),
        }
    }

    fn rarity(&self, name: &str) -> f64 {
        let n = self.files_using.get(name).copied().unwrap_or(1).max(1);
        (1.0 + self.files as f64 / n as f64).ln()
    }
}

/// Units with more files than this are split by component alone.
const MOST_PARTS: usize = 300;

/// One part of a unit: a file and what is known of it.
pub struct Part {
    pub file: usize,
    path: String,
    pub items: Vec<usize>,
    category: Category,
    directory: String,
    component: String,
    extension: String,
    stem: String,
    tested_stem: String,
    scope: String,
    added: bool,
    removed: bool,
    renamed: bool,
    defined: BTreeSet<String>,
    used: BTreeSet<String>,
    pub lines: usize,
}

/// The signals, in the order of [`COEFFICIENTS`] (after the intercept).
pub const FEATURES: [&str; 19] = [
    "names in common (Jaccard)",
    "names in common (square root of Jaccard)",
    "rare names in common (weighted Jaccard)",
    "change coupling strength",
    "change coupling lift",
    "a test naming the other's stem",
    "a definition and its use",
    "a file naming the other's stem",
    "same directory",
    "same component",
    "same extension",
    "docs, build or configuration with code",
    "docs, build or configuration of one kind",
    "docs, build or configuration of two kinds",
    "docs, build or configuration with tests",
    "both added",
    "both removed or both renamed",
    "size of the smaller (log)",
    "parts in the unit (log)",
];

/// Intercept, then one weight per feature of [`FEATURES`]: names in
/// common and change coupling weigh most, then a test naming its code, two
/// removals or renames, a definition and its use; docs, build or
/// configuration beside code or tests weigh against, two of one kind for.
pub const COEFFICIENTS: [f64; 20] = [
    -0.60, // intercept
    1.50,  // names in common (Jaccard)
    2.00,  // … (square root)
    2.00,  // rare names in common
    2.00,  // change coupling strength
    1.50,  // change coupling lift
    1.80,  // a test naming the other's stem
    0.90,  // a definition and its use
    0.60,  // a file naming the other's stem
    0.00,  // same directory (alone, a coin toss)
    0.20,  // same component
    0.20,  // same extension
    -0.30, // docs, build or configuration with code
    0.80,  // docs, build or configuration of one kind
    -0.40, // … of two kinds
    -0.50, // … with tests
    0.20,  // both added
    2.00,  // both removed or both renamed
    0.00,  // size of the smaller
    0.00,  // parts in the unit
];

/// The parts of a unit.
pub fn parts(changes: &ChangeSet, files: &BTreeMap<usize, Vec<usize>>, words: &Words) -> Vec<Part> {
    parts_of(changes, files.iter().map(|(&f, items)| (f, items.clone())), words)
}

/// The parts of a unit with each hunk of a file changed hunk by hunk a
/// part of its own.
fn hunk_parts(changes: &ChangeSet, files: &BTreeMap<usize, Vec<usize>>, words: &Words) -> Vec<Part> {
    let pieces = files.iter().flat_map(|(&f, items)| {
        if changes.files[f].is_hunked() {
            items.iter().map(|&i| (f, vec![i])).collect::<Vec<_>>()
        } else {
            vec![(f, items.clone())]
        }
    });
    parts_of(changes, pieces, words)
}

/// A part for each file and its items.
fn parts_of(changes: &ChangeSet, pieces: impl Iterator<Item = (usize, Vec<usize>)>, words: &Words) -> Vec<Part> {
    pieces
        .map(|(f, items)| {
            let file = &changes.files[f];
            let path = file.path.as_str();
            let mut defined = BTreeSet::new();
            let mut used = BTreeSet::new();
            let mut lines = 0;
            for &i in &items {
                let it = &changes.items[i];
                defined.extend(
                    it.symbols
                        .defined
                        .iter()
                        .filter(|n| !words.common.contains(*n))
                        .cloned(),
                );
                used.extend(it.symbols.used.iter().filter(|n| !words.common.contains(*n)).cloned());
                lines += it.lines;
            }
            let name = path.rsplit('/').next().unwrap_or(path);
            Part {
                file: f,
                path: path.to_owned(),
                items,
                category: classify::category(path),
                directory: path.rsplit_once('/').map(|(d, _)| d.to_owned()).unwrap_or_default(),
                component: classify::component(path),
                extension: name.rsplit_once('.').map(|(_, e)| e.to_owned()).unwrap_or_default(),
                stem: classify::stem(path),
                tested_stem: classify::tested_stem(path),
                scope: classify::scope(path).to_ascii_lowercase(),
                added: file.old.is_none(),
                removed: file.new.is_none(),
                renamed: matches!(file.status, Status::Renamed { .. }),
                defined,
                used,
                lines,
            }
        })
        .collect()
}

/// The signals for two parts of a unit of `count` parts.
pub fn features(a: &Part, b: &Part, count: usize, coupling: &Coupling, words: &Words) -> Signals {
    use Category::*;
    let flag = |x: bool| if x { 1.0 } else { 0.0 };
    let shared: Vec<&String> = a.used.intersection(&b.used).collect();
    let union = a.used.union(&b.used).count().max(1);
    let jaccard = shared.len() as f64 / union as f64;
    let rare_shared: f64 = shared.iter().map(|n| words.rarity(n)).sum();
    let rare_union: f64 = a.used.union(&b.used).map(|n| words.rarity(n)).sum::<f64>().max(1.0);
    let tests = |t: &Part, s: &Part| {
        t.category == Test
            && s.category != Test
            && t.tested_stem.len() >= 3
            && (t.tested_stem == s.stem || t.tested_stem == s.scope)
    };
    let defines = |x: &Part, y: &Part| x.defined.iter().any(|n| y.used.contains(n));
    let names = |x: &Part, y: &Part| y.stem.len() >= 4 && x.used.contains(&y.stem);
    let code = |p: &Part| p.category.is_code();
    let test = |p: &Part| p.category == Test;
    let (ca, cb) = (code(a), code(b));
    [
        jaccard,
        jaccard.sqrt(),
        rare_shared / rare_union,
        coupling.strength(a.file, b.file),
        coupling.lift(a.file, b.file),
        flag(tests(a, b) || tests(b, a)),
        flag(defines(a, b) || defines(b, a)),
        flag(names(a, b) || names(b, a)),
        flag(a.directory == b.directory),
        flag(a.component == b.component),
        flag(a.extension == b.extension),
        flag(ca != cb && !test(a) && !test(b)),
        flag(!ca && !cb && a.category == b.category),
        flag(!ca && !cb && a.category != b.category),
        flag(ca != cb && (test(a) || test(b))),
        flag(a.added && b.added),
        flag(a.removed && b.removed || a.renamed && b.renamed),
        ((1 + a.lines.min(b.lines)) as f64).ln() / 5.0,
        (count as f64).ln() / 3.0,
    ]
}

/// Two parts (by index) and their signals.
pub type Pair = (usize, usize, Signals);

/// The signals of a pair, in the order of [`FEATURES`].
pub type Signals = [f64; 19];

/// The chance two parts belong together, from their signals.
pub fn affinity(features: &Signals, coefficients: &[f64]) -> f64 {
    let z = coefficients[0] + features.iter().zip(&coefficients[1..]).map(|(x, w)| x * w).sum::<f64>();
    1.0 / (1.0 + (-z).exp())
}

/// The unit's parts with the signals of each pair, for the evaluation.
pub fn pairs(ctx: &Context<'_>, files: &BTreeMap<usize, Vec<usize>>, words: &Words) -> (Vec<Part>, Vec<Pair>) {
    let parts = parts(ctx.changes, files, words);
    let n = parts.len();
    let mut out = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            out.push((a, b, features(&parts[a], &parts[b], n, &ctx.coupling, words)));
        }
    }
    (parts, out)
}

/// The words a part answers to: its path's, its kind's, and the names it
/// defines.
fn part_words(part: &Part, path: &str) -> BTreeSet<String> {
    let mut out = count::words(path);
    let kind: &[&str] = match part.category {
        Category::Docs => &["docs", "doc", "documentation", "readme", "changelog"],
        Category::Test => &["test", "tests", "testing", "spec"],
        Category::Build => &[
            "build",
            "deps",
            "dependency",
            "dependencies",
            "bump",
            "version",
            "release",
        ],
        Category::Config => &["config", "configuration", "workflow", "lint"],
        _ => &[],
    };
    out.extend(kind.iter().map(|w| w.to_string()));
    for name in &part.defined {
        out.extend(count::words(name));
    }
    out
}

/// The one subject of `named` each part shares the most words with, when
/// there is one.
fn subject_of_parts(parts: &[Part], named: &[&str], wanted: bool) -> Vec<Option<usize>> {
    if !wanted {
        return vec![None; parts.len()];
    }
    let subjects: Vec<BTreeSet<String>> = named.iter().map(|s| count::words(s)).collect();
    parts
        .iter()
        .map(|p| {
            let words = part_words(p, &p.path);
            let shared: Vec<usize> = subjects.iter().map(|s| s.intersection(&words).count()).collect();
            let best = shared.iter().copied().max().unwrap_or(0);
            let winners: Vec<usize> = (0..shared.len()).filter(|&s| shared[s] == best).collect();
            (best > 0 && winners.len() == 1).then(|| winners[0])
        })
        .collect()
}

/// Splits one unit into groups of items; `wanted` is how many pieces of
/// work its message names (`count`), when it names several: parts join
/// until that many are left, and past it only when the affinity is sure.
pub fn split_unit(
    ctx: &Context<'_>,
    files: &BTreeMap<usize, Vec<usize>>,
    words: &Words,
    tuning: &Tuning,
    named: &[&str],
) -> Vec<Vec<usize>> {
    let wanted = Some(named.len()).filter(|&k| k >= 2);
    let coefficients: &[f64] = tuning.coefficients.as_deref().unwrap_or(&COEFFICIENTS);
    if files.len() > MOST_PARTS {
        // A sweeping commit: weighing every pair would take too long, and
        // such a commit goes to a size question anyway. By component.
        let parts = parts(ctx.changes, files, words);
        let mut by_component: BTreeMap<(String, bool), Vec<usize>> = BTreeMap::new();
        for p in &parts {
            by_component
                .entry((p.component.clone(), p.category.is_code()))
                .or_default()
                .extend(p.items.iter().copied());
        }
        return by_component
            .into_values()
            .map(|mut items| {
                items.sort_unstable();
                items
            })
            .collect();
    }
    // A message naming more pieces of work than there are files: hunks of
    // one file may go to different commits (hunks of one file join easily).
    let by_hunks = match (wanted, tuning.hunk_parts) {
        (Some(k), HunkParts::WhenFewerFiles) => files.len() < k,
        (Some(_), HunkParts::WithCount) => true,
        _ => false,
    } && files.values().map(Vec::len).sum::<usize>() <= MOST_PARTS;
    let parts = if by_hunks {
        hunk_parts(ctx.changes, files, words)
    } else {
        parts(ctx.changes, files, words)
    };
    let n = parts.len();
    let mut pairs = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            pairs.push((a, b, features(&parts[a], &parts[b], n, &ctx.coupling, words)));
        }
    }
    let same_file = |a: usize, b: usize| parts[a].file == parts[b].file;
    let about = subject_of_parts(&parts, named, wanted.is_some() && tuning.subject_words != 0.0);
    // Average linkage on the sums of chances between clusters (a cluster
    // lives in the slot of its first part): join the two closest clusters
    // while they are close enough; ties go to the lowest slots, so the
    // result is stable.
    let mut sum = vec![vec![0.0; n]; n];
    for (a, b, f) in &pairs {
        let mut x = affinity(f, coefficients);
        let mut shift = 0.0;
        if same_file(*a, *b) {
            shift += tuning.same_file;
        }
        if let (Some(s), Some(t)) = (about[*a], about[*b]) {
            shift += if s == t {
                tuning.subject_words
            } else {
                -tuning.subject_words
            };
        }
        if shift != 0.0 {
            x = 1.0 / (1.0 + ((1.0 - x) / x.max(1e-12)).max(1e-300) * (-shift).exp());
        }
        sum[*a][*b] = x;
        sum[*b][*a] = x;
    }
    let mut members: Vec<Vec<usize>> = (0..n).map(|p| vec![p]).collect();
    let mut alive = vec![true; n];
    let mut left = n;
    let joins = |v: f64, left: usize| match wanted {
        Some(k) if left > k => true,
        Some(_) => v >= tuning.sure_join,
        None => v >= tuning.join_threshold,
    };
    loop {
        let mut best: Option<(f64, usize, usize)> = None;
        for x in (0..n).filter(|&x| alive[x]) {
            for y in (x + 1..n).filter(|&y| alive[y]) {
                let average = sum[x][y] / (members[x].len() * members[y].len()) as f64;
                if best.is_none_or(|(v, _, _)| average > v + 1e-12) {
                    best = Some((average, x, y));
                }
            }
        }
        match best {
            Some((v, x, y)) if joins(v, left) => {
                left -= 1;
                for z in 0..n {
                    if alive[z] && z != x && z != y {
                        sum[x][z] += sum[y][z];
                        sum[z][x] = sum[x][z];
                    }
                }
                alive[y] = false;
                let moved = std::mem::take(&mut members[y]);
                members[x].extend(moved);
            }
            _ => break,
        }
    }
    let mut clusters: Vec<Vec<usize>> = (0..n).filter(|&x| alive[x]).map(|x| members[x].clone()).collect();
    // Tiny code parts ride along with the unit's largest code part.
    let code_lines = |members: &Vec<usize>| -> Option<usize> {
        members
            .iter()
            .all(|&p| parts[p].category.is_code())
            .then(|| members.iter().map(|&p| parts[p].lines).sum())
    };
    let largest = (0..clusters.len())
        .filter_map(|c| code_lines(&clusters[c]).map(|l| (l, std::cmp::Reverse(c))))
        .max()
        .map(|(_, std::cmp::Reverse(c))| c);
    if let Some(largest) = largest.filter(|_| wanted.is_none_or(|k| clusters.len() > k)) {
        let small: Vec<usize> = (0..clusters.len())
            .filter(|&c| c != largest && code_lines(&clusters[c]).is_some_and(|l| l <= tuning.small_part_lines))
            .collect();
        let mut moved = Vec::new();
        for &c in small.iter().rev() {
            moved.extend(clusters.remove(c));
        }
        let target = largest - small.iter().filter(|&&c| c < largest).count();
        clusters[target].extend(moved);
    }
    clusters
        .into_iter()
        .map(|members| {
            let mut items: Vec<usize> = members.iter().flat_map(|&p| parts[p].items.iter().copied()).collect();
            items.sort_unstable();
            items
        })
        .collect()
}
