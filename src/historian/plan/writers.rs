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

use crate::historian::analyse::provenance::Provenance;

/// The commits that wrote each of a set of parts.
pub struct Writers {
    /// For each part: (commit, share of its lines), by commit.
    shares: Vec<Vec<(usize, f64)>>,
    /// Whether the parts were written by more than one commit: with one,
    /// writing says nothing about which parts go together.
    several: bool,
}

/// For every commit of the branch that rewrote another's lines or had its
/// own rewritten: the other commit and the share of the rewriting one's
/// work that rewriting was ([`amends`]).
#[derive(Debug, Default)]
pub struct Amends {
    partners: BTreeMap<usize, Vec<(usize, f64)>>,
}

impl Amends {
    /// From `(earlier, later) → share` pairs.
    pub fn from_pairs(pairs: impl IntoIterator<Item = ((usize, usize), f64)>) -> Amends {
        let mut partners: BTreeMap<usize, Vec<(usize, f64)>> = BTreeMap::new();
        for ((j, k), link) in pairs {
            partners.entry(j).or_default().push((k, link));
            partners.entry(k).or_default().push((j, link));
        }
        Amends { partners }
    }
}

impl Writers {
    /// The writers of parts holding `items` (each part's), each commit
    /// counted as the unit it folds into (`roots`: a `fixup!` is its
    /// target's work).
    pub fn of<'a>(items: impl IntoIterator<Item = &'a [usize]>, provenance: &Provenance, roots: &[usize]) -> Writers {
        let shares: Vec<Vec<(usize, f64)>> = items
            .into_iter()
            .map(|items| {
                let mut by: BTreeMap<usize, u32> = BTreeMap::new();
                for &i in items {
                    for &(k, w) in provenance.items.get(i).map_or(&[][..], |v| &v[..]) {
                        *by.entry(roots.get(k).copied().unwrap_or(k)).or_default() += w;
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

    /// How likely a line of part `a` and a line of part `b` were written
    /// by one commit, or by two one of which amended the other (weighed by
    /// `amends`); 0 when one commit wrote every part. In time linear in
    /// the two parts' writers (and the commits amending theirs).
    pub fn together(&self, a: usize, b: usize, amends: &Amends) -> f64 {
        if !self.several {
            return 0.0;
        }
        let (x, y) = (&self.shares[a], &self.shares[b]);
        let mut sum = 0.0;
        let (mut i, mut j) = (0, 0);
        while i < x.len() && j < y.len() {
            match x[i].0.cmp(&y[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    sum += x[i].1 * y[j].1;
                    i += 1;
                    j += 1;
                }
            }
        }
        for &(k, share) in x {
            for &(other, link) in amends.partners.get(&k).map_or(&[][..], |v| &v[..]) {
                if let Ok(at) = y.binary_search_by_key(&other, |(c, _)| *c) {
                    sum += share * y[at].1 * link;
                }
            }
        }
        sum.min(1.0)
    }
}

/// For every two commits of the branch of which one rewrote lines the
/// other wrote: the share of the rewriting one's work (the lines it wrote
/// that reach the tip, and those it rewrote) that rewrote the other's. Each commit counts as the unit it folds into (`roots`).
/// Read once per branch, in time linear in the items and the amended pairs.
pub fn amends(provenance: &Provenance, roots: &[usize]) -> Amends {
    let root = |k: usize| roots.get(k).copied().unwrap_or(k);
    let mut work: BTreeMap<usize, u32> = BTreeMap::new();
    for item in &provenance.items {
        for &(k, w) in item {
            *work.entry(root(k)).or_default() += w;
        }
    }
    // (rewriting, rewritten) → lines.
    let mut rewrote: BTreeMap<(usize, usize), u32> = BTreeMap::new();
    for file in &provenance.amends {
        for (&(by, of), &n) in file {
            let (by, of) = (root(by), root(of));
            if by == of {
                continue;
            }
            *work.entry(by).or_default() += n;
            *rewrote.entry((by, of)).or_default() += n;
        }
    }
    // Each pair once, as the larger of its two directions' shares.
    let mut links: BTreeMap<(usize, usize), f64> = BTreeMap::new();
    for ((by, of), n) in rewrote {
        let share = (n as f64 / work[&by].max(1) as f64).min(1.0);
        let link = links.entry((by.min(of), by.max(of))).or_default();
        *link = link.max(share);
    }
    Amends::from_pairs(links)
}

#[cfg(test)]
mod tests {
    use super::{Amends, Writers};

    fn writers(shares: Vec<Vec<(usize, f64)>>) -> Writers {
        let several = shares.iter().flatten().any(|(k, _)| *k != shares[0][0].0);
        Writers { shares, several }
    }

    #[test]
    fn parts_one_commit_wrote_are_together_and_a_squash_says_nothing() {
        let none = Amends::default();
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
        let amends = Amends::from_pairs([((0, 2), 0.75)]);
        let w = writers(vec![vec![(0, 1.0)], vec![(2, 1.0)], vec![(1, 1.0)]]);
        assert_eq!(w.together(0, 1, &amends), 0.75);
        assert_eq!(w.together(1, 0, &amends), 0.75);
        assert_eq!(w.together(1, 2, &amends), 0.0);
    }

    #[test]
    fn a_fix_links_by_the_share_of_its_work_that_rewrote_the_other() {
        use crate::historian::analyse::provenance::Provenance;
        use std::collections::BTreeMap;
        // Commit 0 wrote 7 lines that reach the tip; commit 2 rewrote one
        // more of its lines and wrote 2: a third of its work amends 0.
        let provenance = Provenance {
            items: vec![vec![(0, 6)], vec![(2, 2), (0, 1)], vec![(1, 4)]],
            touches: vec![vec![0, 2], vec![1]],
            amends: vec![BTreeMap::from([((2, 0), 1)]), BTreeMap::new()],
        };
        let amends = super::amends(&provenance, &[0, 1, 2]);
        let w = writers(vec![vec![(0, 1.0)], vec![(2, 1.0)], vec![(1, 1.0)]]);
        assert_eq!(w.together(0, 1, &amends), 1.0 / 3.0);
        assert_eq!(w.together(0, 2, &amends), 0.0);
    }

    #[test]
    fn a_fixup_folded_into_its_target_is_its_targets_work() {
        use crate::historian::analyse::provenance::Provenance;
        use std::collections::BTreeMap;
        // Commit 2 is a `fixup!` of 0 (its root is 0): no link to weigh.
        let provenance = Provenance {
            items: vec![vec![(0, 6)], vec![(2, 2)]],
            touches: vec![vec![0, 2]],
            amends: vec![BTreeMap::from([((2, 0), 1)])],
        };
        assert!(super::amends(&provenance, &[0, 1, 0]).partners.is_empty());
        assert!(!super::amends(&provenance, &[0, 1, 2]).partners.is_empty());
    }
}
