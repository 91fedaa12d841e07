//! What a step wrote outside the repository (issue 36, item 16). No snapshot
//! holds it and no restore brings it back, so it is named in a warning: the
//! directory above the worktree (`../notes.txt`) and what each symbolic link
//! leading out of it names (`out/report.txt` through `out -> ../elsewhere`),
//! the links an earlier step made included, are looked at one level deep
//! before the executor runs and after it; a file made, removed or changed
//! there is named.
//!
//! It only looks: names and, for files, size and modification time, at most
//! [`MAX_ENTRIES`] of them, so its cost does not grow with the repository.
//! A directory's own time is not compared (the worktree of a parallel session
//! beside this one changes it all the time); a change made by someone else
//! while the step ran is named as well — the warning says the place changed,
//! not who changed it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Result;

use super::{Ledger, RunContext, Watch};
use crate::git::{EntryKind, FileChange, Oid};

/// The most entries looked at in one place.
const MAX_ENTRIES: usize = 2000;

/// The links of the worktree that lead out of it: (path, where they lead).
pub(in crate::ultraplan::engine) type Links = Vec<(String, PathBuf)>;

/// What could be seen outside the repository at one moment.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Outside {
    /// By the name shown (`../x`, `out/x`): whether a directory, and a
    /// file's size and time.
    seen: BTreeMap<String, (bool, u64, Option<SystemTime>)>,
}

impl Outside {
    /// Looks at the directory above `workdir` and at each of `links`.
    pub fn look(workdir: &Path, links: &Links) -> Outside {
        let mut out = Outside::default();
        if let Some(parent) = workdir.parent() {
            let own = workdir.file_name().map(|n| n.to_owned());
            out.list(parent, "..", |name| Some(name) != own.as_deref());
        }
        for (link, target) in links {
            match std::fs::metadata(target) {
                Ok(meta) if meta.is_dir() => out.list(target, link, |_| true),
                Ok(meta) => {
                    out.seen.insert(link.clone(), (false, meta.len(), meta.modified().ok()));
                }
                Err(_) => {}
            }
        }
        out
    }

    fn list(&mut self, dir: &Path, shown: &str, keep: impl Fn(&std::ffi::OsStr) -> bool) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut names: Vec<std::ffi::OsString> = entries.flatten().map(|e| e.file_name()).filter(|n| keep(n)).collect();
        names.sort();
        names.truncate(MAX_ENTRIES);
        for name in names {
            let Ok(meta) = std::fs::symlink_metadata(dir.join(&name)) else {
                continue;
            };
            let key = format!("{shown}/{}", name.to_string_lossy());
            let value = if meta.is_dir() {
                (true, 0, None)
            } else {
                (false, meta.len(), meta.modified().ok())
            };
            self.seen.insert(key, value);
        }
    }

    /// What differs from `before`: made, removed or changed.
    pub fn changed_since(&self, before: &Outside) -> Vec<String> {
        let mut out = Vec::new();
        for (name, now) in &self.seen {
            match before.seen.get(name) {
                None => out.push(format!("'{name}' (made)")),
                Some(was) if was != now => out.push(format!("'{name}' (changed)")),
                Some(_) => {}
            }
        }
        for name in before.seen.keys().filter(|n| !self.seen.contains_key(*n)) {
            out.push(format!("'{name}' (removed)"));
        }
        out
    }
}

/// Where the link at `path` (worktree-relative) with `target` leads, when
/// that is outside `root`; judged lexically, as the target may not exist.
fn outside_target(root: &Path, path: &str, target: &str) -> Option<PathBuf> {
    let link = root.join(path);
    let joined = link.parent()?.join(target);
    let mut resolved = PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::ParentDir => {
                resolved.pop();
            }
            std::path::Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    (!resolved.starts_with(root)).then_some(resolved)
}

/// Before an attempt: the links leading out of the worktree, and what
/// is outside it now.
pub(super) fn look(cx: &RunContext<'_>, watch: &mut Watch, snapshot: Oid) -> Result<(Links, Outside)> {
    let links = known_links(cx, watch, snapshot)?;
    let outside = Outside::look(&cx.workdir, &links);
    Ok((links, outside))
}

/// After step `n`'s attempt: what it wrote outside the repository
/// since `before`, named in a warning (returned for the record), and
/// the known links updated from its `changes`.
pub(super) fn written(
    cx: &RunContext<'_>,
    ledger: &mut Ledger<'_>,
    watch: &mut Watch,
    n: u32,
    (links, before): (&Links, &Outside),
    changes: &[FileChange],
) -> Result<Option<String>> {
    let written = Outside::look(&cx.workdir, links).changed_since(before);
    let mut said = None;
    if !written.is_empty() {
        let shown = written.len().min(5);
        let warning = format!(
                "changed outside the repository while it ran, where no snapshot holds it and no restore brings it back: {}{}",
                written[..shown].join(", "),
                if written.len() > shown { ", …" } else { "" }
            );
        ledger.warn(format!("step {n}: {warning}"));
        said = Some(warning);
    }
    note_links(cx, watch, changes)?;
    Ok(said)
}

/// The worktree's links that lead outside it: read from `snapshot` once
/// per run (every link the user or an earlier step made), then kept up
/// to date from each attempt's changes.
fn known_links(cx: &RunContext<'_>, watch: &mut Watch, snapshot: Oid) -> Result<Links> {
    if let Some(links) = &watch.links {
        return Ok(links.clone());
    }
    let root = root(cx);
    let mut links = Vec::new();
    for (path, id) in cx.repo.tree_links(snapshot)? {
        let target = String::from_utf8_lossy(&cx.repo.read_blob(id)?).into_owned();
        if let Some(to) = outside_target(&root, &path, &target) {
            links.push((path, to));
        }
    }
    watch.links = Some(links.clone());
    Ok(links)
}

/// The worktree's top, as links name it (symbolic links resolved).
fn root(cx: &RunContext<'_>) -> PathBuf {
    cx.workdir.canonicalize().unwrap_or_else(|_| cx.workdir.clone())
}

/// Updates the known links from what an attempt changed.
fn note_links(cx: &RunContext<'_>, watch: &mut Watch, changes: &[FileChange]) -> Result<()> {
    let Some(mut links) = watch.links.take() else {
        return Ok(());
    };
    let root = root(cx);
    for change in changes {
        links.retain(|(p, _)| *p != change.path);
        if let Some((id, EntryKind::Link)) = change.new {
            let target = String::from_utf8_lossy(&cx.repo.read_blob(id)?).into_owned();
            if let Some(to) = outside_target(&root, &change.path, &target) {
                links.push((change.path.clone(), to));
            }
        }
    }
    watch.links = Some(links);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_changes_beside_the_worktree_and_through_links_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(dir.path().join("kept.txt"), "a").unwrap();
        let links = vec![("out".to_owned(), elsewhere.clone())];
        let before = Outside::look(&root, &links);
        std::fs::write(dir.path().join("new.txt"), "b").unwrap();
        std::fs::write(elsewhere.join("report.txt"), "c").unwrap();
        std::fs::write(root.join("inside.txt"), "d").unwrap();
        std::fs::remove_file(dir.path().join("kept.txt")).unwrap();
        let after = Outside::look(&root, &links);
        assert_eq!(
            after.changed_since(&before),
            [
                "'../new.txt' (made)",
                "'out/report.txt' (made)",
                "'../kept.txt' (removed)"
            ]
        );
        assert!(Outside::look(&root, &links).changed_since(&after).is_empty());
    }

    #[test]
    fn links_lead_outside_by_where_they_point() {
        let root = Path::new("/work/repo");
        assert_eq!(outside_target(root, "out", "../x"), Some(PathBuf::from("/work/x")));
        assert_eq!(outside_target(root, "a/out", "/etc"), Some(PathBuf::from("/etc")));
        assert_eq!(outside_target(root, "a/out", "../b"), None);
        assert_eq!(outside_target(root, "a/out", "../../x"), Some(PathBuf::from("/work/x")));
    }
}
