//! The raw bytes of snapshot files that redaction changed, kept in this
//! repository only: `<git-common-dir>/ultraplan/secrets/<run-id>/<state path>`.
//!
//! The run state holds snapshot trees with secrets redacted, because it may
//! be pushed. A restore needs the user's exact bytes back (their `.env`
//! included), so each redacted file's original content is written here, with
//! owner-only permissions, beside the object database rather than in it:
//! nothing unredacted is reachable from a ref, and `git gc` cannot prune what
//! a resume needs. `git ultraplan clean` removes the directories of runs no
//! state refers to any more.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};

use crate::git::Repo;

/// One file's raw content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub executable: bool,
    pub bytes: Vec<u8>,
}

/// The kept files of one run.
pub struct Store {
    dir: PathBuf,
}

/// Where every run's kept files live.
pub fn root(repo: &Repo) -> PathBuf {
    repo.common_dir().join("ultraplan").join("secrets")
}

impl Store {
    pub fn new(repo: &Repo, run_id: &str) -> Store {
        Store {
            dir: crate::ultraplan::state::secrets_dir(repo, run_id),
        }
    }

    fn file(&self, state_path: &str) -> PathBuf {
        self.dir.join(crate::ultraplan::state::secrets_file(state_path))
    }

    /// Keeps `entries` for the tree at `state_path` (replacing what was there).
    pub fn keep(&self, state_path: &str, entries: &[Entry]) -> Result<()> {
        create_private_dir(&self.dir)?;
        let target = self.file(state_path);
        let tmp = target.with_extension("tmp");
        let mut data = Vec::new();
        for e in entries {
            data.extend_from_slice(
                format!(
                    "{} {} {}\n",
                    if e.executable { 'x' } else { '-' },
                    e.path.len(),
                    e.bytes.len()
                )
                .as_bytes(),
            );
            data.extend_from_slice(e.path.as_bytes());
            data.extend_from_slice(&e.bytes);
            data.push(b'\n');
        }
        let write = || -> std::io::Result<()> {
            let mut file = private_file(&tmp)?;
            file.write_all(&data)?;
            file.sync_all()?;
            std::fs::rename(&tmp, &target)
        };
        write().with_context(|| format!("cannot keep the snapshot's files in '{}'", target.display()))
    }

    /// What was kept for `state_path` (nothing when no file was redacted).
    pub fn read(&self, state_path: &str) -> Result<Vec<Entry>> {
        let path = self.file(state_path);
        let data = match std::fs::read(&path) {
            Ok(data) => data,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(anyhow!("cannot read '{}': {e}", path.display())),
        };
        parse(&data).ok_or_else(|| anyhow!("'{}' is damaged", path.display()))
    }

    /// Forgets what was kept for `state_path` (its tree had no secret).
    pub fn forget(&self, state_path: &str) -> Result<()> {
        match std::fs::remove_file(self.file(state_path)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(anyhow!("cannot remove a kept snapshot: {e}")),
            _ => Ok(()),
        }
    }
}

fn parse(mut data: &[u8]) -> Option<Vec<Entry>> {
    let mut out = Vec::new();
    while !data.is_empty() {
        let eol = data.iter().position(|b| *b == b'\n')?;
        let header = std::str::from_utf8(&data[..eol]).ok()?;
        let mut fields = header.split(' ');
        let executable = fields.next()? == "x";
        let path_len: usize = fields.next()?.parse().ok()?;
        let len: usize = fields.next()?.parse().ok()?;
        let rest = &data[eol + 1..];
        if rest.len() < path_len + len + 1 || rest[path_len + len] != b'\n' {
            return None;
        }
        out.push(Entry {
            path: String::from_utf8(rest[..path_len].to_vec()).ok()?,
            executable,
            bytes: rest[path_len..path_len + len].to_vec(),
        });
        data = &rest[path_len + len + 1..];
    }
    Some(out)
}

/// Removes the kept files of every run not in `live` (run ids some state
/// still refers to); returns the run ids removed.
pub fn prune(repo: &Repo, live: &[String]) -> Vec<String> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(root(repo)) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !live.contains(&name) && std::fs::remove_dir_all(entry.path()).is_ok() {
            removed.push(name);
        }
    }
    removed
}

fn create_private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

fn private_file(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

impl super::ledger::Ledger<'_> {
    /// Records `tree` (a snapshot of the user's worktree) at `path` in the run
    /// state as what differs from the user's HEAD before the step
    /// ([`crate::ultraplan::state::layout`]'s kept trees): the files the
    /// user committed are referred to by the commit's id, never carried —
    /// the state may be pushed before the user pushes them — and the files
    /// that differ are redacted. The raw bytes of the files redaction changed
    /// are kept beside, in this repository only (see [the module](crate::ultraplan::engine::secrets)), so
    /// restores and checkpoints get them back exactly — even after `git gc`
    /// has pruned the unreachable raw objects.
    pub(crate) fn keep_tree(&mut self, path: &str, tree: crate::git::Oid) -> Result<()> {
        let base = self.trusted_head(path)?;
        self.keep_change(path, tree, base)
    }

    /// [`Ledger::keep_tree`](super::ledger::Ledger::keep_tree) for a tree that is not the worktree (git's own
    /// files, the ignored files): it has no base, every file of it is
    /// stored, redacted.
    pub(crate) fn keep_whole_tree(&mut self, path: &str, tree: crate::git::Oid) -> Result<()> {
        self.keep_change(path, tree, None)
    }

    fn keep_change(&mut self, path: &str, tree: crate::git::Oid, base: Option<crate::git::Oid>) -> Result<()> {
        use crate::git::{EntryKind, TreeEdit};
        use crate::ultraplan::state::layout::kept;
        let base_tree = match base {
            Some(c) => self.repo.commit_tree(c)?,
            None => self.repo.empty_tree(),
        };
        let mut files = Vec::new();
        let mut removed = Vec::new();
        let mut raw = Vec::new();
        for change in self.repo.changes(base_tree, tree)? {
            let Some((id, kind)) = change.new else {
                removed.push(serde_json::to_string(&change.path)?);
                continue;
            };
            let path = change.path;
            let edit = match kind {
                EntryKind::Blob | EntryKind::Executable => {
                    match self.stored_file(path, id, kind == EntryKind::Executable, &mut raw)? {
                        Some(edit) => edit,
                        None => continue,
                    }
                }
                EntryKind::Link => TreeEdit::Link { path, id },
                EntryKind::Commit => TreeEdit::Commit { path, id },
                EntryKind::Tree => TreeEdit::Tree { path, id },
            };
            files.push(edit);
        }
        // `base` is always written (empty for none): a kept tree is never
        // an empty tree, which a tree editor may drop.
        let mut parts = vec![TreeEdit::Blob {
            path: kept::BASE.into(),
            id: self
                .repo
                .write_blob(base.map(|b| format!("{b}\n")).unwrap_or_default())?,
            executable: false,
        }];
        if !files.is_empty() {
            parts.push(TreeEdit::Tree {
                path: kept::FILES.into(),
                id: self.repo.edit_tree(None, &files)?,
            });
        }
        if !removed.is_empty() {
            parts.push(TreeEdit::Blob {
                path: kept::REMOVED.into(),
                id: self.repo.write_blob(removed.join("\n") + "\n")?,
                executable: false,
            });
        }
        let store = Store::new(self.repo, &self.state.progress.run_id);
        if raw.is_empty() {
            store.forget(path)?;
        } else {
            store.keep(path, &raw)?;
        }
        let change = self.repo.edit_tree(None, &parts)?;
        self.state.put_tree(path, change);
        Ok(())
    }

    /// How a file of a kept tree is stored: redacted, its raw bytes added
    /// to `raw` when redaction changed them; `None` for a file named like a
    /// secret, left out (its bytes in `raw`, for restores).
    fn stored_file(
        &mut self,
        path: String,
        id: crate::git::Oid,
        executable: bool,
        raw: &mut Vec<Entry>,
    ) -> Result<Option<crate::git::TreeEdit>> {
        use crate::git::TreeEdit;
        let bytes = self.repo.read_blob(id)?;
        // A name travels with the state as contents do: a file
        // named like a secret is left out (its bytes kept beside
        // for restores), with one warning a name.
        if crate::ultraplan::state::name_holds_secret(&path) {
            let message = format!(
                "'{}' is named like a secret: the run state keeps it out of its snapshots (its bytes stay in this repository only, for restores)",
                crate::redact::redact(&path)
            );
            if !self.warnings.contains(&message) {
                self.warn(message);
            }
            raw.push(Entry {
                path,
                executable,
                bytes,
            });
            return Ok(None);
        }
        let clean = match std::str::from_utf8(&bytes).map(crate::redact::redact) {
            Ok(std::borrow::Cow::Owned(clean)) => Some(self.repo.write_blob(clean)?),
            _ => None,
        };
        Ok(Some(match clean {
            Some(clean) => {
                raw.push(Entry {
                    path: path.clone(),
                    executable,
                    bytes,
                });
                TreeEdit::Blob {
                    path,
                    id: clean,
                    executable,
                }
            }
            None => TreeEdit::Blob { path, id, executable },
        }))
    }

    /// The commit the worktree snapshots at `path` are stored against: the
    /// user's HEAD from before step N (`git` of step N), not the HEAD now,
    /// which a step may have moved onto commits of its own (their files are
    /// the step's output and are stored, redacted, like any other).
    fn trusted_head(&self, path: &str) -> Result<Option<crate::git::Oid>> {
        let now = self.repo.head()?.commit;
        let Some(recorded) = self
            .state
            .layout()
            .step_of(path)
            .map(|(n, _)| self.state.read_text(&self.state.step_paths(n).git()))
            .transpose()?
            .flatten()
            .and_then(|text| crate::git::Pointers::parse(&text))
        else {
            return Ok(now);
        };
        Ok(recorded.head.commit)
    }

    /// The raw tree recorded at `path` (see [`Ledger::keep_tree`](super::ledger::Ledger::keep_tree)): the base
    /// commit's tree with the stored changes, and the raw bytes of the files
    /// redaction changed.
    pub(crate) fn kept_tree(&self, path: &str) -> Result<Option<crate::git::Oid>> {
        let Some(change) = self.state.read_tree(path)? else {
            return Ok(None);
        };
        let clean = kept_change_tree(self.repo, change)
            .with_context(|| format!("the run state's tree '{path}' cannot be rebuilt"))?;
        let raw = Store::new(self.repo, &self.state.progress.run_id).read(path)?;
        if raw.is_empty() {
            return Ok(Some(clean));
        }
        let mut edits = Vec::new();
        for entry in raw {
            edits.push(crate::git::TreeEdit::Blob {
                id: self.repo.write_blob(&entry.bytes)?,
                path: entry.path,
                executable: entry.executable,
            });
        }
        Ok(Some(self.repo.edit_tree(Some(clean), &edits)?))
    }
}

/// The tree a kept change (layout 2) stands for: its base commit's tree
/// with its files and without its removed paths (redacted files as stored).
pub(crate) fn kept_change_tree(repo: &Repo, change: crate::git::Oid) -> Result<crate::git::Oid> {
    use crate::git::{EntryKind, FileChange};
    use crate::ultraplan::state::layout::kept;
    let base = match repo
        .read_path(change, kept::BASE)?
        .filter(|b| !b.trim_ascii().is_empty())
    {
        Some(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let commit: crate::git::Oid = text
                .trim()
                .parse()
                .ok()
                .with_context(|| format!("its base '{}' is not a commit id", text.trim()))?;
            if !repo.has_object(commit) {
                return Err(anyhow!(
                    "its base commit {commit} is not in this repository (fetch it, then try again)"
                ));
            }
            repo.commit_tree(commit)?
        }
        None => repo.empty_tree(),
    };
    let mut changes = Vec::new();
    if let Some(bytes) = repo.read_path(change, kept::REMOVED)? {
        for line in String::from_utf8_lossy(&bytes).lines().filter(|l| !l.is_empty()) {
            let path: String = serde_json::from_str(line)
                .ok()
                .context("its list of removed paths is unreadable")?;
            changes.push(FileChange { path, new: None });
        }
    }
    if let Some((files, EntryKind::Tree)) = repo.tree_entry(change, kept::FILES)? {
        for (path, id, kind) in repo.tree_files(files)? {
            changes.push(FileChange {
                path,
                new: Some((id, kind)),
            });
        }
    }
    repo.tree_with(base, &changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_whatever_their_bytes() {
        let entries = vec![
            Entry {
                path: "a b/.env".into(),
                executable: false,
                bytes: b"password=hunter2\n\n".to_vec(),
            },
            Entry {
                path: "bin/run\nweird".into(),
                executable: true,
                bytes: vec![0, 159, 146, 150, b'\n'],
            },
            Entry {
                path: "empty".into(),
                executable: false,
                bytes: Vec::new(),
            },
        ];
        let dir = tempfile::tempdir().unwrap();
        let store = Store {
            dir: dir.path().join("run"),
        };
        store.keep("steps/1/snapshot", &entries).unwrap();
        assert_eq!(store.read("steps/1/snapshot").unwrap(), entries);
        assert_eq!(store.read("steps/2/snapshot").unwrap(), vec![]);
        store.forget("steps/1/snapshot").unwrap();
        assert_eq!(store.read("steps/1/snapshot").unwrap(), vec![]);
        store.forget("steps/1/snapshot").unwrap();
    }

    #[test]
    fn damaged_files_are_errors_not_panics() {
        for data in [&b"x 3 10\nab"[..], b"- a b\n", b"- 1 1\nabc", b"\n"] {
            assert_eq!(parse(data), None, "{data:?}");
        }
    }
}
