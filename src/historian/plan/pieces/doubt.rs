//! How sure a split is, and what a person is asked when it is not sure
//! enough: the agreement of the split with the chances it was made from
//! ([`confidence`]), less for the files it cuts ([`sureness`]), and below
//! `Tuning::ask_below` a [`Doubt`] with the readings weighed beside it.

use super::super::context::Tuning;
use super::Pair;
use super::Part;

/// The reading that keeps a doubtful split's work as one commit.
pub const KEEP_AS_ONE: &str = "keep as one commit";

/// A split the signals do not agree with well (`confidence`): the readings
/// weighed besides the one proposed, each as groups of items.
#[derive(Clone, Debug, PartialEq)]
pub struct Doubt {
    /// How far (in chance) the closest call was from the threshold.
    pub margin: f64,
    /// How sure the split is (`sureness`): how well it agrees with its
    /// chances, less for the files its calls are between.
    pub confidence: f64,
    /// The two parts of the closest call (their items) and their chance.
    pub closest: (Vec<usize>, Vec<usize>, f64),
    /// The threshold the call was measured against (lower in a commit the
    /// author cut: `Tuning::authors_cut`).
    pub threshold: f64,
    /// Other readings: a label and the groups.
    pub alternatives: Vec<(String, Vec<Vec<usize>>)>,
}

/// How much the split agrees with the chances it was made from: over every
/// two parts (weighed by their lines), the chance of the two being together
/// when they are, of being apart when they are not. A split every signal
/// agrees with is near 1; one resting on chances near a coin toss, near
/// one half.
pub(super) fn confidence(parts: &[Part], pairs: &[Pair], weighed: &[f64], clusters: &[Vec<usize>]) -> f64 {
    let mut cluster_of = vec![0; parts.len()];
    for (c, members) in clusters.iter().enumerate() {
        for &p in members {
            cluster_of[p] = c;
        }
    }
    let (mut agree, mut total) = (0.0, 0.0);
    for ((a, b, _), &x) in pairs.iter().zip(weighed) {
        let w = (parts[*a].lines + parts[*b].lines).max(1) as f64;
        agree += w * if cluster_of[*a] == cluster_of[*b] { x } else { 1.0 - x };
        total += w;
    }
    if total > 0.0 {
        agree / total
    } else {
        1.0
    }
}

/// How sure a split of `parts` agreeing with its chances as much as
/// `confidence` says is: less by `Tuning::ask_per_file` for each e-fold of
/// the files the parts are in. The agreement is an average over every two
/// parts; a split of many files rests on many calls, any of which may be
/// wrong, and on the evaluation's tuning half the share of lines planned
/// right falls with the files (as much as it rises with the agreement).
fn sureness(parts: &[Part], confidence: f64, tuning: &Tuning) -> f64 {
    let mut files: Vec<usize> = parts.iter().map(|p| p.file).collect();
    files.sort_unstable();
    files.dedup();
    confidence - tuning.ask_per_file * (files.len().max(1) as f64).ln()
}

/// The doubt of a split made without named pieces, when its `confidence`
/// (made [`sureness`]) is below `Tuning::ask_below`: the closest call is the best join refused
/// (its chance under the threshold) or the last join made (over it).
/// Alternatives: that join made, that join undone, and everything as one
/// commit.
pub(super) fn doubt(
    parts: &[Part],
    proposed: &[Vec<usize>],
    refused: Option<(f64, usize, usize)>,
    before_last: Option<(Vec<Vec<usize>>, f64)>,
    threshold: f64,
    confidence: f64,
    tuning: &Tuning,
) -> Option<Doubt> {
    let confidence = sureness(parts, confidence, tuning);
    if confidence >= tuning.ask_below {
        return None;
    }
    let below = refused.map(|(v, _, _)| threshold - v);
    let above = before_last.as_ref().map(|(_, v)| v - threshold);
    let margin = [below, above].into_iter().flatten().fold(f64::INFINITY, f64::min);
    let items_of = |members: &[usize]| -> Vec<usize> { members.iter().flat_map(|&p| parts[p].items.clone()).collect() };
    let mut alternatives = Vec::new();
    let mut closest = (Vec::new(), Vec::new(), 0.0);
    // The closer of the two calls first.
    let refused_first = below.unwrap_or(f64::INFINITY) <= above.unwrap_or(f64::INFINITY);
    if let Some((v, x, y)) = refused {
        // Join the closest two clusters left apart.
        let mut joined: Vec<Vec<usize>> = proposed.to_vec();
        closest = (items_of(&joined[x]), items_of(&joined[y]), v);
        let moved = joined.remove(y);
        joined[x].extend(moved);
        if joined.len() > 1 {
            alternatives.push(("join the closest two".to_owned(), joined));
        }
    }
    if let Some((before, v)) = before_last {
        if before.len() > proposed.len() {
            if closest.0.is_empty() || !refused_first {
                let split: Vec<&Vec<usize>> = before.iter().filter(|c| !proposed.contains(c)).collect();
                if let [a, b, ..] = split[..] {
                    closest = (items_of(a), items_of(b), v);
                }
            }
            alternatives.push(("keep the closest two apart".to_owned(), before));
        }
    }
    if proposed.len() > 1 {
        alternatives.push((KEEP_AS_ONE.to_owned(), vec![(0..parts.len()).collect()]));
    }
    Some(Doubt {
        margin,
        confidence,
        closest,
        threshold,
        alternatives,
    })
}
