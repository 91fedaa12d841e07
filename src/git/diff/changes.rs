//! gix's tree changes, with or without rename tracking, as the file
//! [`Delta`]s of the one tree diff (a directory's own change is dropped: a
//! diff here is by file).

use gix::bstr::ByteSlice;

use super::Delta;
use crate::git::objects::{kind, Entry};
use crate::git::repo::Oid;

/// One change of a tree diff, with or without rename tracking.
pub(super) enum Change {
    Addition {
        path: gix::bstr::BString,
        mode: gix::object::tree::EntryMode,
        id: Oid,
    },
    Deletion {
        path: gix::bstr::BString,
        mode: gix::object::tree::EntryMode,
        id: Oid,
    },
    Modification {
        path: gix::bstr::BString,
        previous_mode: gix::object::tree::EntryMode,
        previous_id: Oid,
        mode: gix::object::tree::EntryMode,
        id: Oid,
    },
}

/// The delta of a change found with rename tracking.
pub(super) fn push_detached(out: &mut Vec<Delta>, change: gix::diff::tree_with_rewrites::Change) {
    use gix::diff::tree_with_rewrites::Change as C;
    let change = match change {
        C::Addition {
            location,
            entry_mode,
            id,
            ..
        } => Change::Addition {
            path: location,
            mode: entry_mode,
            id,
        },
        C::Deletion {
            location,
            entry_mode,
            id,
            ..
        } => Change::Deletion {
            path: location,
            mode: entry_mode,
            id,
        },
        C::Modification {
            location,
            previous_entry_mode,
            previous_id,
            entry_mode,
            id,
        } => Change::Modification {
            path: location,
            previous_mode: previous_entry_mode,
            previous_id,
            mode: entry_mode,
            id,
        },
        C::Rewrite {
            source_location,
            source_entry_mode,
            source_id,
            entry_mode,
            id,
            location,
            copy,
            ..
        } => {
            if !entry_mode.is_tree() && !source_entry_mode.is_tree() {
                let entry = |id: Oid, mode: gix::object::tree::EntryMode| Entry { id, kind: kind(mode) };
                out.push(Delta::Renamed {
                    from: source_location.to_str_lossy().into_owned(),
                    to: location.to_str_lossy().into_owned(),
                    old: entry(source_id, source_entry_mode),
                    new: entry(id, entry_mode),
                    copy,
                });
            }
            return;
        }
    };
    push_delta(out, change);
}

/// The delta of one change, by file: directories are left out, and a file
/// that became a directory (or back) is a deletion (or an addition) whose
/// directory's contents arrive as separate changes.
pub(super) fn push_delta(out: &mut Vec<Delta>, change: Change) {
    let entry = |id: Oid, mode: gix::object::tree::EntryMode| Entry { id, kind: kind(mode) };
    match change {
        Change::Addition { path, mode, id } if !mode.is_tree() => out.push(Delta::Added {
            path: path.to_str_lossy().into_owned(),
            new: entry(id, mode),
        }),
        Change::Deletion { path, mode, id } if !mode.is_tree() => out.push(Delta::Deleted {
            path: path.to_str_lossy().into_owned(),
            old: entry(id, mode),
        }),
        Change::Modification {
            path,
            previous_mode,
            previous_id,
            mode,
            id,
        } => {
            let path = path.to_str_lossy().into_owned();
            match (previous_mode.is_tree(), mode.is_tree()) {
                (false, false) => out.push(Delta::Modified {
                    path,
                    old: entry(previous_id, previous_mode),
                    new: entry(id, mode),
                }),
                (false, true) => out.push(Delta::Deleted {
                    path,
                    old: entry(previous_id, previous_mode),
                }),
                (true, false) => out.push(Delta::Added {
                    path,
                    new: entry(id, mode),
                }),
                (true, true) => {}
            }
        }
        _ => {}
    }
}
