//! The tally: the planner and the baselines scored over squashed runs,
//! each squashed commit a case of its own, and the table's rows.

use std::collections::{BTreeMap, BTreeSet};

use ultraplan::historian::analyse::items::ChangeSet;
use ultraplan::historian::plan::context::{Context, Tuning};
use ultraplan::historian::plan::split::Limits;
use ultraplan::historian::plan::{auto, count, explanation};

use super::best_of;
use super::scoring::{score, Score};
use super::sources::Segment;

#[derive(Default)]
pub struct Tally {
    pub segments: usize,
    pub originals: usize,
    pub squashed: usize,
    pub planned: usize,
    pub historian: Score,
    pub per_directory: Score,
    pub per_directory_global: Score,
    pub per_squash: Score,
    pub unsquashed: Score,
    pub oracle_items: Score,
    pub oracle_fragments: Score,
    /// One entry per squashed commit (a case: a squash of 2–3 originals).
    pub cases: Vec<Case>,
    /// Runs whose plan keeps every line present at the base and the tip
    /// in every planned commit (issue 15, item 6), and runs checked.
    pub kept: (usize, usize),
}

/// One squashed commit of 2–3 originals, scored on its own items.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub lines: f64,
    pub historian: f64,
    pub per_directory: f64,
    pub one_commit: f64,
    pub planned: usize,
    pub truth: usize,
    /// Subjects its message names (`count`), files and items it holds.
    pub named: usize,
    pub files: usize,
    pub items: usize,
}

impl Tally {
    pub fn add(&mut self, other: &Tally) {
        self.segments += other.segments;
        self.originals += other.originals;
        self.squashed += other.squashed;
        self.planned += other.planned;
        self.historian.add(other.historian);
        self.per_directory.add(other.per_directory);
        self.per_directory_global.add(other.per_directory_global);
        self.per_squash.add(other.per_squash);
        self.unsquashed.add(other.unsquashed);
        self.oracle_items.add(other.oracle_items);
        self.oracle_fragments.add(other.oracle_fragments);
        self.cases.extend(other.cases.iter().copied());
        self.kept.0 += other.kept.0;
        self.kept.1 += other.kept.1;
    }

    /// Per-case figures: mean, median and line-weighted scores, the
    /// baselines, and the planned commit counts against the truth.
    pub fn summary(&self) -> Summary {
        let n = self.cases.len().max(1) as f64;
        let ratio = |x: f64, c: &Case| if c.lines > 0.0 { x / c.lines } else { 1.0 };
        let mut scores: Vec<f64> = self.cases.iter().map(|c| ratio(c.historian, c)).collect();
        scores.sort_by(f64::total_cmp);
        let median = match scores.len() {
            0 => 0.0,
            k if k % 2 == 1 => scores[k / 2],
            k => (scores[k / 2 - 1] + scores[k / 2]) / 2.0,
        };
        let lines: f64 = self.cases.iter().map(|c| c.lines).sum::<f64>().max(1.0);
        let sum = |f: fn(&Case) -> f64| self.cases.iter().map(f).sum::<f64>();
        Summary {
            cases: self.cases.len(),
            mean: scores.iter().sum::<f64>() / n,
            median,
            weighted: sum(|c| c.historian) / lines,
            dir_mean: self.cases.iter().map(|c| ratio(c.per_directory, c)).sum::<f64>() / n,
            dir_weighted: sum(|c| c.per_directory) / lines,
            one_mean: self.cases.iter().map(|c| ratio(c.one_commit, c)).sum::<f64>() / n,
            one_weighted: sum(|c| c.one_commit) / lines,
            below: self.cases.iter().filter(|c| c.planned < c.truth).count(),
            equal: self.cases.iter().filter(|c| c.planned == c.truth).count(),
            above: self.cases.iter().filter(|c| c.planned > c.truth).count(),
            worse_than_one: self.cases.iter().filter(|c| c.historian + 1e-9 < c.one_commit).count(),
            hindsight: self
                .cases
                .iter()
                .map(|c| ratio(c.historian.max(c.one_commit), c))
                .sum::<f64>()
                / n,
        }
    }
}

pub struct Summary {
    pub cases: usize,
    pub mean: f64,
    pub median: f64,
    pub weighted: f64,
    pub dir_mean: f64,
    pub dir_weighted: f64,
    pub one_mean: f64,
    pub one_weighted: f64,
    pub below: usize,
    pub equal: usize,
    pub above: usize,
    pub worse_than_one: usize,
    /// The mean were each case given the better of its plan and one
    /// commit, chosen with hindsight: the most any rule keeping a squash
    /// whole when its plan would lose could reach with this planner's
    /// splits, with no case worse than one commit.
    pub hindsight: f64,
}

pub fn group_by<K: Ord>(n: usize, key: impl Fn(usize) -> K) -> Vec<Vec<usize>> {
    let mut groups: BTreeMap<K, Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        groups.entry(key(i)).or_default().push(i);
    }
    groups.into_values().collect()
}

pub fn directory(path: &str) -> String {
    path.rsplit_once('/').map(|(d, _)| d.to_owned()).unwrap_or_default()
}

/// Scores the planner and the baselines on `segments`; `unsquashed` also
/// plans each branch as it was.
pub fn tally(segments: &[Segment], tuning: &Tuning, unsquashed: bool) -> Tally {
    let mut tally = Tally::default();
    for seg in segments {
        let changes = &seg.changes;
        let ctx = Context::new(changes, &seg.seen, &seg.squashed, seg.coupling.clone());
        let plan = auto::plan(&ctx, tuning);
        let groups: Vec<Vec<usize>> = plan.commits.iter().map(|c| c.items.clone()).collect();
        let n = changes.items.len();
        let o = seg.originals.len();
        let truth = &seg.truth.items;
        let primary = |i: usize| seg.seen.primary(i).unwrap_or(0);
        tally.segments += 1;
        tally.originals += o;
        tally.squashed += seg.squashed.len();
        tally.planned += groups.len();
        tally.historian.add(score(&groups, truth, o));
        tally.cases.extend(cases(seg, &groups, tuning));
        tally.kept.0 += usize::from(keeps_present(changes, &groups));
        tally.kept.1 += 1;
        tally.per_directory.add(score(
            &group_by(n, |i| (primary(i), directory(changes.path(i)))),
            truth,
            o,
        ));
        tally
            .per_directory_global
            .add(score(&group_by(n, |i| directory(changes.path(i))), truth, o));
        tally.per_squash.add(score(&group_by(n, primary), truth, o));
        // The best any plan could do keeping items whole, and keeping each
        // file of a squashed commit whole.
        tally.oracle_items.add(score(
            &group_by(n, |i| truth[i].first().map(|(o, _)| *o).unwrap_or(0)),
            truth,
            o,
        ));
        let mut fragments: BTreeMap<(usize, usize), BTreeMap<usize, u32>> = BTreeMap::new();
        for i in 0..n {
            for &(k, w) in &truth[i] {
                *fragments
                    .entry((primary(i), changes.items[i].file))
                    .or_default()
                    .entry(k)
                    .or_default() += w;
            }
        }
        tally.oracle_fragments.add(score(
            &group_by(n, |i| best_of(&fragments[&(primary(i), changes.items[i].file)])),
            truth,
            o,
        ));
        if unsquashed {
            // The planner on the branch as it was.
            let uncut_ctx = Context::new(changes, &seg.truth, &seg.originals, seg.coupling.clone());
            let uncut = auto::plan(&uncut_ctx, tuning);
            let uncut_groups: Vec<Vec<usize>> = uncut.commits.iter().map(|c| c.items.clone()).collect();
            tally.unsquashed.add(score(&uncut_groups, truth, o));
        }
    }
    tally
}

/// Each squashed commit of `seg` as a case of its own: its items (those
/// most of whose lines it wrote) as the planned `groups` cut them, as one
/// commit per directory, and as one commit, scored against the originals;
/// with the number of planned commits holding them and of originals
/// writing them.
pub fn cases(seg: &Segment, groups: &[Vec<usize>], tuning: &Tuning) -> Vec<Case> {
    let changes = &seg.changes;
    let truth = &seg.truth.items;
    let o = seg.originals.len();
    let mut out = Vec::new();
    for k in 0..seg.squashed.len() {
        let mine: Vec<usize> = (0..changes.items.len())
            .filter(|&i| seg.seen.primary(i) == Some(k))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let planned: Vec<Vec<usize>> = groups
            .iter()
            .map(|g| {
                g.iter()
                    .copied()
                    .filter(|i| mine.binary_search(i).is_ok())
                    .collect::<Vec<_>>()
            })
            .filter(|g| !g.is_empty())
            .collect();
        let mut by_directory: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for &i in &mine {
            by_directory.entry(directory(changes.path(i))).or_default().push(i);
        }
        let by_directory: Vec<Vec<usize>> = by_directory.into_values().collect();
        let historian = score(&planned, truth, o);
        let one_commit = score(std::slice::from_ref(&mine), truth, o);
        let writers: BTreeSet<usize> = mine
            .iter()
            .flat_map(|&i| {
                truth[i]
                    .iter()
                    .filter(|(j, w)| *w > 0 && seg.squash_of[*j] == k)
                    .map(|(j, _)| *j)
            })
            .collect();
        if SHOW_WORSE.load(std::sync::atomic::Ordering::Relaxed)
            && count::subjects(&seg.squashed[k].message).len() < writers_of(seg, k, &mine)
        {
            println!("--- names fewer: {:?}", seg.squashed[k].message);
        }
        let subjects = count::subjects_read(&seg.squashed[k].message, tuning.reading);
        if SHOW_WORSE.load(std::sync::atomic::Ordering::Relaxed) && subjects.len() > writers_of(seg, k, &mine) {
            println!("--- names more: {subjects:?}");
        }
        let named = subjects.len();
        if SHOW_FEWER.load(std::sync::atomic::Ordering::Relaxed)
            && planned.len() < writers.len()
            && named == writers.len()
        {
            let one = score(std::slice::from_ref(&mine), truth, o).matched;
            println!(
                "--- fewer commits than named: score {:.3}, one commit {:.3}",
                historian.matched / historian.total.max(1.0),
                one / historian.total.max(1.0)
            );
            show_case(seg, k, &planned);
        }
        if SHOW_WORSE.load(std::sync::atomic::Ordering::Relaxed)
            && historian.matched + 1e-9 < score(std::slice::from_ref(&mine), truth, o).matched
        {
            show_case(seg, k, &planned);
        }
        if SHOW_CASES.load(std::sync::atomic::Ordering::Relaxed) {
            list_case(
                seg,
                k,
                &planned,
                historian.value(),
                one_commit.value(),
                (writers.len().max(1), named),
            );
        }
        out.push(Case {
            lines: historian.total,
            historian: historian.matched,
            per_directory: score(&by_directory, truth, o).matched,
            one_commit: one_commit.matched,
            planned: planned.len(),
            truth: writers.len().max(1),
            named,
            files: mine
                .iter()
                .map(|&i| changes.items[i].file)
                .collect::<BTreeSet<_>>()
                .len(),
            items: mine.len(),
        });
    }
    out
}

pub fn writers_of(seg: &Segment, k: usize, mine: &[usize]) -> usize {
    let writers: BTreeSet<usize> = mine
        .iter()
        .flat_map(|&i| {
            seg.truth.items[i]
                .iter()
                .filter(|(j, w)| *w > 0 && seg.squash_of[*j] == k)
                .map(|(j, _)| *j)
        })
        .collect();
    writers.len().max(1)
}

/// Whether `HISTORIAN_EVAL_WHY=2` asked to see each case worse than one
/// commit (the planner as tuned, tuning half only).
pub static SHOW_WORSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `HISTORIAN_EVAL_WHY=3` asked to see each case planned as fewer
/// commits than its message names, rightly.
pub static SHOW_FEWER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `HISTORIAN_EVAL_CASES=1` asked for every case of the tuning half.
pub static SHOW_CASES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// One case as a line (`case`, its score, one commit's, its squash's first
/// line: two runs' lists compare by subject), and in full, items and all,
/// when `HISTORIAN_EVAL_CASE=<text>|…` names text of that first line.
fn list_case(seg: &Segment, k: usize, planned: &[Vec<usize>], score: f64, one: f64, (truth, named): (usize, usize)) {
    let first = seg.squashed[k].message.lines().next().unwrap_or("");
    let planned_count = planned.len();
    println!("case\t{score:.3}\t{one:.3}\t{first}\t{planned_count}/{truth}/{named}");
    if std::env::var("HISTORIAN_EVAL_CASE").is_ok_and(|wanted| wanted.split('|').any(|w| first.contains(w))) {
        show_case(seg, k, planned);
    }
}

/// A case worse than one commit: its subjects, and per planned commit the
/// files with the lines each original wrote.
pub fn show_case(seg: &Segment, k: usize, planned: &[Vec<usize>]) {
    let message = &seg.squashed[k].message;
    println!("--- worse: {:?}", count::subjects(message));
    let originals: Vec<usize> = (0..seg.originals.len()).filter(|&j| seg.squash_of[j] == k).collect();
    for &j in &originals {
        println!(
            "    original {j}: {}",
            seg.originals[j].message.lines().next().unwrap_or("")
        );
    }
    // In full (`HISTORIAN_EVAL_CASE`): the deciding signal of each item,
    // from the planner's record of a second run.
    let reasons = std::env::var_os("HISTORIAN_EVAL_CASE").map(|_| {
        let ctx = Context::new(&seg.changes, &seg.seen, &seg.squashed, seg.coupling.clone());
        let plan = auto::plan(&ctx, &Tuning::default());
        let limits = Limits { files: 15, lines: 500 };
        explanation::explain(&ctx, &plan, limits, false)
    });
    for (g, items) in planned.iter().enumerate() {
        let mut files: BTreeMap<&str, BTreeMap<usize, u32>> = BTreeMap::new();
        for &i in items {
            let entry = files.entry(seg.changes.path(i)).or_default();
            for &(j, w) in &seg.truth.items[i] {
                *entry.entry(j).or_default() += w;
            }
        }
        for (path, by) in files {
            println!("    planned {g}: {path} {by:?}");
        }
        if let Some(reasons) = &reasons {
            for &i in items {
                let names: Vec<&String> = seg.changes.items[i].symbols.defined.iter().take(4).collect();
                let why = &reasons.items[i];
                println!(
                    "        {} {:?} {names:?} {:?} {:?}",
                    seg.changes.item_name(i),
                    seg.truth.items[i],
                    why.deciding().map(|p| (&p.signal, &p.strength)),
                    why.subject
                );
            }
        }
    }
}

/// Whether every moved line (deleted by some items, added by others: a
/// line present at the base and at the tip) is present in every planned
/// commit: its last deletion comes no earlier than its first addition.
pub fn keeps_present(changes: &ChangeSet, groups: &[Vec<usize>]) -> bool {
    let mut at = vec![usize::MAX; changes.items.len()];
    for (g, items) in groups.iter().enumerate() {
        for &i in items {
            at[i] = g;
        }
    }
    changes.moves.lines.iter().all(|line| {
        let last_deletion = line.deleted_by.iter().map(|&d| at[d]).max().unwrap_or(usize::MAX);
        let first_addition = line.added_by.iter().map(|&a| at[a]).min().unwrap_or(0);
        last_deletion >= first_addition
    })
}

pub fn print_header() {
    println!(
        "{:<24} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>11} {:>5} {:>6} {:>6} {:>6}",
        "repository",
        "cases",
        "mean",
        "median",
        "lines",
        "dir",
        "dir m",
        "one",
        "one m",
        "count </=/>",
        "worse",
        "kept",
        "run",
        "unsq"
    );
}

pub fn print_row(name: &str, t: &Tally) {
    let s = t.summary();
    println!(
        "{:<24} {:>5} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>11} {:>5} {:>6} {:>6.3} {:>6.3}",
        name,
        s.cases,
        s.mean,
        s.median,
        s.weighted,
        s.dir_weighted,
        s.dir_mean,
        s.one_weighted,
        s.one_mean,
        format!("{}/{}/{}", s.below, s.equal, s.above),
        s.worse_than_one,
        format!("{}/{}", t.kept.0, t.kept.1),
        t.historian.value(),
        t.unsquashed.value()
    );
    if std::env::var_os("HISTORIAN_EVAL_PRECISE").is_some() {
        println!(
            "{:<24} mean {:.5} line-weighted {:.5} hindsight {:.5}",
            "", s.mean, s.weighted, s.hindsight
        );
    }
}
