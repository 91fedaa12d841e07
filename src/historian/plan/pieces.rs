//! A unit's parts joined into the pieces of work it holds, by the chances
//! `affinity` gives every two of them: average linkage while the chance is
//! at least `join_threshold`.
//!
//! A unit whose message names several pieces of work (`count`: a squash
//! keeps the subjects it joined) is split into about that many: parts join
//! until that many are left, then only when the affinity is nearly sure
//! (`sure_join`), and two parts answering to one subject (`subjects`) are
//! surer to belong together (with two different subjects, less sure; a part
//! leaning to several subjects alike pulls and pushes half as hard,
//! `leaning_words`). How much surer follows how sure the two parts are of
//! their subjects (`subject_margins`): the smaller of their margins — how
//! many more words a part shares with its subject than with the next — from
//! a quarter (one word of a body) to twice.
//! Once that many are left, two clusters each answering wholly to subjects,
//! different ones, never join (`subject_veto`: the message says they are
//! two pieces of work), and a small cluster answering to no subject rides
//! with the cluster closest to it (`unsupported_cuts`, [`join_unsupported`])
//! — unless a part of it leans to several subjects alike and only one of
//! them has no other part answering to it: then it answers to that one by
//! elimination ([`by_elimination`], `unclaimed_subjects`) and stays; and
//! unless the message names as many subjects no cluster answers to as
//! there are such clusters, none of them a sliver (`cluster_elimination`,
//! `elimination_share`): they are those subjects' work and stay.
//! A message naming more pieces than the unit has files makes every hunk a
//! part (`HunkParts::BySubject`).
//!
//! On the evaluation (`benches/historian_eval.rs`, tuning half / held out)
//! the veto lifted the mean from 0.856 to 0.864 / 0.820 to 0.821 with as
//! many cases worse than one commit (32 / 72); leaving small unsupported
//! cuts unmade lowered the mean from 0.870 to 0.864 / 0.824 to 0.821 and
//! cut the cases worse than one commit from 42 to 32 / 91 to 72, at the
//! price of more squashes planned as fewer commits than they joined; the
//! leanings kept the mean and cut those cases from 36 to 32 / 75 to 72;
//! the margins lifted the mean from 0.864 to 0.867 / 0.821 to 0.821, the
//! line-weighted score from 0.890 to 0.895 / 0.813 to 0.815, and cut those
//! cases from 32 to 30 / 72 to 69; elimination lifted the mean from 0.8684
//! to 0.8691 / 0.8406 to 0.8417 (line-weighted 0.8727 to 0.8732 / 0.8347
//! to 0.8352) with 44 to 44 / 70 to 71 cases worse than one commit (giving
//! the eliminated subject to the part itself, before the joins, lifted the
//! tuning half to 0.872 but made 49 / 79 cases worse); clusters staying by
//! elimination lifted the mean from 0.8757 to 0.8780 / 0.8463 to 0.8488
//! (line-weighted 0.8770 to 0.8776 / 0.8403 to 0.8408) with 41 to 42 / 71
//! to 74 cases worse than one commit — with slivers too (a share of 0),
//! 0.8786 on the tuning half but 48 cases worse.

use std::collections::{BTreeMap, BTreeSet};

use super::affinity::{
    affinity, hunk_parts, pairs_of, parts, parts_of, Pair, Part, Signals, Words, COEFFICIENTS, FEATURES, MOST_PARTS,
};
use super::context::{Context, HunkParts, Tuning};
use super::linkage::Linkage;
use super::reason::{Eliminated, OwnAnswer, PartFacts};
use super::subjects::{answer, leaning, margin, pieces_by_subject, subject_shares_apart, supported_subjects};

/// Splits one unit into groups of items; `wanted` is how many pieces of
/// work its message names (`count`), when it names several: parts join
/// until that many are left, and past it only when the affinity is sure.
pub fn split_unit(
    ctx: &Context<'_>,
    files: &BTreeMap<usize, Vec<usize>>,
    words: &Words,
    tuning: &Tuning,
    named: &[&str],
    message: &str,
) -> Vec<Vec<usize>> {
    let supported;
    let named = if tuning.supported_subjects && named.len() >= 2 && files.len() <= MOST_PARTS {
        supported = supported_subjects(&parts(ctx.changes, files, words), named);
        &supported[..]
    } else {
        named
    };
    let wanted = Some(named.len()).filter(|&k| k >= 2);
    let coefficients: &[f64] = tuning.coefficients.as_deref().unwrap_or(&COEFFICIENTS);
    if files.len() > MOST_PARTS {
        // A sweeping commit: weighing every pair would take too long, and
        // such a commit goes to a size question anyway. By component.
        let parts = parts(ctx.changes, files, words);
        let mut by_component: BTreeMap<(String, bool), Vec<usize>> = BTreeMap::new();
        for p in &parts {
            by_component
                .entry((p.component.clone(), p.category.is_code()))
                .or_default()
                .extend(p.items.iter().copied());
        }
        let mut record = ctx.record();
        for p in &parts {
            let signal = super::reason::Signal::ByComponent {
                component: p.component.clone(),
            };
            record.note_rule(p.items.iter().copied(), signal);
        }
        drop(record);
        return by_component
            .into_values()
            .map(|mut items| {
                items.sort_unstable();
                items
            })
            .collect();
    }
    // A message naming more pieces of work than there are files: hunks of
    // one file may go to different commits (hunks of one file join easily).
    let by_hunks = match (wanted, tuning.hunk_parts) {
        (Some(k), HunkParts::WhenFewerFiles | HunkParts::BySubject) => files.len() < k,
        (Some(_), HunkParts::WithCount) => true,
        _ => false,
    } && files.values().map(Vec::len).sum::<usize>() <= MOST_PARTS;
    let parts = if by_hunks {
        hunk_parts(ctx.changes, files, words)
    } else if wanted.is_some()
        && tuning.hunk_parts == HunkParts::BySubject
        && files.values().map(Vec::len).sum::<usize>() <= MOST_PARTS
    {
        let pieces = pieces_by_subject(ctx.changes, files, words, named, message, tuning);
        parts_of(ctx.changes, pieces.into_iter(), words)
    } else {
        parts(ctx.changes, files, words)
    };
    let n = parts.len();
    let pairs = pairs_of(&parts, &ctx.coupling, words);
    let same_file = |a: usize, b: usize| parts[a].file == parts[b].file;
    // How many words each part shares with each subject, without its
    // file's history words and with them.
    let (own_shares, shares) = if wanted.is_some() && tuning.subject_words != 0.0 {
        subject_shares_apart(&parts, named, message, tuning)
    } else {
        (vec![Vec::new(); parts.len()], vec![Vec::new(); parts.len()])
    };
    let leaning: Vec<Vec<usize>> = shares.iter().map(|shared| leaning(shared)).collect();
    let about: Vec<Option<usize>> = leaning.iter().map(|best| answer(best)).collect();
    // How hard two parts answering to subjects pull together or push apart
    // (`Tuning::subject_margins`): as sure as the less sure of them.
    let sure = |a: usize, b: usize| {
        if tuning.subject_margins {
            margin(&shares[a]).min(margin(&shares[b])).clamp(0.25, 2.0)
        } else {
            1.0
        }
    };
    // Average linkage on the sums of chances between clusters (a cluster
    // lives in the slot of its first part): join the two closest clusters
    // while they are close enough; ties go to the lowest slots, so the
    // result is stable.
    let mut sum = vec![vec![0.0; n]; n];
    let mut weighed = Vec::with_capacity(pairs.len());
    for (a, b, f) in &pairs {
        let mut x = affinity(f, coefficients);
        let mut shift = 0.0;
        if same_file(*a, *b) {
            shift += tuning.same_file;
        }
        if let (Some(s), Some(t)) = (about[*a], about[*b]) {
            let pull = sure(*a, *b) * tuning.subject_words;
            shift += if s == t { pull } else { -pull };
        } else if !leaning[*a].is_empty() && !leaning[*b].is_empty() {
            // One of them (or both) leans to several subjects alike.
            let pull = tuning.leaning_words * tuning.subject_words;
            shift += if leaning[*a].iter().any(|s| leaning[*b].contains(s)) {
                pull
            } else {
                -pull
            };
        }
        if shift != 0.0 {
            x = 1.0 / (1.0 + ((1.0 - x) / x.max(1e-12)).max(1e-300) * (-shift).exp());
        }
        sum[*a][*b] = x;
        sum[*b][*a] = x;
        weighed.push(x);
    }
    let mut linkage = Linkage::new(sum);
    let joins = |v: f64, left: usize| match wanted {
        Some(k) if left > k => true,
        Some(_) => v >= tuning.sure_join,
        None => v >= tuning.join_threshold,
    };
    // Two clusters each answering wholly to subjects, different ones: two
    // pieces of work the message names (`Tuning::subject_veto`).
    let apart = |members: &[usize], others: &[usize]| {
        let mine: BTreeSet<Option<usize>> = members.iter().map(|&p| about[p]).collect();
        let theirs: BTreeSet<Option<usize>> = others.iter().map(|&p| about[p]).collect();
        !mine.contains(&None) && !theirs.contains(&None) && mine.is_disjoint(&theirs)
    };
    while let Some((v, x, y)) = linkage.closest() {
        let counted = wanted.is_some_and(|k| linkage.left <= k);
        if counted && tuning.subject_veto && apart(&linkage.members[x], &linkage.members[y]) || !joins(v, linkage.left)
        {
            break;
        }
        linkage.join(x, y);
    }
    // The subject each part answers to, by its words or by elimination.
    let mut supported = if wanted.is_some() && tuning.unclaimed_subjects {
        by_elimination(&about, &leaning)
    } else {
        about.clone()
    };
    // The parts of a cluster given the one subject left (`join_unsupported`).
    let mut eliminated = Vec::new();
    if wanted.is_some() && tuning.unsupported_cuts {
        let named = tuning.cluster_elimination.then_some(named.len());
        eliminated = join_unsupported(&mut linkage, &parts, &mut supported, named, tuning.elimination_share);
    }
    let mut clusters: Vec<Vec<usize>> = linkage.living().map(|x| linkage.members[x].clone()).collect();
    // Tiny code parts ride along with the unit's largest code part.
    let code_lines = |members: &Vec<usize>| -> Option<usize> {
        members
            .iter()
            .all(|&p| parts[p].category.is_code())
            .then(|| members.iter().map(|&p| parts[p].lines).sum())
    };
    let largest = (0..clusters.len())
        .filter_map(|c| code_lines(&clusters[c]).map(|l| (l, std::cmp::Reverse(c))))
        .max()
        .map(|(_, std::cmp::Reverse(c))| c);
    if let Some(largest) = largest.filter(|_| wanted.is_none_or(|k| clusters.len() > k)) {
        let small: Vec<usize> = (0..clusters.len())
            .filter(|&c| c != largest && code_lines(&clusters[c]).is_some_and(|l| l <= tuning.small_part_lines))
            .collect();
        let mut moved = Vec::new();
        for &c in small.iter().rev() {
            moved.extend(clusters.remove(c));
        }
        let target = largest - small.iter().filter(|&&c| c < largest).count();
        clusters[target].extend(moved);
    }
    // The explanation names the chances and the threshold the joins used:
    // with a count from the message, only a sure join is made past it.
    let threshold = if wanted.is_some() {
        tuning.sure_join
    } else {
        tuning.join_threshold
    };
    let facts: Vec<PartFacts<'_>> = parts
        .iter()
        .zip(&about)
        .map(|(p, &subject)| PartFacts {
            file: p.file,
            items: &p.items,
            lines: p.lines,
            subject,
        })
        .collect();
    note_split(ctx, &facts, &pairs, &weighed, coefficients, threshold, &clusters);
    if wanted.is_some() {
        // A part answers by its file's history when, without it, it would
        // answer to another subject or to none.
        let own: Vec<OwnAnswer> = (0..parts.len())
            .map(|p| OwnAnswer {
                margin: margin(&shares[p]),
                by_history: about[p].is_some() && answer(&super::subjects::leaning(&own_shares[p])) != about[p],
                by_elimination: match (about[p], supported[p]) {
                    (None, Some(_)) if eliminated.contains(&p) => Some(Eliminated::Unclaimed),
                    (None, Some(_)) => Some(Eliminated::Tied),
                    _ => None,
                },
            })
            .collect();
        note_answered(ctx, &parts, &supported, &own, named, &clusters);
    }
    clusters
        .into_iter()
        .map(|members| {
            let mut items: Vec<usize> = members.iter().flat_map(|&p| parts[p].items.iter().copied()).collect();
            items.sort_unstable();
            items
        })
        .collect()
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

/// Notes why each part is in its cluster (`reason`): the chance of each
/// link as the joins weighed it (`weighed`, after the pull of the
/// message's subjects) and the signal adding most to it.
fn note_split(
    ctx: &Context<'_>,
    facts: &[PartFacts<'_>],
    pairs: &[Pair],
    weighed: &[f64],
    coefficients: &[f64],
    threshold: f64,
    clusters: &[Vec<usize>],
) {
    use super::reason::Link;
    let heaviest = |f: &Signals| {
        f.iter()
            .zip(&coefficients[1..])
            .zip(FEATURES)
            .map(|((x, w), name)| (x * w, name))
            .fold(
                ("", f64::MIN),
                |best, (v, name)| if v > best.1 { (name, v) } else { best },
            )
            .0
    };
    let links: Vec<Link> = pairs
        .iter()
        .zip(weighed)
        .map(|((a, b, f), &chance)| Link {
            a: *a,
            b: *b,
            chance,
            feature: heaviest(f),
        })
        .collect();
    ctx.record().note_split(facts, &links, threshold, clusters);
}
