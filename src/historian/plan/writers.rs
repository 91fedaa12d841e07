//! Which branch commit wrote each part: lines one commit wrote belong
//! together more often than not, even when its message says nothing
//! (`wip`, `more`). A messy branch carries that evidence; a squash (one
//! commit) does not, and there the signal is 0 for every two parts.
//!
//! Each part's lines are shared among the commits that wrote them
//! (`provenance.items`). Two parts are [`Writers::together`] as likely as a
//! line of one and a line of the other come from one commit, or from two
//! commits of which the later rewrote the earlier's lines (a `fix` of
//! `wip`): by how much of the later one's work that rewriting is.

use std::collections::BTreeMap;

use super::affinity::Part;
use crate::historian::analyse::provenance::Provenance;

/// The commits that wrote each of a set of parts, and how those commits
/// are linked by one amending the other.
pub struct Writers {
    /// For each part: (commit, share of its lines), heaviest first.
    shares: Vec<Vec<(usize, f64)>>,
    /// Whether the parts were written by more than one commit: with one,
    /// writing says nothing about which parts go together.
    several: bool,
}

/// For two commits `(earlier, later)`: the share of the later commit's
/// work that rewrote the earlier's lines.
pub type Amends = BTreeMap<(usize, usize), f64>;

impl Writers {
    /// The writers of `parts`.
    pub fn of(parts: &[Part], provenance: &Provenance) -> Writers {
        let shares: Vec<Vec<(usize, f64)>> = parts
            .iter()
            .map(|p| {
                let mut by: BTreeMap<usize, u32> = BTreeMap::new();
                for &i in &p.items {
                    for &(k, w) in provenance.items.get(i).map_or(&[][..], |v| &v[..]) {
                        *by.entry(k).or_default() += w;
                    }
                }
                let total = by.values().sum::<u32>().max(1) as f64;
                by.into_iter().map(|(k, w)| (k, w as f64 / total)).collect()
            })
            .collect();
        let first = shares.iter().flatten().map(|(k, _)| *k).next();
        let several = shares.iter().flatten().any(|(k, _)| Some(*k) != first);
        Writers { shares, several }
    }

    /// Whether more than one commit wrote the parts.
    pub fn several(&self) -> bool {
        self.several
    }

    /// How likely a line of part `a` and a line of part `b` were written
    /// by one commit, or by two one of which amended the other (weighed by
    /// `amends`); 0 when one commit wrote every part.
    pub fn together(&self, a: usize, b: usize, amends: &Amends) -> f64 {
        if !self.several {
            return 0.0;
        }
        let mut sum = 0.0;
        for &(k, x) in &self.shares[a] {
            for &(j, y) in &self.shares[b] {
                let link = if k == j {
                    1.0
                } else {
                    amends.get(&(k.min(j), k.max(j))).copied().unwrap_or(0.0)
                };
                sum += x * y * link;
            }
        }
        sum.min(1.0)
    }
}

/// For every two commits of the branch of which the later rewrote lines
/// the earlier wrote: the share of the later one's work (the lines it
/// wrote that reach the tip, and those it rewrote) that rewrote the
/// earlier's. Read once per branch, in time linear in the items and the
/// amended pairs.
pub fn amends(provenance: &Provenance) -> Amends {
    let mut work: BTreeMap<usize, u32> = BTreeMap::new();
    for item in &provenance.items {
        for &(k, w) in item {
            *work.entry(k).or_default() += w;
        }
    }
    let mut rewrote: BTreeMap<(usize, usize), u32> = BTreeMap::new();
    for file in &provenance.amends {
        for (&(by, of), &n) in file {
            *work.entry(by).or_default() += n;
            *rewrote.entry((of.min(by), of.max(by))).or_default() += n;
        }
    }
    rewrote
        .into_iter()
        .map(|((j, k), n)| ((j, k), (n as f64 / work[&k].max(1) as f64).min(1.0)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{Amends, Writers};

    fn writers(shares: Vec<Vec<(usize, f64)>>) -> Writers {
        let several = shares.iter().flatten().any(|(k, _)| *k != shares[0][0].0);
        Writers { shares, several }
    }

    #[test]
    fn parts_one_commit_wrote_are_together_and_a_squash_says_nothing() {
        let none = Amends::new();
        let w = writers(vec![vec![(0, 1.0)], vec![(0, 1.0)], vec![(1, 1.0)]]);
        assert_eq!(w.together(0, 1, &none), 1.0);
        assert_eq!(w.together(0, 2, &none), 0.0);
        // Half of one part by each commit: half as likely.
        let w = writers(vec![vec![(0, 0.5), (1, 0.5)], vec![(1, 1.0)]]);
        assert_eq!(w.together(0, 1, &none), 0.5);
        // One commit wrote everything: no evidence either way.
        let w = writers(vec![vec![(3, 1.0)], vec![(3, 1.0)]]);
        assert_eq!(w.together(0, 1, &none), 0.0);
    }

    #[test]
    fn a_commit_amending_another_links_their_parts_by_how_much_it_amends() {
        let amends: Amends = BTreeMap::from([((0, 2), 0.75)]);
        let w = writers(vec![vec![(0, 1.0)], vec![(2, 1.0)], vec![(1, 1.0)]]);
        assert_eq!(w.together(0, 1, &amends), 0.75);
        assert_eq!(w.together(1, 0, &amends), 0.75);
        assert_eq!(w.together(1, 2, &amends), 0.0);
    }
}
