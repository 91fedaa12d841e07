//! Ignored files in a step's snapshot (DESIGN §2 invariant 3).
//!
//! git never stores ignored files, yet they are often the ones a person can
//! least afford to lose: `.env`, a local database, a machine's build config.
//! A snapshot keeps the ignored files git lists one by one (as
//! `git status --ignored=matching` does: a directory that an ignore pattern
//! matches as a whole, such as `node_modules/` or `target/`, is listed as one
//! entry and never descended into), as a tree, up to a bound in bytes and in
//! files, smallest first. Files beyond the bound are fingerprinted (size and
//! modification time) so a change to them can at least be named; whole
//! ignored directories are named if they disappear. A restore writes the kept
//! files back, removes ignored files the step created, and returns what it
//! could not put back.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context as _, Result};
use gix::bstr::ByteSlice;

use super::restore::remove_files;
use super::{storable, Snapshot, Tracker};
use crate::git::objects::{EntryKind, TreeEdit};
use crate::git::repo::{Oid, Repo};

/// How much of the ignored files a snapshot keeps.
#[derive(Clone, Copy, Debug)]
pub struct IgnoredBound {
    pub bytes: u64,
    pub files: usize,
}

/// A file's size and modification time, to tell that it changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    pub size: u64,
    pub mtime_ns: i128,
}

/// The ignored files at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredFiles {
    /// The files kept, as a tree.
    pub tree: Oid,
    /// Files beyond the bound: only their fingerprints.
    pub unkept: BTreeMap<String, Fingerprint>,
    /// Directories ignored as a whole (`dir/`), not looked into.
    pub dirs: Vec<String>,
    /// Whether ignored files were looked at (not with a bound of 0 bytes).
    pub looked: bool,
}

/// Every ignored file git lists one by one, with its fingerprint, and the
/// directories ignored as a whole: what a walk found, kept up to date from
/// the paths incremental scans saw change.
#[derive(Clone, Debug, Default)]
pub(crate) struct IgnoredList {
    files: BTreeMap<String, Fingerprint>,
    dirs: Vec<String>,
}

impl IgnoredList {
    /// Takes in `paths` an incremental scan saw: ignored files that changed
    /// or appeared, and paths that went away.
    pub(crate) fn update(&mut self, root: &Path, paths: impl IntoIterator<Item = String>) {
        for path in paths {
            match fingerprint(&root.join(&path)) {
                Some(print) if storable(&path) => {
                    self.files.insert(path, print);
                }
                _ => {
                    self.files.remove(&path);
                }
            }
        }
    }
}

/// What putting the ignored files back did.
#[derive(Debug, Default)]
pub struct IgnoredRestore {
    pub written: Vec<String>,
    pub removed: Vec<String>,
    /// Changes that could not be undone: a file beyond the bound that
    /// changed or went away, a whole ignored directory that went away.
    pub lost: Vec<String>,
    /// Ignored directories the step created, left in place.
    pub new_dirs: Vec<String>,
}

fn fingerprint(path: &Path) -> Option<Fingerprint> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let mtime_ns = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0);
    Some(Fingerprint {
        size: meta.len(),
        mtime_ns,
    })
}

impl IgnoredFiles {
    /// The text kept in the run state beside the tree.
    pub fn render_unkept(&self) -> String {
        let mut out = String::new();
        if !self.looked {
            out.push_str("off\n");
        }
        for (path, f) in &self.unkept {
            out.push_str(&format!("file {} {} {path}\n", f.size, f.mtime_ns));
        }
        for dir in &self.dirs {
            out.push_str(&format!("dir {dir}\n"));
        }
        out
    }

    pub fn parse_unkept(tree: Oid, text: &str) -> IgnoredFiles {
        let mut unkept = BTreeMap::new();
        let mut dirs = Vec::new();
        for line in text.lines() {
            if let Some(dir) = line.strip_prefix("dir ") {
                dirs.push(dir.to_owned());
            } else if let Some(rest) = line.strip_prefix("file ") {
                let mut parts = rest.splitn(3, ' ');
                if let (Some(size), Some(mtime), Some(path)) = (parts.next(), parts.next(), parts.next()) {
                    if let (Ok(size), Ok(mtime_ns)) = (size.parse(), mtime.parse()) {
                        unkept.insert(path.to_owned(), Fingerprint { size, mtime_ns });
                    }
                }
            }
        }
        let looked = !text.lines().any(|l| l == "off");
        IgnoredFiles {
            tree,
            unkept,
            dirs,
            looked,
        }
    }
}

impl Repo {
    /// Ignored files and whole ignored directories, as git lists them.
    fn list_ignored(&self) -> Result<(Vec<String>, Vec<String>)> {
        use gix::dir::entry::Status;
        use gix::dir::walk::EmissionMode;
        let index = self.fresh_index()?;
        let options = self
            .inner
            .dirwalk_options()
            .context("cannot read the directory-walk options")?
            .emit_ignored(Some(EmissionMode::Matching))
            .emit_untracked(EmissionMode::CollapseDirectory)
            .recurse_repositories(false);
        let iter = self
            .inner
            .dirwalk_iter(index, None::<&str>, Default::default(), options)
            .context("cannot walk the working tree")?;
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        for item in iter {
            let item = item.context("cannot walk the working tree")?;
            let entry = item.entry;
            if !matches!(entry.status, Status::Ignored(_)) {
                continue;
            }
            let path = entry.rela_path.to_str_lossy().into_owned();
            match entry.disk_kind {
                Some(gix::dir::entry::Kind::File | gix::dir::entry::Kind::Symlink) => files.push(path),
                Some(gix::dir::entry::Kind::Directory | gix::dir::entry::Kind::Repository) => {
                    dirs.push(format!("{path}/"))
                }
                _ => {}
            }
        }
        files.sort();
        dirs.sort();
        Ok((files, dirs))
    }

    /// Lists the ignored files into `tracker`, unless its list is current.
    pub(super) fn keep_ignored_list(&self, tracker: &mut Tracker) -> Result<()> {
        if tracker.ignored_list.is_none() {
            let (files, dirs) = self.list_ignored()?;
            let root = self.workdir()?.to_owned();
            let files = files
                .into_iter()
                .filter(|p| storable(p))
                .filter_map(|p| fingerprint(&root.join(&p)).map(|f| (p, f)))
                .collect();
            tracker.ignored_list = Some(IgnoredList { files, dirs });
        }
        Ok(())
    }

    /// The ignored files now, kept up to `bound`; files whose fingerprint is
    /// the one `tracker` saw are not read again.
    pub fn ignored_files(&self, bound: IgnoredBound, tracker: &mut Tracker) -> Result<IgnoredFiles> {
        if bound.bytes == 0 || bound.files == 0 {
            return Ok(IgnoredFiles {
                tree: self.empty_tree(),
                unkept: BTreeMap::new(),
                dirs: Vec::new(),
                looked: false,
            });
        }
        self.keep_ignored_list(tracker)?;
        let list = tracker.ignored_list.clone().unwrap_or_default();
        let dirs = list.dirs;
        let mut sized: Vec<(u64, String, Fingerprint)> = list.files.into_iter().map(|(p, f)| (f.size, p, f)).collect();
        sized.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let (mut budget, mut count) = (bound.bytes, 0usize);
        let mut kept = Vec::new();
        let mut unkept = BTreeMap::new();
        for (size, path, print) in sized {
            if size <= budget && count < bound.files {
                budget -= size;
                count += 1;
                kept.push((path, print));
            } else {
                unkept.insert(path, print);
            }
        }
        let mut edits = Vec::new();
        let mut fresh = Vec::new();
        for (path, print) in kept {
            match tracker.ignored.get(&path) {
                Some((seen, edit)) if *seen == print => edits.push(edit.clone()),
                _ => fresh.push((path, print)),
            }
        }
        let prints: std::collections::HashMap<String, Fingerprint> = fresh.iter().cloned().collect();
        let (hashed, _) = self.hash_paths(fresh.into_iter().map(|(p, _)| p))?;
        for edit in hashed {
            let path = match &edit {
                TreeEdit::Blob { path, .. } | TreeEdit::Link { path, .. } => path.clone(),
                _ => continue,
            };
            if let Some(print) = prints.get(&path) {
                tracker.ignored.insert(path, (*print, edit.clone()));
            }
            edits.push(edit);
        }
        let tree = self.edit_tree(None, &edits)?;
        Ok(IgnoredFiles {
            tree,
            unkept,
            dirs,
            looked: true,
        })
    }

    /// Puts the ignored files back as `recorded` holds them.
    pub fn restore_ignored(&self, recorded: &IgnoredFiles) -> Result<IgnoredRestore> {
        let mut out = IgnoredRestore::default();
        if !recorded.looked {
            return Ok(out);
        }
        let root = self.workdir()?.to_owned();
        let (files, dirs) = self.list_ignored()?;
        // Kept files: back as they were (hashing only those, not every file).
        let recorded_files: BTreeMap<String, (Oid, EntryKind)> = self
            .tree_files(recorded.tree)?
            .into_iter()
            .map(|(p, id, kind)| (p, (id, kind)))
            .collect();
        let present: Vec<String> = recorded_files
            .keys()
            .filter(|p| std::fs::symlink_metadata(root.join(p)).is_ok())
            .cloned()
            .collect();
        let (now, _) = self.hash_paths(present)?;
        let mut now_entries: BTreeMap<String, Oid> = BTreeMap::new();
        for edit in now {
            match edit {
                TreeEdit::Blob { path, id, .. } | TreeEdit::Link { path, id } => {
                    now_entries.insert(path, id);
                }
                _ => {}
            }
        }
        let mut differing = std::collections::BTreeSet::new();
        for (path, (id, _)) in &recorded_files {
            if now_entries.get(path) != Some(id) {
                differing.insert(path.clone());
            }
        }
        if !differing.is_empty() {
            let current = Snapshot::recorded(None, self.empty_tree());
            out.written = self.restore(&current, recorded.tree, Some(&differing))?;
        }
        // Files beyond the bound: named when they changed.
        for (path, print) in &recorded.unkept {
            if fingerprint(&root.join(path)) != Some(*print) {
                out.lost.push(path.clone());
            }
        }
        for dir in &recorded.dirs {
            if std::fs::symlink_metadata(root.join(dir.trim_end_matches('/'))).is_err() {
                out.lost.push(dir.clone());
            }
        }
        // Ignored files the step made: removed, like untracked ones.
        let made: Vec<String> = files
            .into_iter()
            .filter(|p| !recorded_files.contains_key(p) && !recorded.unkept.contains_key(p))
            .collect();
        out.removed = remove_files(&root, &made)?;
        out.new_dirs = dirs.into_iter().filter(|d| !recorded.dirs.contains(d)).collect();
        Ok(out)
    }
}
