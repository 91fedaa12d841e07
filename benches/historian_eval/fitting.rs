//! `HISTORIAN_EVAL_FIT=1`: the affinity's weights fitted by logistic
//! regression on the pairs of parts of squashed commits.

// Matrix code (Newton steps, elimination) reads best with indices.
#![allow(clippy::needless_range_loop)]

use std::collections::BTreeMap;

use ultraplan::historian::plan::context::{Context, Tuning};
use ultraplan::historian::plan::{affinity, units};

use super::{best_of, Segment};

/// Pairs of parts within the squashed commits: signals, whether the two
/// came from one original commit, and their lines.
pub fn dataset(segments: &[Segment], tuning: &Tuning) -> Vec<(affinity::Signals, bool, f64)> {
    let mut out = Vec::new();
    for seg in segments {
        let ctx = Context::new(&seg.changes, &seg.seen, &seg.squashed, seg.coupling.clone());
        let words = affinity::Words::new(&seg.changes, tuning.common_name_share).with_history(&seg.coupling);
        for files in units::unit_files(&ctx).values() {
            let (parts, pairs) = affinity::pairs(&ctx, files, &words);
            let origin: Vec<usize> = parts
                .iter()
                .map(|p| {
                    let mut w: BTreeMap<usize, u32> = BTreeMap::new();
                    for &i in &p.items {
                        for &(k, x) in &seg.truth.items[i] {
                            *w.entry(k).or_default() += x;
                        }
                    }
                    best_of(&w)
                })
                .collect();
            for (a, b, f) in pairs {
                let weight = (parts[a].lines + parts[b].lines).max(1) as f64;
                out.push((f, origin[a] == origin[b], weight));
            }
        }
    }
    out
}

/// Weighted logistic regression with a little L2 regularisation, by
/// Newton's method: intercept first.
pub fn fit(data: &[(affinity::Signals, bool, f64)]) -> Vec<f64> {
    let d = 20;
    let mut w = vec![0.0; d];
    let total: f64 = data.iter().map(|(_, _, x)| x).sum::<f64>().max(1.0);
    let lambda = 1e-3;
    for _ in 0..30 {
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
