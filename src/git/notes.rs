//! Reading and writing whole notes trees, and moving several references in
//! one all-or-nothing transaction.
//!
//! gix's notes platform reads and writes one note at a time; sync and the
//! pre-push gate need every note of a notes commit at once (one tree walk, not
//! one lookup per commit) and write merged notes trees themselves, so these
//! work on the tree directly. A notes tree may fan out into two-hex-digit
//! directories (git does so once it holds many notes); both layouts are read.

use std::collections::BTreeMap;

use anyhow::{anyhow, Result};
use gix::bstr::ByteSlice;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;

use super::repo::{EntryKind, Expect, Oid, RefConflict, Repo};

/// One reference change of a [`Repo::update_refs`] transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefUpdate {
    pub name: String,
    /// The new value; `None` deletes the reference.
    pub new: Option<Oid>,
    pub expect: Expect,
}

impl Repo {
    /// Every note of the notes commit `notes_commit`: annotated object → note blob.
    pub fn notes_at(&self, notes_commit: Oid) -> Result<BTreeMap<Oid, Oid>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![(String::new(), self.commit_tree(notes_commit)?)];
        while let Some((prefix, tree)) = stack.pop() {
            let tree = self
                .inner
                .find_tree(tree)
                .map_err(|e| anyhow!("cannot read notes tree {tree}: {e}"))?;
            let decoded = tree.decode().map_err(|e| anyhow!("cannot decode a notes tree: {e}"))?;
            for entry in &decoded.entries {
                let name = format!("{prefix}{}", entry.filename.to_str_lossy());
                match super::repo::kind(entry.mode) {
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
            .map_err(|e| anyhow!("cannot write a notes tree: {e}"))?
            .detach();
        self.write_commit(tree, parents, message)
    }

    /// Whether the object database holds `id`.
    pub fn has_object(&self, id: Oid) -> bool {
        self.inner.has_object(id)
    }

    /// Applies every update or none (one transaction); a reference that no
    /// longer holds what its update expects is a [`RefConflict`].
    pub fn update_refs(&self, updates: &[RefUpdate], message: &str) -> Result<()> {
        if updates.is_empty() {
            return Ok(());
        }
        let mut edits = Vec::with_capacity(updates.len());
        for u in updates {
            let expected = match u.expect {
                Expect::Absent => PreviousValue::MustNotExist,
                Expect::Value(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
                Expect::AbsentOr(None) => PreviousValue::MustNotExist,
                Expect::AbsentOr(Some(old)) => PreviousValue::ExistingMustMatch(Target::Object(old)),
            };
            let change = match u.new {
                Some(new) => Change::Update {
                    log: LogChange {
                        mode: RefLog::AndReference,
                        force_create_reflog: false,
                        message: message.into(),
                    },
                    expected,
                    new: Target::Object(new),
                },
                None => Change::Delete {
                    expected,
                    log: RefLog::AndReference,
                },
            };
            edits.push(RefEdit {
                change,
                name: u
                    .name
                    .as_str()
                    .try_into()
                    .map_err(|e| anyhow!("invalid reference name '{}': {e}", u.name))?,
                deref: false,
            });
        }
        match self.inner.edit_references(edits) {
            Ok(_) => Ok(()),
            Err(err) if err.is_conflict() || err.is_not_found() => Err(RefConflict {
                name: updates.iter().map(|u| u.name.as_str()).collect::<Vec<_>>().join("', '"),
            }
            .into()),
            Err(err) => Err(anyhow!("cannot update references: {err}")),
        }
    }
}
