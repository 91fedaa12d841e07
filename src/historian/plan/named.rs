//! What a message naming several pieces of work (`count`: a squash keeps
//! the subjects it joined) does to the joins of a unit's parts (`pieces`):
//! two parts answering to one subject (`subjects`) are surer to belong
//! together, with two different subjects less sure (`Tuning::subject_words`).
//! Once the parts are joined, each commit is noted with the subject it
//! answers to, which its message then says ([`Named::note`]).

use std::collections::{BTreeMap, BTreeSet};

use super::affinity::Part;
use super::context::{Context, Tuning};
use super::reason::OwnAnswer;
use super::subjects::{answer, leaning, margin, subject_shares};

/// The subjects a unit's message names, and what each part answers to.
pub(super) struct Named<'m> {
    pub named: &'m [&'m str],
    /// How many words each part shares with each subject.
    shares: Vec<Vec<f64>>,
    /// The one subject each part answers to, when there is one.
    pub about: Vec<Option<usize>>,
}

impl<'m> Named<'m> {
    pub fn new(parts: &[Part], named: &'m [&'m str], tuning: &Tuning) -> Named<'m> {
        let shares = if tuning.subject_words != 0.0 {
            subject_shares(parts, named, tuning)
        } else {
            vec![Vec::new(); parts.len()]
        };
        let about = shares.iter().map(|shared| answer(&leaning(shared))).collect();
        Named { named, shares, about }
    }

    /// How much surer (log-odds) parts `a` and `b` are to belong together
    /// for the subjects they answer to.
    pub fn pull(&self, a: usize, b: usize, tuning: &Tuning) -> f64 {
        match (self.about[a], self.about[b]) {
            (Some(s), Some(t)) if s == t => tuning.subject_words,
            (Some(_), Some(_)) => -tuning.subject_words,
            _ => 0.0,
        }
    }

    /// Notes the subject each of the final `clusters` answers to: the one
    /// its parts answering to a subject answer to with the most lines, when
    /// that is more than half of their lines (the message drafted for it
    /// says that subject); with each part answering to it itself, by how
    /// many words. A cluster no part of which answers to any subject is,
    /// when it is the only one and one subject is answered by no other, that
    /// subject's work by elimination ([`by_elimination`]): its message says
    /// that subject rather than another's (`deps: update regex` answered by
    /// `Cargo.lock`, the code beside it is `make clippy happy`). This writes
    /// messages only: the clusters are as joined.
    pub fn note(&self, ctx: &Context<'_>, parts: &[Part], clusters: &[Vec<usize>]) {
        let eliminated = by_elimination(&self.about, self.named.len(), clusters);
        let mut record = ctx.record();
        for (c, members) in clusters.iter().enumerate() {
            if let Some((x, s)) = eliminated.filter(|&(x, _)| x == c) {
                for &p in &clusters[x] {
                    let own = OwnAnswer {
                        margin: 0.0,
                        by_elimination: true,
                    };
                    record.note_answered(parts[p].items.iter().copied(), self.named[s], Some(own));
                }
                continue;
            }
            let mut lines: BTreeMap<usize, usize> = BTreeMap::new();
            for &p in members {
                if let Some(s) = self.about[p] {
                    *lines.entry(s).or_default() += parts[p].lines.max(1);
                }
            }
            let all: usize = lines.values().sum();
            if let Some((&s, _)) = lines.iter().filter(|(_, &l)| 2 * l > all).max_by_key(|(_, &l)| l) {
                for &p in members {
                    let mine = (self.about[p] == Some(s)).then(|| OwnAnswer {
                        margin: margin(&self.shares[p]),
                        by_elimination: false,
                    });
                    record.note_answered(parts[p].items.iter().copied(), self.named[s], mine);
                }
            }
        }
    }
}

/// The one cluster (by its place in `clusters`) no part of which answers
/// to a subject, with the one subject of `named` no part answers to, when
/// there is exactly one of each.
fn by_elimination(about: &[Option<usize>], named: usize, clusters: &[Vec<usize>]) -> Option<(usize, usize)> {
    let claimed: BTreeSet<usize> = about.iter().flatten().copied().collect();
    let mut unclaimed = (0..named).filter(|s| !claimed.contains(s));
    let mut unanswering = (0..clusters.len()).filter(|&c| clusters[c].iter().all(|&p| about[p].is_none()));
    match (
        unanswering.next(),
        unanswering.next(),
        unclaimed.next(),
        unclaimed.next(),
    ) {
        (Some(x), None, Some(s), None) => Some((x, s)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::by_elimination;

    #[test]
    fn the_one_cluster_answering_to_nothing_is_the_one_subject_left() {
        // Parts 0 and 1 answer to subject 0; part 2 to none, alone.
        let about = [Some(0), Some(0), None];
        assert_eq!(by_elimination(&about, 2, &[vec![0, 1], vec![2]]), Some((1, 1)));
        // Every subject answered: nothing left to give.
        assert_eq!(by_elimination(&about, 1, &[vec![0, 1], vec![2]]), None);
        // Two clusters answering to nothing, one subject left: no telling.
        let about = [Some(0), None, None];
        assert_eq!(by_elimination(&about, 2, &[vec![0], vec![1], vec![2]]), None);
        // A cluster holding a part that answers is not unanswering.
        assert_eq!(by_elimination(&about, 2, &[vec![0, 1], vec![2]]), Some((1, 1)));
    }
}
