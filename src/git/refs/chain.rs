//! A reference as an append-only commit chain: each record is one commit
//! whose tree is the previous tree plus the record's files, and the reference
//! moves by compare-and-swap, retried on contention so that concurrent writers
//! never lose a record. Two chains that diverged merge as the union of their
//! files. Knows nothing of what the files mean.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use super::{Expect, RefConflict};
use crate::git::objects::{entry_edit, EntryKind, TreeEdit};
use crate::git::repo::{Oid, Repo};

/// How long an append keeps retrying a reference other writers keep moving.
const CONTENTION_LIMIT: Duration = Duration::from_secs(30);

/// What [`Repo::append_to_chain`] needs to build one record from the current
/// tip: the tip's tree (`None` before the first record) in, the edits out.
/// Called again after each lost race, on the fresh tip.
pub type BuildRecord<'a> = dyn FnMut(&Repo, Option<Oid>) -> Result<Vec<TreeEdit>> + 'a;

/// The result of merging two chains.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainMerge {
    /// The commit holding both histories (one of the two when one contains the other).
    pub commit: Oid,
    /// Paths both sides hold with different contents; ours was kept.
    pub conflicts: Vec<String>,
}

impl Repo {
    /// Appends one record to the chain at `ref_name`: `build` turns the
    /// current tip's tree into edits, they are committed on top of the tip
    /// with `message`, and the reference moves only if it still points at
    /// that tip. A lost race (or a reference locked by another writer) reads
    /// the new tip and builds again, with a short randomised pause, until
    /// [`CONTENTION_LIMIT`]. Returns the new tip.
    pub fn append_to_chain(&self, ref_name: &str, message: &str, build: &mut BuildRecord<'_>) -> Result<Oid> {
        let start = Instant::now();
        let _turn = WritersTurn::take(self.common_dir());
        let mut tries: u64 = 0;
        loop {
            let tip = self.read_ref(ref_name)?;
            let base_tree = match tip {
                Some(commit) => Some(self.commit_tree(commit)?),
                None => None,
            };
            let edits = build(self, base_tree)?;
            let tree = self.edit_tree(base_tree, &edits)?;
            let parents: Vec<Oid> = tip.into_iter().collect();
            let commit = self.write_commit(tree, &parents, message)?;
            let expect = match tip {
                Some(tip) => Expect::Value(tip),
                None => Expect::Absent,
            };
            match self.update_ref(ref_name, commit, expect, message) {
                Ok(()) => return Ok(commit),
                Err(err) if is_contention(&err) && start.elapsed() < CONTENTION_LIMIT => {
                    tries += 1;
                    std::thread::sleep(backoff(tries));
                }
                Err(err) if is_contention(&err) => {
                    return Err(anyhow!(
                        "gave up writing '{ref_name}' after {tries} tries in {:.0?}: other writers keep moving it",
                        start.elapsed()
                    ))
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// Merges two chains as the union of their files: when one contains the
    /// other, the newer one; else a merge commit (parents ours, theirs) whose
    /// tree holds every file of both. A path both hold with different
    /// contents keeps ours and is named in [`ChainMerge::conflicts`].
    pub fn merge_chains(&self, ours: Oid, theirs: Oid, message: &str) -> Result<ChainMerge> {
        let union = self.chain_union(ours, theirs)?;
        let commit = self.write_union(ours, theirs, &union, message)?;
        Ok(ChainMerge {
            commit,
            conflicts: union.conflicts,
        })
    }

    /// How two chains meet, file by file: how they are related, the files
    /// of theirs ours lacks, and the paths both hold differently.
    pub fn chain_union(&self, ours: Oid, theirs: Oid) -> Result<ChainUnion> {
        let relation = if ours == theirs {
            ChainRelation::Same
        } else if self.is_ancestor(theirs, ours)? {
            ChainRelation::OursContainsTheirs
        } else if self.is_ancestor(ours, theirs)? {
            ChainRelation::TheirsContainsOurs
        } else {
            ChainRelation::Diverged
        };
        let ours_tree = self.commit_tree(ours)?;
        let (mut missing, mut conflicts) = (Vec::new(), Vec::new());
        if relation != ChainRelation::Same && relation != ChainRelation::OursContainsTheirs {
            let our_files: HashMap<String, (Oid, EntryKind)> = self
                .tree_files(ours_tree)?
                .into_iter()
                .map(|(path, id, kind)| (path, (id, kind)))
                .collect();
            for (path, id, kind) in self.tree_files(self.commit_tree(theirs)?)? {
                match our_files.get(&path) {
                    Some((ours_id, _)) if *ours_id == id => {}
                    Some(_) => conflicts.push(path),
                    // `tree_files` lists files, never trees.
                    None => missing.push(entry_edit(path, Some((id, kind)))),
                }
            }
        }
        Ok(ChainUnion {
            relation,
            ours_tree,
            missing,
            conflicts,
        })
    }

    /// The commit holding both chains as `union` found them: one of the two
    /// when one contains the other, else a merge commit with `message`.
    pub fn write_union(&self, ours: Oid, theirs: Oid, union: &ChainUnion, message: &str) -> Result<Oid> {
        match union.relation {
            ChainRelation::Same | ChainRelation::OursContainsTheirs => Ok(ours),
            ChainRelation::TheirsContainsOurs => Ok(theirs),
            ChainRelation::Diverged => {
                let tree = self.edit_tree(Some(union.ours_tree), &union.missing)?;
                self.write_commit(tree, &[ours, theirs], message)
            }
        }
    }
}

/// How two chains are related.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainRelation {
    Same,
    OursContainsTheirs,
    TheirsContainsOurs,
    Diverged,
}

/// Two chains compared file by file ([`Repo::chain_union`]).
#[derive(Debug)]
pub struct ChainUnion {
    pub relation: ChainRelation,
    ours_tree: Oid,
    /// Their files ours lacks, as edits of our tree.
    pub missing: Vec<TreeEdit>,
    /// Paths both hold with different contents; ours is kept.
    pub conflicts: Vec<String>,
}

/// Writers of chains take turns: an advisory `flock` on the repository's
/// `refs` directory, held for one append. Without it, n concurrent writers
/// make O(n²) attempts (each writing trees and a commit that lose the
/// race); with it they mostly succeed first time. It is only an
/// optimisation — the compare-and-swap keeps records safe from writers that
/// do not take it — so a lock that cannot be had within a moment is skipped.
/// The kernel releases it when the process dies; no file is created.
struct WritersTurn(Option<std::fs::File>);

impl WritersTurn {
    const PATIENCE: Duration = Duration::from_secs(3);

    fn take(common_dir: &std::path::Path) -> WritersTurn {
        use rustix::fs::{flock, FlockOperation};
        let Ok(dir) = std::fs::File::open(common_dir.join("refs")) else {
            return WritersTurn(None);
        };
        if flock(&dir, FlockOperation::NonBlockingLockExclusive).is_ok() {
            return WritersTurn(Some(dir));
        }
        // Taken: a blocking flock (the kernel wakes the next writer; no polling) on
        // a helper thread, so that waiting has a bound. A turn that comes
        // after we stopped waiting is handed back at once: the send fails
        // and dropping the file releases it.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            if flock(&dir, FlockOperation::LockExclusive).is_ok() {
                let _ = tx.send(dir);
            }
        });
        WritersTurn(rx.recv_timeout(Self::PATIENCE).ok())
    }
}

impl Drop for WritersTurn {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            // Closing the file would release it too.
            let _ = rustix::fs::flock(dir, rustix::fs::FlockOperation::Unlock);
        }
    }
}

/// A lost compare-and-swap, or a reference lock another writer holds (gix
/// gives up on a held lock after `core.filesRefLockTimeout`, 100 ms).
fn is_contention(err: &anyhow::Error) -> bool {
    err.chain().any(|e| e.downcast_ref::<RefConflict>().is_some()) || format!("{err:#}").contains("lock")
}

/// A pause that grows with the tries and differs between processes, so that
/// writers that collided do not collide again in step.
fn backoff(tries: u64) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::from(d.subsec_nanos()))
        .unwrap_or(0);
    let jitter = (nanos ^ u64::from(std::process::id()).wrapping_mul(2_654_435_761)) % 8;
    Duration::from_millis(1 + tries.min(10) + jitter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::Workspace;

    fn repo() -> (tempfile::TempDir, Repo) {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(status.success());
        std::fs::write(
            dir.path().join(".git/config"),
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[user]\n\tname = A\n\temail = a@example.com\n",
        )
        .unwrap();
        let repo = Workspace::discover_in(dir.path()).unwrap().repo.expect("a repository");
        (dir, repo)
    }

    #[test]
    fn concurrent_appends_from_threads_lose_nothing() {
        let (_dir, repo) = repo();
        let shared = repo.share();
        std::thread::scope(|scope| {
            for t in 0..6 {
                let shared = &shared;
                scope.spawn(move || {
                    let repo = shared.open();
                    for i in 0..8 {
                        let blob = repo.write_blob(format!("{t}-{i}")).unwrap();
                        let path = format!("records/{t}/{i}");
                        repo.append_to_chain("refs/test-chain", &path, &mut |_, _| {
                            Ok(vec![TreeEdit::Blob {
                                path: path.clone(),
                                id: blob,
                                executable: false,
                            }])
                        })
                        .unwrap();
                    }
                });
            }
        });
        let tip = repo.read_ref("refs/test-chain").unwrap().unwrap();
        assert_eq!(repo.tree_files(repo.commit_tree(tip).unwrap()).unwrap().len(), 48);
        let mut length = 0;
        let mut current = Some(tip);
        while let Some(id) = current {
            length += 1;
            current = repo.commit_info(id).unwrap().parents.first().copied();
        }
        assert_eq!(length, 48, "one commit per record");
    }

    #[test]
    fn a_build_error_writes_nothing() {
        let (_dir, repo) = repo();
        let err = repo
            .append_to_chain("refs/test-chain", "m", &mut |_, _| Err(anyhow!("refused")))
            .unwrap_err();
        assert_eq!(err.to_string(), "refused");
        assert_eq!(repo.read_ref("refs/test-chain").unwrap(), None);
    }
}
