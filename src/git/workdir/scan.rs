//! Scans over a run: the first one looks at everything; later ones look only
//! at what the [`Watcher`] saw change since, starting from the previous
//! snapshot's tree. A snapshot's tree is the working tree's content (HEAD's
//! files with every difference applied), so it stays valid when HEAD moves to
//! a commit this program made from that same content.
//!
//! Anything that could change what git considers (a `.gitignore` or
//! `.gitattributes` edited, HEAD moved by someone else, lost events) makes the
//! next scan a full one. `ULTRAPLAN_FULL_SCANS=1` turns the shortcut off.

use std::collections::BTreeSet;

use anyhow::{Context as _, Result};

use super::watch::{Changed, Watcher};
use super::{storable, Snapshot, Tracker};
use crate::git::objects::{bstr, removals_first, EntryKind, TreeEdit};
use crate::git::repo::{Oid, Repo};

fn full_scans_forced() -> bool {
    std::env::var_os("ULTRAPLAN_FULL_SCANS").is_some_and(|v| v != "0" && !v.is_empty())
}

impl Repo {
    /// A snapshot of the working tree, incremental when `tracker` allows.
    pub fn scan(&self, tracker: &mut Tracker) -> Result<Snapshot> {
        if let Some(ahead) = tracker.ahead.take() {
            if let Some(snapshot) = self.take_ahead(ahead, tracker)? {
                return Ok(snapshot);
            }
        }
        let head = self.head()?.commit;
        if let (Some(watcher), Some(last)) = (tracker.watcher.as_mut(), tracker.last.as_ref()) {
            if head == last.head || (head.is_some() && head == tracker.own_head) {
                if let Some(changes) = watcher.drain() {
                    let mut ignored_seen = BTreeSet::new();
                    if let Some(snapshot) = self.incremental(last, head, changes, watcher, &mut ignored_seen)? {
                        if let Some(list) = tracker.ignored_list.as_mut() {
                            list.update(self.workdir()?, ignored_seen);
                        }
                        tracker.incremental_scans += 1;
                        tracker.last = Some(snapshot.clone());
                        tracker.own_head = None;
                        return Ok(snapshot);
                    }
                }
            }
        }
        self.full_scan(tracker, true)
    }

    /// A scan of everything, the watches placed first; `write_index` as in
    /// [`Repo::snapshot_writing`].
    pub(super) fn full_scan(&self, tracker: &mut Tracker, write_index: bool) -> Result<Snapshot> {
        let head = self.head()?.commit;
        // Watch first, then look at everything: nothing changes unseen in between.
        tracker.watcher = None;
        if !full_scans_forced() {
            if let Some(mut watcher) = Watcher::new(self.workdir()?) {
                if self.watch_all(&mut watcher).unwrap_or(false) {
                    tracker.watcher = Some(watcher);
                }
            }
        }
        // Once only, and only with the watches in place (so what changes from
        // here is seen): a working tree the caller knows clean at HEAD is
        // HEAD's tree, with no ignored files.
        let trusted = tracker.trusted_clean.take();
        let snapshot = match trusted {
            Some(at) if head == Some(at) && tracker.watcher.is_some() => {
                tracker.ignored_list = Some(Default::default());
                Snapshot::recorded(head, self.tree_of(head)?)
            }
            _ => {
                tracker.ignored_list = None;
                self.snapshot_writing(write_index)?
            }
        };
        tracker.last = Some(snapshot.clone());
        tracker.own_head = None;
        Ok(snapshot)
    }

    /// Watches every directory git would look into: not `.git`, not ignored
    /// directories, not nested repositories.
    fn watch_all(&self, watcher: &mut Watcher) -> Result<bool> {
        let root = self.workdir()?.to_owned();
        let index = self.fresh_index()?;
        let mut excludes = self
            .inner
            .excludes(&index, None, Default::default())
            .context("cannot read the ignore rules")?;
        let mut pending = vec![String::new()];
        while let Some(dir) = pending.pop() {
            if !watcher.add(&dir) {
                return Ok(false);
            }
            let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else { continue };
                if !kind.is_dir() {
                    continue;
                }
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    return Ok(false); // a name git-ultraplan cannot represent: no shortcut
                };
                let rel = if dir.is_empty() {
                    name.clone()
                } else {
                    format!("{dir}/{name}")
                };
                if name == ".git" || entry.path().join(".git").exists() {
                    continue;
                }
                let ignored = excludes
                    .at_path(&rel, Some(gix::index::entry::Mode::DIR))
                    .map(|p| p.is_excluded())
                    .unwrap_or(false);
                if !ignored {
                    pending.push(rel);
                }
            }
        }
        Ok(true)
    }

    /// `last` updated with the changed paths; `None` when only a full scan will do.
    fn incremental(
        &self,
        last: &Snapshot,
        head: Option<Oid>,
        changes: Vec<Changed>,
        watcher: &mut Watcher,
        ignored_seen: &mut BTreeSet<String>,
    ) -> Result<Option<Snapshot>> {
        if changes.is_empty() {
            let mut same = last.clone();
            same.head = head;
            return Ok(Some(same));
        }
        let root = self.workdir()?.to_owned();
        let index = self.fresh_index()?;
        let mut excludes = self
            .inner
            .excludes(&index, None, Default::default())
            .context("cannot read the ignore rules")?;
        let head_tree = self.tree_of(head)?;
        let mut paths: BTreeSet<String> = BTreeSet::new();
        let mut unstorable = last.unstorable.clone();
        let mut new_dirs: Vec<String> = Vec::new();
        for change in changes {
            let name = change.path.rsplit('/').next().unwrap_or("");
            if name == ".gitignore" || name == ".gitattributes" {
                return Ok(None);
            }
            if change.dir {
                new_dirs.push(change.path.clone());
            }
            paths.insert(change.path);
        }
        // Directories created or moved in: watch them and look at all they
        // hold, replacing whatever the previous snapshot had below them.
        let mut resets: Vec<String> = Vec::new();
        while let Some(dir) = new_dirs.pop() {
            let full = root.join(&dir);
            if !full.is_dir() || full.join(".git").exists() || watcher.watches(&dir) {
                continue;
            }
            let ignored = excludes
                .at_path(&dir, Some(gix::index::entry::Mode::DIR))
                .map(|p| p.is_excluded())
                .unwrap_or(false);
            if ignored {
                continue;
            }
            if !watcher.add(&dir) {
                return Ok(None);
            }
            resets.push(dir.clone());
            let Ok(entries) = std::fs::read_dir(&full) else {
                continue;
            };
            for entry in entries.flatten() {
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    return Ok(None);
                };
                let rel = format!("{dir}/{name}");
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    new_dirs.push(rel.clone());
                }
                paths.insert(rel);
            }
        }
        let mut removals: Vec<TreeEdit> = resets.into_iter().map(|path| TreeEdit::Remove { path }).collect();
        let mut files = Vec::new();
        for path in paths {
            if !storable(&path) {
                match std::fs::symlink_metadata(root.join(&path)) {
                    Ok(meta) if !meta.is_dir() => unstorable.insert(path),
                    _ => unstorable.remove(&path),
                };
                continue;
            }
            match std::fs::symlink_metadata(root.join(&path)) {
                Err(_) => {
                    ignored_seen.insert(path.clone());
                    removals.push(TreeEdit::Remove { path })
                }
                Ok(meta) if meta.is_dir() => {
                    // A file that became a directory: drop the file; the
                    // directory's contents were collected above.
                    if self
                        .tree_entry(last.tree, &path)?
                        .is_some_and(|(_, k)| k != EntryKind::Tree)
                    {
                        removals.push(TreeEdit::Remove { path });
                    }
                }
                Ok(meta) => {
                    let tracked =
                        index.entry_by_path(bstr(&path)).is_some() || self.tree_entry(head_tree, &path)?.is_some();
                    let mode = if meta.file_type().is_symlink() {
                        gix::index::entry::Mode::SYMLINK
                    } else {
                        gix::index::entry::Mode::FILE
                    };
                    let ignored = !tracked
                        && excludes
                            .at_path(&path, Some(mode))
                            .map(|p| p.is_excluded())
                            .unwrap_or(false);
                    if ignored {
                        ignored_seen.insert(path.clone());
                        removals.push(TreeEdit::Remove { path });
                    } else {
                        files.push(path);
                    }
                }
            }
        }
        unstorable.retain(|p| std::fs::symlink_metadata(root.join(p)).is_ok());
        let mut stats = last.stats.clone();
        let mut edits = removals;
        if !files.is_empty() {
            let (hashed, fresh) = self.hash_paths(files)?;
            edits.extend(hashed);
            stats.extend(fresh);
        }
        // Removals come first: a path may turn from a file into a directory.
        removals_first(&mut edits);
        let tree = self.edit_tree(Some(last.tree), &edits)?;
        Ok(Some(Snapshot::with_stats(head, tree, stats, unstorable)))
    }
}
