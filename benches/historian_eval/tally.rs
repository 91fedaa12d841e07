//! The tally: each case planned and scored with its baselines, and the
//! table's rows.

use std::collections::{BTreeMap, BTreeSet};

use ultraplan::historian::plan::auto;
use ultraplan::historian::plan::context::{Context, Tuning};

use super::scoring::score;
use super::sources::Case;

/// One case's scores (shares of its changed lines grouped as the originals
/// grouped them).
#[derive(Clone, Copy, Debug)]
pub struct Scored {
    pub lines: f64,
    pub historian: f64,
    pub one_commit: f64,
    pub per_directory: f64,
    pub per_file: f64,
    /// The branch's own commits kept as they are (messy branches only
    /// differ from one commit).
    pub as_committed: f64,
    /// The best any plan keeping items whole could do, and keeping files
    /// whole (the limits of the planner's granularity).
    pub oracle_items: f64,
    pub oracle_files: f64,
    pub planned: usize,
    pub truth: usize,
    /// Whether the plan asks a person (a QUESTION: its reading is weak).
    pub asks: bool,
    /// Whether the plan groups the items otherwise than the branch's own
    /// commits do (each item with the commit that wrote most of it): a plan
    /// that only reorders or rewords them changes nothing here.
    pub changes: bool,
    /// How well the plan agrees with its chances (1 when sure), read with
    /// `HISTORIAN_EVAL_PRECISE` only.
    pub confidence: f64,
}

#[derive(Default)]
pub struct Tally {
    pub cases: Vec<Scored>,
}

impl Tally {
    pub fn add(&mut self, other: &Tally) {
        self.cases.extend(other.cases.iter().copied());
    }

    pub fn summary(&self) -> Summary {
        summary(&self.cases)
    }
}

pub struct Summary {
    pub cases: usize,
    pub mean: f64,
    pub median: f64,
    pub weighted: f64,
    pub one_mean: f64,
    pub one_weighted: f64,
    pub dir_mean: f64,
    pub file_mean: f64,
    pub committed_mean: f64,
    pub below: usize,
    pub equal: usize,
    pub above: usize,
    pub worse_than_one: usize,
    /// Cases whose plan groups the items otherwise than the branch does.
    pub changed: usize,
    /// Cases on which the plan asks, and the mean over those it decides alone.
    pub asked: usize,
    pub alone_mean: f64,
    /// The better of the plan and one commit for each case, chosen knowing
    /// the answer: the bound on any rule keeping a case whole.
    pub hindsight: f64,
    pub oracle_items: f64,
    pub oracle_files: f64,
}

fn ratio(x: f64, c: &Scored) -> f64 {
    if c.lines > 0.0 {
        x / c.lines
    } else {
        1.0
    }
}

pub fn summary(cases: &[Scored]) -> Summary {
    let n = cases.len().max(1) as f64;
    let mean = |f: fn(&Scored) -> f64| cases.iter().map(|c| ratio(f(c), c)).sum::<f64>() / n;
    let mut scores: Vec<f64> = cases.iter().map(|c| ratio(c.historian, c)).collect();
    scores.sort_by(f64::total_cmp);
    let median = match scores.len() {
        0 => 0.0,
        k if k % 2 == 1 => scores[k / 2],
        k => (scores[k / 2 - 1] + scores[k / 2]) / 2.0,
    };
    let lines: f64 = cases.iter().map(|c| c.lines).sum::<f64>().max(1.0);
    let alone: Vec<&Scored> = cases.iter().filter(|c| !c.asks).collect();
    Summary {
        cases: cases.len(),
        mean: mean(|c| c.historian),
        median,
        weighted: cases.iter().map(|c| c.historian).sum::<f64>() / lines,
        one_mean: mean(|c| c.one_commit),
        one_weighted: cases.iter().map(|c| c.one_commit).sum::<f64>() / lines,
        dir_mean: mean(|c| c.per_directory),
        file_mean: mean(|c| c.per_file),
        committed_mean: mean(|c| c.as_committed),
        below: cases.iter().filter(|c| c.planned < c.truth).count(),
        equal: cases.iter().filter(|c| c.planned == c.truth).count(),
        above: cases.iter().filter(|c| c.planned > c.truth).count(),
        worse_than_one: cases.iter().filter(|c| c.historian + 1e-9 < c.one_commit).count(),
        changed: cases.iter().filter(|c| c.changes).count(),
        asked: cases.len() - alone.len(),
        alone_mean: alone.iter().map(|c| ratio(c.historian, c)).sum::<f64>() / alone.len().max(1) as f64,
        hindsight: mean(|c| c.historian.max(c.one_commit)),
        oracle_items: mean(|c| c.oracle_items),
        oracle_files: mean(|c| c.oracle_files),
    }
}

fn directory(path: &str) -> String {
    path.rsplit_once('/').map(|(d, _)| d.to_owned()).unwrap_or_default()
}

fn group_by<K: Ord>(n: usize, key: impl Fn(usize) -> K) -> Vec<Vec<usize>> {
    let mut groups: BTreeMap<K, Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        groups.entry(key(i)).or_default().push(i);
    }
    groups.into_values().collect()
}

/// Plans `case` and scores the plan and the baselines.
pub fn score_case(case: &Case, tuning: &Tuning) -> Scored {
    let changes = &case.changes;
    let ctx = Context::new(changes, &case.seen, &case.branch, case.coupling.clone());
    let (plan, unsure) = auto::plan_with_doubts(&ctx, tuning);
    let groups: Vec<Vec<usize>> = plan.commits.iter().map(|c| c.items.clone()).collect();
    let as_committed = group_by(changes.items.len(), |i| case.seen.primary(i).unwrap_or(0));
    let truth = &case.truth.items;
    let o = case.originals.len();
    let n = changes.items.len();
    let historian = score(&groups, truth, o);
    let writer = |i: usize| truth[i].first().map_or(0, |(j, _)| *j);
    let writers: BTreeSet<usize> = truth
        .iter()
        .flat_map(|w| w.iter().filter(|(_, w)| *w > 0).map(|(j, _)| *j))
        .collect();
    Scored {
        lines: historian.total,
        historian: historian.matched,
        one_commit: score(&[(0..n).collect()], truth, o).matched,
        per_directory: score(&group_by(n, |i| directory(changes.path(i))), truth, o).matched,
        per_file: score(&group_by(n, |i| changes.items[i].file), truth, o).matched,
        as_committed: score(&as_committed, truth, o).matched,
        oracle_items: score(&group_by(n, writer), truth, o).matched,
        oracle_files: {
            let mut by_file: BTreeMap<usize, BTreeMap<usize, u32>> = BTreeMap::new();
            for i in 0..n {
                for &(j, w) in &truth[i] {
                    *by_file.entry(changes.items[i].file).or_default().entry(j).or_default() += w;
                }
            }
            let best = |f: usize| {
                by_file
                    .get(&f)
                    .and_then(|w| w.iter().max_by_key(|(j, w)| (**w, std::cmp::Reverse(**j))))
                    .map_or(0, |(j, _)| *j)
            };
            score(&group_by(n, |i| best(changes.items[i].file)), truth, o).matched
        },
        planned: groups.len(),
        truth: writers.len().max(1),
        asks: unsure.is_some(),
        changes: {
            let mut planned = groups.clone();
            for g in &mut planned {
                g.sort_unstable();
            }
            planned.sort();
            let mut kept = as_committed.clone();
            kept.sort();
            planned != kept
        },
        confidence: if std::env::var_os("HISTORIAN_EVAL_PRECISE").is_some() {
            let always = Tuning {
                ask_below: 1.01,
                ..tuning.clone()
            };
            auto::plan_with_doubts(&ctx, &always).1.map_or(1.0, |u| u.confidence)
        } else {
            1.0
        },
    }
}

pub fn print_header() {
    println!(
        "{:<30} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>11} {:>5} {:>5} {:>6} {:>7}",
        "",
        "cases",
        "mean",
        "median",
        "lines",
        "one",
        "one l",
        "dir",
        "file",
        "as is",
        "count </=/>",
        "worse",
        "asks",
        "alone",
        "changes"
    );
}

pub fn print_row(name: &str, t: &Tally) {
    let s = t.summary();
    println!(
        "{:<30} {:>5} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>11} {:>5} {:>5} {:>6.3} {:>7}",
        name,
        s.cases,
        s.mean,
        s.median,
        s.weighted,
        s.one_mean,
        s.one_weighted,
        s.dir_mean,
        s.file_mean,
        s.committed_mean,
        format!("{}/{}/{}", s.below, s.equal, s.above),
        s.worse_than_one,
        s.asked,
        s.alone_mean,
        s.changed,
    );
    if std::env::var_os("HISTORIAN_EVAL_PRECISE").is_some() {
        println!(
            "{:<30} mean {:.5} line-weighted {:.5} hindsight {:.5} items whole {:.3} files whole {:.3}",
            "", s.mean, s.weighted, s.hindsight, s.oracle_items, s.oracle_files
        );
        // Were `clean` to ask below each confidence: how often, and the
        // mean of the cases it would decide alone.
        let mut line = String::new();
        for at in [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9] {
            let alone: Vec<&Scored> = t.cases.iter().filter(|c| c.confidence >= at).collect();
            let mean = alone.iter().map(|c| ratio(c.historian, c)).sum::<f64>() / alone.len().max(1) as f64;
            let share = 1.0 - alone.len() as f64 / t.cases.len().max(1) as f64;
            line.push_str(&format!(" {at}: {:.0}% {mean:.3};", 100.0 * share));
        }
        println!("{:<30} asking below{line}", "");
    }
}
