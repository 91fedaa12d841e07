//! Putting a snapshot back: the working tree made to hold a tree's files.

use std::collections::BTreeSet;

use anyhow::{Context as _, Result};

use super::Snapshot;
use crate::git::objects::{bstr, EntryKind};
use crate::git::repo::{Oid, Repo};

impl Repo {
    /// Makes the working tree hold `target`'s version of every path where
    /// `current` differs from it (only the paths in `only`, when given). Files
    /// `target` lacks are deleted, with directories left empty by that; ignored
    /// files and submodules are never touched. Returns the paths written.
    pub fn restore(&self, current: &Snapshot, target: Oid, only: Option<&BTreeSet<String>>) -> Result<Vec<String>> {
        let mut changes = self.changes(current.tree, target)?;
        if let Some(only) = only {
            changes.retain(|c| only.contains(&c.path));
        }
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        let root = self.workdir()?.to_owned();
        // Deletions first: a file may be replaced by a directory or the reverse.
        changes.sort_by_key(|c| c.new.is_some());
        let (mut pipeline, _) = self
            .inner
            .filter_pipeline(None)
            .context("cannot prepare git's filters")?;
        let mut written = Vec::new();
        for change in &changes {
            let path = root.join(&change.path);
            match change.new {
                None => {
                    remove_path(&path).with_context(|| format!("cannot remove '{}'", change.path))?;
                    prune_empty_parents(&root, &path);
                }
                Some((id, kind @ (EntryKind::Blob | EntryKind::Executable))) => {
                    let data = self.read_blob(id)?;
                    let mut outcome = pipeline
                        .convert_to_worktree(&data, bstr(&change.path), Default::default())
                        .with_context(|| format!("cannot convert '{}' for the worktree", change.path))?;
                    let mut bytes = Vec::new();
                    match outcome.as_bytes() {
                        Some(b) => bytes.extend_from_slice(b),
                        None => {
                            if let Some(read) = outcome.as_read() {
                                std::io::Read::read_to_end(read, &mut bytes)
                                    .with_context(|| format!("cannot convert '{}'", change.path))?;
                            }
                        }
                    }
                    write_file(&path, &bytes, kind == EntryKind::Executable)
                        .with_context(|| format!("cannot write '{}'", change.path))?;
                }
                Some((id, EntryKind::Link)) => {
                    let target = self.read_blob(id)?;
                    let _ = remove_path(&path);
                    if let Some(parent) = path.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    #[cfg(unix)]
                    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes_lossy(&target), &path)
                        .with_context(|| format!("cannot create the symbolic link '{}'", change.path))?;
                }
                Some((_, EntryKind::Tree | EntryKind::Commit)) => continue,
            }
            written.push(change.path.clone());
        }
        Ok(written)
    }
}

/// Deletes the worktree files `paths` (relative to `root`) and the
/// directories they leave empty: for files a step made where git cannot
/// store them. Returns the paths removed.
pub fn remove_files(root: &std::path::Path, paths: &[String]) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    for rel in paths {
        let path = root.join(rel);
        remove_path(&path).with_context(|| format!("cannot remove '{rel}'"))?;
        prune_empty_parents(root, &path);
        removed.push(rel.clone());
    }
    Ok(removed)
}

fn remove_path(path: &std::path::Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            // Only an empty directory; anything inside belongs to someone.
            std::fs::remove_dir(path)
        }
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

fn prune_empty_parents(root: &std::path::Path, path: &std::path::Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == root || !d.starts_with(root) || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

fn write_file(path: &std::path::Path, bytes: &[u8], executable: bool) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        std::fs::remove_file(path)?;
    }
    std::fs::write(path, bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut perms = std::fs::metadata(path)?.permissions();
        let mode = perms.mode();
        let new_mode = if executable { mode | 0o111 } else { mode & !0o111 };
        if new_mode != mode {
            perms.set_mode(new_mode);
            std::fs::set_permissions(path, perms)?;
        }
    }
    Ok(())
}

trait OsStrExt {
    fn from_bytes_lossy(bytes: &[u8]) -> &std::ffi::OsStr;
}

impl OsStrExt for std::ffi::OsStr {
    fn from_bytes_lossy(bytes: &[u8]) -> &std::ffi::OsStr {
        use std::os::unix::ffi::OsStrExt as _;
        std::ffi::OsStr::from_bytes(bytes)
    }
}
