//! Exporting a state in layout 1 (DESIGN §8, earlier versions) as version
//! 1 wrote it: the state tree flattened to its files and the kept trees at
//! `steps/<N>/<name>`, each kept tree by what differs from the commit its
//! step started from.

use std::collections::BTreeMap;

use anyhow::Result;

use super::{redacted, Written};
use crate::git::{EntryKind, Oid, Repo};
use crate::ultraplan::records::exchange::{CommitDoc, TreeDoc, TreeFile};
use crate::ultraplan::state::layout::Layout;

/// A layout-1 state tree flattened to what version 1 wrote: files, and the
/// kept trees at `steps/<N>/<name>` as opaque units.
pub(super) fn flatten_v1(repo: &Repo, tree: Oid) -> Result<BTreeMap<String, (Oid, EntryKind)>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![(String::new(), tree, 0usize)];
    while let Some((prefix, id, depth)) = stack.pop() {
        for (name, oid, kind) in repo.list_tree(id)? {
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if kind == EntryKind::Tree && depth < 2 {
                stack.push((path, oid, depth + 1));
            } else {
                out.insert(path, (oid, kind));
            }
        }
    }
    Ok(out)
}

/// A layout-1 commit as version 1 wrote it: text files by content, kept
/// trees by what differs from the commit the step started from.
pub(super) fn v1_changes(
    repo: &Repo,
    tree: Oid,
    before: &BTreeMap<String, (Oid, EntryKind)>,
    now: &BTreeMap<String, (Oid, EntryKind)>,
    transcripts: bool,
    written: &mut Written,
    doc: &mut CommitDoc,
) -> Result<()> {
    doc.removed = before.keys().filter(|p| !now.contains_key(*p)).cloned().collect();
    for (path, (id, kind)) in now {
        if before.get(path) == Some(&(*id, *kind)) || (!transcripts && path.ends_with(".log")) {
            continue;
        }
        if *kind == EntryKind::Tree {
            let base = v1_base(repo, tree, path)?;
            doc.trees.insert(path.clone(), tree_doc(repo, *id, base)?);
            written.new_trees.insert(*id);
        } else {
            let text = String::from_utf8_lossy(&repo.read_blob(*id)?).into_owned();
            doc.files.insert(path.clone(), redacted(&text));
        }
    }
    Ok(())
}

/// The commit step `N`'s kept trees are based on, from `steps/<N>/git`.
fn v1_base(repo: &Repo, state_tree: Oid, path: &str) -> Result<Option<Oid>> {
    let Some((n, name)) = Layout::V1.step_of(path) else {
        return Ok(None);
    };
    if name == "own" || name == "ignored" {
        return Ok(None);
    }
    let Some(bytes) = repo.read_path(state_tree, &Layout::V1.step(n).git())? else {
        return Ok(None);
    };
    Ok(crate::git::Pointers::parse(&String::from_utf8_lossy(&bytes)).and_then(|p| p.head.commit))
}

fn tree_doc(repo: &Repo, id: Oid, base: Option<Oid>) -> Result<TreeDoc> {
    let base_tree = match base {
        Some(c) => repo.commit_tree(c)?,
        None => repo.empty_tree(),
    };
    let mut files = BTreeMap::new();
    for change in repo.changes(base_tree, id)? {
        let file = match change.new {
            None => None,
            Some((blob, kind)) => {
                let bytes = repo.read_blob(blob)?;
                let (text, hex) = match String::from_utf8(bytes) {
                    Ok(text) => (redacted(&text), false),
                    Err(e) => (e.as_bytes().iter().map(|b| format!("{b:02x}")).collect(), true),
                };
                Some(TreeFile {
                    kind: match kind {
                        EntryKind::Executable => "executable",
                        EntryKind::Link => "link",
                        _ => "file",
                    }
                    .into(),
                    text,
                    hex,
                })
            }
        };
        files.insert(change.path, file);
    }
    Ok(TreeDoc {
        id: id.to_string(),
        base: base.map(|b| b.to_string()),
        files,
    })
}
