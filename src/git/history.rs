//! History: walking commits and finding where lines of history meet.

use std::collections::{HashMap, HashSet};

use anyhow::{Context as _, Result};

use super::objects::BranchCommit;
use super::repo::{Oid, Repo};

impl Repo {
    /// The best common ancestor of `a` and `b` (`git merge-base a b`).
    pub fn merge_base(&self, a: Oid, b: Oid) -> Result<Option<Oid>> {
        self.inner
            .merge_base(a, b)
            .map(|id| id.map(|id| id.detach()))
            .with_context(|| format!("cannot find the merge base of {a} and {b}"))
    }

    /// The commits reachable from `tip` but not from `base` (`git rev-list
    /// base..tip`), parents before children; ties (parallel lines of a
    /// merged branch) by author time, then id, so the order is stable.
    pub fn branch_commits(&self, base: Oid, tip: Oid) -> Result<Vec<BranchCommit>> {
        let walk = self
            .inner
            .rev_walk([tip])
            .with_hidden([base])
            .all()
            .with_context(|| format!("cannot walk history from {tip}"))?;
        let mut commits = HashMap::new();
        for info in walk {
            let info = info.context("cannot walk history")?;
            let commit = self.branch_commit(info.id)?;
            commits.insert(commit.id, commit);
        }
        // Kahn's algorithm over the parent links inside the set.
        let ids: HashSet<Oid> = commits.keys().copied().collect();
        let mut waiting: HashMap<Oid, usize> = HashMap::new();
        let mut children: HashMap<Oid, Vec<Oid>> = HashMap::new();
        for commit in commits.values() {
            let inside: Vec<Oid> = commit.parents.iter().copied().filter(|p| ids.contains(p)).collect();
            waiting.insert(commit.id, inside.len());
            for parent in inside {
                children.entry(parent).or_default().push(commit.id);
            }
        }
        let key = |id: &Oid| (commits[id].author.time, *id);
        let mut ready: Vec<Oid> = waiting.iter().filter(|(_, n)| **n == 0).map(|(id, _)| *id).collect();
        let mut order = Vec::with_capacity(commits.len());
        while !ready.is_empty() {
            ready.sort_by_key(|id| std::cmp::Reverse(key(id)));
            let next = ready.pop().expect("not empty");
            order.push(next);
            for child in children.get(&next).into_iter().flatten() {
                let n = waiting.get_mut(child).expect("known commit");
                *n -= 1;
                if *n == 0 {
                    ready.push(*child);
                }
            }
        }
        Ok(order
            .into_iter()
            .map(|id| commits.remove(&id).expect("known commit"))
            .collect())
    }

    /// Those of `wanted` that are neither `tip` nor its ancestors, in the
    /// order given; one walk from `tip`, ending once every one is found.
    pub fn not_reachable(&self, tip: Option<Oid>, wanted: &[Oid]) -> Result<Vec<Oid>> {
        let mut left: std::collections::HashSet<Oid> = wanted.iter().copied().collect();
        if let (Some(tip), false) = (tip, left.is_empty()) {
            let walk = self
                .inner
                .rev_walk([tip])
                .all()
                .with_context(|| format!("cannot walk history from {tip}"))?;
            for info in walk {
                let info = info.context("cannot walk history")?;
                left.remove(&info.id);
                if left.is_empty() {
                    break;
                }
            }
        }
        Ok(wanted.iter().copied().filter(|id| left.contains(id)).collect())
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    pub fn is_ancestor(&self, ancestor: Oid, descendant: Oid) -> Result<bool> {
        if ancestor == descendant {
            return Ok(true);
        }
        let walk = self
            .inner
            .rev_walk([descendant])
            .all()
            .with_context(|| format!("cannot walk history from {descendant}"))?;
        for info in walk {
            let info = info.context("cannot walk history")?;
            if info.id == ancestor {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The commits reachable from `tip` but from none of `hidden` (those
    /// this repository lacks are ignored), newest first: what a push of `tip`
    /// adds to a remote whose references are `hidden`. A shallow clone's
    /// walk stops at its boundary.
    pub fn commits_between(&self, tip: Oid, hidden: &[Oid]) -> Result<Vec<Oid>> {
        let hidden: Vec<Oid> = hidden.iter().copied().filter(|h| self.has_object(*h)).collect();
        let walk = self
            .inner
            .rev_walk([tip])
            .with_hidden(hidden)
            .all()
            .with_context(|| format!("cannot walk history from {tip}"))?;
        let mut out = Vec::new();
        for info in walk {
            let info = info.with_context(|| format!("cannot walk history from {tip}"))?;
            out.push(info.id);
        }
        Ok(out)
    }
}
