//! Notes: one note at a time through gix's notes platform, and whole notes
//! trees at once.
//!
//! gix's notes platform reads and writes one note at a time; sync and the
//! pre-push gate need every note of a notes commit at once (one tree walk, not
//! one lookup per commit) and write merged notes trees themselves, so these
//! work on the tree directly. A notes tree may fan out into two-hex-digit
//! directories (git does so once it holds many notes); both layouts are read.

use std::collections::BTreeMap;

use anyhow::{Context as _, Result};
use gix::bstr::ByteSlice;

use super::{Expect, RefConflict};
use crate::git::objects::{kind, EntryKind};
use crate::git::repo::{Oid, Repo};

impl Repo {
    /// Adds or replaces the note for `object` in `notes_ref`, committed with
    /// git's own notes commit message. Parallel sessions share the notes ref:
    /// losing its compare-and-swap means trying again on a fresh view.
    ///
    /// The notes tree is edited with gix's notes plumbing (git's fanout), the
    /// commit written by the one commit writer (dated now: gix's notes
    /// platform dates every commit of a handle with its first).
    pub fn set_note(&self, notes_ref: &str, object: Oid, text: &str) -> Result<()> {
        let blob = self.write_blob(text.as_bytes())?;
        let mut tries = 0u64;
        loop {
            let parent = self.read_ref(notes_ref)?;
            let root = match parent {
                Some(commit) => self.commit_tree(commit)?,
                None => self.empty_tree(),
            };
            let tree = gix::note::plumbing::State::new(root, &self.inner)
                .and_then(|mut state| state.replace(object, blob, &self.inner))
                .with_context(|| format!("cannot write the note for {object}"))?
                .tree;
            let parents: Vec<Oid> = parent.into_iter().collect();
            let commit = self.commit_object(tree, &parents, "Notes added by 'git ultraplan'", None, None)?;
            let expect = match parent {
                Some(old) => Expect::Value(old),
                None => Expect::Absent,
            };
            match self.update_ref(notes_ref, commit, expect, "notes: Notes added by 'git ultraplan'") {
                Ok(()) => return Ok(()),
                Err(e) if e.downcast_ref::<RefConflict>().is_some() && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(
                        2 + (tries * 7 + u64::from(std::process::id())) % 20,
                    ));
                }
                Err(e) => return Err(e.context(format!("cannot write the note for {object}"))),
            }
        }
    }

    /// The note for `object` in `notes_ref`.
    pub fn note(&self, notes_ref: &str, object: Oid) -> Result<Option<String>> {
        let Some(notes_commit) = self.read_ref(notes_ref)? else {
            return Ok(None);
        };
        let tree = self.commit_tree(notes_commit)?;
        // Notes trees may fan out into directories of two hex digits.
        let hex = object.to_string();
        let mut current = tree;
        let mut consumed = 0;
        loop {
            let entries = self.list_tree(current)?;
            if let Some((_, id, _)) = entries.iter().find(|(name, _, _)| name == &hex[consumed..]) {
                return Ok(Some(String::from_utf8_lossy(&self.read_blob(*id)?).into_owned()));
            }
            let next = entries
                .iter()
                .find(|(name, _, kind)| *kind == EntryKind::Tree && hex[consumed..].starts_with(name.as_str()));
            match next {
                Some((name, id, _)) => {
                    consumed += name.len();
                    current = *id;
                }
                None => return Ok(None),
            }
        }
    }

    /// Every note of the notes commit `notes_commit`: annotated object → note blob.
    pub fn notes_at(&self, notes_commit: Oid) -> Result<BTreeMap<Oid, Oid>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![(String::new(), self.commit_tree(notes_commit)?)];
        while let Some((prefix, tree)) = stack.pop() {
            let tree = self
                .inner
                .find_tree(tree)
                .with_context(|| format!("cannot read notes tree {tree}"))?;
            let decoded = tree.decode().context("cannot decode a notes tree")?;
            for entry in &decoded.entries {
                let name = format!("{prefix}{}", entry.filename.to_str_lossy());
                match kind(entry.mode) {
                    EntryKind::Tree if name.len() < 40 => stack.push((name, entry.oid.to_owned())),
                    EntryKind::Blob | EntryKind::Executable => {
                        // Anything that is not a full object name (a stray file) is not a note.
                        if let Ok(id) = Oid::from_hex(name.as_bytes()) {
                            out.insert(id, entry.oid.to_owned());
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(out)
    }

    /// Every note under the notes reference `notes_ref` (empty when it does not exist).
    pub fn notes_map(&self, notes_ref: &str) -> Result<BTreeMap<Oid, Oid>> {
        match self.read_ref(notes_ref)? {
            Some(commit) => self.notes_at(commit),
            None => Ok(BTreeMap::new()),
        }
    }

    /// Writes a notes commit holding exactly `notes` (flat, as git reads any
    /// layout) with `parents`; no reference moves.
    pub fn write_notes_commit(&self, notes: &BTreeMap<Oid, Oid>, parents: &[Oid], message: &str) -> Result<Oid> {
        use gix::objs::tree::{Entry, EntryKind as K};
        // Names are all 40 hex digits, so byte order is git's tree order.
        let entries = notes
            .iter()
            .map(|(object, blob)| Entry {
                mode: K::Blob.into(),
                filename: object.to_string().into(),
                oid: *blob,
            })
            .collect();
        let tree = gix::objs::Tree { entries };
        let tree = self
            .inner
            .write_object(&tree)
            .context("cannot write a notes tree")?
            .detach();
        self.write_commit(tree, parents, message)
    }
}
