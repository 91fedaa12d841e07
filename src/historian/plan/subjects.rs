//! Which of the subjects a squash's message names each part of a unit
//! answers to (`pieces` pulls parts answering to one subject together and
//! pushes those answering to two apart).
//!
//! A part answers to the one subject sharing the most of its words
//! (`vocabulary`) with it, when one shares more than every other. A
//! subject's body counts too, each of its words a quarter of one of the
//! subject's own.
//!
//! A file whose hunks answer to different subjects (by the subjects' own
//! words) is cut into one part per subject ([`pieces_by_subject`]).
//!
//! What a part answers to, beyond its path and its definitions: the names
//! its lines use (a test calling the function a subject names), its
//! version and issue numbers, the way it only tidies, its file's history
//! words and the heading it falls under (`vocabulary`). Each is weighed in
//! `Tuning` and measured by leaving it out (`benches/README.md`).

use std::collections::{BTreeMap, BTreeSet};

use super::affinity::{hunk_parts, Part, Words};
use super::context::Tuning;
use super::count;
use super::vocabulary::{part_words, subject_words, word_weight};
use crate::historian::analyse::classify::Category;
use crate::historian::analyse::items::ChangeSet;

/// The one subject of `named` (subjects of `message`) each part answers
/// to, when there is one.
pub fn subject_of_parts(parts: &[Part], named: &[&str], message: &str, tuning: &Tuning) -> Vec<Option<usize>> {
    subject_leanings(parts, named, message, tuning)
        .into_iter()
        .map(|best| answer(&best))
        .collect()
}

/// The one subject of a part's leanings, when it leans to one alone.
pub(super) fn answer(leaning: &[usize]) -> Option<usize> {
    match leaning {
        [s] => Some(*s),
        _ => None,
    }
}

/// The subjects of `named` each part shares the most words with: one when
/// it answers to one ([`subject_of_parts`]), several on a tie.
pub fn subject_leanings(parts: &[Part], named: &[&str], message: &str, tuning: &Tuning) -> Vec<Vec<usize>> {
    subject_shares(parts, named, message, tuning)
        .iter()
        .map(|shared| leaning(shared))
        .collect()
}

/// How many words each part shares with each subject of `named`, a word of
/// a subject's body counting `Tuning::body_words` of one (as
/// [`subject_leanings`] weighs them).
pub(super) fn subject_shares(parts: &[Part], named: &[&str], message: &str, tuning: &Tuning) -> Vec<Vec<f64>> {
    subject_shares_apart(parts, named, message, tuning).1
}

/// [`subject_shares`] without its files' history words, then with them (as
/// `Tuning::history_words` weighs them): which parts answer by their
/// history alone. A subject saying the kind of file it changes (`docs:`,
/// `changelog:`, `test:`, `ci:`, `deps:`) shares `Tuning::subject_kinds`
/// of its words with a part of another kind: the changelog's entry names
/// the issue its fix's regression test names, and the test is the fix's.
pub(super) fn subject_shares_apart(
    parts: &[Part],
    named: &[&str],
    message: &str,
    tuning: &Tuning,
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let words: Vec<BTreeSet<String>> = parts.iter().map(|p| part_words(p, tuning)).collect();
    let history: Vec<BTreeSet<String>> = if tuning.history_words > 0.0 {
        parts
            .iter()
            .zip(&words)
            .map(|(p, w)| p.history.difference(w).cloned().collect())
            .collect()
    } else {
        vec![BTreeSet::new(); parts.len()]
    };
    let subjects: Vec<BTreeSet<String>> = named.iter().map(|s| subject_words(s, tuning)).collect();
    let bodies: Vec<BTreeSet<String>> = if tuning.body_words > 0.0 {
        count::stretches(message, named)
            .iter()
            .zip(&subjects)
            .map(|(stretch, subject)| subject_words(stretch, tuning).difference(subject).cloned().collect())
            .collect()
    } else {
        vec![BTreeSet::new(); named.len()]
    };
    let weigh = |w: &str| word_weight(w, tuning);
    let mut own = shares(words, &subjects, &bodies, tuning.body_words, weigh);
    let mut out = own.clone();
    if tuning.history_words > 0.0 {
        let weak = shares(history, &subjects, &bodies, tuning.body_words, weigh);
        for (row, extra) in out.iter_mut().zip(weak) {
            for (x, e) in row.iter_mut().zip(extra) {
                *x += tuning.history_words * e;
            }
        }
    }
    if tuning.subject_kinds != 1.0 {
        let kinds: Vec<Option<Category>> = named.iter().map(|s| subject_kind(s)).collect();
        for shares in [&mut own, &mut out] {
            for (row, part) in shares.iter_mut().zip(parts) {
                for (x, kind) in row.iter_mut().zip(&kinds) {
                    if kind.is_some_and(|k| k != part.category) {
                        *x *= tuning.subject_kinds;
                    }
                }
            }
        }
    }
    (own, out)
}

/// The kind of file a subject's type or scope says it changes (`docs:`,
/// `changelog:`, `test:`, `ci:`, `deps:`), when it says one.
fn subject_kind(subject: &str) -> Option<Category> {
    let parsed = crate::historian::message::parse_subject(subject);
    let head = parsed.scope.as_deref().unwrap_or("").to_ascii_lowercase();
    match (parsed.commit_type.as_deref(), head.as_str()) {
        (Some("docs"), _) | (_, "doc" | "docs" | "changelog" | "readme" | "man" | "guide") => Some(Category::Docs),
        (Some("test" | "tests"), _) | (_, "test" | "tests") => Some(Category::Test),
        (Some("ci"), _) | (_, "ci") => Some(Category::Config),
        (Some("build" | "deps"), _) | (_, "deps") => Some(Category::Build),
        _ => None,
    }
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
/// one shares more than every other, a word of its body (`bodies`, the
/// subject's own words left out) counting `body_weight` of one.
#[cfg(test)]
fn answers(
    words: Vec<BTreeSet<String>>,
    subjects: &[BTreeSet<String>],
    bodies: &[BTreeSet<String>],
    body_weight: f64,
) -> Vec<Option<usize>> {
    leanings(words, subjects, bodies, body_weight)
        .into_iter()
        .map(|best| answer(&best))
        .collect()
}

/// For each set of words, the subjects sharing the most words with it
/// (none when none shares one; several on a tie), as [`answers`] weighs
/// them.
#[cfg(test)]
fn leanings(
    words: Vec<BTreeSet<String>>,
    subjects: &[BTreeSet<String>],
    bodies: &[BTreeSet<String>],
    body_weight: f64,
) -> Vec<Vec<usize>> {
    shares(words, subjects, bodies, body_weight, |_| 1.0)
        .iter()
        .map(|shared| leaning(shared))
        .collect()
}

/// For each set of words, how many it shares with each subject, each word
/// weighing `weigh` of it (`vocabulary::word_weight`) and a word of the
/// subject's body (`bodies`, the subject's own words left out) `body_weight`
/// of that.
fn shares(
    words: Vec<BTreeSet<String>>,
    subjects: &[BTreeSet<String>],
    bodies: &[BTreeSet<String>],
    body_weight: f64,
    weigh: impl Fn(&str) -> f64 + Copy,
) -> Vec<Vec<f64>> {
    words
        .iter()
        .map(|set| {
            subjects
                .iter()
                .zip(bodies)
                .map(|(s, b)| {
                    let sum = |shared: &BTreeSet<String>| shared.intersection(set).map(|w| weigh(w)).sum::<f64>();
                    sum(s) + body_weight * sum(b)
                })
                .collect()
        })
        .collect()
}

/// The pieces of a unit's `files` (file, items) as parts: each file whole,
/// but one whose hunks answer to different subjects of `named` cut into a
/// piece per subject, a hunk answering to none going with the nearest hunk
/// that does.
pub(super) fn pieces_by_subject(
    changes: &ChangeSet,
    files: &BTreeMap<usize, Vec<usize>>,
    words: &Words,
    named: &[&str],
    message: &str,
    tuning: &Tuning,
) -> Vec<(usize, Vec<usize>)> {
    // One part per hunk of a hunked file, per other file whole: in the
    // order of `files`. A hunk answers by the subjects' own words only: a
    // body names more than its subject did, and would cut files that one
    // commit changed whole.
    let hunks = hunk_parts(changes, 0, files, words);
    let strict = Tuning {
        body_words: 0.0,
        ..tuning.clone()
    };
    let about = subject_of_parts(&hunks, named, message, &strict);
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
        let none = vec![BTreeSet::new(); 2];
        assert_eq!(answers(parts, &subjects, &none, 0.25), [Some(0), Some(1), None, None]);
    }

    #[test]
    fn a_part_sharing_as_many_words_with_two_subjects_leans_to_both() {
        let subjects = sets(&["Cache the DNS answers", "Retry failed requests"]);
        let parts = sets(&["src/cache_retry.rs", "src/cache.rs", "src/wire.rs"]);
        let none = vec![BTreeSet::new(); 2];
        assert_eq!(
            super::leanings(parts.clone(), &subjects, &none, 0.25),
            [vec![0, 1], vec![0], vec![]]
        );
        assert_eq!(answers(parts, &subjects, &none, 0.25), [None, Some(0), None]);
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

    #[test]
    fn a_word_of_a_subjects_body_counts_a_quarter() {
        let subjects = sets(&["Speed up the reader", "Speed up the writer"]);
        let bodies = sets(&["buffers lines", "flushes once"]);
        let parts = sets(&[
            "src/buffer.rs lines",
            "src/flush.rs flushes",
            "src/io.rs reader buffers",
        ]);
        assert_eq!(
            answers(parts.clone(), &subjects, &bodies, 0.25),
            [Some(0), Some(1), Some(0)]
        );
        // A subject's own word outweighs its rival's body words.
        let rival = sets(&["", "reader buffers lines"]);
        assert_eq!(
            answers(parts.clone(), &subjects, &rival, 0.25),
            [Some(1), None, Some(0)]
        );
        let none = vec![BTreeSet::new(); 2];
        assert_eq!(answers(parts, &subjects, &none, 0.25), [None, None, Some(0)]);
    }
}
