//! Provenance (DESIGN §10.2): which commits of the branch each change item
//! comes from — a blame restricted to the branch.
//!
//! Every file of the change set is followed through the branch's commits
//! (across renames). A file one commit touched belongs to that commit. For a
//! text file several commits touched, each line is traced: a tip line comes
//! from the commit that wrote it, a removed base line from the commit that
//! removed it. When a commit rewrites lines another commit of the branch
//! wrote, it *amends* that commit — the signal that folds a "fix typo"
//! commit into the one it fixes.

use std::collections::{BTreeMap, HashMap};

use anyhow::Result;
use similar::DiffOp;

use crate::git::{BranchCommit, Delta, Entry, EntryKind, Renames, Repo};

use super::items::ChangeSet;
use super::lines;

/// Where the branch's commits put each change item.
#[derive(Clone, Debug, Default)]
pub struct Provenance {
    /// For each item: the commits (indices into the branch's commits) its
    /// lines come from, with how many lines, heaviest first.
    pub items: Vec<Vec<(usize, u32)>>,
    /// For each file of the change set: the commits that touched it, in order.
    pub touches: Vec<Vec<usize>>,
    /// For each file: `(k, j) → n` when commit `k` rewrote or removed `n`
    /// lines that commit `j` had written.
    pub amends: Vec<BTreeMap<(usize, usize), u32>>,
}

impl Provenance {
    /// The commit most of the item's lines come from.
    pub fn primary(&self, item: usize) -> Option<usize> {
        self.items[item].first().map(|(c, _)| *c)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Line `n` of the base version.
    Base(usize),
    /// Written by the branch's commit `k`.
    Commit(usize),
}

/// Traces the items of `changes` through `commits` (the branch, oldest first).
pub fn trace(repo: &Repo, changes: &ChangeSet, commits: &[BranchCommit]) -> Result<Provenance> {
    let mut trees: HashMap<crate::git::Oid, crate::git::Oid> = commits.iter().map(|c| (c.id, c.tree)).collect();
    let mut deltas = Vec::with_capacity(commits.len());
    for commit in commits {
        let parent_tree = match commit.parents.first() {
            Some(p) => match trees.get(p) {
                Some(t) => *t,
                None => {
                    let t = repo.commit_tree(*p)?;
                    trees.insert(*p, t);
                    t
                }
            },
            None => repo.empty_tree(),
        };
        deltas.push(repo.tree_deltas(parent_tree, commit.tree, Renames::On)?);
    }

    // Follow each file's path backwards from the tip through renames.
    let mut alias: HashMap<&str, usize> = changes
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let mut touches: Vec<Vec<(usize, &Delta)>> = vec![Vec::new(); changes.files.len()];
    for (k, commit_deltas) in deltas.iter().enumerate().rev() {
        for delta in commit_deltas {
            let Some(&file) = alias.get(delta.path()) else { continue };
            touches[file].push((k, delta));
            if let Delta::Renamed { from, to, copy, .. } = delta {
                alias.remove(to.as_str());
                if !copy {
                    alias.insert(from.as_str(), file);
                }
            }
        }
    }
    for t in &mut touches {
        t.reverse();
    }

    let mut provenance = Provenance {
        items: vec![Vec::new(); changes.items.len()],
        touches: touches.iter().map(|t| t.iter().map(|(k, _)| *k).collect()).collect(),
        amends: vec![BTreeMap::new(); changes.files.len()],
    };
    let mut items_of: Vec<Vec<usize>> = vec![Vec::new(); changes.files.len()];
    for (i, item) in changes.items.iter().enumerate() {
        items_of[item.file].push(i);
    }
    let last_commit = commits.len().saturating_sub(1);
    for (f, file_touches) in touches.iter().enumerate() {
        let fallback: Vec<(usize, u32)> = match file_touches.last() {
            Some((k, _)) => vec![(*k, 1)],
            None => vec![(last_commit, 1)],
        };
        if file_touches.len() <= 1 {
            for &i in &items_of[f] {
                let lines = changes.items[i].lines.max(1) as u32;
                provenance.items[i] = vec![(fallback[0].0, lines)];
            }
            continue;
        }
        match trace_lines(repo, changes, f, file_touches)? {
            Some(traced) => {
                for &i in &items_of[f] {
                    let weights = traced.weights(changes, i);
                    provenance.items[i] = if weights.is_empty() { fallback.clone() } else { weights };
                }
                provenance.amends[f] = traced.amends;
            }
            None => {
                // Not text: the commit that gave the file its final state
                // weighs most, the others count once.
                let mut weights: BTreeMap<usize, u32> = BTreeMap::new();
                for (k, _) in file_touches {
                    *weights.entry(*k).or_default() = 1;
                }
                if let Some((k, _)) = file_touches.last() {
                    weights.insert(*k, 2);
                }
                for &i in &items_of[f] {
                    provenance.items[i] = sorted(weights.clone());
                }
            }
        }
    }
    Ok(provenance)
}

struct Traced {
    /// Origin of each tip line.
    origins: Vec<Origin>,
    /// The commit that removed each base line.
    removed_by: Vec<Option<usize>>,
    amends: BTreeMap<(usize, usize), u32>,
}

impl Traced {
    fn weights(&self, changes: &ChangeSet, item: usize) -> Vec<(usize, u32)> {
        let it = &changes.items[item];
        let file = &changes.files[it.file];
        let (old, new) = match it.hunk {
            Some(h) => (file.hunks[h].old.clone(), file.hunks[h].new.clone()),
            None => (0..self.removed_by.len(), 0..self.origins.len()),
        };
        let mut weights: BTreeMap<usize, u32> = BTreeMap::new();
        for k in self.removed_by[old.start.min(self.removed_by.len())..old.end.min(self.removed_by.len())]
            .iter()
            .flatten()
        {
            *weights.entry(*k).or_default() += 1;
        }
        for origin in &self.origins[new.start.min(self.origins.len())..new.end.min(self.origins.len())] {
            if let Origin::Commit(k) = origin {
                *weights.entry(*k).or_default() += 1;
            }
        }
        sorted(weights)
    }
}

fn sorted(weights: BTreeMap<usize, u32>) -> Vec<(usize, u32)> {
    let mut v: Vec<(usize, u32)> = weights.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

fn text(repo: &Repo, entry: Option<Entry>) -> Result<Option<Vec<u8>>> {
    match entry {
        None => Ok(Some(Vec::new())),
        Some(e) if matches!(e.kind, EntryKind::Blob | EntryKind::Executable | EntryKind::Link) => {
            let data = repo.read_blob(e.id)?;
            Ok((!lines::is_binary(&data)).then_some(data))
        }
        Some(_) => Ok(None),
    }
}

/// Line-by-line origins of file `f`, or `None` when a version is not text.
fn trace_lines(repo: &Repo, changes: &ChangeSet, f: usize, touches: &[(usize, &Delta)]) -> Result<Option<Traced>> {
    let file = &changes.files[f];
    let Some(mut current) = text(repo, file.old)? else {
        return Ok(None);
    };
    let base_lines = lines::split_lines(&current).len();
    let mut origins: Vec<Origin> = (0..base_lines).map(Origin::Base).collect();
    let mut removed_by = vec![None; base_lines];
    let mut amends = BTreeMap::new();
    let mut step = |current: &[u8], next: &[u8], k: usize, origins: &mut Vec<Origin>| {
        let (a, b) = (lines::split_lines(current), lines::split_lines(next));
        let mut carried = Vec::with_capacity(b.len());
        let mut remove = |range: std::ops::Range<usize>, origins: &[Origin]| {
            for origin in &origins[range] {
                match *origin {
                    Origin::Base(i) => removed_by[i] = Some(k),
                    Origin::Commit(j) if j != k => *amends.entry((k, j)).or_insert(0) += 1,
                    Origin::Commit(_) => {}
                }
            }
        };
        for op in lines::diff_ops(&a, &b) {
            match op {
                DiffOp::Equal { old_index, len, .. } => carried.extend_from_slice(&origins[old_index..old_index + len]),
                DiffOp::Delete { old_index, old_len, .. } => remove(old_index..old_index + old_len, origins),
                DiffOp::Insert { new_len, .. } => carried.extend(std::iter::repeat_n(Origin::Commit(k), new_len)),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_len,
                    ..
                } => {
                    remove(old_index..old_index + old_len, origins);
                    carried.extend(std::iter::repeat_n(Origin::Commit(k), new_len));
                }
            }
        }
        *origins = carried;
    };
    for (k, delta) in touches {
        let Some(next) = text(repo, delta.new_entry())? else {
            return Ok(None);
        };
        step(&current, &next, *k, &mut origins);
        current = next;
    }
    // The path chain may miss a step (a rename git and gix pair
    // differently): whatever still differs from the tip is the last
    // touching commit's.
    let Some(tip) = text(repo, file.new)? else {
        return Ok(None);
    };
    if tip != current {
        let last = touches.last().map(|(k, _)| *k).unwrap_or(0);
        step(&current, &tip, last, &mut origins);
    }
    Ok(Some(Traced {
        origins,
        removed_by,
        amends,
    }))
}
