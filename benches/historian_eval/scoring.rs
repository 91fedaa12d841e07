//! A plan's score: the share of changed lines its commits group as the
//! original commits did, with planned and original commits matched one to
//! one for the most agreement (the Hungarian method).

// Matrix code reads best with indices.
#![allow(clippy::needless_range_loop)]

/// Matched and total lines of a case.
#[derive(Clone, Copy, Debug, Default)]
pub struct Score {
    pub matched: f64,
    pub total: f64,
}

/// Hungarian method: the largest total of `m[row][col]` over one-to-one pairs.
pub fn best_matching(m: &[Vec<f64>]) -> f64 {
    let rows = m.len();
    let cols = m.first().map_or(0, |r| r.len());
    let n = rows.max(cols);
    if n == 0 {
        return 0.0;
    }
    let max = m.iter().flatten().cloned().fold(0.0, f64::max);
    // Minimise (max - value) on a square matrix padded with max.
    let cost = |i: usize, j: usize| -> f64 {
        if i < rows && j < cols {
            max - m[i][j]
        } else {
            max
        }
    };
    let inf = f64::INFINITY;
    let (mut u, mut v) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    let (mut p, mut way) = (vec![0usize; n + 1], vec![0usize; n + 1]);
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0;
        let mut minv = vec![inf; n + 1];
        let mut used = vec![false; n + 1];
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = inf;
            let mut j1 = 0;
            for j in 1..=n {
                if !used[j] {
                    let cur = cost(i0 - 1, j - 1) - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=n {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut total = 0.0;
    for j in 1..=n {
        let (i, jj) = (p[j] - 1, j - 1);
        if i < rows && jj < cols {
            total += m[i][jj];
        }
    }
    total
}

/// Scores `groups` (items per planned commit) against the truth (weights of
/// each item per original commit).
pub fn score(groups: &[Vec<usize>], truth: &[Vec<(usize, u32)>], originals: usize) -> Score {
    let mut m = vec![vec![0.0; originals]; groups.len()];
    let mut total = 0.0;
    for (g, items) in groups.iter().enumerate() {
        for &i in items {
            for &(o, w) in &truth[i] {
                m[g][o] += f64::from(w);
                total += f64::from(w);
            }
        }
    }
    Score {
        matched: best_matching(&m),
        total,
    }
}
