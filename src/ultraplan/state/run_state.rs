//! The run-state commit chain: each update is a commit whose parent is the
//! previous state and whose tree holds `progress.json`, `plan.md` and
//! `steps/<N>/…` (attempt results and transcripts, snapshot trees); the ref
//! moves only if it still points at the parent. `git log` of the ref is the
//! audit log.

use std::borrow::Cow;
use std::collections::HashMap;

use anyhow::{anyhow, Result};

use super::progress::{now, Progress};
use crate::git::{EntryKind, Expect, Oid, RefConflict, Repo, TreeEdit};
use crate::redact::{redact, redact_file};

pub struct RunState<'r> {
    repo: &'r Repo,
    pub ref_name: String,
    /// The state commit this state was read from (or last saved as).
    head: Option<Oid>,
    /// That commit's tree; `None` for a new run's empty tree.
    tree: Option<Oid>,
    pub progress: Progress,
    pending: Vec<TreeEdit>,
    /// Commits to keep reachable: extra parents of the next state commit.
    kept: Vec<Oid>,
}

impl<'r> RunState<'r> {
    /// The state at `ref_name`, if there is one.
    pub fn load(repo: &'r Repo, ref_name: &str) -> Result<Option<RunState<'r>>> {
        let Some(head) = repo.read_ref(ref_name)? else {
            return Ok(None);
        };
        let tree = repo.commit_tree(head)?;
        let Some(bytes) = repo.read_path(tree, "progress.json")? else {
            return Err(anyhow!(
                "'{ref_name}' holds no progress.json; it is not a git-ultraplan run state"
            ));
        };
        let progress: Progress =
            serde_json::from_slice(&bytes).map_err(|e| anyhow!("cannot read progress.json of '{ref_name}': {e}"))?;
        Ok(Some(RunState {
            repo,
            ref_name: ref_name.to_owned(),
            head: Some(head),
            tree: Some(tree),
            progress,
            pending: Vec::new(),
            kept: Vec::new(),
        }))
    }

    /// A new run: an empty tree whose first commit continues the ref's history.
    pub fn start(repo: &'r Repo, ref_name: &str, progress: Progress, plan_text: &str) -> Result<RunState<'r>> {
        let head = repo.read_ref(ref_name)?;
        let mut state = RunState {
            repo,
            ref_name: ref_name.to_owned(),
            head,
            tree: None,
            progress,
            pending: Vec::new(),
            kept: Vec::new(),
        };
        state.put_text("plan.md", plan_text)?;
        Ok(state)
    }

    /// The current state commit.
    pub fn head(&self) -> Option<Oid> {
        self.head
    }

    /// Queues `text` at `path` for the next save, redacted as the kind of
    /// file `path` names (JSON and YAML string by string): every file of the
    /// state is written here, so none escapes redaction.
    pub fn put_text(&mut self, path: &str, text: &str) -> Result<()> {
        let id = self.repo.write_blob(redact_file(path, text).as_bytes())?;
        self.pending.push(TreeEdit::Blob {
            path: path.to_owned(),
            id,
            executable: false,
        });
        Ok(())
    }

    /// Queues a tree (a snapshot) at `path`; it stays reachable from the state.
    pub fn put_tree(&mut self, path: &str, tree: Oid) {
        self.pending.push(TreeEdit::Tree {
            path: path.to_owned(),
            id: tree,
        });
    }

    /// Keeps `commit` (and its history) reachable from the run state: it
    /// becomes an extra parent of the next state commit, so the state's own
    /// history is its first-parent chain (`git log --first-parent`).
    pub fn keep_commit(&mut self, commit: Oid) {
        if !self.kept.contains(&commit) {
            self.kept.push(commit);
        }
    }

    /// `commit` as the state may keep it: it and its ancestors that HEAD
    /// does not reach (what a step committed or stashed) are copied with
    /// their messages and the files that differ from HEAD's redacted, like
    /// snapshots; a commit redaction leaves alone is kept as it is. The
    /// originals stay in HEAD's reflog.
    fn redacted_commit(&self, commit: Oid) -> Result<Oid> {
        let head = self.repo.head()?.commit;
        let base = match head {
            Some(c) => self.repo.commit_tree(c)?,
            None => self.repo.empty_tree(),
        };
        let mut copies: HashMap<Oid, Oid> = HashMap::new();
        let mut stack = vec![(commit, false)];
        while let Some((c, parents_done)) = stack.pop() {
            if copies.contains_key(&c) {
                continue;
            }
            if let Some(h) = head {
                if self.repo.is_ancestor(c, h)? {
                    copies.insert(c, c);
                    continue;
                }
            }
            let info = self.repo.commit_info(c)?;
            if !parents_done {
                stack.push((c, true));
                stack.extend(
                    info.parents
                        .iter()
                        .filter(|p| !copies.contains_key(*p))
                        .map(|p| (*p, false)),
                );
                continue;
            }
            let tree = self.repo.rewrite_tree(base, info.tree, |text| match redact(text) {
                Cow::Owned(clean) => Some(clean),
                Cow::Borrowed(_) => None,
            })?;
            let message = redact(&info.message);
            let parents: Vec<Oid> = info
                .parents
                .iter()
                .map(|p| copies.get(p).copied().unwrap_or(*p))
                .collect();
            let id = if tree == info.tree && message == info.message && parents == info.parents {
                c
            } else {
                self.repo.write_commit(tree, &parents, &message)?
            };
            copies.insert(c, id);
        }
        Ok(copies.get(&commit).copied().unwrap_or(commit))
    }

    pub fn remove(&mut self, path: &str) {
        self.pending.push(TreeEdit::Remove { path: path.to_owned() });
    }

    /// The text at `path`, including queued changes only after a save.
    pub fn read_text(&self, path: &str) -> Result<Option<String>> {
        match self.tree {
            None => Ok(None),
            Some(tree) => Ok(self
                .repo
                .read_path(tree, path)?
                .map(|b| String::from_utf8_lossy(&b).into_owned())),
        }
    }

    /// The tree recorded at `path`.
    pub fn read_tree(&self, path: &str) -> Result<Option<Oid>> {
        match self.tree {
            None => Ok(None),
            Some(tree) => Ok(match self.repo.tree_entry(tree, path)? {
                Some((id, EntryKind::Tree)) => Some(id),
                _ => None,
            }),
        }
    }

    /// The names under `dir` in the saved tree.
    pub fn list(&self, dir: &str) -> Result<Vec<String>> {
        let Some(tree) = self.tree else { return Ok(Vec::new()) };
        match self.repo.tree_entry(tree, dir)? {
            Some((id, EntryKind::Tree)) => Ok(self.repo.list_tree(id)?.into_iter().map(|(n, _, _)| n).collect()),
            _ => Ok(Vec::new()),
        }
    }

    /// Writes `progress.json` and the queued changes as a new state commit
    /// and moves the ref from the previous one (compare-and-swap).
    pub fn save(&mut self, message: &str) -> Result<()> {
        self.progress.updated_at = now();
        let json = serde_json::to_string_pretty(&self.progress)?;
        self.put_text("progress.json", &(json + "\n"))?;
        let tree = self.repo.edit_tree(self.tree, &self.pending)?;
        let kept = self
            .kept
            .iter()
            .map(|c| self.redacted_commit(*c))
            .collect::<Result<Vec<Oid>>>()?;
        let parents: Vec<Oid> = self.head.into_iter().chain(kept).collect();
        let message = redact(message);
        let commit = self.repo.write_commit(tree, &parents, &message)?;
        let expect = match self.head {
            Some(head) => Expect::Value(head),
            None => Expect::Absent,
        };
        self.repo
            .update_ref(&self.ref_name, commit, expect, &format!("ultraplan: {message}"))
            .map_err(|e| match e.downcast_ref::<RefConflict>() {
                Some(_) => anyhow!(
                    "the run state '{}' was changed by another process; is another git ultraplan running?",
                    self.ref_name
                ),
                None => e,
            })?;
        self.head = Some(commit);
        self.tree = Some(tree);
        self.pending.clear();
        self.kept.clear();
        Ok(())
    }
}
