//! A run's first scan taken ahead: on a thread of its own, started while the
//! command still reads the plan and the state, since what the worktree holds
//! depends on nothing they say. The first scan takes it only when it is
//! exactly what looking again would return:
//!
//! * the watches were in place before it looked, and they saw nothing change
//!   in the worktree since (no event at all: not even one the incremental
//!   scan would follow);
//! * what a scan reads besides the worktree's files is as it was before it
//!   looked, after, and at the first scan: HEAD, the index (its checksum and
//!   the file's identity), the ignore and attribute files outside the worktree
//!   (`info/exclude`, `info/attributes`, the user's global ones). Git's
//!   configuration is read once when the command opens the repository, by
//!   the scan ahead as by the command.
//!
//! It does not write the index's refreshed stat data back (the scan ahead
//! would otherwise change the index it must find unchanged). It also lists
//! the ignored files and makes the index a tree, both of which the step's
//! record needs: the tree is remembered by the index's checksum and HEAD's
//! tree, so it serves only that index at that HEAD. Anything else
//! — the thread failed, no watches could be placed — and the first scan
//! looks at everything itself, as without it.

use std::path::PathBuf;
use std::thread::JoinHandle;

use anyhow::Result;

use super::{Snapshot, Tracker};
use crate::git::repo::{Oid, Repo};

/// The first scan being taken ahead.
pub struct ScanAhead(JoinHandle<Option<(Tracker, Inputs, IndexTree)>>);

/// The index as a tree, as [`Repo::index_tree`] remembers it: the index's
/// checksum, HEAD's tree, the tree.
type IndexTree = Option<(Oid, Oid, Oid)>;

impl std::fmt::Debug for ScanAhead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ScanAhead")
    }
}

/// A file's identity and state: modification and change times, size, inode.
type FileId = (i128, i128, u64, u64);

/// What a scan reads besides the worktree's files.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Inputs {
    head: Option<Oid>,
    index_checksum: Option<Oid>,
    files: Vec<Option<FileId>>,
}

fn file_id(path: &std::path::Path) -> Option<FileId> {
    let meta = std::fs::metadata(path).ok()?;
    let nanos = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(-1, |d| d.as_nanos() as i128)
    };
    #[cfg(unix)]
    let (changed, inode) = {
        use std::os::unix::fs::MetadataExt;
        (
            i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
            meta.ino(),
        )
    };
    #[cfg(not(unix))]
    let (changed, inode) = (nanos(meta.created()), 0);
    Some((nanos(meta.modified()), changed, meta.len(), inode))
}

impl ScanAhead {
    /// Whether the scan ahead is over (for tests).
    #[cfg(test)]
    pub(super) fn is_finished(&self) -> bool {
        self.0.is_finished()
    }
}

impl Repo {
    /// Starts the first scan of a run ahead, on a thread (see [the
    /// module](self)); [`Tracker::ahead`] hands it to the run.
    pub fn scan_ahead(&self) -> Option<ScanAhead> {
        let shared = self.share();
        std::thread::Builder::new()
            .name("scan".into())
            .spawn(move || {
                let repo = shared.open();
                let before = repo.scan_inputs();
                let mut tracker = Tracker::default();
                repo.full_scan(&mut tracker, false).ok()?;
                tracker.watcher.as_ref()?;
                repo.keep_ignored_list(&mut tracker).ok()?;
                // The step records the index as a tree: it is remembered by
                // the index's checksum and HEAD's tree, so it is only used
                // for that same index and HEAD.
                let _ = repo.index_tree();
                let index_tree = repo.index_tree_seen.get();
                let after = repo.scan_inputs();
                (before == after).then_some((tracker, after, index_tree))
            })
            .ok()
            .map(ScanAhead)
    }

    /// What a scan reads besides the worktree's files, as it is now.
    pub(super) fn scan_inputs(&self) -> Inputs {
        let mut paths: Vec<PathBuf> = vec![
            self.inner.index_path(),
            self.common_dir().join("info").join("exclude"),
            self.common_dir().join("info").join("attributes"),
        ];
        let config = self.inner.config_snapshot();
        for (key, default) in [("core.excludesFile", "ignore"), ("core.attributesFile", "attributes")] {
            if let Ok(Some(path)) = config.trusted_path(key) {
                paths.push(path);
            }
            if let Some(path) = gix::path::env::xdg_config(default, &mut |name| std::env::var_os(name)) {
                paths.push(path);
            }
        }
        Inputs {
            head: self.head().ok().and_then(|h| h.commit),
            index_checksum: self.index_trailer(),
            files: paths.iter().map(|p| file_id(p)).collect(),
        }
    }

    /// The scan taken ahead, when it is what looking again would return
    /// now: then `tracker` becomes the one it left (its watches, its
    /// snapshot, the ignored files it listed).
    pub(super) fn take_ahead(&self, ahead: ScanAhead, tracker: &mut Tracker) -> Result<Option<Snapshot>> {
        let Ok(Some((mut taken, inputs, index_tree))) = ahead.0.join() else {
            return Ok(None);
        };
        if index_tree.is_some() && self.index_tree_seen.get().is_none() {
            self.index_tree_seen.set(index_tree);
        }
        let unchanged = taken
            .watcher
            .as_mut()
            .and_then(|w| w.drain())
            .is_some_and(|changes| changes.is_empty());
        if !unchanged || self.scan_inputs() != inputs {
            return Ok(None);
        }
        let Some(snapshot) = taken.last.clone() else {
            return Ok(None);
        };
        taken.taken_ahead = true;
        *tracker = taken;
        Ok(Some(snapshot))
    }
}
