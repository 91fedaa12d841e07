//! What a message naming several pieces of work (`count`: a squash keeps
//! the subjects it joined) does to the joins of a unit's parts (`pieces`):
//! two parts answering to one subject (`subjects`) are surer to belong
//! together, with two different subjects less sure (a part leaning to
//! several subjects alike pulls and pushes half as hard, `leaning_words`),
//! as sure as the less sure of the two is of its subject
//! (`subject_margins`); once as many clusters are left as subjects, two
//! clusters answering wholly to different subjects never join
//! (`subject_veto`); and a small cluster answering to no subject rides
//! with the one closest to it ([`join_unsupported`]), unless it is a
//! subject's work by elimination ([`by_elimination`], `unclaimed_subjects`,
//! `cluster_elimination`).

use std::collections::{BTreeMap, BTreeSet};

use super::affinity::Part;
use super::context::{Context, Tuning};
use super::linkage::Linkage;
use super::reason::{Eliminated, OwnAnswer};
use super::subjects::{answer, leaning, margin, subject_shares_apart};

/// The subjects a unit's message names, and what each part answers to.
pub(super) struct Named<'m> {
    pub named: &'m [&'m str],
    /// How many words each part shares with each subject, without its
    /// file's history words and with them.
    own_shares: Vec<Vec<f64>>,
    shares: Vec<Vec<f64>>,
    /// The subjects each part leans to most, and the one it answers to.
    leaning: Vec<Vec<usize>>,
    pub about: Vec<Option<usize>>,
}

impl<'m> Named<'m> {
    pub fn new(parts: &[Part], named: &'m [&'m str], message: &str, tuning: &Tuning) -> Named<'m> {
        let (own_shares, shares) = if tuning.subject_words != 0.0 {
            subject_shares_apart(parts, named, message, tuning)
        } else {
            (vec![Vec::new(); parts.len()], vec![Vec::new(); parts.len()])
        };
        let leaning: Vec<Vec<usize>> = shares.iter().map(|shared| leaning(shared)).collect();
        let about = leaning.iter().map(|best| answer(best)).collect();
        Named {
            named,
            own_shares,
            shares,
            leaning,
            about,
        }
    }

    /// How much surer (log-odds) parts `a` and `b` are to belong together
    /// for the subjects they answer or lean to.
    pub fn pull(&self, a: usize, b: usize, tuning: &Tuning) -> f64 {
        if let (Some(s), Some(t)) = (self.about[a], self.about[b]) {
            // As sure as the less sure of them (`Tuning::subject_margins`).
            let sure = if tuning.subject_margins {
                margin(&self.shares[a]).min(margin(&self.shares[b])).clamp(0.25, 2.0)
            } else {
                1.0
            };
            let pull = sure * tuning.subject_words;
            if s == t {
                pull
            } else {
                -pull
            }
        } else if !self.leaning[a].is_empty() && !self.leaning[b].is_empty() {
            // One of them (or both) leans to several subjects alike.
            let pull = tuning.leaning_words * tuning.subject_words;
            if self.leaning[a].iter().any(|s| self.leaning[b].contains(s)) {
                pull
            } else {
                -pull
            }
        } else {
            0.0
        }
    }

    /// Two clusters each answering wholly to subjects, different ones: two
    /// pieces of work the message names (`Tuning::subject_veto`).
    pub fn apart(&self, members: &[usize], others: &[usize]) -> bool {
        let mine: BTreeSet<Option<usize>> = members.iter().map(|&p| self.about[p]).collect();
        let theirs: BTreeSet<Option<usize>> = others.iter().map(|&p| self.about[p]).collect();
        !mine.contains(&None) && !theirs.contains(&None) && mine.is_disjoint(&theirs)
    }

    /// After the joins: small clusters answering to no subject ride along
    /// (`Tuning::unsupported_cuts`). What each part answers to then, by its
    /// words or by elimination, for [`Named::note`].
    pub fn settle(&self, linkage: &mut Linkage, parts: &[Part], tuning: &Tuning) -> Settled {
        let mut supported = if tuning.unclaimed_subjects {
            by_elimination(&self.about, &self.leaning)
        } else {
            self.about.clone()
        };
        let mut eliminated = Vec::new();
        if tuning.unsupported_cuts {
            let named = tuning.cluster_elimination.then_some(self.named.len());
            eliminated = join_unsupported(linkage, parts, &mut supported, named, tuning.elimination_share);
        }
        Settled { supported, eliminated }
    }

    /// Notes what each of the final `clusters` answered to.
    pub fn note(&self, ctx: &Context<'_>, parts: &[Part], settled: &Settled, clusters: &[Vec<usize>]) {
        let supported = &settled.supported;
        // A part answers by its file's history when, without it, it would
        // answer to another subject or to none.
        let own: Vec<OwnAnswer> = (0..parts.len())
            .map(|p| OwnAnswer {
                margin: margin(&self.shares[p]),
                by_history: self.about[p].is_some() && answer(&leaning(&self.own_shares[p])) != self.about[p],
                by_elimination: match (self.about[p], supported[p]) {
                    (None, Some(_)) if settled.eliminated.contains(&p) => Some(Eliminated::Unclaimed),
                    (None, Some(_)) => Some(Eliminated::Tied),
                    _ => None,
                },
            })
            .collect();
        note_answered(ctx, parts, supported, &own, self.named, clusters);
    }
}

/// What each part answers to once the joins are settled.
pub(super) struct Settled {
    supported: Vec<Option<usize>>,
    /// The parts of a cluster given the one subject left (`join_unsupported`).
    eliminated: Vec<usize>,
}

/// A cut the message's subjects do not support (`Tuning::unsupported_cuts`):
/// a cluster no part of which answers to a subject, holding less than a
/// quarter of the unit's lines, joins the cluster closest to it — when
/// some other cluster does answer to a subject. Guessing such a cut wrong
/// splits a commit worse than keeping it whole. Unless the message names
/// subjects no cluster answers to, at least as many as the clusters
/// answering to none, each of these holding at least `share` of the lines
/// (`Tuning::cluster_elimination`): then those are the work of those
/// subjects, by elimination (`deps: update regex` answered by `Cargo.lock`,
/// the code beside it is `make clippy happy`), and they stay. When one
/// cluster and one subject are left so, its parts answer to that subject
/// (in `about`); they are returned.
fn join_unsupported(
    linkage: &mut Linkage,
    parts: &[Part],
    about: &mut [Option<usize>],
    named: Option<usize>,
    share: f64,
) -> Vec<usize> {
    let answering =
        |linkage: &Linkage, about: &[Option<usize>], x: usize| linkage.members[x].iter().any(|&p| about[p].is_some());
    let lines = |linkage: &Linkage, x: usize| linkage.members[x].iter().map(|&p| parts[p].lines).sum::<usize>();
    loop {
        let living: Vec<usize> = linkage.living().collect();
        let total: usize = living.iter().map(|&x| lines(linkage, x)).sum();
        if living.len() < 2 || !living.iter().any(|&x| answering(linkage, about, x)) {
            return Vec::new();
        }
        let unanswering: Vec<usize> = living
            .iter()
            .copied()
            .filter(|&x| !answering(linkage, about, x))
            .collect();
        if let Some(named) = named {
            let claimed: BTreeSet<usize> = living
                .iter()
                .flat_map(|&x| linkage.members[x].iter().filter_map(|&p| about[p]))
                .collect();
            let unclaimed: Vec<usize> = (0..named).filter(|s| !claimed.contains(s)).collect();
            if unanswering.len() <= unclaimed.len()
                && unanswering
                    .iter()
                    .all(|&x| lines(linkage, x) as f64 >= share * total as f64)
            {
                // One cluster, one subject: that cluster is its work.
                let ([x], [s]) = (&unanswering[..], &unclaimed[..]) else {
                    return Vec::new();
                };
                for &p in &linkage.members[*x] {
                    about[p] = Some(*s);
                }
                return linkage.members[*x].clone();
            }
        }
        let Some(&x) = unanswering.iter().find(|&&x| lines(linkage, x) * 4 < total) else {
            return Vec::new();
        };
        let Some(y) = linkage.nearest(x) else {
            return Vec::new();
        };
        linkage.join(y, x);
    }
}

/// The subject each part answers to ([`answer`]), or else, when it leans
/// to several alike and all of them but one are answered to by other
/// parts, that one: a subject the message names has work of its own, and a
/// part that could be it is it (`Tuning::unclaimed_subjects`).
fn by_elimination(about: &[Option<usize>], leaning: &[Vec<usize>]) -> Vec<Option<usize>> {
    let claimed: BTreeSet<usize> = about.iter().flatten().copied().collect();
    about
        .iter()
        .zip(leaning)
        .map(|(&subject, best)| {
            subject.or_else(|| {
                let mut unclaimed = best.iter().copied().filter(|s| !claimed.contains(s));
                match (unclaimed.next(), unclaimed.next(), best.len() >= 2) {
                    (Some(s), None, true) => Some(s),
                    _ => None,
                }
            })
        })
        .collect()
}

/// Notes the subject each cluster answers to: the one its parts answering
/// to a subject answer to with the most lines, when that is more than half
/// of their lines (the message drafted for it says that subject); with each
/// part answering to it itself, how it does.
fn note_answered(
    ctx: &Context<'_>,
    parts: &[Part],
    about: &[Option<usize>],
    own: &[OwnAnswer],
    named: &[&str],
    clusters: &[Vec<usize>],
) {
    let mut record = ctx.record();
    for members in clusters {
        let mut lines: BTreeMap<usize, usize> = BTreeMap::new();
        for &p in members {
            if let Some(s) = about[p] {
                *lines.entry(s).or_default() += parts[p].lines.max(1);
            }
        }
        let all: usize = lines.values().sum();
        if let Some((&s, _)) = lines.iter().filter(|(_, &l)| 2 * l > all).max_by_key(|(_, &l)| l) {
            for &p in members {
                let mine = (about[p] == Some(s)).then_some(own[p]);
                record.note_answered(parts[p].items.iter().copied(), named[s], mine);
            }
        }
    }
}
