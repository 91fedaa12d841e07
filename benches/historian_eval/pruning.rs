//! What each weak signal, word list and constant earns, and what a
//! question could be asked on:
//!
//! * `HISTORIAN_EVAL_GREEDY=1`: greedy elimination of the signals beyond
//!   names and coupling ([`greedy`]): leave each out, drop the one whose
//!   absence costs least while that is under [`RULE`] on the neutral and
//!   messy regimes, measure again, repeat;
//! * `HISTORIAN_EVAL_LEAVE_OUT=1` (or `=<names,…>`): the planner with each
//!   word list or constant of [`LEFT_OUT`] left out (`analyse::left_out`);
//! * `HISTORIAN_EVAL_DUMP=<file>`: one line per case of what a rule for
//!   asking could read (tab-separated, a header first), to choose the rule
//!   on the tuning half.

use std::io::Write;

use ultraplan::historian::analyse::left_out;
use ultraplan::historian::plan::auto;
use ultraplan::historian::plan::context::{Context, Tuning};
use ultraplan::historian::plan::weights::{weights as built_in, SIGNALS};

use super::knobs::STRONG;
use super::regimes::Regime;
use super::scoring::score;
use super::sources::Case;
use super::tally::{score_case, summary, Scored};

/// A signal, list or constant stays only if leaving it out costs at least
/// this on the neutral or the messy regime (issue 39).
pub const RULE: f64 = 0.005;

/// The word lists and constants the evaluation can leave out, by the names
/// `analyse::left_out` reads them under (each acts while the cases are
/// planned), and whether they read messages only (joined messages).
pub const LEFT_OUT: [(&str, bool); 18] = [
    ("DEPENDENCY_FILES", false),
    ("CONFIG_FILES", false),
    ("CONFIG_DIRECTORIES", false),
    ("TEST_DIRECTORIES", false),
    ("DOC_DIRECTORIES", false),
    ("DOC_NAMES", false),
    ("DOC_EXTENSIONS", false),
    ("SCHEMA_DIRECTORIES", false),
    ("SCHEMA_EXTENSIONS", false),
    ("INTERFACE_DIRECTORIES", false),
    ("CONFIG_EXTENSIONS", false),
    ("ASSET_EXTENSIONS", false),
    ("CI_FILES", false),
    ("CI_DIRECTORIES", false),
    ("GENERIC", false),
    ("VERBS", true),
    ("subject_line::PROSE", true),
    ("KNOWN_TYPES", true),
];

/// The mean of `cases` planned with `tuning`.
pub fn mean(cases: &[&Case], tuning: &Tuning) -> f64 {
    let scored: Vec<Scored> = cases.iter().map(|c| score_case(c, tuning)).collect();
    summary(&scored).mean
}

/// Greedy elimination of the weak signals: each round leaves out each
/// one still in, on top of those already out, and drops the one costing
/// least (the larger of its costs on `regimes`) while that is under
/// [`RULE`]. Prints every round.
pub fn greedy(regimes: &[(Regime, Vec<&Case>)], base: &Tuning) -> Vec<usize> {
    let mut weights = base.weights.clone().unwrap_or_else(built_in);
    let mut left: Vec<usize> = (0..SIGNALS.len())
        .filter(|n| !STRONG.contains(n) && weights[n + 1] != 0.0)
        .collect();
    let mut removed = Vec::new();
    let with = |w: &[f64]| Tuning {
        weights: Some(w.to_vec()),
        ..base.clone()
    };
    let as_tuned: Vec<f64> = regimes.iter().map(|(_, c)| mean(c, base)).collect();
    loop {
        let now: Vec<f64> = regimes.iter().map(|(_, c)| mean(c, &with(&weights))).collect();
        println!(
            "\n== greedy elimination, round {}: {} (as tuned {})",
            removed.len() + 1,
            show(regimes, &now),
            show(regimes, &as_tuned)
        );
        let mut best: Option<(f64, usize)> = None;
        for &n in &left {
            let mut w = weights.clone();
            w[n + 1] = 0.0;
            let without: Vec<f64> = regimes.iter().map(|(_, c)| mean(c, &with(&w))).collect();
            let cost = now.iter().zip(&without).map(|(a, b)| a - b).fold(f64::MIN, f64::max);
            println!(
                "  without '{}': {} (costs {cost:+.4})",
                SIGNALS[n].name,
                show(regimes, &without)
            );
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((cost, n));
            }
        }
        match best {
            Some((cost, n)) if cost < RULE => {
                println!("  -> removed '{}' (costs {cost:+.4} < {RULE})", SIGNALS[n].name);
                weights[n + 1] = 0.0;
                left.retain(|&m| m != n);
                removed.push(n);
            }
            _ => {
                println!("  -> every signal left costs at least {RULE}: they stay");
                break;
            }
        }
    }
    removed
}

fn show(regimes: &[(Regime, Vec<&Case>)], means: &[f64]) -> String {
    regimes
        .iter()
        .zip(means)
        .map(|((r, _), m)| format!("{} {m:.4}", r.label()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The line-weighted share of pairs of items two groupings agree on
/// (together in both, or apart in both).
fn agreement(a: &[Vec<usize>], b: &[Vec<usize>], lines: &[f64]) -> f64 {
    let n = lines.len();
    let label = |g: &[Vec<usize>]| {
        let mut at = vec![usize::MAX; n];
        for (k, items) in g.iter().enumerate() {
            for &i in items {
                at[i] = k;
            }
        }
        at
    };
    let (la, lb) = (label(a), label(b));
    let (mut agree, mut total) = (0.0, 0.0);
    for i in 0..n {
        for j in i + 1..n {
            let w = lines[i] * lines[j];
            total += w;
            if (la[i] == la[j]) == (lb[i] == lb[j]) {
                agree += w;
            }
        }
    }
    if total > 0.0 {
        agree / total
    } else {
        1.0
    }
}

/// The header of the dump.
pub const DUMP_HEADER: &str = "repo\thalf\tregime\tscore\tone\tlines\titems\tfiles\tplanned\ttruth\tasks\tconfidence\tchance\tthreshold\tmargin\tsmallest\tagree_names\tagree_coupling\tagree_sources\tagree_directory";

/// One case's line of the dump: its score, and what a rule for asking
/// could read (`confidence`, the closest call, the smallest commit's share
/// of the lines, and how far plans made from the names alone and from
/// coupling alone agree with the proposed one and with each other).
pub fn dump_line(repo: &str, half: &str, regime: Regime, case: &Case, tuning: &Tuning) -> String {
    let ctx = Context::new(&case.changes, &case.seen, &case.branch, case.coupling.clone());
    let always = Tuning {
        ask_below: 1.01,
        ..tuning.clone()
    };
    let (plan, unsure) = auto::plan_with_doubts(&ctx, &always);
    let asks = auto::plan_with_doubts(&ctx, tuning).1.is_some();
    let groups: Vec<Vec<usize>> = plan.commits.iter().map(|c| c.items.clone()).collect();
    let only = |keep: &[usize]| {
        let mut w = tuning.weights.clone().unwrap_or_else(built_in);
        for n in 0..SIGNALS.len() {
            if !keep.contains(&n) {
                w[n + 1] = 0.0;
            }
        }
        let t = Tuning {
            weights: Some(w),
            ..tuning.clone()
        };
        let p = auto::plan(&ctx, &t);
        p.commits.iter().map(|c| c.items.clone()).collect::<Vec<_>>()
    };
    let names = only(&[0]);
    let coupling = only(&[1, 2]);
    let lines: Vec<f64> = case.changes.items.iter().map(|i| i.lines.max(1) as f64).collect();
    let total: f64 = lines.iter().sum::<f64>().max(1.0);
    let smallest = groups
        .iter()
        .map(|g| g.iter().map(|&i| lines[i]).sum::<f64>() / total)
        .fold(1.0, f64::min);
    let mut directories: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for i in 0..case.changes.items.len() {
        let path = case.changes.path(i);
        let dir = path.rsplit_once('/').map(|(d, _)| d.to_owned()).unwrap_or_default();
        directories.entry(dir).or_default().push(i);
    }
    let directories: Vec<Vec<usize>> = directories.into_values().collect();
    let o = case.originals.len();
    let truth = &case.truth.items;
    let s = score(&groups, truth, o);
    let one = score(&[(0..case.changes.items.len()).collect()], truth, o);
    let ratio = |x: f64| if s.total > 0.0 { x / s.total } else { 1.0 };
    let truth_count = truth
        .iter()
        .flat_map(|w| w.iter().filter(|(_, w)| *w > 0).map(|(j, _)| *j))
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let (confidence, chance, threshold) = unsure.as_ref().map_or((1.0, -1.0, tuning.join_threshold), |u| {
        (u.confidence, u.closest.2, u.threshold)
    });
    format!(
        "{repo}\t{half}\t{}\t{:.5}\t{:.5}\t{}\t{}\t{}\t{}\t{}\t{}\t{confidence:.5}\t{chance:.5}\t{threshold:.3}\t{:.5}\t{smallest:.5}\t{:.5}\t{:.5}\t{:.5}\t{:.5}",
        regime.label(),
        ratio(s.matched),
        ratio(one.matched),
        s.total,
        case.changes.items.len(),
        case.changes.files.len(),
        groups.len(),
        truth_count.max(1),
        u8::from(asks),
        if chance >= 0.0 { (chance - threshold).abs() } else { -1.0 },
        agreement(&groups, &names, &lines),
        agreement(&groups, &coupling, &lines),
        agreement(&names, &coupling, &lines),
        agreement(&groups, &directories, &lines),
    )
}

/// Writes the dump of `rows` (repo, half, regime, cases) to `path`.
pub fn dump(path: &str, rows: &[(String, String, Regime, &[Case])], tuning: &Tuning) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("the dump file"));
    writeln!(out, "{DUMP_HEADER}").expect("write");
    for (repo, half, regime, cases) in rows {
        for case in cases.iter() {
            writeln!(out, "{}", dump_line(repo, half, *regime, case, tuning)).expect("write");
        }
    }
}

/// Leaves `name` out for as long as the guard lives.
pub struct LeftOut;

impl LeftOut {
    pub fn new(name: &str) -> LeftOut {
        left_out::leave_out(&[name]);
        LeftOut
    }
}

impl Drop for LeftOut {
    fn drop(&mut self) {
        left_out::leave_out(&[]);
    }
}
