//! Line history: which commits behind the base last wrote the lines each
//! hunk changes — `git blame` at the base, for those lines only. Two hunks
//! whose lines come from unrelated past commits (none in common) are
//! evidence of two pieces of work, in one file or two.
//!
//! Read from the base's history only (what the real input has): the lines
//! a hunk changes or deletes at the base, and for a pure insertion the
//! [`CONTEXT`] lines either side of where it goes. One walk of the first
//! parents behind the base (as change coupling reads them, and no further
//! than its `limit`), diffing a file only in the commits that changed it,
//! and ending once every line is placed; a line older than the walk, or
//! written by the repository's first commit (or a shallow clone's oldest),
//! is unknown and says nothing: a first commit wrote everything. A merge
//! counts as the commit that brought in its side's lines. Renames are not
//! followed: a file that did not exist in a commit's parent was written
//! there, lines and all.
//!
//! Bounded and linear: each file is diffed at most once per commit read,
//! files larger than [`LARGEST_BLAMED`] are not followed, and the work per
//! diff is the file's size.

use std::collections::HashMap;

use anyhow::Result;

use crate::git::{Oid, Renames, Repo};

use super::items::{ChangeSet, Status};
use super::lines::{diff_ops, is_binary, split_lines};

/// The lines either side of a pure insertion that stand for it: git's own
/// default context.
pub const CONTEXT: usize = 3;

/// Files larger than this (at the base) are not followed: a bound, not a
/// tuning (a diff per commit that changed them).
pub const LARGEST_BLAMED: usize = 1 << 20;

/// For each item of a change set, the past commits that last wrote the
/// base lines it touches.
#[derive(Clone, Debug, Default)]
pub struct LineHistory {
    /// For each item: the past commits that last wrote its lines (each
    /// counted by the order it was met, newest first), ascending.
    pub items: Vec<Vec<u32>>,
    /// How many past commits that changed a followed file were met.
    pub commits: u32,
}

impl LineHistory {
    /// Whether some past commit last wrote lines of both `a` and `b` (sets
    /// of items); `None` when either has no line of known history.
    pub fn in_common(&self, a: &[usize], b: &[usize]) -> Option<bool> {
        Some(share_a_writer(&self.writers(a)?, &self.writers(b)?))
    }

    /// The past commits that last wrote known lines of `items`, sorted;
    /// `None` when none is known.
    pub fn writers(&self, items: &[usize]) -> Option<Vec<u32>> {
        let mut out: Vec<u32> = items
            .iter()
            .flat_map(|&i| self.items.get(i).into_iter().flatten().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        (!out.is_empty()).then_some(out)
    }
}

/// Whether two sorted lists of [`LineHistory::writers`] hold a commit in
/// common.
pub fn share_a_writer(a: &[u32], b: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// A file being followed back: its blob in the commit being read, and its
/// tracked lines there (line, item), by line.
struct Followed {
    blob: Oid,
    text: Vec<u8>,
    lines: Vec<(usize, usize)>,
}

/// Reads the line history of `changes`' hunks from the `limit` commits
/// behind the base.
pub fn read(repo: &Repo, changes: &ChangeSet, limit: usize) -> Result<LineHistory> {
    let mut history = LineHistory {
        items: vec![Vec::new(); changes.items.len()],
        commits: 0,
    };
    let mut followed: HashMap<String, Followed> = HashMap::new();
    for (i, item) in changes.items.iter().enumerate() {
        let (file, Some(h)) = (&changes.files[item.file], item.hunk) else {
            continue;
        };
        let Some(old) = file.old.filter(|_| file.status == Status::Modified) else {
            continue;
        };
        let hunk = &file.hunks[h];
        let entry = followed.entry(file.path.clone()).or_insert(Followed {
            blob: old.id,
            text: Vec::new(),
            lines: Vec::new(),
        });
        let range = if hunk.old.is_empty() {
            hunk.old.start.saturating_sub(CONTEXT)..hunk.old.start + CONTEXT
        } else {
            hunk.old.clone()
        };
        entry.lines.extend(range.map(|l| (l, i)));
    }
    // Lines past the end (an insertion's context at the end of the file)
    // and files too large to follow are dropped once their text is read.
    followed.retain(|_, f| {
        let Ok(data) = repo.read_blob(f.blob) else { return false };
        if data.len() > LARGEST_BLAMED || is_binary(&data) {
            return false;
        }
        let count = split_lines(&data).len();
        f.lines.retain(|&(l, _)| l < count);
        f.lines.sort_unstable();
        f.lines.dedup();
        f.text = data;
        !f.lines.is_empty()
    });
    if limit == 0 || followed.is_empty() {
        return Ok(history);
    }
    let mut next = Some(changes.base);
    let mut read = 0;
    while let Some(id) = next {
        if read >= limit || followed.is_empty() {
            break;
        }
        read += 1;
        let commit = repo.commit_info(id)?;
        // First parents only; the history ends at the first commit (or a
        // shallow clone's oldest), and there the lines stay unknown.
        let Some(parent) = commit.parents.first().copied().filter(|p| repo.has_object(*p)) else {
            break;
        };
        next = Some(parent);
        let deltas = repo.tree_deltas(repo.commit_tree(parent)?, commit.tree, Renames::Off)?;
        let touched: Vec<_> = deltas.iter().filter(|d| followed.contains_key(d.path())).collect();
        if touched.is_empty() {
            continue;
        }
        let at = history.commits;
        history.commits += 1;
        for delta in touched {
            let path = delta.path().to_owned();
            let f = followed.get_mut(&path).expect("followed");
            let before = match delta.old() {
                Some(old) => Some((old.id, repo.read_blob(old.id)?)),
                None => None,
            };
            let written = match &before {
                Some((_, data)) if !is_binary(data) && data.len() <= LARGEST_BLAMED => {
                    follow_back(&split_lines(data), &split_lines(&f.text), &mut f.lines)
                }
                // Created here (or not text before): every line is its.
                _ => std::mem::take(&mut f.lines),
            };
            for (_, item) in written {
                // Commits are met in order: a writer is new or the last one.
                let writers = &mut history.items[item];
                if writers.last() != Some(&at) {
                    writers.push(at);
                }
            }
            match before {
                Some((blob, data)) if !f.lines.is_empty() => {
                    f.blob = blob;
                    f.text = data;
                }
                _ => {
                    followed.remove(&path);
                }
            }
        }
    }
    Ok(history)
}

/// Moves `lines` (line in `after`, item; by line) to their places in
/// `before`, returning those `after` added (written by the commit between).
fn follow_back(before: &[&[u8]], after: &[&[u8]], lines: &mut Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let ops = diff_ops(before, after);
    let mut written = Vec::new();
    let mut kept = Vec::with_capacity(lines.len());
    let mut op = 0;
    for &(l, item) in lines.iter() {
        while op < ops.len() && ops[op].new_range().end <= l {
            op += 1;
        }
        match ops.get(op) {
            Some(similar::DiffOp::Equal {
                old_index, new_index, ..
            }) => kept.push((old_index + (l - new_index), item)),
            _ => written.push((l, item)),
        }
    }
    kept.sort_unstable();
    *lines = kept;
    written
}

#[cfg(test)]
#[path = "line_history_tests.rs"]
mod tests;
