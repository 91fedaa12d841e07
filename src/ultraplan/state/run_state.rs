//! The run-state commit chain: each update is a commit whose parent is the
//! previous state and whose tree is laid out as [`super::layout`] says; the
//! ref moves only if it still points at the parent. `git log` of the ref is
//! the audit log.
//!
//! A save writes `run.json`, the entries of the steps whose progress changed
//! since the last save and the files queued with [`RunState::put_text`] and
//! [`RunState::put_tree`]: its cost does not depend on how many steps the
//! run has.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::{anyhow, Context as _, Result};

use super::index::{self, Depth};
use super::layout::{self, Layout, StepPaths};
use super::progress::{now, AttemptSummary, Progress, StepProgress};
use crate::git::{EntryKind, Expect, Oid, RefConflict, Repo, TreeEdit};
use crate::redact::{redact, redact_file};

mod checkpoints;
mod upgrade;

pub struct RunState<'r> {
    repo: &'r Repo,
    pub ref_name: String,
    /// The state commit this state was read from (or last saved as).
    head: Option<Oid>,
    /// That commit's tree; `None` for a new run's empty tree.
    tree: Option<Oid>,
    /// The layout of that tree.
    layout: Layout,
    pub progress: Progress,
    /// How many steps were in each status when read (a state read without
    /// its step entries still says this).
    pub step_counts: BTreeMap<String, usize>,
    /// The step entries as last saved: a save writes those that differ.
    saved_steps: BTreeMap<u32, StepProgress>,
    /// Whether every step's entry was compared with the saved one since the
    /// state was read: after that, a save looks only at the steps
    /// [`Progress::step_mut`] handed out (a step's cost stays the same at
    /// step 10,000 as at step 10).
    compared_all: bool,
    /// The last state commit of the run before this one.
    previous_run: Option<Oid>,
    pending: Vec<TreeEdit>,
    /// Commits to keep reachable: extra parents of the next state commit.
    kept: Vec<Oid>,
    /// What changed since the last save that needs no commit of its own
    /// ([`RunState::save_later`]); the next save's subject starts with it.
    later: Vec<String>,
}

impl<'r> RunState<'r> {
    /// The state at `ref_name`, if there is one.
    pub fn load(repo: &'r Repo, ref_name: &str) -> Result<Option<RunState<'r>>> {
        Self::load_at(repo, ref_name, Depth::Steps)
    }

    /// The state at `ref_name` read to `depth`: with [`Depth::Run`] (a
    /// reader that needs only the run's fields and counts) its steps are
    /// left unread in layout 2, and such a state must not be saved.
    pub fn load_at(repo: &'r Repo, ref_name: &str, depth: Depth) -> Result<Option<RunState<'r>>> {
        let Some(head) = repo.read_ref(ref_name)? else {
            return Ok(None);
        };
        let tree = repo.commit_tree(head)?;
        let ahead = match depth {
            Depth::Steps => super::ahead::take(tree),
            _ => None,
        };
        let index = ahead
            .unwrap_or_else(|| index::read(repo, tree, depth))
            .with_context(|| format!("cannot read the run state '{ref_name}'"))?
            .ok_or_else(|| {
                anyhow!("'{ref_name}' holds neither run.json nor progress.json; it is not a git-ultraplan run state")
            })?;
        let saved_steps = match index.layout {
            Layout::V1 => BTreeMap::new(),
            Layout::V2 => index.progress.steps.clone(),
        };
        Ok(Some(RunState {
            repo,
            ref_name: ref_name.to_owned(),
            head: Some(head),
            tree: Some(tree),
            layout: index.layout,
            progress: index.progress,
            step_counts: index.step_counts,
            saved_steps,
            compared_all: false,
            previous_run: index.previous_run,
            pending: Vec::new(),
            kept: Vec::new(),
            later: Vec::new(),
        }))
    }

    /// The layout of the saved tree (layout 1 until a save upgrades it).
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Step `n`'s paths in the saved tree's layout.
    pub fn step_paths(&self, n: u32) -> StepPaths {
        self.layout.step(n)
    }

    /// A new run: an empty tree whose first commit continues the ref's history.
    pub fn start(repo: &'r Repo, ref_name: &str, progress: Progress, plan_text: &str) -> Result<RunState<'r>> {
        let head = repo.read_ref(ref_name)?;
        let mut state = RunState {
            repo,
            ref_name: ref_name.to_owned(),
            head,
            tree: None,
            layout: layout::CURRENT,
            progress,
            step_counts: BTreeMap::new(),
            saved_steps: BTreeMap::new(),
            compared_all: false,
            previous_run: head,
            pending: Vec::new(),
            kept: Vec::new(),
            later: Vec::new(),
        };
        state.put_text(layout::PLAN, plan_text)?;
        Ok(state)
    }

    /// The current state commit.
    pub fn head(&self) -> Option<Oid> {
        self.head
    }

    /// Queues `text` at `path` for the next save, redacted as the kind of
    /// file `path` names (JSON and YAML string by string): every file of the
    /// state is written here, so none escapes redaction. Returns the blob.
    pub fn put_text(&mut self, path: &str, text: &str) -> Result<Oid> {
        let id = self.repo.write_blob(redact_file(path, text).as_bytes())?;
        self.pending.push(TreeEdit::Blob {
            path: path.to_owned(),
            id,
            executable: false,
        });
        Ok(id)
    }

    /// Queues attempt `attempt`'s record of step `n`, and its summary in the
    /// step's entry.
    pub fn put_record(&mut self, n: u32, attempt: u32, record: &str) -> Result<()> {
        let path = self.layout.step(n).record(attempt);
        self.put_text(&path, record)?;
        let mut summary = AttemptSummary::of_record(attempt, &redact_file(&path, record));
        self.progress.attempts_recorded += 1;
        summary.seq = self.progress.attempts_recorded;
        let results = &mut self.progress.step_mut(n).results;
        results.retain(|r| r.attempt != attempt);
        results.push(summary);
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
            let (tree, _) = self.repo.rewrite_tree(
                base,
                info.tree,
                |text| match redact(text) {
                    Cow::Owned(clean) => Some(clean),
                    Cow::Borrowed(_) => None,
                },
                name_holds_secret,
            )?;
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

    /// Removes the entry at `path` from the next save.
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

    /// The id of the file recorded at `path`.
    pub fn read_blob_id(&self, path: &str) -> Result<Option<Oid>> {
        match self.tree {
            None => Ok(None),
            Some(tree) => Ok(match self.repo.tree_entry(tree, path)? {
                Some((id, EntryKind::Blob | EntryKind::Executable)) => Some(id),
                _ => None,
            }),
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

    /// Writes the progress and the queued changes as a new state commit and
    /// moves the ref from the previous one (compare-and-swap). A state read
    /// in layout 1 is first upgraded to layout 2 in a commit of its own.
    pub fn save(&mut self, message: &str) -> Result<()> {
        let subject = match self.later.is_empty() {
            true => message.to_owned(),
            false => format!("{}; {message}", self.later.join("; ")),
        };
        let saved = self.save_touched(&subject);
        match saved {
            Ok(()) => self.later.clear(),
            // What was handed out may not have been written: compare all.
            Err(_) => self.compared_all = false,
        }
        saved
    }

    /// Keeps what changed (the progress and the queued changes) for the
    /// next save instead of a commit of its own; that save's subject starts
    /// with `message`. Only for a change a crash before that save cannot
    /// lose: one that resuming works out again from what was saved (a step
    /// whose checkpoint is recorded as pending is finished again, and finds
    /// it done). A run's last save ends every run, so nothing waits past it.
    pub fn save_later(&mut self, message: &str) {
        self.later.push(message.to_owned());
    }

    fn save_touched(&mut self, message: &str) -> Result<()> {
        if self.layout == Layout::V1 {
            self.upgrade()?;
        }
        self.progress.updated_at = now();
        let mut edits = Vec::new();
        let touched = std::mem::take(&mut self.progress.touched.0);
        let compare_all = !std::mem::replace(&mut self.compared_all, true);
        let numbers: Vec<u32> = match compare_all {
            true => self.progress.steps.keys().copied().collect(),
            false => touched.into_iter().collect(),
        };
        // The folders of ten whose entries changed; a step no longer in the
        // progress changes its folder too.
        let mut tens = BTreeSet::new();
        let mut landed = Vec::new();
        for n in &numbers {
            let Some(step) = self.progress.steps.get_mut(n) else {
                continue;
            };
            let before = self.saved_steps.get(n).and_then(StepProgress::passed_checkpoint);
            if let Some(now) = step.passed_checkpoint().filter(|now| Some(*now) != before) {
                landed.push((*n, now.to_owned()));
            }
            if let Some(commit) = &step.commit {
                if let Some(last) = step.results.iter_mut().rev().find(|r| r.status == "success") {
                    if last.commit.is_none() {
                        last.commit = Some(commit.clone());
                    }
                }
            }
            if self.saved_steps.get(n) != Some(step) {
                tens.insert(Layout::ten(*n));
                self.saved_steps.insert(*n, step.clone());
            }
        }
        if compare_all {
            let gone: Vec<u32> = self
                .saved_steps
                .keys()
                .filter(|n| !self.progress.steps.contains_key(n))
                .copied()
                .collect();
            for n in gone {
                tens.insert(Layout::ten(n));
                self.saved_steps.remove(&n);
            }
        }
        for ten in tens {
            edits.push(self.entries_edit(ten)?);
        }
        self.follow_checkpoints(&landed)?;
        let run = index::render_run(&mut self.progress, self.previous_run)?;
        let id = self.repo.write_blob(redact_file(layout::RUN_INDEX, &run).as_bytes())?;
        let mut pending = std::mem::take(&mut self.pending);
        pending.extend(edits);
        pending.push(TreeEdit::Blob {
            path: layout::RUN_INDEX.into(),
            id,
            executable: false,
        });
        self.pending = pending;
        let tree = self.repo.edit_tree(self.tree, &self.pending)?;
        self.commit(tree, message)
    }

    /// The `steps.json` of the folder of ten numbered `ten`, written from
    /// the progress: the entries of its steps, or none (an empty object)
    /// when none is left.
    fn entries_edit(&self, ten: u32) -> Result<TreeEdit> {
        let steps = Layout::steps_of_ten(ten);
        let path = Layout::V2.entries(*steps.start());
        let text = index::render_entries(self.progress.steps.range(steps))?;
        let id = self.repo.write_blob(redact_file(&path, &text).as_bytes())?;
        Ok(TreeEdit::Blob {
            path,
            id,
            executable: false,
        })
    }

    /// Commits `tree` on the current head with the kept commits as extra
    /// parents, and moves the ref (compare-and-swap).
    fn commit(&mut self, tree: Oid, message: &str) -> Result<()> {
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

/// Whether a file's path holds what looks like a secret (`ghp_….txt`,
/// `AKIA…/key`): such a file is kept out of every tree the state stores,
/// since a tree entry's name travels with the state as its contents do.
pub fn name_holds_secret(path: &str) -> bool {
    matches!(redact(path), Cow::Owned(_))
}
