//! Which branch commits are one unit of work before anything is grouped:
//! `fixup!`/`squash!`/`amend!` commits folded into the commit they name
//! ([`fold`]), over a disjoint-set forest ([`Union`]) grouping also uses.
//! It reads only the commits and their kinds, so the context and the
//! units both build on it.

use crate::historian::message::{self, Kind};

/// A disjoint-set forest over `0..n`, always keeping the smallest index as
/// the root so results do not depend on the order of unions.
pub(crate) struct Union {
    parent: Vec<usize>,
}

impl Union {
    pub(crate) fn new(n: usize) -> Union {
        Union {
            parent: (0..n).collect(),
        }
    }

    pub(crate) fn find(&mut self, x: usize) -> usize {
        let mut root = x;
        while self.parent[root] != root {
            root = self.parent[root];
        }
        let mut at = x;
        while self.parent[at] != root {
            let next = self.parent[at];
            self.parent[at] = root;
            at = next;
        }
        root
    }

    pub(crate) fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (low, high) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[high] = low;
        }
    }
}

/// Each branch commit's unit: `fixup!`/`squash!`/`amend!` commits join the
/// latest earlier commit with the subject they name; every other commit is
/// its own.
pub(super) fn fold(commits: &[crate::git::BranchCommit], kinds: &[Kind]) -> Vec<usize> {
    let n = commits.len();
    let mut folded = Union::new(n);
    for (k, kind) in kinds.iter().enumerate() {
        if let Kind::FixupOf(target) = kind {
            let wanted = message::parse_subject(target).summary;
            let found = (0..k).rev().find(|&j| {
                let subject = commits[j].subject();
                subject == target
                    || (!wanted.is_empty() && message::parse_subject(subject).summary == wanted)
                    || subject.starts_with(target.as_str())
            });
            if let Some(j) = found {
                folded.join(j, k);
            }
        }
    }
    (0..n).map(|k| folded.find(k)).collect()
}
