//! Why each change item is in its commit (issue 15, item 2): the signal
//! that decided it and how strong it was, recorded as data by the planning
//! steps where they decide, for `git historian plan --explain`.
//!
//! An item has two reasons. Its **unit** ([`units`](super::units)) says
//! which branch commit it belongs to: most of its lines came from it, or it
//! was folded in (a `fixup!`, a noise commit's lines). Its **placement**
//! says why it sits with the other items of its commit: the affinity link
//! that joined its file to another part of the unit, or a rule that moved
//! it (a module declaration joining its module, a new test joining its new
//! code, a path that must change in one commit, a package's `__init__.py`
//! coming first, a deletion of moved lines waiting for their re-adding).
//! The placement, when there is one, is the deciding signal; otherwise the
//! unit is.
//!
//! The steps write into the [`Record`] the planning context carries;
//! nothing here changes a decision, and this module knows no other step
//! (it is the leaf they all note into). `explanation` assembles what was
//! noted into the plan's [`Explanation`](super::explanation::Explanation);
//! the command layer renders it.

use std::collections::BTreeMap;

/// How strong a signal was.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strength {
    /// A rule, which holds whenever it applies.
    Rule,
    /// The share of the item's changed lines (0 to 1).
    Share(f64),
    /// The affinity: the estimated chance two parts belong to one piece of
    /// work (0 to 1), against the join threshold.
    Chance(f64),
}

/// What put an item where it is. Commits are indices into the branch's
/// commits, files into the change set's files.
#[derive(Clone, Debug, PartialEq)]
pub enum Signal {
    /// Most of its lines were written in this branch commit.
    Provenance { commit: usize },
    /// Its lines came from `fixup`, a `fixup!`/`squash!`/`amend!` commit
    /// folded into `into`.
    Folded { fixup: usize, into: usize },
    /// Only the noise commit `noise` ("wip", "fix typo") wrote it, rewriting
    /// lines of `into`.
    Amends { noise: usize, into: usize },
    /// Only the noise commit `noise` wrote it; `into` is the nearest
    /// meaningful commit that touched the same file.
    Nearest { noise: usize, into: usize },
    /// Only the noise commit `noise` wrote it, and nothing claims it.
    NoiseOnly { noise: usize },
    /// No branch commit wrote it (the branch's pool).
    Untraced,
    /// Its file joined the commit through its strongest link, to `file`,
    /// whose heaviest signal is `feature` (a `weights::SIGNALS` name).
    Linked { file: usize, feature: &'static str },
    /// Its file is a commit of its own: no link reached the threshold.
    Unlinked { threshold: f64 },
    /// Its file is a commit of its own although a link reached the
    /// threshold: the message names its work apart from the file at the
    /// other end (the two answer to different subjects, which push them
    /// apart).
    KeptApart { threshold: f64 },
    /// A small code part riding along with the unit's largest code part
    /// (its file `file`).
    RidesAlong { file: usize, lines: usize },
    /// A unit too large to weigh pair by pair, split by component.
    ByComponent { component: String },
    /// A hunk only declaring modules, moved to the commit adding (or
    /// removing) the module.
    Declares { module: String },
    /// A new test moved to the commit adding the code it tests.
    TestOf { stem: String },
    /// A path that is a file at one end and a directory at the other:
    /// both changes must be in one commit.
    PathConflict { path: String },
    /// A submodule that appears or goes, and `.gitmodules`, which maps it:
    /// both changes must be in one commit (`git submodule` fails between).
    Submodule { path: String },
    /// Two commits each using a name the other defines, joined: a use
    /// never lands before its definition.
    DefinitionCycle,
    /// A new package's `__init__.py`, moved to the first commit adding a
    /// file of the package.
    PackageFirst { package: String },
    /// A deletion of lines moved elsewhere, moved to the commit by which
    /// they are all added again.
    AfterReAdd,
    /// Listed there by the plan file (`--plan`).
    PlanFile,
}

/// A candidate that lost.
#[derive(Clone, Debug, PartialEq)]
pub enum Rival {
    /// Another branch commit wrote this share of the item's lines.
    Commit { commit: usize, share: f64 },
    /// The strongest link to a file that went to another commit.
    File { file: usize, item: usize, chance: f64 },
}

/// One decision about an item.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    pub signal: Signal,
    pub strength: Strength,
    /// The competing candidates, strongest first.
    pub rivals: Vec<Rival>,
}

impl Placement {
    pub fn rule(signal: Signal) -> Placement {
        Placement {
            signal,
            strength: Strength::Rule,
            rivals: Vec::new(),
        }
    }
}

/// What the planning steps noted while deciding, per item.
#[derive(Clone, Debug, Default)]
pub struct Record {
    units: BTreeMap<usize, Placement>,
    placed: BTreeMap<usize, Placement>,
    /// The groups before ordering, which may move pieces between them.
    grouped: Option<Vec<Vec<usize>>>,
    /// The subject of its unit's message each item's piece answers to,
    /// when the unit was split by the subjects it names, with how the
    /// item's own words answer to that subject when they do.
    answered: BTreeMap<usize, (String, Option<OwnAnswer>)>,
}

/// How a part answers to a subject by its own words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OwnAnswer {
    /// How many more words it shares with the subject than with any other.
    pub margin: f64,
    /// Whether its commit answers to the subject by elimination: no part
    /// of it answers to any subject, and this is the one no other part
    /// answers to (`named::by_elimination`; its message only).
    pub by_elimination: bool,
}

impl Record {
    pub fn unit(&mut self, item: usize, placement: Placement) {
        self.units.insert(item, placement);
    }

    pub fn placed(&mut self, item: usize, placement: Placement) {
        self.placed.insert(item, placement);
    }

    pub fn grouped(&mut self, groups: &[Vec<usize>]) {
        self.grouped = Some(groups.to_vec());
    }

    /// Why `item` belongs to its unit, as noted.
    pub fn unit_of(&self, item: usize) -> Option<&Placement> {
        self.units.get(&item)
    }

    /// Why `item` sits where it was put, as noted.
    pub fn placed_of(&self, item: usize) -> Option<&Placement> {
        self.placed.get(&item)
    }

    /// Notes that the piece holding `items` answers to `subject`; `own`,
    /// how the items' own words answer to it, when they do themselves.
    pub fn note_answered(&mut self, items: impl IntoIterator<Item = usize>, subject: &str, own: Option<OwnAnswer>) {
        for item in items {
            self.answered.insert(item, (subject.to_owned(), own));
        }
    }

    /// The subject the piece holding `item` answered to, when noted.
    pub fn answered_of(&self, item: usize) -> Option<&str> {
        self.answered.get(&item).map(|(s, _)| s.as_str())
    }

    /// How much surer `item`'s own words are of the subject its piece
    /// answered to than of any other, when they answer to it.
    pub fn own_answer_of(&self, item: usize) -> Option<OwnAnswer> {
        self.answered.get(&item).and_then(|(_, own)| *own)
    }

    /// The groups before ordering, when noted.
    pub fn groups(&self) -> Option<&[Vec<usize>]> {
        self.grouped.as_deref()
    }
}

/// One part of a unit as [`Record::note_split`] reads it: its file, its
/// items, its changed lines and the subject of the unit's message it
/// answers to, when one.
pub struct PartFacts<'a> {
    pub file: usize,
    pub items: &'a [usize],
    pub lines: usize,
    pub subject: Option<usize>,
}

/// A link between two parts (by index): the chance they belong together
/// and the signal adding most to it.
pub struct Link {
    pub a: usize,
    pub b: usize,
    pub chance: f64,
    pub feature: &'static str,
}

impl Record {
    /// Notes why each part of a unit is in its cluster (`clusters` holds
    /// part indices): its strongest link inside, else riding along (a
    /// part joined by linkage always has a link at the threshold) or alone;
    /// and its strongest link outside as the rival.
    pub fn note_split(&mut self, parts: &[PartFacts<'_>], links: &[Link], threshold: f64, clusters: &[Vec<usize>]) {
        let n = parts.len();
        let mut cluster_of = vec![0; n];
        for (c, members) in clusters.iter().enumerate() {
            for &p in members {
                cluster_of[p] = c;
            }
        }
        let mut inside: Vec<Option<(f64, usize, &'static str)>> = vec![None; n];
        let mut outside: Vec<Option<(f64, usize)>> = vec![None; n];
        for link in links {
            for (p, q) in [(link.a, link.b), (link.b, link.a)] {
                if cluster_of[p] == cluster_of[q] {
                    if inside[p].is_none_or(|(best, _, _)| link.chance > best) {
                        inside[p] = Some((link.chance, q, link.feature));
                    }
                } else if outside[p].is_none_or(|(best, _)| link.chance > best) {
                    outside[p] = Some((link.chance, q));
                }
            }
        }
        for p in 0..n {
            let rivals: Vec<Rival> = outside[p]
                .map(|(chance, q)| Rival::File {
                    file: parts[q].file,
                    item: parts[q].items.first().copied().unwrap_or_default(),
                    chance,
                })
                .into_iter()
                .collect();
            let placement = match inside[p] {
                Some((chance, q, feature)) if chance >= threshold => Placement {
                    signal: Signal::Linked {
                        file: parts[q].file,
                        feature,
                    },
                    strength: Strength::Chance(chance),
                    rivals,
                },
                Some((chance, q, _)) => {
                    let largest = clusters[cluster_of[p]]
                        .iter()
                        .copied()
                        .filter(|&x| x != p)
                        .max_by_key(|&x| (parts[x].lines, std::cmp::Reverse(x)))
                        .unwrap_or(q);
                    Placement {
                        signal: Signal::RidesAlong {
                            file: parts[largest].file,
                            lines: parts[p].lines,
                        },
                        strength: Strength::Chance(chance),
                        rivals,
                    }
                }
                None if n == 1 => continue,
                None => {
                    let best = outside[p].map_or(0.0, |(c, _)| c);
                    // Apart from its best link by the subjects only when the
                    // two answer to different ones; else the link alone was
                    // not enough against the rest of the other's cluster.
                    let apart = outside[p]
                        .is_some_and(|(_, q)| parts[p].subject.zip(parts[q].subject).is_some_and(|(a, b)| a != b));
                    Placement {
                        signal: if best >= threshold && apart {
                            Signal::KeptApart { threshold }
                        } else {
                            Signal::Unlinked { threshold }
                        },
                        strength: Strength::Chance(best),
                        rivals,
                    }
                }
            };
            for &i in parts[p].items {
                self.placed(i, placement.clone());
            }
        }
    }

    /// Notes a rule that moved or joined `items`.
    pub fn note_rule(&mut self, items: impl IntoIterator<Item = usize>, signal: Signal) {
        for i in items {
            self.placed(i, Placement::rule(signal.clone()));
        }
    }
}

/// The rivals of an item's unit: the other branch commits that wrote its
/// lines, by share, strongest first; and the share of `unit`.
pub fn unit_shares(weights: &BTreeMap<usize, u32>, unit: usize) -> (f64, Vec<Rival>) {
    let total: u32 = weights.values().sum();
    let share = |w: u32| {
        if total == 0 {
            0.0
        } else {
            f64::from(w) / f64::from(total)
        }
    };
    let mut rivals: Vec<(u32, usize)> = weights
        .iter()
        .filter(|(k, _)| **k != unit)
        .map(|(k, w)| (*w, *k))
        .collect();
    rivals.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    (
        weights.get(&unit).copied().map_or(0.0, share),
        rivals
            .into_iter()
            .map(|(w, commit)| Rival::Commit {
                commit,
                share: share(w),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_says_its_strongest_link_and_its_rival() {
        let items: [Vec<usize>; 4] = [vec![0], vec![1, 2], vec![3], vec![4]];
        let parts: Vec<PartFacts<'_>> = items
            .iter()
            .enumerate()
            .map(|(p, its)| PartFacts {
                file: 10 + p,
                items: its,
                lines: [40, 30, 2, 9][p],
                subject: Some([0, 0, 0, 1][p]),
            })
            .collect();
        let link = |a, b, chance| Link {
            a,
            b,
            chance,
            feature: "names in common (Jaccard)",
        };
        let links = [
            link(0, 1, 0.9),
            link(0, 2, 0.3),
            link(1, 2, 0.2),
            link(0, 3, 0.4),
            link(1, 3, 0.1),
            link(2, 3, 0.05),
        ];
        let mut record = Record::default();
        record.note_split(&parts, &links, 0.5, &[vec![0, 1, 2], vec![3]]);
        let linked = record.placed_of(2).unwrap();
        assert_eq!(
            linked.signal,
            Signal::Linked {
                file: 10,
                feature: "names in common (Jaccard)"
            }
        );
        assert_eq!(linked.strength, Strength::Chance(0.9));
        assert_eq!(
            linked.rivals,
            [Rival::File {
                file: 13,
                item: 4,
                chance: 0.1
            }]
        );
        // Part 2 joined with no link at the threshold: it rides along.
        let rides = record.placed_of(3).unwrap();
        assert_eq!(rides.signal, Signal::RidesAlong { file: 10, lines: 2 });
        assert_eq!(rides.strength, Strength::Chance(0.3));
        let alone = record.placed_of(4).unwrap();
        assert_eq!(alone.signal, Signal::Unlinked { threshold: 0.5 });
        assert_eq!(alone.strength, Strength::Chance(0.4));
        // A part alone although its best link reached the threshold: only
        // the message's subjects keep it apart, and it says so.
        let mut record = Record::default();
        record.note_split(&parts, &links, 0.35, &[vec![0, 1, 2], vec![3]]);
        let apart = record.placed_of(4).unwrap();
        assert_eq!(apart.signal, Signal::KeptApart { threshold: 0.35 });
        assert_eq!(apart.strength, Strength::Chance(0.4));
        // Answering to one subject, it was not kept apart by the subjects:
        // its link was too weak against the rest of the other's cluster.
        let same: Vec<PartFacts<'_>> = parts.iter().map(|p| PartFacts { subject: Some(0), ..*p }).collect();
        let mut record = Record::default();
        record.note_split(&same, &links, 0.35, &[vec![0, 1, 2], vec![3]]);
        let alone = record.placed_of(4).unwrap();
        assert_eq!(alone.signal, Signal::Unlinked { threshold: 0.35 });
    }

    #[test]
    fn unit_shares_are_shares_of_the_lines_strongest_rival_first() {
        let weights: BTreeMap<usize, u32> = [(0, 1), (1, 6), (2, 3)].into_iter().collect();
        let (share, rivals) = unit_shares(&weights, 1);
        assert_eq!(share, 0.6);
        assert_eq!(
            rivals,
            [
                Rival::Commit { commit: 2, share: 0.3 },
                Rival::Commit { commit: 0, share: 0.1 }
            ]
        );
    }
}
