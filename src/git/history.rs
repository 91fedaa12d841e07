//! What git-historian asks of git: the commits of a branch, merge bases, tree
//! diffs with renames and copies, trees built from explicit entries
//! (submodules included), commits written with a given author, and detached
//! worktrees for checking each new commit.
//!
//! Nothing here moves `HEAD`, the index or the working tree of the
//! repository: trees and commits are objects, and the only references written
//! are the ones a caller names.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use gix::bstr::ByteSlice;

use super::repo::{kind, EntryKind, Oid, Repo};

/// A tree entry: what a path holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    pub id: Oid,
    pub kind: EntryKind,
}

/// One difference between two trees, by file (never by directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delta {
    Added {
        path: String,
        new: Entry,
    },
    Deleted {
        path: String,
        old: Entry,
    },
    /// Same path, different contents or kind.
    Modified {
        path: String,
        old: Entry,
        new: Entry,
    },
    /// `from` became `to` (a rename: `from` is gone), or `to` was made from
    /// `from` (a copy: `from` stays).
    Renamed {
        from: String,
        to: String,
        old: Entry,
        new: Entry,
        copy: bool,
    },
}

impl Delta {
    /// The path the change is known by: the new path, or the deleted one.
    pub fn path(&self) -> &str {
        match self {
            Delta::Added { path, .. } | Delta::Deleted { path, .. } | Delta::Modified { path, .. } => path,
            Delta::Renamed { to, .. } => to,
        }
    }

    pub fn old(&self) -> Option<Entry> {
        match self {
            Delta::Added { .. } => None,
            Delta::Deleted { old, .. } | Delta::Modified { old, .. } | Delta::Renamed { old, .. } => Some(*old),
        }
    }

    pub fn new_entry(&self) -> Option<Entry> {
        match self {
            Delta::Deleted { .. } => None,
            Delta::Added { new, .. } | Delta::Modified { new, .. } | Delta::Renamed { new, .. } => Some(*new),
        }
    }
}

/// A person and a moment, as in a commit's author line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    pub email: String,
    /// Seconds since the epoch.
    pub time: i64,
    /// Offset from UTC in seconds.
    pub offset: i32,
}

/// A commit of the branch being rewritten.
#[derive(Clone, Debug)]
pub struct BranchCommit {
    pub id: Oid,
    pub tree: Oid,
    pub parents: Vec<Oid>,
    pub message: String,
    pub author: Signature,
}

impl BranchCommit {
    /// The first line of the message.
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("").trim()
    }
}

/// How rename and copy detection runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renames {
    Off,
    /// Renames, and copies from modified files (`git diff -M -C`).
    On,
}

impl Repo {
    /// The best common ancestor of `a` and `b` (`git merge-base a b`).
    pub fn merge_base(&self, a: Oid, b: Oid) -> Result<Option<Oid>> {
        self.inner
            .merge_base(a, b)
            .map(|id| id.map(|id| id.detach()))
            .map_err(|e| anyhow!("cannot find the merge base of {a} and {b}: {e}"))
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
            .map_err(|e| anyhow!("cannot walk history from {tip}: {e}"))?;
        let mut commits = HashMap::new();
        for info in walk {
            let info = info.map_err(|e| anyhow!("cannot walk history: {e}"))?;
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

    /// One commit with its author.
    pub fn branch_commit(&self, id: Oid) -> Result<BranchCommit> {
        let commit = self
            .inner
            .find_commit(id)
            .map_err(|e| anyhow!("cannot read commit {id}: {e}"))?;
        let decoded = commit.decode().map_err(|e| anyhow!("cannot decode commit {id}: {e}"))?;
        let author = decoded
            .author()
            .map_err(|e| anyhow!("cannot read the author of {id}: {e}"))?;
        let time = author.time().unwrap_or_default();
        Ok(BranchCommit {
            id,
            tree: decoded.tree(),
            parents: decoded.parents().collect(),
            message: decoded.message.to_str_lossy().into_owned(),
            author: Signature {
                name: author.name.to_str_lossy().into_owned(),
                email: author.email.to_str_lossy().into_owned(),
                time: time.seconds,
                offset: time.offset,
            },
        })
    }

    /// The file-level differences from tree `old` to tree `new`, sorted by
    /// path. With [`Renames::On`], deletions and additions of similar files
    /// (50%, as git's default) become renames, and additions similar to a
    /// modified file become copies.
    pub fn tree_deltas(&self, old: Oid, new: Oid, renames: Renames) -> Result<Vec<Delta>> {
        if old == new {
            return Ok(Vec::new());
        }
        let old_tree = self
            .inner
            .find_tree(old)
            .map_err(|e| anyhow!("cannot read tree {old}: {e}"))?;
        let new_tree = self
            .inner
            .find_tree(new)
            .map_err(|e| anyhow!("cannot read tree {new}: {e}"))?;
        let mut options = gix::diff::Options::default();
        options.track_path();
        options.track_rewrites(match renames {
            Renames::Off => None,
            Renames::On => Some(gix::diff::Rewrites {
                copies: Some(gix::diff::rewrites::Copies::default()),
                percentage: Some(0.5),
                limit: 1000,
                track_empty: false,
            }),
        });
        let changes = self
            .inner
            .diff_tree_to_tree(&old_tree, &new_tree, options)
            .map_err(|e| anyhow!("cannot compare trees {old} and {new}: {e}"))?;
        use gix::object::tree::diff::ChangeDetached as C;
        let entry = |id: Oid, mode: gix::object::tree::EntryMode| Entry { id, kind: kind(mode) };
        let mut out = Vec::new();
        for change in changes {
            match change {
                C::Addition {
                    location,
                    entry_mode,
                    id,
                    ..
                } if !entry_mode.is_tree() => out.push(Delta::Added {
                    path: location.to_str_lossy().into_owned(),
                    new: entry(id, entry_mode),
                }),
                C::Deletion {
                    location,
                    entry_mode,
                    id,
                    ..
                } if !entry_mode.is_tree() => out.push(Delta::Deleted {
                    path: location.to_str_lossy().into_owned(),
                    old: entry(id, entry_mode),
                }),
                C::Modification {
                    location,
                    previous_entry_mode,
                    previous_id,
                    entry_mode,
                    id,
                    ..
                } => {
                    let path = location.to_str_lossy().into_owned();
                    match (previous_entry_mode.is_tree(), entry_mode.is_tree()) {
                        (false, false) => out.push(Delta::Modified {
                            path,
                            old: entry(previous_id, previous_entry_mode),
                            new: entry(id, entry_mode),
                        }),
                        // A file that became a directory (or back): its
                        // contents arrive as separate additions/deletions.
                        (false, true) => out.push(Delta::Deleted {
                            path,
                            old: entry(previous_id, previous_entry_mode),
                        }),
                        (true, false) => out.push(Delta::Added {
                            path,
                            new: entry(id, entry_mode),
                        }),
                        (true, true) => {}
                    }
                }
                C::Rewrite {
                    source_location,
                    source_entry_mode,
                    source_id,
                    entry_mode,
                    id,
                    location,
                    copy,
                    ..
                } if !entry_mode.is_tree() && !source_entry_mode.is_tree() => out.push(Delta::Renamed {
                    from: source_location.to_str_lossy().into_owned(),
                    to: location.to_str_lossy().into_owned(),
                    old: entry(source_id, source_entry_mode),
                    new: entry(id, entry_mode),
                    copy,
                }),
                _ => {}
            }
        }
        out.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(out)
    }

    /// Writes the tree `base` with `edits` applied: each path gets the entry
    /// given, or is removed for `None`. Removals go first, so a file may
    /// give way to a directory of the same name in one edit.
    pub fn build_tree(&self, base: Oid, edits: &[(String, Option<Entry>)]) -> Result<Oid> {
        use gix::object::tree::EntryKind as K;
        if edits.is_empty() {
            return Ok(base);
        }
        let mut editor = self
            .inner
            .edit_tree(base)
            .map_err(|e| anyhow!("cannot edit tree {base}: {e}"))?;
        for (path, _) in edits.iter().filter(|(_, e)| e.is_none()) {
            editor
                .remove(path.as_str())
                .map_err(|e| anyhow!("cannot remove '{path}' from a tree: {e}"))?;
        }
        for (path, entry) in edits {
            let Some(entry) = entry else { continue };
            let k = match entry.kind {
                EntryKind::Blob => K::Blob,
                EntryKind::Executable => K::BlobExecutable,
                EntryKind::Link => K::Link,
                EntryKind::Tree => K::Tree,
                EntryKind::Commit => K::Commit,
            };
            editor
                .upsert(path.as_str(), k, entry.id)
                .map_err(|e| anyhow!("cannot write '{path}' into a tree: {e}"))?;
        }
        Ok(editor
            .write()
            .map_err(|e| anyhow!("cannot write a tree: {e}"))?
            .detach())
    }

    /// Writes a commit with `author` and the configured committer (now);
    /// no reference moves.
    pub fn write_commit_as(&self, tree: Oid, parents: &[Oid], message: &str, author: &Signature) -> Result<Oid> {
        let committer = match self.inner.committer() {
            Some(Ok(sig)) => sig,
            Some(Err(e)) => bail!("cannot read the committer identity: {e}"),
            None => bail!("committer identity unknown"),
        };
        let time = gix::date::Time::new(author.time, author.offset);
        let mut buf = gix::date::parse::TimeBuf::default();
        let author = gix::actor::SignatureRef {
            name: author.name.as_bytes().as_bstr(),
            email: author.email.as_bytes().as_bstr(),
            time: time.to_str(&mut buf),
        };
        let commit = self
            .inner
            .new_commit_as(committer, author, message, tree, parents.iter().copied())
            .map_err(|e| anyhow!("cannot write a commit: {e}"))?;
        Ok(commit.id)
    }

    /// The size of a blob without reading it whole.
    pub fn blob_size(&self, id: Oid) -> Result<u64> {
        let header = self
            .inner
            .find_header(id)
            .map_err(|e| anyhow!("cannot read object {id}: {e}"))?;
        Ok(header.size())
    }

    /// Adds a detached linked worktree at `path` with `commit` checked out.
    /// gix checks out only attached branches, so git does it; hooks are off.
    pub fn add_detached_worktree(&self, path: &Path, commit: Oid) -> Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| anyhow!("cannot create '{}': {e}", parent.display()))?;
        }
        let hex = commit.to_string();
        let out = self.git_plain(&["worktree", "add", "--detach", "--quiet"], Some(path), &[&hex])?;
        if !out.status.success() {
            bail!(
                "cannot add a worktree at '{}': {}",
                path.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    }

    /// Checks `commit` out in the linked worktree at `path` (detached), with
    /// git (gix cannot move a working tree from one tree to another).
    pub fn checkout_detached(&self, worktree: &Path, commit: Oid) -> Result<()> {
        let git = which::which("git").map_err(|_| anyhow!("git is not on PATH"))?;
        let out = std::process::Command::new(git)
            .arg("-C")
            .arg(worktree)
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "checkout",
                "--quiet",
                "--force",
                "--detach",
            ])
            .arg(commit.to_string())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .map_err(|e| anyhow!("cannot run git checkout: {e}"))?;
        if !out.status.success() {
            bail!(
                "cannot check out {commit} in '{}': {}",
                worktree.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let out = std::process::Command::new(which::which("git").map_err(|_| anyhow!("git is not on PATH"))?)
            .arg("-C")
            .arg(worktree)
            .args(["clean", "-q", "-f", "-d", "-x"])
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .map_err(|e| anyhow!("cannot run git clean: {e}"))?;
        if !out.status.success() {
            bail!(
                "cannot clean the worktree '{}': {}",
                worktree.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    }

    /// `git <args> <path> <rest>` against this repository without a work
    /// tree of its own (worktree commands find the common directory).
    fn git_plain(&self, args: &[&str], path: Option<&Path>, rest: &[&str]) -> Result<std::process::Output> {
        let git = which::which("git").map_err(|_| anyhow!("git is not on PATH"))?;
        let mut cmd = std::process::Command::new(git);
        cmd.arg("--git-dir")
            .arg(self.git_dir())
            .args(["-c", "core.hooksPath=/dev/null"])
            .args(args);
        if let Some(path) = path {
            cmd.arg(path);
        }
        cmd.args(rest);
        cmd.env_remove("GIT_INDEX_FILE").env_remove("GIT_WORK_TREE");
        cmd.output()
            .map_err(|e| anyhow!("cannot run git {}: {e}", args.join(" ")))
    }
}
