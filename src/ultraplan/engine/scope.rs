//! Scope fences (DESIGN §6.2): a step's session's Touch and Never touch
//! lists, the Manifest's forbidden paths and the plan file itself, checked
//! against what a step declares and what it was observed to change.

use std::collections::BTreeSet;

use anyhow::Result;

use super::Run;
use crate::git::{FileChange, Oid, Snapshot, TreeEdit};
use crate::ultraplan::plan::check::{self, Through};
use crate::ultraplan::plan::{pattern, Step};

impl Run<'_> {
    /// Declared files in Never touch, or leading where the step may not
    /// write through a symbolic link already there (one an earlier step made
    /// included: the fence is checked where a path really leads, each time a
    /// step starts): a scope violation before anything runs.
    pub(super) fn declared_scope_violation(&self, step: &Step) -> Option<String> {
        let (touch, never) = self.fence_lists(step);
        let hits: Vec<String> = step
            .files
            .iter()
            .filter_map(|f| {
                if let Some(p) = never.iter().find(|p| pattern::matches(p, &f.path)) {
                    return Some(format!("'{}' is in Never touch ('{p}')", f.path));
                }
                let path = pattern::safe_relative_path(&f.path)
                    .ok()
                    .filter(|p| !pattern::is_glob(p))?;
                match check::through_links(&self.workdir, &path)? {
                    Through::Outside(link) => Some(format!(
                        "'{}' leads outside the repository through the symbolic link '{}'",
                        f.path,
                        link.display()
                    )),
                    Through::Inside(real) if !crate::git::storable(&real) => Some(format!(
                        "'{}' leads into .git through a symbolic link (to '{real}')",
                        f.path
                    )),
                    Through::Inside(real) => {
                        if let Some(p) = never.iter().find(|p| pattern::matches(p, &real)) {
                            Some(format!(
                                "'{}' is '{real}' through a symbolic link, which is in Never touch ('{p}')",
                                f.path
                            ))
                        } else if !touch.is_empty() && !touch.iter().any(|p| pattern::matches(p, &real)) {
                            Some(format!(
                                "'{}' is '{real}' through a symbolic link, which is outside the Touch list",
                                f.path
                            ))
                        } else {
                            None
                        }
                    }
                }
            })
            .collect();
        (!hits.is_empty()).then(|| format!("scope violation: the step declares {}", hits.join(", ")))
    }

    /// The session whose fence applies to `step`: the one being run, else the
    /// one the Execution Strategy gives the step (a foreground run of a plan
    /// with sessions fences each step like its session would).
    pub(super) fn step_session(&self, step: &Step) -> Option<&'_ crate::ultraplan::plan::Session> {
        self.session
            .or_else(|| self.plan.sessions.iter().find(|s| s.steps.contains(&step.number)))
    }

    /// The session's Touch list and everything never to be touched: its Never
    /// touch list, the Manifest's forbidden paths and the plan file itself.
    pub(super) fn fence_lists(&self, step: &Step) -> (Vec<String>, Vec<String>) {
        let mut touch = Vec::new();
        let mut never = Vec::new();
        if let Some(session) = self.step_session(step) {
            touch.extend(session.touch.iter().map(|p| p.text.clone()));
            never.extend(session.never_touch.iter().map(|p| p.text.clone()));
        }
        if let Some(manifest) = &step.manifest {
            never.extend(manifest.forbidden_paths.iter().cloned());
        }
        if let Some(plan) = &self.input.in_worktree {
            // The plan's own path, not a pattern: `*.md` is one file.
            never.extend(pattern::literal(plan));
        }
        (touch, never)
    }

    /// Violations (path, why) and warnings for the observed changes.
    /// Files the attempt made where git cannot store them (a spelling of
    /// `.git`, DESIGN §2): a scope violation, removed. Files like that which
    /// were there before the step are the user's and left alone.
    pub(super) fn unstorable_made(&mut self, n: u32, observed: &mut Snapshot) -> Result<Option<String>> {
        let Some(before) = self.state.read_text(&self.state.step_paths(n).unstorable())? else {
            return Ok(None); // a state from before this was recorded
        };
        let before: BTreeSet<String> = before.lines().map(str::to_owned).collect();
        let made: Vec<String> = observed.unstorable.difference(&before).cloned().collect();
        if made.is_empty() {
            return Ok(None);
        }
        crate::git::remove_files(&self.workdir, &made)?;
        observed.unstorable.retain(|p| !made.contains(p));
        Ok(Some(format!(
            "scope violation: {} (a path git refuses to store: a spelling of .git) (removed)",
            made.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(", ")
        )))
    }

    /// What the snapshot cannot hold, said rather than dropped: a declared
    /// file that is a git repository of its own (git records only its
    /// commit), and a symbolic link the step made that leads out of the
    /// repository (what is written through it is in no snapshot).
    pub(super) fn beyond_the_snapshot(&self, step: &Step, changes: &[FileChange]) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for file in &step.files {
            let path = self.workdir.join(&file.path);
            if path.is_dir() && path.join(".git").exists() {
                out.push(format!(
                    "'{}' is a git repository of its own: git records only its commit, so none of its files are committed or restored",
                    file.path
                ));
            }
        }
        for change in changes {
            let Some((id, crate::git::EntryKind::Link)) = change.new else {
                continue;
            };
            let target = String::from_utf8_lossy(&self.repo.read_blob(id)?).into_owned();
            if leads_outside(&change.path, &target) {
                out.push(format!(
                    "'{}' is a symbolic link to '{target}', outside the repository: what is written through it is in no snapshot, and no restore brings it back",
                    change.path
                ));
            }
        }
        Ok(out)
    }

    pub(super) fn scope_check(&self, step: &Step, changes: &[FileChange]) -> (Vec<(String, String)>, Vec<String>) {
        let (touch, never) = self.fence_lists(step);
        let mut violations = Vec::new();
        let mut warnings = Vec::new();
        for change in changes {
            let path = &change.path;
            if let Some(p) = never.iter().find(|p| pattern::matches(p, path)) {
                violations.push((path.clone(), format!("'{path}' is in Never touch ('{p}')")));
            } else if !touch.is_empty() && !touch.iter().any(|p| pattern::matches(p, path)) {
                violations.push((path.clone(), format!("'{path}' is outside the Touch list")));
            } else if !step.files.is_empty() && !step.files.iter().any(|f| pattern::matches(&f.path, path)) {
                warnings.push(format!("'{path}' changed but is not in the step's Files"));
            }
        }
        (violations, warnings)
    }

    /// `observed` with `paths` put back to their `snapshot` version, without
    /// scanning the worktree again.
    pub(super) fn overlay(&self, observed: &Snapshot, snapshot: Oid, paths: &BTreeSet<String>) -> Result<Snapshot> {
        let mut edits = Vec::new();
        for path in paths {
            edits.push(match self.repo.tree_entry(snapshot, path)? {
                Some((id, crate::git::EntryKind::Executable)) => TreeEdit::Blob {
                    path: path.clone(),
                    id,
                    executable: true,
                },
                Some((id, crate::git::EntryKind::Link)) => TreeEdit::Link { path: path.clone(), id },
                Some((id, _)) => TreeEdit::Blob {
                    path: path.clone(),
                    id,
                    executable: false,
                },
                None => TreeEdit::Remove { path: path.clone() },
            });
        }
        let tree = self.repo.edit_tree(Some(observed.tree), &edits)?;
        Ok(Snapshot::recorded(observed.head, tree))
    }
}

/// Whether the link at `path` (repository-relative) with `target` points out
/// of the repository, judged lexically (the target may not exist yet).
fn leads_outside(path: &str, target: &str) -> bool {
    if target.starts_with('/') {
        return true;
    }
    let mut depth: i64 = path.matches('/').count() as i64;
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            _ => depth += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn links_that_lead_outside() {
        use super::leads_outside;
        assert!(leads_outside("x", "../y"));
        assert!(leads_outside("a/x", "../../y"));
        assert!(leads_outside("a/x", "/etc/passwd"));
        assert!(!leads_outside("a/x", "../y"));
        assert!(!leads_outside("a/x", "b/../../c"));
        assert!(leads_outside("a/x", "b/../../../c"));
        assert!(!leads_outside("x", "./y"));
    }
}
