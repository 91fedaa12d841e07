//! Moving a state in layout 1 (earlier versions) to layout 2, in one
//! commit, before a resume goes on ([`Layout`]).

use anyhow::{anyhow, Result};

use std::collections::BTreeSet;

use super::super::index;
use super::super::layout::{self, Layout};
use super::super::progress::AttemptSummary;
use super::RunState;
use crate::git::{EntryKind, Oid, TreeEdit};
use crate::redact::redact_file;

impl RunState<'_> {
    /// Moves a layout-1 state to layout 2 in one commit: `progress.json`
    /// becomes `run.json` and the step entries, `steps/<N>/` moves to
    /// its folder in layout 2 (`steps/<N/1000>/<N/100>/<N/10>/<N>/`), each kept tree becomes the `files/` of a kept
    /// change without a base, and the attempts' summaries are read from
    /// their records. What the queued edits and the raw files kept beside the
    /// state name moves with them.
    pub fn upgrade(&mut self) -> Result<()> {
        if self.layout != Layout::V1 {
            return Ok(());
        }
        let old = self.tree.ok_or_else(|| anyhow!("no state to upgrade"))?;
        let mut edits = vec![TreeEdit::Remove {
            path: layout::PROGRESS_V1.into(),
        }];
        let mut moved = Vec::new();
        if let Some((steps, EntryKind::Tree)) = self.repo.tree_entry(old, layout::STEPS)? {
            edits.push(TreeEdit::Remove {
                path: layout::STEPS.into(),
            });
            for (name, dir, kind) in self.repo.list_tree(steps)? {
                let (Ok(n), EntryKind::Tree) = (name.parse::<u32>(), kind) else {
                    continue;
                };
                let to = Layout::V2.step(n);
                let mut entries = Vec::new();
                for (file, id, kind) in self.repo.list_tree(dir)? {
                    if kind == EntryKind::Tree {
                        let wrapped = self.repo.edit_tree(
                            None,
                            &[TreeEdit::Tree {
                                path: layout::kept::FILES.into(),
                                id,
                            }],
                        )?;
                        entries.push(TreeEdit::Tree {
                            path: file.clone(),
                            id: wrapped,
                        });
                        moved.push((
                            format!("{}/{file}", Layout::V1.step(n).dir()),
                            format!("{}/{file}", to.dir()),
                        ));
                        continue;
                    }
                    if let Some(a) = file
                        .strip_prefix("attempt-")
                        .and_then(|r| r.strip_suffix(".yaml"))
                        .and_then(|a| a.parse::<u32>().ok())
                    {
                        let record = String::from_utf8_lossy(&self.repo.read_blob(id)?).into_owned();
                        let step = self.progress.step_mut(n);
                        if !step.results.iter().any(|r| r.attempt == a) {
                            step.results.push(AttemptSummary::of_record(a, &record));
                        }
                    }
                    entries.push(match kind {
                        EntryKind::Executable => TreeEdit::Blob {
                            path: file,
                            id,
                            executable: true,
                        },
                        EntryKind::Link => TreeEdit::Link { path: file, id },
                        EntryKind::Commit => TreeEdit::Commit { path: file, id },
                        _ => TreeEdit::Blob {
                            path: file,
                            id,
                            executable: false,
                        },
                    });
                }
                let step_tree = self.repo.edit_tree(None, &entries)?;
                edits.push(TreeEdit::Tree {
                    path: to.dir().to_owned(),
                    id: step_tree,
                });
            }
        }
        for step in self.progress.steps.values_mut() {
            step.results.sort_by_key(|r| r.attempt);
            if let (Some(commit), Some(last)) = (
                &step.commit,
                step.results.iter_mut().rev().find(|r| r.status == "success"),
            ) {
                last.commit = Some(commit.clone());
            }
        }
        self.previous_run = match self.head {
            Some(head) => index::start_parent(self.repo, head)?,
            None => None,
        };
        self.layout = Layout::V2;
        for step_edit in &mut self.pending {
            retarget(step_edit);
        }
        crate::ultraplan::state::moved_kept_files(self.repo, &self.progress.run_id, &moved);
        let queued = std::mem::take(&mut self.pending);
        let kept = std::mem::take(&mut self.kept);
        // The upgrade commit: the tree moved, every step entry written.
        self.saved_steps.clear();
        self.save_moved(old, edits)?;
        self.pending = queued;
        self.kept = kept;
        Ok(())
    }

    fn save_moved(&mut self, old: Oid, mut edits: Vec<TreeEdit>) -> Result<()> {
        let tens: BTreeSet<u32> = self.progress.steps.keys().map(|n| Layout::ten(*n)).collect();
        for ten in tens {
            edits.push(self.entries_edit(ten)?);
        }
        let run = index::render_run(&mut self.progress, self.previous_run)?;
        edits.push(TreeEdit::Blob {
            path: layout::RUN_INDEX.into(),
            id: self.repo.write_blob(redact_file(layout::RUN_INDEX, &run).as_bytes())?,
            executable: false,
        });
        // Removals first: `steps` is emptied, then refilled.
        let tree = self.repo.edit_tree(Some(old), &edits)?;
        self.saved_steps = self.progress.steps.clone();
        self.commit(tree, "state: layout 2 (upgraded from 1)")
    }
}

/// A queued edit's path, from layout 1 to layout 2.
fn retarget(edit: &mut TreeEdit) {
    let path = match edit {
        TreeEdit::Blob { path, .. }
        | TreeEdit::Link { path, .. }
        | TreeEdit::Tree { path, .. }
        | TreeEdit::Commit { path, .. }
        | TreeEdit::Remove { path } => path,
    };
    if let Some((n, rest)) = Layout::V1.step_of(path) {
        let dir = Layout::V2.step(n);
        *path = if rest.is_empty() {
            dir.dir().to_owned()
        } else {
            format!("{}/{rest}", dir.dir())
        };
    }
}
