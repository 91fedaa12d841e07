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

/// The pairs of parts of `cases`, each case weighing as much as another.
pub fn dataset(cases: &[Case], tuning: &Tuning) -> Vec<Row> {
    let mut out = Vec::new();
    for case in cases {
        let ctx = Context::new(&case.changes, &case.seen, &case.branch, case.coupling.clone());
        let pairs = group::weighed_pairs(&ctx, tuning);
        let origin = |items: &[usize]| {
            let mut w: BTreeMap<usize, u32> = BTreeMap::new();
            for &i in items {
                for &(k, x) in &case.truth.items[i] {
                    *w.entry(k).or_default() += x;
                }
            }
            w.iter()
                .max_by_key(|(k, x)| (**x, std::cmp::Reverse(**k)))
                .map_or(0, |(k, _)| *k)
        };
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
