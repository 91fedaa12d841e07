//! Size classes and splits (DESIGN §10.4). A commit is small under 5 files
//! and 150 lines, medium up to 15 files and 500 lines (the defaults of
//! `--max-files` and `--max-lines`); a larger one stops the run with a
//! QUESTION whose options are concrete splits — by directory, by component,
//! by top-level area, by layer, by original commit, by size — each naming
//! the commits it would make, ordered from the most split to the least,
//! the last always "Keep as one commit". Items are never cut: a hunk stays
//! whole, and every split but the one by original commit keeps files whole.
//! A path that is a file at one end and a directory at the other stays in
//! one part with what replaces it: no tree in between could hold both. A
//! submodule that appears or goes stays with `.gitmodules`.

use std::collections::{BTreeMap, BTreeSet};

use super::context::Context;
use super::fold::Union;
use super::{group, order};
use crate::historian::analyse::classify::{self, Category};

/// The most files and lines a commit may have before historian asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub files: usize,
    pub lines: usize,
}

/// Files and lines of a set of items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub files: usize,
    pub lines: usize,
}

pub fn size(ctx: &Context<'_>, items: &[usize]) -> Size {
    let files: BTreeSet<usize> = items.iter().map(|&i| ctx.changes.items[i].file).collect();
    Size {
        files: files.len(),
        lines: items.iter().map(|&i| ctx.changes.items[i].lines).sum(),
    }
}

impl Size {
    pub fn over(self, limits: Limits) -> bool {
        self.files > limits.files || self.lines > limits.lines
    }

    /// `small`, `medium` or `large`.
    pub fn class(self, limits: Limits) -> &'static str {
        if self.files < 5 && self.lines < 150 {
            "small"
        } else if !self.over(limits) {
            "medium"
        } else {
            "large"
        }
    }
}

/// One way to split a commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// `by component`, `by layer`, …
    pub how: &'static str,
    /// The commits it makes, in commit order, each with its label.
    pub parts: Vec<(String, Vec<usize>)>,
}

/// The most splits offered before "Keep as one commit".
const MOST_OPTIONS: usize = 4;

/// The question `clean` asks about `items` before writing them: the splits
/// it offers when the commit is over the limits and can be split at all.
/// None when it is within them, kept by a person's answer, or when no
/// split makes two commits (one file from one branch commit: items are
/// never cut, and only the split by original commit parts a file's hunks):
/// then it is written as it is.
pub fn question(ctx: &Context<'_>, items: &[usize], keep: bool, limits: Limits) -> Option<Vec<Split>> {
    if keep || !size(ctx, items).over(limits) {
        return None;
    }
    Some(splits(ctx, items, limits)).filter(|s| !s.is_empty())
}

/// The splits of `items`, most split first, without repeats or splits
/// into one.
pub fn splits(ctx: &Context<'_>, items: &[usize], limits: Limits) -> Vec<Split> {
    let path = |i: usize| ctx.changes.path(i).to_owned();
    let dir = |i: usize| {
        let p = path(i);
        p.rsplit_once('/').map(|(d, _)| d.to_owned()).unwrap_or_default()
    };
    let area = |i: usize| {
        let p = path(i);
        p.split_once('/').map(|(d, _)| d.to_owned()).unwrap_or_default()
    };
    let top = |label: String| {
        if label.is_empty() {
            "top level".to_owned()
        } else {
            label
        }
    };
    let mut candidates: Vec<Split> = Vec::new();
    candidates.push(by_key(ctx, items, "by directory", |i| top(dir(i))));
    candidates.push(by_key(ctx, items, "by component", |i| {
        top(classify::component(&path(i)))
    }));
    candidates.push(by_key(ctx, items, "by area", |i| top(area(i))));
    candidates.push(by_key(ctx, items, "by layer", |i| {
        layer(classify::category(&path(i))).to_owned()
    }));
    candidates.push(by_key(ctx, items, "by original commit", |i| {
        match ctx.provenance.primary(i) {
            Some(k) => {
                let c = &ctx.commits[k];
                format!("{} {}", c.id.to_hex_with_len(7), shorten(c.subject(), 40))
            }
            None => "unknown".to_owned(),
        }
    }));
    candidates.push(by_size(ctx, items, limits));
    let mut seen: BTreeSet<BTreeSet<Vec<usize>>> = BTreeSet::new();
    let mut out: Vec<Split> = Vec::new();
    for mut split in candidates {
        keep_path_conflicts_together(ctx, &mut split);
        if split.parts.len() < 2 {
            continue;
        }
        let shape: BTreeSet<Vec<usize>> = split.parts.iter().map(|(_, items)| items.clone()).collect();
        if seen.insert(shape) {
            out.push(split);
        }
    }
    // Most split first; a stable sort keeps the strategies' order on ties.
    out.sort_by_key(|s| std::cmp::Reverse(s.parts.len()));
    out.truncate(MOST_OPTIONS);
    out
}

/// Joins the parts of `split` that hold a path at one end and the
/// directory it becomes (or was) at the other: no commit between them
/// could hold both, so no split parts them.
fn keep_path_conflicts_together(ctx: &Context<'_>, split: &mut Split) {
    let mut part_of: BTreeMap<usize, usize> = BTreeMap::new();
    for (p, (_, items)) in split.parts.iter().enumerate() {
        for &i in items {
            part_of.insert(i, p);
        }
    }
    let mut union = Union::new(split.parts.len());
    let conflicts = group::path_conflicts(ctx.changes).into_iter();
    for (a, b, _) in conflicts.chain(group::submodule_entries(ctx.changes)) {
        if let (Some(&pa), Some(&pb)) = (part_of.get(&a), part_of.get(&b)) {
            union.join(pa, pb);
        }
    }
    // Each joined part where its first part was.
    let mut at: BTreeMap<usize, usize> = BTreeMap::new();
    let mut parts: Vec<(String, Vec<usize>)> = Vec::new();
    for (p, (label, items)) in split.parts.drain(..).enumerate() {
        let root = union.find(p);
        match at.get(&root) {
            Some(&k) => {
                let (into, held) = &mut parts[k];
                into.push_str(" + ");
                into.push_str(&label);
                held.extend(items);
                held.sort_unstable();
            }
            None => {
                at.insert(root, parts.len());
                parts.push((label, items));
            }
        }
    }
    split.parts = parts;
}

fn layer(category: Category) -> &'static str {
    match category {
        Category::Build => "build and dependencies",
        Category::Config => "configuration",
        Category::Schema => "schema",
        Category::Source => "core source",
        Category::Interface => "interfaces",
        Category::Test => "tests",
        Category::Docs => "docs",
    }
}

fn shorten(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(width - 1).collect();
        format!("{cut}…")
    }
}

fn by_key(ctx: &Context<'_>, items: &[usize], how: &'static str, key: impl Fn(usize) -> String) -> Split {
    let mut parts: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for &i in items {
        parts.entry(key(i)).or_default().push(i);
    }
    ordered(ctx, how, parts.into_iter().collect())
}

/// Consecutive files (by path) in parts within the limits; a file alone
/// over them is a part of its own.
fn by_size(ctx: &Context<'_>, items: &[usize], limits: Limits) -> Split {
    let mut files: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &i in items {
        files.entry(ctx.changes.path(i)).or_default().push(i);
    }
    let mut parts: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for file_items in files.values() {
        let mut candidate = current.clone();
        candidate.extend(file_items);
        if !current.is_empty() && size(ctx, &candidate).over(limits) {
            parts.push(std::mem::take(&mut current));
            current.extend(file_items);
        } else {
            current = candidate;
        }
    }
    if !current.is_empty() {
        parts.push(current);
    }
    let labelled = parts
        .into_iter()
        .enumerate()
        .map(|(n, p)| {
            let first = ctx.changes.path(p[0]).to_owned();
            (format!("part {} from {}", n + 1, first), p)
        })
        .collect();
    ordered(ctx, "by size", labelled)
}

/// Puts a split's parts in commit order. Ordering may join parts or move a
/// piece between them (`order`): a part is labelled by the parts most of
/// whose items it holds (else by the one it holds most of).
fn ordered(ctx: &Context<'_>, how: &'static str, parts: Vec<(String, Vec<usize>)>) -> Split {
    let groups: Vec<Vec<usize>> = parts.iter().map(|(_, p)| sorted(p)).collect();
    let parts = order::order(ctx, groups)
        .into_iter()
        .map(|p| (label_for(&parts, &p), p))
        .collect();
    Split { how, parts }
}

/// The label of an ordered part `p` made from the labelled `parts`.
fn label_for(parts: &[(String, Vec<usize>)], p: &[usize]) -> String {
    let held = |items: &[usize]| items.iter().filter(|i| p.binary_search(i).is_ok()).count();
    let most: Vec<&str> = parts
        .iter()
        .filter(|(_, items)| held(items) * 2 > items.len())
        .map(|(label, _)| label.as_str())
        .collect();
    if most.is_empty() {
        parts
            .iter()
            .max_by_key(|(_, items)| held(items))
            .map(|(label, _)| label.clone())
            .unwrap_or_default()
    } else {
        most.join(" and ")
    }
}

fn sorted(items: &[usize]) -> Vec<usize> {
    let mut v = items.to_vec();
    v.sort_unstable();
    v
}

/// `Three commits by layer - (1) core source (4 files, 210 lines), (2) tests (2 files, 80 lines), …`
pub fn describe(ctx: &Context<'_>, split: &Split) -> String {
    let parts: Vec<String> = split
        .parts
        .iter()
        .enumerate()
        .map(|(n, (label, items))| {
            let s = size(ctx, items);
            format!(
                "({}) {label} ({} {}, {} {})",
                n + 1,
                s.files,
                if s.files == 1 { "file" } else { "files" },
                s.lines,
                if s.lines == 1 { "line" } else { "lines" }
            )
        })
        .collect();
    format!(
        "{} commits {} - {}",
        count_word(split.parts.len()),
        split.how,
        parts.join(", ")
    )
}

/// `Two`, `Three`, … as the seed writes option counts.
pub fn count_word(n: usize) -> String {
    const WORDS: [&str; 13] = [
        "Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve",
    ];
    WORDS.get(n).map(|w| w.to_string()).unwrap_or_else(|| n.to_string())
}

/// The label of the option that changes nothing.
pub const KEEP: &str = "Keep as one commit";
