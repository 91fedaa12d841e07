//! Local caches of what is derived from refs alone (the record's run
//! digests, the outcomes search index): files in
//! `<git-common-dir>/ultraplan/`, never pushed, never the source of truth.
//! Each is written whole to a temporary file and renamed, so a reader sees
//! the old file or the new one; failing to write one costs only speed.

use std::path::{Path, PathBuf};

use crate::git::Repo;

/// Where the cache `name` lives.
pub fn path(repo: &Repo, name: &str) -> PathBuf {
    repo.common_dir().join("ultraplan").join(name)
}

/// The cache `name`, or `None` when there is none or it cannot be read.
pub fn read(repo: &Repo, name: &str) -> Option<Vec<u8>> {
    std::fs::read(path(repo, name)).ok()
}

/// Replaces the cache `name` with `bytes` at once.
pub fn write(repo: &Repo, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically(&path(repo, name), bytes)
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map_or("cache".into(), |n| n.to_string_lossy().into_owned());
    let temp = dir.join(format!("{name}.{}.tmp", std::process::id()));
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}
