//! Change coupling: files that changed together before the branch began
//! probably belong together now. Read from the history behind the base —
//! the last commits (first 500, merges and sweeping commits of more than 40
//! files left out: counting every two files of such a commit would cost
//! the square of its files) — and kept only for the files
//! the branch changes. Deterministic: the same base gives
//! the same counts. In a shallow clone the walk ends at the boundary.

use std::collections::HashMap;

use anyhow::Result;

use crate::git::{Oid, Renames, Repo};

use super::items::ChangeSet;
use super::line_history::LineHistory;

/// How many commits behind the base are read.
pub const HISTORY: usize = 500;
/// Commits touching more files than this couple nothing: a bound, not a
/// tuning — each commit read counts every two of the changed files it
/// touches, so a sweeping commit (a reformat of 20,000 files) would cost
/// the square of its files. (Leaving it out changed the evaluation's
/// held-out half by −0.0003 neutral, −0.0009 joined.)
const SWEEPING: usize = 40;

/// Co-change counts of the change set's files.
#[derive(Clone, Debug, Default)]
pub struct Coupling {
    /// Commits (of those read) touching each file.
    pub touched: Vec<u32>,
    /// Commits touching both files of a pair (smaller index first).
    pub together: HashMap<(usize, usize), u32>,
    /// The commits that last wrote the lines each hunk touches
    /// (`line_history`): read apart, empty unless asked for.
    pub lines: LineHistory,
}

impl Coupling {
    /// How strongly `a` and `b` changed together: the share of the commits
    /// touching the less-touched one that touched both, when they did so at
    /// least twice; 0 otherwise.
    pub fn strength(&self, a: usize, b: usize) -> f64 {
        let key = if a < b { (a, b) } else { (b, a) };
        let both = self.together.get(&key).copied().unwrap_or(0);
        if both < 2 {
            return 0.0;
        }
        let (ta, tb) = (self.touched[a], self.touched[b]);
        f64::from(both) / f64::from(ta.min(tb).max(1))
    }
}

/// Reads the coupling of `changes`' files from the history behind `base`.
pub fn read(repo: &Repo, changes: &ChangeSet, limit: usize) -> Result<Coupling> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, file) in changes.files.iter().enumerate() {
        index.insert(file.path.as_str(), i);
        if let Some(old) = file.old_path() {
            index.entry(old).or_insert(i);
        }
    }
    let mut coupling = Coupling {
        touched: vec![0; changes.files.len()],
        together: HashMap::new(),
        lines: LineHistory::default(),
    };
    if limit == 0 || changes.files.len() < 2 {
        return Ok(coupling);
    }
    let mut queue: Vec<Oid> = vec![changes.base];
    let mut seen = std::collections::HashSet::new();
    let mut read = 0;
    // First parents only: the line of work the branch grew from.
    while let Some(id) = queue.pop() {
        if read >= limit || !seen.insert(id) {
            continue;
        }
        let commit = repo.commit_info(id)?;
        // A shallow clone's history ends at a commit whose parent it lacks.
        let parent = commit.parents.first().copied().filter(|p| repo.has_object(*p));
        if let Some(parent) = parent {
            queue.push(parent);
        }
        if commit.parents.len() != 1 || parent.is_none() {
            continue;
        }
        read += 1;
        let parent_tree = repo.commit_tree(commit.parents[0])?;
        let deltas = repo.tree_deltas(parent_tree, commit.tree, Renames::Off)?;
        if deltas.len() > SWEEPING {
            continue;
        }
        let mut files: Vec<usize> = deltas.iter().filter_map(|d| index.get(d.path()).copied()).collect();
        files.sort_unstable();
        files.dedup();
        for (n, &a) in files.iter().enumerate() {
            coupling.touched[a] += 1;
            for &b in &files[n + 1..] {
                *coupling.together.entry((a, b)).or_default() += 1;
            }
        }
    }
    Ok(coupling)
}
