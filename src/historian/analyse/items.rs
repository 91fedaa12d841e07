//! Change items (DESIGN §10.1, step 3): the difference between the base and
//! the tip of a branch, cut into the smallest pieces a commit may hold.
//!
//! A modified text file whose kind stays the same gives one item per hunk,
//! a hunk holding several entries one per entry ([`blocks`]: the rows of a
//! table, two definitions added one after the other); every other change is
//! one whole-file item: an addition, a deletion, a rename or copy (with
//! whatever edits came with it), a mode or type change, a binary file, a
//! submodule, or a text file too large to diff. An item is named by its path
//! (`src/lib.rs`) or, for a hunk, by its path and number (`src/lib.rs#2`),
//! the names plan files use; a block is numbered as a hunk of its own.

use std::collections::HashMap;

use anyhow::Result;
use serde::Serialize;

use crate::git::{Delta, Entry, EntryKind, Oid, Renames, Repo};

use super::blocks;
use super::lines::{self, Hunk};
use super::moves::{Cut, MoveFinder, Moves};
use super::sections::Sections;
use super::symbols::{self, Side, Symbols};
use super::syntax;

/// Files larger than this are one item, never diffed line by line.
const LARGEST_DIFFED_FILE: u64 = 8 << 20;

/// What happened to a file between the base and the tip.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Status {
    Added,
    Deleted,
    Modified,
    Renamed {
        from: String,
    },
    Copied {
        from: String,
    },
    /// Same contents, executable bit flipped.
    ModeChanged,
    /// A file became a symbolic link or a submodule, or back.
    TypeChanged,
}

impl Status {
    /// The letter `git diff --name-status` uses.
    pub fn letter(&self) -> char {
        match self {
            Status::Added => 'A',
            Status::Deleted => 'D',
            Status::Modified | Status::ModeChanged => 'M',
            Status::Renamed { .. } => 'R',
            Status::Copied { .. } => 'C',
            Status::TypeChanged => 'T',
        }
    }
}

/// One file's change.
#[derive(Clone, Debug)]
pub struct FileChange {
    /// The path at the tip (the deleted path for a deletion).
    pub path: String,
    pub status: Status,
    /// The entry at the base (at the old path for renames and copies).
    pub old: Option<Entry>,
    /// The entry at the tip.
    pub new: Option<Entry>,
    pub binary: bool,
    /// Hunks, when the file is changed hunk by hunk; empty when it is one item.
    pub hunks: Vec<Hunk>,
    pub added: usize,
    pub removed: usize,
}

impl FileChange {
    pub fn is_submodule(&self) -> bool {
        [self.old, self.new]
            .iter()
            .flatten()
            .any(|e| e.kind == EntryKind::Commit)
    }

    /// The base path this change starts from, when the file existed there.
    pub fn old_path(&self) -> Option<&str> {
        match &self.status {
            Status::Added => None,
            Status::Renamed { from } | Status::Copied { from } => Some(from),
            _ => Some(&self.path),
        }
    }

    /// Whether the change is made hunk by hunk.
    pub fn is_hunked(&self) -> bool {
        !self.hunks.is_empty()
    }
}

/// A change item: a whole file, or one hunk of a modified text file.
#[derive(Clone, Debug)]
pub struct Item {
    pub file: usize,
    /// The hunk's index in its file, for hunk items.
    pub hunk: Option<usize>,
    /// Lines removed plus lines added.
    pub lines: usize,
    pub symbols: Symbols,
}

/// The difference between a base and a tip, as change items.
#[derive(Clone, Debug)]
pub struct ChangeSet {
    pub base: Oid,
    pub tip: Oid,
    pub base_tree: Oid,
    pub tip_tree: Oid,
    /// Sorted by path.
    pub files: Vec<FileChange>,
    /// Sorted by path, then hunk.
    pub items: Vec<Item>,
    /// Lines some items delete and others add.
    pub moves: Moves,
}

impl ChangeSet {
    /// Reads the difference between the commits `base` and `tip`.
    pub fn analyse(repo: &Repo, base: Oid, tip: Oid) -> Result<ChangeSet> {
        let base_tree = repo.commit_tree(base)?;
        let tip_tree = repo.commit_tree(tip)?;
        let deltas = repo.tree_deltas(base_tree, tip_tree, Renames::On)?;
        let mut files = Vec::with_capacity(deltas.len());
        let mut items = Vec::new();
        let mut moves = MoveFinder::default();
        for delta in deltas {
            let (file, file_items) = file_change(repo, delta, files.len(), items.len(), &mut moves)?;
            files.push(file);
            items.extend(file_items);
        }
        Ok(ChangeSet {
            base,
            tip,
            base_tree,
            tip_tree,
            files,
            items,
            moves: moves.finish(),
        })
    }

    /// The item's name in plans: `path` or `path#N` (N counted from 1).
    pub fn item_name(&self, item: usize) -> String {
        let it = &self.items[item];
        let path = &self.files[it.file].path;
        match it.hunk {
            Some(h) => format!("{path}#{}", h + 1),
            None => path.clone(),
        }
    }

    /// Item indices by name, and each file's items by path.
    pub fn index(&self) -> ItemIndex {
        let mut by_name = HashMap::new();
        let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
        for i in 0..self.items.len() {
            by_name.insert(self.item_name(i), i);
            by_path
                .entry(self.files[self.items[i].file].path.clone())
                .or_default()
                .push(i);
        }
        ItemIndex { by_name, by_path }
    }

    /// The path of the item's file.
    pub fn path(&self, item: usize) -> &str {
        &self.files[self.items[item].file].path
    }
}

/// Lookups from plan names to items.
pub struct ItemIndex {
    pub by_name: HashMap<String, usize>,
    pub by_path: HashMap<String, Vec<usize>>,
}

/// The change of one file (the `index`th), whose items are numbered from
/// `first_item`; its lines are recorded in `moves`.
fn file_change(
    repo: &Repo,
    delta: Delta,
    index: usize,
    first_item: usize,
    moves: &mut MoveFinder,
) -> Result<(FileChange, Vec<Item>)> {
    let (path, status, old, new) = status_of(delta);
    let old_text = text_of(repo, old)?;
    let new_text = text_of(repo, new)?;
    let mut file = FileChange {
        path,
        status,
        old,
        new,
        binary: matches!(old_text, Text::Binary) || matches!(new_text, Text::Binary),
        hunks: Vec::new(),
        added: 0,
        removed: 0,
    };
    let old_lines = match &old_text {
        Text::Lines(data) => lines::split_lines(data),
        _ => Vec::new(),
    };
    let new_lines = match &new_text {
        Text::Lines(data) => lines::split_lines(data),
        _ => Vec::new(),
    };
    let diffed = |t: &Text| matches!(t, Text::Lines(_));
    let both_text = !file.binary && diffed(&old_text) && diffed(&new_text);
    let by_hunks = both_text
        && file.status == Status::Modified
        && matches!((old, new), (Some(o), Some(n)) if o.kind == n.kind && is_file(o.kind));
    if !both_text {
        // A text too large to diff counts as wholly rewritten.
        let large = !file.binary && (matches!(old_text, Text::Large(_)) || matches!(new_text, Text::Large(_)));
        if large {
            file.removed = old_text.line_count();
            file.added = new_text.line_count();
        }
        let lines = file.added + file.removed;
        return Ok((
            file,
            vec![Item {
                file: index,
                hunk: None,
                lines,
                symbols: Symbols::default(),
            }],
        ));
    }
    let mut hunks = lines::hunks(&old_lines, &new_lines);
    if by_hunks {
        hunks = blocks::cut(&file.path, &old_lines, &new_lines, hunks);
    }
    let cut = match &file.status {
        _ if by_hunks => Cut::Hunks { first: first_item },
        Status::Copied { .. } => Cut::Copy { item: first_item },
        _ => Cut::Whole { item: first_item },
    };
    moves.file(&old_lines, &new_lines, &hunks, cut);
    file.removed = hunks.iter().map(|h| h.old.len()).sum();
    file.added = hunks.iter().map(|h| h.new.len()).sum();
    let old_data = old_text.data();
    let new_data = new_text.data();
    let before = Side::new(file.old_path().unwrap_or(&file.path), old_data, &old_lines);
    let after = Side::new(&file.path, new_data, &new_lines);
    let sections = if by_hunks {
        Sections::of(&file.path, &new_lines)
    } else {
        None
    };
    let items = if by_hunks {
        hunks
            .iter()
            .enumerate()
            .map(|(i, h)| Item {
                file: index,
                hunk: Some(i),
                lines: h.size(),
                symbols: {
                    let mut found = symbols::read(
                        &before,
                        std::slice::from_ref(&h.old),
                        &after,
                        std::slice::from_ref(&h.new),
                    );
                    if let Some(sections) = &sections {
                        // The package or heading the hunk falls in: what a
                        // lock file's or a document's hunk is about. A
                        // package is a name two hunks share (a lock file's
                        // hunks of one bump); a heading only says what the
                        // hunk answers to, since unrelated work shares one.
                        let section = sections.at(h.new.start).unwrap_or("");
                        let names = syntax::specific_names(section).map(str::to_owned);
                        if sections.is_document() {
                            found.heading.extend(names);
                        } else {
                            found.used.extend(names);
                        }
                    }
                    found
                },
            })
            .collect()
    } else {
        let old_ranges: Vec<_> = hunks.iter().map(|h| h.old.clone()).collect();
        let new_ranges: Vec<_> = hunks.iter().map(|h| h.new.clone()).collect();
        vec![Item {
            file: index,
            hunk: None,
            lines: file.added + file.removed,
            symbols: symbols::read(&before, &old_ranges, &after, &new_ranges),
        }]
    };
    if by_hunks {
        file.hunks = hunks;
    }
    Ok((file, items))
}

/// A delta's path on the tip's side, its status, and its two entries.
fn status_of(delta: Delta) -> (String, Status, Option<Entry>, Option<Entry>) {
    match delta {
        Delta::Added { path, new } => (path, Status::Added, None, Some(new)),
        Delta::Deleted { path, old } => (path, Status::Deleted, Some(old), None),
        Delta::Modified { path, old, new } => {
            let status = if type_class(old.kind) != type_class(new.kind) {
                Status::TypeChanged
            } else if old.id == new.id {
                Status::ModeChanged
            } else {
                Status::Modified
            };
            (path, status, Some(old), Some(new))
        }
        Delta::Renamed {
            from,
            to,
            old,
            new,
            copy,
        } => {
            let status = if copy {
                Status::Copied { from }
            } else {
                Status::Renamed { from }
            };
            (to, status, Some(old), Some(new))
        }
    }
}

/// Files, links and submodules are different types; a mode change is not.
fn type_class(kind: EntryKind) -> u8 {
    match kind {
        EntryKind::Blob | EntryKind::Executable => 0,
        EntryKind::Link => 1,
        EntryKind::Commit => 2,
        EntryKind::Tree => 3,
    }
}

fn is_file(kind: EntryKind) -> bool {
    matches!(kind, EntryKind::Blob | EntryKind::Executable)
}

enum Text {
    /// No entry, or an entry that is not a file (a submodule).
    Opaque,
    Binary,
    /// Text too large to diff line by line: its count of lines.
    Large(usize),
    Lines(Vec<u8>),
}

impl Text {
    /// Its bytes, when it is read line by line.
    fn data(&self) -> &[u8] {
        match self {
            Text::Lines(data) => data,
            _ => &[],
        }
    }

    /// Its lines, as a file wholly added or removed counts them.
    fn line_count(&self) -> usize {
        match self {
            Text::Large(n) => *n,
            Text::Lines(data) => lines::split_lines(data).len(),
            Text::Opaque | Text::Binary => 0,
        }
    }
}

fn text_of(repo: &Repo, entry: Option<Entry>) -> Result<Text> {
    let Some(entry) = entry else {
        return Ok(Text::Lines(Vec::new()));
    };
    match entry.kind {
        EntryKind::Blob | EntryKind::Executable | EntryKind::Link => {
            let large = repo.blob_size(entry.id)? > LARGEST_DIFFED_FILE;
            let data = repo.read_blob(entry.id)?;
            Ok(if lines::is_binary(&data) {
                Text::Binary
            } else if large {
                // Counted, not diffed: the limits still see its size.
                let breaks = data.iter().filter(|&&b| b == b'\n').count();
                Text::Large(breaks + usize::from(data.last().is_some_and(|&b| b != b'\n')))
            } else {
                Text::Lines(data)
            })
        }
        EntryKind::Commit | EntryKind::Tree => Ok(Text::Opaque),
    }
}
