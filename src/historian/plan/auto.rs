//! The automatic commit plan: groups (DESIGN §10.2) in order (§10.3), each
//! with a conventional-commit message drafted from its items and the branch
//! commits they come from.

use std::collections::{BTreeMap, BTreeSet};

use crate::historian::analyse::classify::{self, Category};
use crate::historian::analyse::items::{ChangeSet, Status};
use crate::historian::message::{self, Draft, FileLine, SUBJECT_WIDTH};

use super::context::{Context, Tuning};
use super::{group, order, CommitPlan, PlannedCommit};

/// Plans the branch's rewrite.
pub fn plan(ctx: &Context<'_>, tuning: &Tuning) -> CommitPlan {
    plan_with_doubts(ctx, tuning).0
}

/// A plan the historian is not sure of: the closest call it made and the
/// readings it weighed, each as the commits it would make (in order).
#[derive(Clone, Debug, PartialEq)]
pub struct Unsure {
    /// The items on either side of the closest call, and its chance.
    pub closest: (Vec<usize>, Vec<usize>, f64),
    /// The threshold the call was measured against.
    pub threshold: f64,
    /// How well the least sure split agrees with its chances
    /// (`pieces::confidence`).
    pub confidence: f64,
    /// The proposed reading first, then the others; each a label and its
    /// commits' items, in order. The last keeps the doubtful work as one
    /// commit.
    pub readings: Vec<(String, Vec<Vec<usize>>)>,
}

/// Plans the branch's rewrite, and says when the plan is unsure.
pub fn plan_with_doubts(ctx: &Context<'_>, tuning: &Tuning) -> (CommitPlan, Option<Unsure>) {
    let splits = group::splits(ctx, tuning);
    let ordered = |groups: Vec<Vec<usize>>| order::order(ctx, group::finish(ctx, groups));
    let grouped = group::finish(ctx, splits.iter().flat_map(|s| s.groups.clone()).collect());
    ctx.record().grouped(&grouped);
    let proposed = order::order(ctx, grouped);
    let unsure = unsure(&splits, &proposed, ordered);
    (commits_with(ctx, proposed, Parts::Described), unsure)
}

/// The readings of doubtful splits: the one proposed, then each other
/// reading the doubts weighed, applied to every doubtful split that
/// weighed it; "keep as one commit" last.
fn unsure(
    splits: &[group::Split],
    proposed: &[Vec<usize>],
    ordered: impl Fn(Vec<Vec<usize>>) -> Vec<Vec<usize>>,
) -> Option<Unsure> {
    // A unit kept whole rests on no weak cut: the author's boundary and
    // the plan agree, however weakly its parts hold together.
    let doubtful: Vec<&group::Split> = splits
        .iter()
        .filter(|s| s.doubt.is_some() && s.groups.len() > 1)
        .collect();
    // A plan of one commit splits nothing: no split rests on a weak call.
    if proposed.len() < 2 {
        return None;
    }
    let first = doubtful.first()?.doubt.as_ref()?;
    let mut labels: Vec<&str> = Vec::new();
    for d in doubtful.iter().filter_map(|s| s.doubt.as_ref()) {
        for (label, _) in &d.alternatives {
            if !labels.contains(&label.as_str()) {
                labels.push(label);
            }
        }
    }
    // "Keep as one commit" last, and always there.
    labels.retain(|l| *l != KEEP_AS_ONE);
    labels.push(KEEP_AS_ONE);
    let mut readings = vec![("split as proposed".to_owned(), proposed.to_vec())];
    for label in labels {
        let groups = splits
            .iter()
            .flat_map(|s| {
                let alternative = s.doubt.as_ref().filter(|_| s.groups.len() > 1).and_then(|d| {
                    if label == KEEP_AS_ONE {
                        return Some(vec![s.groups.iter().flatten().copied().collect()]);
                    }
                    d.alternatives.iter().find(|(l, _)| l == label).map(|(_, g)| g.clone())
                });
                alternative.unwrap_or_else(|| s.groups.clone())
            })
            .collect();
        let groups = ordered(groups);
        // Keeping the unsure work whole leaves the rest of the branch's
        // commits as they are: the label says so when more than one is left.
        let label = match label {
            KEEP_AS_ONE if groups.len() > 1 => KEEP_UNSURE_WHOLE,
            other => other,
        };
        if readings.iter().all(|(_, g)| *g != groups) {
            readings.push((label.to_owned(), groups));
        }
    }
    let confidence = doubtful
        .iter()
        .filter_map(|s| s.doubt.as_ref().map(|d| d.confidence))
        .fold(1.0, f64::min);
    (readings.len() > 1).then(|| Unsure {
        closest: first.closest.clone(),
        threshold: first.threshold,
        confidence,
        readings,
    })
}

/// The reading that keeps each doubtful split's work as one commit.
pub use super::pieces::KEEP_AS_ONE;
/// The same reading when other commits of the plan stay beside it.
const KEEP_UNSURE_WHOLE: &str = "keep the unsure work as one commit";

/// How commits with one subject are told apart.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Parts {
    /// The parts of one thing a person chose to split: `(part 2 of 3)`.
    Numbered,
    /// By what each holds when that tells them apart, else numbered.
    Described,
}

/// Planned commits for `groups` (in the order given) as the automatic plan
/// drafts them: one reading of an unsure plan, chosen by a person.
pub fn commits_described(ctx: &Context<'_>, groups: Vec<Vec<usize>>) -> CommitPlan {
    commits_with(ctx, groups, Parts::Described)
}

/// Planned commits for `groups` (in the order given), with messages; the
/// parts of one original commit a split made are numbered.
pub fn commits_for(ctx: &Context<'_>, groups: Vec<Vec<usize>>) -> CommitPlan {
    commits_with(ctx, groups, Parts::Numbered)
}

fn commits_with(ctx: &Context<'_>, groups: Vec<Vec<usize>>, parts: Parts) -> CommitPlan {
    let mut commits: Vec<PlannedCommit> = groups
        .into_iter()
        .map(|items| PlannedCommit {
            message: draft(ctx, &items).message(),
            items,
            keep: false,
        })
        .collect();
    distinguish_subjects(ctx, &mut commits, parts);
    CommitPlan { commits }
}

/// Commits with the same subject all say which is which: the parts of one
/// thing (same sources, or next to each other, as a size split makes them)
/// are numbered, `(part 2 of 3)`; others say what they hold,
/// `(add lexer.rs)`, when that tells them apart.
fn distinguish_subjects(ctx: &Context<'_>, commits: &mut [PlannedCommit], parts: Parts) {
    let mut by_subject: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, commit) in commits.iter().enumerate() {
        by_subject.entry(commit.subject().to_owned()).or_default().push(i);
    }
    let mut taken: BTreeSet<String> = by_subject.keys().cloned().collect();
    for (subject, members) in by_subject {
        if members.len() < 2 {
            continue;
        }
        let (head, summary) = subject.split_once(": ").unwrap_or(("chore", subject.as_str()));
        let drafts: Vec<Draft> = members.iter().map(|&i| draft(ctx, &commits[i].items)).collect();
        let whats: Vec<String> = drafts.iter().map(Draft::describe).collect();
        let ids = |d: &Draft| d.sources.iter().map(|s| s.0.clone()).collect::<BTreeSet<_>>();
        let one_source = drafts.windows(2).all(|w| ids(&w[0]) == ids(&w[1]));
        let in_a_row = members.windows(2).all(|w| w[1] == w[0] + 1);
        let told_apart =
            whats.iter().collect::<BTreeSet<_>>().len() == whats.len() && !whats.iter().any(|w| w == summary);
        let numbered = match parts {
            Parts::Numbered => one_source || in_a_row || !told_apart,
            Parts::Described => !told_apart,
        };
        for (k, &i) in members.iter().enumerate() {
            let mut new_subject = if numbered {
                format!("{head}: {summary} (part {} of {})", k + 1, members.len())
            } else {
                let long = format!("{head}: {summary} ({})", whats[k]);
                if long.chars().count() > SUBJECT_WIDTH {
                    format!("{head}: {}", whats[k])
                } else {
                    long
                }
            };
            let mut n = 2;
            let first = new_subject.clone();
            while !taken.insert(new_subject.clone()) {
                new_subject = format!("{first} ({n})");
                n += 1;
            }
            let commit = &mut commits[i];
            let body = commit.message.split_once('\n').map_or("", |(_, b)| b);
            commit.message = format!("{new_subject}\n{body}");
        }
    }
}

/// What a message for `items` is written from.
pub fn draft(ctx: &Context<'_>, items: &[usize]) -> Draft {
    let changes = ctx.changes;
    let mut categories: BTreeMap<Category, usize> = BTreeMap::new();
    let mut scopes: BTreeMap<String, usize> = BTreeMap::new();
    let mut code_scopes: BTreeMap<String, usize> = BTreeMap::new();
    let mut sources: BTreeMap<usize, usize> = BTreeMap::new();
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    let mut test_names: BTreeMap<&str, usize> = BTreeMap::new();
    let mut per_file: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let moved_out = moved_out(changes, items);
    // Removing lines that live on elsewhere says little of what a commit
    // does: they weigh only as much as what else the item changes.
    let share = |i: usize, w: usize| {
        let lines = changes.items[i].lines;
        match moved_out.get(&i) {
            Some(&moved) if lines > 0 => w * lines.saturating_sub(moved) / lines,
            _ => w,
        }
    };
    for &i in items {
        let item = &changes.items[i];
        let path = changes.path(i);
        let weight = share(i, item.lines).max(1);
        let category = classify::category(path);
        *categories.entry(category).or_default() += weight;
        let scope = if category == Category::Test {
            classify::tested_stem(path)
        } else {
            classify::scope(path)
        };
        *scopes.entry(scope.clone()).or_default() += weight;
        if category.is_code() && category != Category::Test {
            *code_scopes.entry(scope).or_default() += weight;
        }
        for &(k, w) in &ctx.provenance.items[i] {
            *sources.entry(k).or_default() += share(i, w as usize);
        }
        if category.is_code() {
            let pool = if category == Category::Test {
                &mut test_names
            } else {
                &mut names
            };
            for name in &item.symbols.defined {
                *pool.entry(name.as_str()).or_default() += weight;
            }
        }
        per_file.entry(item.file).or_default().push(i);
    }
    let mut categories: Vec<(Category, usize)> = categories.into_iter().collect();
    categories.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let scope_pool = if code_scopes.is_empty() { &scopes } else { &code_scopes };
    let total: usize = scope_pool.values().sum();
    let scope = scope_pool
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .filter(|(_, w)| **w * 2 > total)
        .map(|(s, _)| s.clone());
    let mut sources_by_weight: Vec<(usize, usize)> = sources.into_iter().collect();
    sources_by_weight.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let sources: Vec<(String, String, message::Kind, usize)> = sources_by_weight
        .iter()
        .copied()
        .filter(|(k, _)| !matches!(ctx.kinds[*k], message::Kind::Merge))
        .map(|(k, w)| {
            let c = &ctx.commits[k];
            (
                c.id.to_hex_with_len(7).to_string(),
                message::whole_subject(&c.message, message::meaningful_subject(&c.message)),
                ctx.kinds[k].clone(),
                w,
            )
        })
        .collect();
    let files = per_file
        .into_iter()
        .map(|(f, its)| file_line(changes, f, &its))
        .collect();
    // The other subjects the lead source lists, when it squashed several.
    let lead = sources_by_weight.iter().find(|(k, _)| !ctx.kinds[*k].is_noise());
    let alternatives: Vec<String> = lead
        .map(|(k, _)| {
            message::squashed_subjects(&ctx.commits[*k].message)
                .into_iter()
                .take(MOST_ALTERNATIVES)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    // The subject answered to, whole when its message wraps it.
    let answered = answered(ctx, items).map(|subject| {
        let mut messages = sources_by_weight.iter().map(|(k, _)| ctx.commits[*k].message.as_str());
        match messages.find(|m| m.contains(subject.as_str())) {
            Some(m) => message::whole_subject(m, &subject),
            None => subject,
        }
    });
    let names = if names.is_empty() { test_names } else { names };
    let mut names: Vec<(&str, usize)> = names.into_iter().collect();
    names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    Draft {
        categories,
        scope,
        sources,
        files,
        branch_words: ctx.branch_words(),
        alternatives,
        answered,
        names: names.into_iter().take(MOST_NAMES).map(|(n, _)| n.to_owned()).collect(),
    }
}

/// The subject of a squash's message that most of `items`' lines answered
/// to when the planner split it (`pieces`), when one holds more than half
/// of them.
fn answered(ctx: &Context<'_>, items: &[usize]) -> Option<String> {
    let record = ctx.record();
    let mut lines: BTreeMap<&str, usize> = BTreeMap::new();
    let mut all = 0;
    for &i in items {
        let weight = ctx.changes.items[i].lines.max(1);
        all += weight;
        if let Some(subject) = record.answered_of(i) {
            *lines.entry(subject).or_default() += weight;
        }
    }
    lines
        .into_iter()
        .filter(|(_, l)| 2 * l > all)
        .max_by_key(|(_, l)| *l)
        .map(|(s, _)| s.to_owned())
}

/// The most body subjects of a source weighed as a commit's summary.
const MOST_ALTERNATIVES: usize = 20;
/// The most names a draft keeps.
const MOST_NAMES: usize = 8;

/// How many moved lines (`analyse::moves`) each of `items` deletes, for
/// those deleting any.
fn moved_out(changes: &ChangeSet, items: &[usize]) -> BTreeMap<usize, usize> {
    let wanted: BTreeSet<usize> = items.iter().copied().collect();
    let mut out: BTreeMap<usize, usize> = BTreeMap::new();
    for line in &changes.moves.lines {
        for d in line.deleted_by.iter().filter(|d| wanted.contains(d)) {
            *out.entry(*d).or_default() += 1;
        }
    }
    out
}

/// The line of a commit's body listing file `f`, of which it holds the items `its`.
fn file_line(changes: &ChangeSet, f: usize, its: &[usize]) -> FileLine {
    let file = &changes.files[f];
    let partial = file.is_hunked() && its.len() < file.hunks.len();
    let (added, removed) = if file.is_hunked() {
        its.iter()
            .filter_map(|&i| changes.items[i].hunk)
            .map(|h| (file.hunks[h].new.len(), file.hunks[h].old.len()))
            .fold((0, 0), |(a, r), (x, y)| (a + x, r + y))
    } else {
        (file.added, file.removed)
    };
    let note = if file.is_submodule() {
        Some("submodule")
    } else if file.binary {
        Some("binary")
    } else if file.status == Status::ModeChanged {
        Some("mode")
    } else if file.status == Status::TypeChanged {
        Some("type")
    } else {
        None
    };
    FileLine {
        letter: file.status.letter(),
        path: file.path.clone(),
        from: match &file.status {
            Status::Renamed { from } | Status::Copied { from } => Some(from.clone()),
            _ => None,
        },
        hunks: partial.then(|| {
            its.iter()
                .filter_map(|&i| changes.items[i].hunk.map(|h| h + 1))
                .collect()
        }),
        added,
        removed,
        note,
    }
}
