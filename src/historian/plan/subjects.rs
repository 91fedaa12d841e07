//! Which of the subjects a squash's message names each part of a unit
//! answers to (`pieces` pulls parts answering to one subject together and
//! pushes those answering to two apart).
//!
//! A part answers to the one subject sharing the most of its words
//! (`vocabulary`: its path, its kind, the names it defines and uses, the
//! heading it falls under) with it, when one shares more than every other.
//!
//! A file whose hunks answer to different subjects is cut into one part
//! per subject ([`pieces_by_subject`]).

use std::collections::{BTreeMap, BTreeSet};

use super::affinity::{hunk_parts, Part};
use super::context::Tuning;
use super::count;
use super::vocabulary::part_words;
use crate::historian::analyse::items::ChangeSet;

/// The one subject of `named` each part answers to, when there is one.
fn subject_of_parts(parts: &[Part], named: &[&str], tuning: &Tuning) -> Vec<Option<usize>> {
    subject_shares(parts, named, tuning)
        .iter()
        .map(|shared| answer(&leaning(shared)))
        .collect()
}

/// The one subject of a part's leanings, when it leans to one alone.
pub(super) fn answer(leaning: &[usize]) -> Option<usize> {
    match leaning {
        [s] => Some(*s),
        _ => None,
    }
}

/// How many words each part shares with each subject of `named`.
pub(super) fn subject_shares(parts: &[Part], named: &[&str], tuning: &Tuning) -> Vec<Vec<f64>> {
    let words: Vec<BTreeSet<String>> = parts.iter().map(|p| part_words(p, tuning)).collect();
    let subjects: Vec<BTreeSet<String>> = named.iter().map(|s| count::words(s)).collect();
    shares(&words, &subjects)
}

/// The subjects sharing the most words (`shared`, by subject), when any
/// shares one: one, or several on a tie.
pub(super) fn leaning(shared: &[f64]) -> Vec<usize> {
    let best = shared.iter().copied().fold(0.0, f64::max);
    if best > 0.0 {
        (0..shared.len()).filter(|&s| (shared[s] - best).abs() < 1e-9).collect()
    } else {
        Vec::new()
    }
}

/// How many more words (`shared`, by subject) the subject sharing the most
/// shares than the next: how sure a part is of the subject it answers to.
pub(super) fn margin(shared: &[f64]) -> f64 {
    let (mut first, mut second) = (0.0_f64, 0.0_f64);
    for &x in shared {
        if x > first {
            second = first;
            first = x;
        } else if x > second {
            second = x;
        }
    }
    first - second
}

/// For each set of words, the subject sharing the most words with it when
/// one shares more than every other.
#[cfg(test)]
fn answers(words: &[BTreeSet<String>], subjects: &[BTreeSet<String>]) -> Vec<Option<usize>> {
    leanings(words, subjects)
        .into_iter()
        .map(|best| answer(&best))
        .collect()
}

/// For each set of words, the subjects sharing the most words with it
/// (none when none shares one; several on a tie).
#[cfg(test)]
fn leanings(words: &[BTreeSet<String>], subjects: &[BTreeSet<String>]) -> Vec<Vec<usize>> {
    shares(words, subjects).iter().map(|shared| leaning(shared)).collect()
}

/// For each set of words, how many it shares with each subject.
fn shares(words: &[BTreeSet<String>], subjects: &[BTreeSet<String>]) -> Vec<Vec<f64>> {
    words
        .iter()
        .map(|set| subjects.iter().map(|s| s.intersection(set).count() as f64).collect())
        .collect()
}

/// The pieces of a unit's `files` (file, items) as parts: each file whole,
/// but one whose hunks answer to different subjects of `named` cut into a
/// piece per subject, a hunk answering to none going with the nearest hunk
/// that does.
pub(super) fn pieces_by_subject(
    changes: &ChangeSet,
    files: &BTreeMap<usize, Vec<usize>>,
    named: &[&str],
    tuning: &Tuning,
) -> Vec<(usize, Vec<usize>)> {
    // One part per hunk of a hunked file, per other file whole: in the
    // order of `files`.
    let hunks = hunk_parts(changes, 0, files);
    let about = subject_of_parts(&hunks, named, tuning);
    let mut out = Vec::new();
    let mut at = 0;
    for (&f, items) in files {
        let count = if changes.files[f].is_hunked() { items.len() } else { 1 };
        let (mine, parts) = (&about[at..at + count], &hunks[at..at + count]);
        at += count;
        let distinct: BTreeSet<usize> = mine.iter().flatten().copied().collect();
        if distinct.len() < 2 {
            out.push((f, items.clone()));
            continue;
        }
        let mut by_subject: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (j, part) in parts.iter().enumerate() {
            let subject = mine[j].unwrap_or_else(|| nearest(mine, j));
            by_subject
                .entry(subject)
                .or_default()
                .extend(part.items.iter().copied());
        }
        out.extend(by_subject.into_values().map(|items| (f, items)));
    }
    out
}

/// The subject of the hunk nearest to the `j`th answering to one (the
/// lower subject on a tie); some hunk does.
fn nearest(about: &[Option<usize>], j: usize) -> usize {
    about
        .iter()
        .enumerate()
        .filter_map(|(k, s)| s.map(|s| (k.abs_diff(j), s)))
        .min()
        .map_or(0, |(_, s)| s)
}

#[cfg(test)]
mod tests {
    use super::answers;
    use crate::historian::plan::count::words;
    use std::collections::BTreeSet;

    fn sets(texts: &[&str]) -> Vec<BTreeSet<String>> {
        texts.iter().map(|t| words(t)).collect()
    }

    #[test]
    fn each_part_answers_to_the_subject_sharing_most_words() {
        let subjects = sets(&["Cache the DNS answers", "Retry failed requests"]);
        let parts = sets(&[
            "src/cache.rs cache_answers",
            "docs/guide.md failed requests retried",
            "src/wire.rs open_socket",
            "src/both.rs cache_answers retry_requests",
        ]);
        assert_eq!(answers(&parts, &subjects), [Some(0), Some(1), None, None]);
    }

    #[test]
    fn a_part_sharing_as_many_words_with_two_subjects_leans_to_both() {
        let subjects = sets(&["Cache the DNS answers", "Retry failed requests"]);
        let parts = sets(&["src/cache_retry.rs", "src/cache.rs", "src/wire.rs"]);
        assert_eq!(super::leanings(&parts, &subjects), [vec![0, 1], vec![0], vec![]]);
        assert_eq!(answers(&parts, &subjects), [None, Some(0), None]);
    }

    #[test]
    fn a_parts_margin_is_how_many_more_words_its_subject_shares_than_the_next() {
        use super::{leaning, margin};
        assert_eq!(margin(&[2.0, 0.25, 1.0]), 1.0);
        assert_eq!(leaning(&[2.0, 0.25, 1.0]), [0]);
        assert_eq!(margin(&[0.25, 0.0]), 0.25);
        // A tie: sure of neither.
        assert_eq!(margin(&[1.0, 1.0]), 0.0);
        assert_eq!(leaning(&[1.0, 1.0]), [0, 1]);
        assert_eq!(margin(&[0.0, 0.0]), 0.0);
        assert!(leaning(&[0.0, 0.0]).is_empty());
        assert_eq!(margin(&[]), 0.0);
    }
}
