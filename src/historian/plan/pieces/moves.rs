//! A unit's cut improved after the joins: average linkage joins greedily,
//! the closest two clusters first, and a join once made is never undone;
//! here each part may then move to another cluster (or stand alone) and two
//! clusters may merge while that raises the partition's value (correlation
//! clustering): over every two parts placed together, their log-odds
//! beyond the threshold's, weighed by their lines (the square root of the
//! product: `Tuning::move_lines`), so a large part is not left apart for
//! the sake of a small one. Also the readings the doubt weighs beside a
//! partition so changed: its closest call left apart and its weakest call
//! made.

use super::super::context::Tuning;
use super::super::linkage::Linkage;
use super::{Pair, Part};

/// How many passes of local moves at most.
const MOST_PASSES: usize = 50;

/// What two parts add to a partition placing them together: their
/// log-odds beyond the threshold's, times the square root of the product
/// of their lines (`Tuning::move_lines`: the power of that product).
pub(super) fn gains(parts: &[Part], pairs: &[Pair], weighed: &[f64], threshold: f64, tuning: &Tuning) -> Vec<Vec<f64>> {
    let n = parts.len();
    let mut w = vec![vec![0.0; n]; n];
    let logit = |x: f64| {
        let x = x.clamp(1e-9, 1.0 - 1e-9);
        (x / (1.0 - x)).ln()
    };
    let at = logit(threshold);
    for ((a, b, _), &x) in pairs.iter().zip(weighed) {
        let lines = (parts[*a].lines.max(1) * parts[*b].lines.max(1)) as f64;
        let g = (logit(x) - at) * lines.powf(tuning.move_lines);
        w[*a][*b] = g;
        w[*b][*a] = g;
    }
    w
}

/// The value of the partition `label` (a cluster per part).
#[cfg(test)]
fn value(w: &[Vec<f64>], label: &[usize]) -> f64 {
    let mut v = 0.0;
    for a in 0..label.len() {
        for b in a + 1..label.len() {
            if label[a] == label[b] {
                v += w[a][b];
            }
        }
    }
    v
}

/// The partition `clusters` (average linkage's) improved by local moves,
/// in a stable order (by their first part); `None` when no move improves.
pub(super) fn improved(w: &[Vec<f64>], clusters: &[Vec<usize>]) -> Option<Vec<Vec<usize>>> {
    let mut label = vec![0; w.len()];
    for (c, members) in clusters.iter().enumerate() {
        for &p in members {
            label[p] = c;
        }
    }
    improve(w, &mut label).then(|| clusters_of(&label))
}

/// The clusters of `label`, each sorted, ordered by their first part.
fn clusters_of(label: &[usize]) -> Vec<Vec<usize>> {
    let mut out: Vec<(usize, Vec<usize>)> = Vec::new();
    for (p, &l) in label.iter().enumerate() {
        match out.iter_mut().find(|(x, _)| *x == l) {
            Some((_, members)) => members.push(p),
            None => out.push((l, vec![p])),
        }
    }
    out.into_iter().map(|(_, m)| m).collect()
}

/// Local moves on `label` until none improves, at most `MOST_PASSES`
/// passes (each O(parts²)): each part, in order, to the cluster (or alone)
/// gaining most; then the two clusters whose merging gains most. Whether
/// any move was made (each raises the value: no cycle).
fn improve(w: &[Vec<f64>], label: &mut [usize]) -> bool {
    let mut moved = false;
    let n = w.len();
    const EPS: f64 = 1e-9;
    for _ in 0..MOST_PASSES {
        let mut improved = false;
        for p in 0..n {
            let mut with = vec![0.0; n];
            let mut size = vec![0usize; n];
            for q in 0..n {
                size[label[q]] += 1;
                if q != p {
                    with[label[q]] += w[p][q];
                }
            }
            let here = with[label[p]];
            let mut best: Option<(f64, usize)> = None;
            for c in (0..n).filter(|&c| size[c] > 0 && c != label[p]) {
                let g = with[c] - here;
                if g > EPS && best.is_none_or(|(b, _)| g > b + EPS) {
                    best = Some((g, c));
                }
            }
            if size[label[p]] > 1 {
                let g = -here;
                if g > EPS && best.is_none_or(|(b, _)| g > b + EPS) {
                    let empty = (0..n).find(|&c| size[c] == 0).expect("a free label");
                    best = Some((g, empty));
                }
            }
            if let Some((_, c)) = best {
                label[p] = c;
                improved = true;
            }
        }
        let mut between = vec![vec![0.0; n]; n];
        for a in 0..n {
            for b in a + 1..n {
                if label[a] != label[b] {
                    between[label[a]][label[b]] += w[a][b];
                    between[label[b]][label[a]] += w[a][b];
                }
            }
        }
        let mut merge: Option<(f64, usize, usize)> = None;
        for (x, row) in between.iter().enumerate() {
            for (y, &g) in row.iter().enumerate().skip(x + 1) {
                if g > EPS && merge.is_none_or(|(b, _, _)| g > b + EPS) {
                    merge = Some((g, x, y));
                }
            }
        }
        if let Some((_, x, y)) = merge {
            for l in label.iter_mut().filter(|l| **l == y) {
                *l = x;
            }
            improved = true;
        }
        if !improved {
            break;
        }
        moved = true;
    }
    moved
}

/// The doubt's readings beside a partition not made by joins: the two
/// clusters of the highest average chance (as positions), and the cluster
/// whose two halves (by average linkage within it) have the lowest, split
/// into them, with that chance.
#[allow(clippy::type_complexity)]
pub(super) fn calls(
    n: usize,
    pairs: &[Pair],
    weighed: &[f64],
    clusters: &[Vec<usize>],
) -> (Option<(f64, usize, usize)>, Option<(Vec<Vec<usize>>, f64)>) {
    let chance = super::chances(n, pairs, weighed);
    let average = |x: &[usize], y: &[usize]| {
        let s: f64 = x
            .iter()
            .flat_map(|&a| y.iter().map(move |&b| (a, b)))
            .map(|(a, b)| chance[a][b])
            .sum();
        s / (x.len() * y.len()).max(1) as f64
    };
    let mut refused: Option<(f64, usize, usize)> = None;
    for x in 0..clusters.len() {
        for y in x + 1..clusters.len() {
            let v = average(&clusters[x], &clusters[y]);
            if refused.is_none_or(|(b, _, _)| v > b + 1e-12) {
                refused = Some((v, x, y));
            }
        }
    }
    let mut weakest: Option<(f64, usize, Vec<usize>, Vec<usize>)> = None;
    for (c, members) in clusters.iter().enumerate().filter(|(_, m)| m.len() > 1) {
        let sub: Vec<Vec<f64>> = members
            .iter()
            .map(|&a| {
                members
                    .iter()
                    .map(|&b| if a == b { 0.0 } else { chance[a][b] })
                    .collect()
            })
            .collect();
        let mut linkage = Linkage::new(sub);
        while linkage.left > 2 {
            let Some((_, x, y)) = linkage.closest() else { break };
            linkage.join(x, y);
        }
        let halves: Vec<Vec<usize>> = linkage
            .living()
            .map(|s| linkage.members[s].iter().map(|&i| members[i]).collect())
            .collect();
        if let [a, b] = &halves[..] {
            let v = average(a, b);
            if weakest.as_ref().is_none_or(|(w, ..)| v < *w - 1e-12) {
                weakest = Some((v, c, a.clone(), b.clone()));
            }
        }
    }
    let before_last = weakest.map(|(v, c, a, b)| {
        let mut before = clusters.to_vec();
        before[c] = a;
        before.insert(c + 1, b);
        (before, v)
    });
    (refused, before_last)
}

#[cfg(test)]
mod tests {
    use super::{improved, value};

    fn matrix(n: usize, edges: &[(usize, usize, f64)]) -> Vec<Vec<f64>> {
        let mut w = vec![vec![0.0; n]; n];
        for &(a, b, g) in edges {
            w[a][b] = g;
            w[b][a] = g;
        }
        w
    }

    fn labels(n: usize, clusters: &[Vec<usize>]) -> Vec<usize> {
        let mut label = vec![0; n];
        for (c, m) in clusters.iter().enumerate() {
            for &p in m {
                label[p] = c;
            }
        }
        label
    }

    #[test]
    fn a_part_joined_against_a_strong_apart_moves_out() {
        // 0–1 and 1–2 a little together, 0–2 surely apart: the three as
        // one (as joins can leave them) is worse than 2 alone.
        let w = matrix(3, &[(0, 1, 0.5), (1, 2, 0.4), (0, 2, -3.0)]);
        let got = improved(&w, &[vec![0, 1, 2]]).expect("a move improves");
        assert_eq!(got, vec![vec![0, 1], vec![2]]);
    }

    #[test]
    fn moves_from_singletons_reach_the_best_partition_of_a_small_case() {
        // Best: {0, 1} and {2, 3, 4}, value 4 (every partition checked by hand).
        let w = matrix(
            5,
            &[
                (0, 1, 1.0),
                (1, 2, -0.5),
                (2, 3, 2.0),
                (3, 4, 1.0),
                (0, 4, -1.0),
                (1, 3, 0.2),
            ],
        );
        let start: Vec<Vec<usize>> = (0..5).map(|p| vec![p]).collect();
        let moved = improved(&w, &start).expect("moves improve");
        assert_eq!(moved, vec![vec![0, 1], vec![2, 3, 4]]);
        assert!((value(&w, &labels(5, &moved)) - 4.0).abs() < 1e-9);
    }

    #[test]
    fn a_partition_no_move_improves_is_kept() {
        let w = matrix(3, &[(0, 1, 1.0), (0, 2, -1.0), (1, 2, -1.0)]);
        assert_eq!(improved(&w, &[vec![0, 1], vec![2]]), None);
    }
}
