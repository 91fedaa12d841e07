//! `ultraplan.stateFile`: at the end of a run, the STATE.md metrics committed
//! (DESIGN §16.1) — the one tracked file ultraplan writes besides plan
//! checkboxes, and only when configured.
//!
//! The commit is made like a checkpoint: from HEAD's version of the file with
//! its metrics section replaced, that path alone staged, no hook run. Edits of
//! the user's to the file that are not committed stay in the worktree, not
//! in the commit: the worktree's version gets the same new section.

use anyhow::{anyhow, Context as _, Result};

use super::{collect, state_md, Filter, Metrics};
use crate::git::{EntryKind, FileChange, Oid, Repo, Snapshot};

/// The commit subject.
pub fn subject(path: &str) -> String {
    format!("chore: update {path} metrics")
}

/// Writes the metrics into `path` (relative to the worktree root) and
/// commits that file alone on HEAD; `None` when nothing changed.
pub fn commit(repo: &Repo, path: &str) -> Result<Option<Oid>> {
    if path.is_empty() || path.starts_with('/') || path.split('/').any(|c| c == ".." || c.is_empty()) {
        return Err(anyhow!(
            "ultraplan.stateFile '{path}' must be a relative path inside the repository"
        ));
    }
    if !crate::git::storable(path) {
        return Err(anyhow!("ultraplan.stateFile '{path}' is a path git cannot store"));
    }
    let record = collect(repo, &Filter::default())?;
    let section = state_md::render(&Metrics::of(&record), &record);
    let root = repo.workdir()?.to_owned();
    let head = repo.head()?.commit;
    let head_tree = match head {
        Some(c) => repo.commit_tree(c)?,
        None => repo.empty_tree(),
    };
    let committed = match repo.tree_entry(head_tree, path)? {
        Some((id, EntryKind::Blob | EntryKind::Executable)) => {
            String::from_utf8(repo.read_blob(id)?).map_err(|_| anyhow!("'{path}' is not UTF-8 text"))?
        }
        Some(_) => return Err(anyhow!("'{path}' is not a file in HEAD")),
        None => String::new(),
    };
    let on_disk = match std::fs::read(root.join(path)) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| anyhow!("'{path}' is not UTF-8 text"))?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot read '{path}'")),
    };
    let new_committed = state_md::splice(&committed, &section);
    let new_disk = state_md::splice(on_disk.as_deref().unwrap_or(&committed), &section);
    if on_disk.as_deref() != Some(new_disk.as_str()) {
        if let Some(parent) = root.join(path).parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(root.join(path), &new_disk).with_context(|| format!("cannot write '{path}'"))?;
    }
    if new_committed == committed && repo.tree_entry(head_tree, path)?.is_some() {
        return Ok(None);
    }
    let change = FileChange {
        path: path.to_owned(),
        new: Some((repo.write_blob(new_committed.as_bytes())?, EntryKind::Blob)),
    };
    let message = subject(path);
    let commit = repo.commit_changes(head, std::slice::from_ref(&change), &message)?;
    repo.advance_head(head, commit, &format!("commit: {message}"))?;
    let mut observed = Snapshot::recorded(Some(commit), repo.commit_tree(commit)?);
    if new_disk == new_committed {
        observed.refresh_stat(&root, path);
    }
    repo.stage(std::slice::from_ref(&change), &observed)?;
    Ok(Some(commit))
}
