//! `HISTORIAN_EVAL_FIT=1`: the affinity's weights fitted by logistic
//! regression on the pairs of parts the planner weighs in the neutral and
//! messy cases of the tuning half (whether the two parts came from one
//! original commit), with the same-file bonus as one more column.

// Matrix code (Newton steps, elimination) reads best with indices.
#![allow(clippy::needless_range_loop)]

use std::collections::BTreeMap;

use ultraplan::historian::plan::context::{Context, Tuning};
use ultraplan::historian::plan::group;
use ultraplan::historian::plan::weights::SIGNALS;

use super::sources::Case;

/// One row: the signals (and the same-file column), whether the two parts
/// came from one original, and the pair's weight.
pub type Row = (Vec<f64>, bool, f64);

/// The original commit that wrote most of the lines of `items` (the
/// earliest of those that wrote as many).
fn origin(case: &Case, items: &[usize]) -> usize {
    let mut w: BTreeMap<usize, u32> = BTreeMap::new();
    for &i in items {
        for &(k, x) in &case.truth.items[i] {
            *w.entry(k).or_default() += x;
        }
    }
    w.iter()
        .max_by_key(|(k, x)| (**x, std::cmp::Reverse(**k)))
        .map_or(0, |(k, _)| *k)
}

/// The pairs of parts of `cases`, each case weighing as much as another.
pub fn dataset(cases: &[Case], tuning: &Tuning) -> Vec<Row> {
    let mut out = Vec::new();
    for case in cases {
        let ctx = Context::new(&case.changes, &case.seen, &case.branch, case.coupling.clone());
        let pairs = group::weighed_pairs(&ctx, tuning);
        let origin = |items: &[usize]| origin(case, items);
        let n = pairs.len().max(1) as f64;
        for (a, b, f, same_file) in pairs {
            let mut x: Vec<f64> = f.to_vec();
            x.push(if same_file { 1.0 } else { 0.0 });
            out.push((x, origin(&a) == origin(&b), 1.0 / n));
        }
    }
    out
}

/// Weighted logistic regression with a little L2 regularisation, by
/// Newton's method: intercept first, then one weight per column.
pub fn fit(data: &[Row]) -> Vec<f64> {
    let d = 1 + data.first().map_or(0, |r| r.0.len());
    let mut w = vec![0.0; d];
    let total: f64 = data.iter().map(|(_, _, x)| x).sum::<f64>().max(1e-9);
    let lambda = 1e-3;
    for _ in 0..25 {
        let mut gradient = vec![0.0; d];
        let mut hessian = vec![vec![0.0; d]; d];
        for (f, y, weight) in data {
            let x: Vec<f64> = std::iter::once(1.0).chain(f.iter().copied()).collect();
            let z: f64 = x.iter().zip(&w).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            let c = weight / total;
            let err = p - if *y { 1.0 } else { 0.0 };
            for i in 0..d {
                gradient[i] += c * err * x[i];
                for j in 0..d {
                    hessian[i][j] += c * p * (1.0 - p) * x[i] * x[j];
                }
            }
        }
        for i in 0..d {
            gradient[i] += lambda * w[i];
            hessian[i][i] += lambda;
        }
        let step = solve(hessian, gradient);
        for i in 0..d {
            w[i] -= step[i];
        }
    }
    w
}

/// Prints the fitted weights beside the built-in ones.
pub fn report(w: &[f64], rows: usize, together: usize) {
    println!("\nfitted on {rows} pairs ({together} from one original), intercept first:");
    println!("  {:>7.3}  intercept", w[0]);
    for (signal, x) in SIGNALS.iter().zip(&w[1..]) {
        println!("  {x:>7.3}  (now {:>5.2})  {}", signal.weight, signal.name);
    }
    if let Some(x) = w.get(1 + SIGNALS.len()) {
        println!("  {x:>7.3}  the same file");
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .expect("a row");
        a.swap(col, pivot);
        b.swap(col, pivot);
        let p = a[col][col];
        if p.abs() < 1e-12 {
            continue;
        }
        for row in col + 1..n {
            let factor = a[row][col] / p;
            for k in col..n {
                a[row][k] -= factor * a[col][k];
            }
            b[row] -= factor * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let mut sum = b[row];
        for k in row + 1..n {
            sum -= a[row][k] * x[k];
        }
        x[row] = if a[row][row].abs() < 1e-12 {
            0.0
        } else {
            sum / a[row][row]
        };
    }
    x
}

/// `HISTORIAN_EVAL_LINES=1`: how often two parts come from one original,
/// by what their line history says (`line_history`): unknown for either,
/// no past commit in common, or some (by how much), apart for two hunks of
/// one file, of a file two originals wrote into, and of two files. Each
/// case weighs 1 over its pairs, as in the fit.
pub fn lineage_report(label: &str, cases: &[&Case], tuning: &Tuning) {
    // (kind, class) -> (weight, weight together, pairs)
    let mut tally: BTreeMap<(&str, &str), (f64, f64, usize)> = BTreeMap::new();
    for case in cases {
        let ctx = Context::new(&case.changes, &case.seen, &case.branch, case.coupling.clone());
        let pairs = group::weighed_pairs(&ctx, tuning);
        let origin = |items: &[usize]| origin(case, items);
        // Files more than one original wrote into.
        let mut writers: BTreeMap<usize, std::collections::BTreeSet<usize>> = BTreeMap::new();
        for (i, item) in case.changes.items.iter().enumerate() {
            writers.entry(item.file).or_default().insert(origin(&[i]));
        }
        // Files of two or more hunks of known history: split into groups
        // linked by a past commit in common, or one group.
        let lines = &ctx.coupling.lines;
        let mut by_file: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, item) in case.changes.items.iter().enumerate() {
            if item.hunk.is_some() && lines.writers(&[i]).is_some() {
                by_file.entry(item.file).or_default().push(i);
            }
        }
        for (file, items) in by_file.iter().filter(|(_, v)| v.len() >= 2) {
            let mut root: Vec<usize> = (0..items.len()).collect();
            fn find(root: &mut [usize], x: usize) -> usize {
                let mut x = x;
                while root[x] != x {
                    x = root[x];
                }
                x
            }
            for x in 0..items.len() {
                for y in x + 1..items.len() {
                    if lines.in_common(&[items[x]], &[items[y]]) == Some(true) {
                        let (rx, ry) = (find(&mut root, x), find(&mut root, y));
                        root[rx] = ry;
                    }
                }
            }
            let groups: std::collections::BTreeSet<usize> = (0..items.len()).map(|x| find(&mut root, x)).collect();
            let class = if groups.len() >= 2 {
                "files split by history"
            } else {
                "files in one group"
            };
            let shared = writers[file].len() > 1;
            let e = tally.entry(("file level: shared", class)).or_default();
            e.0 += 1.0;
            e.1 += if shared { 1.0 } else { 0.0 };
            e.2 += 1;
            // Pairs of hunks by group: same group or not.
            for x in 0..items.len() {
                for y in x + 1..items.len() {
                    let same = find(&mut root, x) == find(&mut root, y);
                    let e = tally
                        .entry(("hunk pairs by group", if same { "same group" } else { "other group" }))
                        .or_default();
                    e.0 += 1.0;
                    e.1 += if origin(&[items[x]]) == origin(&[items[y]]) {
                        1.0
                    } else {
                        0.0
                    };
                    e.2 += 1;
                }
            }
        }
        let n = pairs.len().max(1) as f64;
        for (a, b, _, same_file) in pairs {
            let file = case.changes.items[a[0]].file;
            let kind = match same_file {
                true if writers[&file].len() > 1 => "one file, shared",
                true => "one file, one writer",
                false => "two files",
            };
            let class = match ctx.coupling.lines.in_common(&a, &b) {
                None => "unknown",
                Some(false) => "none in common",
                Some(true) => "some in common",
            };
            let t = origin(&a) == origin(&b);
            for k in [kind, if same_file { "one file, all" } else { "two files, all" }] {
                let e = tally.entry((k, class)).or_default();
                e.0 += 1.0 / n;
                e.1 += if t { 1.0 / n } else { 0.0 };
                e.2 += 1;
                let e = tally.entry((k, "all")).or_default();
                e.0 += 1.0 / n;
                e.1 += if t { 1.0 / n } else { 0.0 };
                e.2 += 1;
            }
        }
    }
    println!("\n== line history, {label}: share of pairs from one original (case-weighted), pairs");
    for ((kind, class), (w, t, count)) in &tally {
        println!(
            "{kind:<22} {class:<16} {:.3}  weight {w:.1}  pairs {count}",
            t / w.max(1e-9)
        );
    }
}
