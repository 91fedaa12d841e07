//! References: reading them, moving them by compare-and-swap (one at a
//! time or several all-or-nothing), and the subjects built on them — notes,
//! append-only chains, HEAD and the stash, and which names every tool accepts.

mod chain;
mod name_format;
mod notes;
mod pointers;

use anyhow::{anyhow, Context as _, Result};
use gix::bstr::ByteSlice;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;

pub use chain::{BuildRecord, ChainMerge, ChainRelation, ChainUnion};
pub use name_format::{component_problem, ref_name_problem};
pub use pointers::{Pointers, PutBack};

use super::repo::{with_sources, Oid, Repo};

/// A compare-and-swap reference update lost the race: the reference did not
/// hold the expected value.
#[derive(Debug)]
pub struct RefConflict {
    pub name: String,
}

impl std::fmt::Display for RefConflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}' was changed by someone else", self.name)
    }
}

impl std::error::Error for RefConflict {}

/// What a reference must hold before an update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Create only: it must not exist.
    Absent,
    /// It must point at this object.
    Value(Oid),
    /// Either absent or this object (used where the first write creates it).
    AbsentOr(Option<Oid>),
}

/// One reference change of a [`Repo::update_refs`] transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefUpdate {
    pub name: String,
    /// The new value; `None` deletes the reference.
    pub new: Option<Oid>,
    pub expect: Expect,
}

impl Repo {
    pub fn read_ref(&self, name: &str) -> Result<Option<Oid>> {
        let reference = self
            .inner
            .try_find_reference(name)
            .with_context(|| format!("cannot read '{name}'"))?;
        match reference {
            None => Ok(None),
            Some(mut r) => Ok(Some(
                r.peel_to_id()
                    .with_context(|| format!("cannot resolve '{name}'"))?
                    .detach(),
            )),
        }
    }

    /// Moves (or creates) `name` to `new` only if it holds what `expect` says;
    /// losing that race is a [`RefConflict`].
    pub fn update_ref(&self, name: &str, new: Oid, expect: Expect, message: &str) -> Result<()> {
        if expect == Expect::Absent && self.read_ref(name)?.is_some() {
            // gix also accepts an existing ref with the same value; "create only" must mean absent.
            return Err(RefConflict { name: name.into() }.into());
        }
        let edit = update_edit(name, previous_value(expect), Target::Object(new), message, false)?;
        self.apply_edit(name, edit)
    }

    /// Creates the local branch `name` (`refs/heads/…`) at `commit`; it must not exist.
    pub fn create_branch(&self, name: &str, commit: Oid) -> Result<()> {
        self.update_ref(name, commit, Expect::Absent, "branch: Created by git ultraplan")
    }

    /// Moves the branch `HEAD` points at (or a detached `HEAD`) from `old` to
    /// `new`, writing reflogs for both as `git commit` does.
    pub fn advance_head(&self, old: Option<Oid>, new: Oid, message: &str) -> Result<()> {
        let expected = match old {
            Some(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
            None => PreviousValue::MustNotExist,
        };
        let edit = update_edit("HEAD", expected, Target::Object(new), message, true)?;
        self.apply_edit("HEAD", edit)
    }

    /// Deletes `name` if it still holds `expected` (any value when `None`).
    pub fn delete_ref(&self, name: &str, expected: Option<Oid>) -> Result<()> {
        let edit = RefEdit {
            change: Change::Delete {
                expected: match expected {
                    Some(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
                    None => PreviousValue::Any,
                },
                log: RefLog::AndReference,
            },
            name: full_name(name)?,
            deref: false,
        };
        self.apply_edit(name, edit)
    }

    fn apply_edit(&self, name: &str, edit: RefEdit) -> Result<()> {
        // Objects first: a reference never points into memory.
        self.write_held_objects()?;
        match self.inner.edit_reference(edit) {
            Ok(_) => Ok(()),
            // gix classifies a value that no longer matches as a conflict, and
            // a reference that had to exist as not found: both mean we lost.
            Err(err) if err.is_conflict() || err.is_not_found() => Err(RefConflict { name: name.into() }.into()),
            Err(err) => Err(anyhow!("cannot update '{name}': {}", with_sources(&err))),
        }
    }

    /// Every reference under `prefix` (`refs/ultraplan/`) with its target.
    /// A reference gix cannot read (a name it refuses, such as a Windows
    /// device name made by another tool) is left out rather than failing the
    /// listing of every other one.
    pub fn refs_with_prefix(&self, prefix: &str) -> Result<Vec<(String, Oid)>> {
        let platform = self.inner.references().context("cannot list references")?;
        let mut out = Vec::new();
        let mut take = |r: Result<gix::Reference<'_>, _>| {
            let Ok(mut r) = r else { return };
            let name = r.name().as_bstr().to_str_lossy().into_owned();
            if !name.starts_with(prefix) {
                return;
            }
            if let Ok(id) = r.peel_to_id() {
                out.push((name, id.detach()));
            }
        };
        match platform.prefixed(prefix) {
            Ok(iter) => iter.for_each(&mut take),
            // gix refuses a path component Windows could not hold (`a|b`,
            // `"`, `<`, `>`), which git allows in a branch name: every
            // reference is read then, and those under the prefix kept.
            Err(_) => platform
                .all()
                .with_context(|| format!("cannot list references under '{prefix}'"))?
                .for_each(&mut take),
        }
        out.sort();
        Ok(out)
    }

    /// Applies every update or none (one transaction); a reference that no
    /// longer holds what its update expects is a [`RefConflict`].
    pub fn update_refs(&self, updates: &[RefUpdate], message: &str) -> Result<()> {
        if updates.is_empty() {
            return Ok(());
        }
        self.write_held_objects()?;
        let mut edits = Vec::with_capacity(updates.len());
        for u in updates {
            let expected = previous_value(u.expect);
            edits.push(match u.new {
                Some(new) => update_edit(&u.name, expected, Target::Object(new), message, false)?,
                None => RefEdit {
                    change: Change::Delete {
                        expected,
                        log: RefLog::AndReference,
                    },
                    name: full_name(&u.name)?,
                    deref: false,
                },
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

    /// Parses a revision (`HEAD`, `main~2`, an abbreviated id) to an object id.
    pub fn rev_parse(&self, spec: &str) -> Result<Oid> {
        let id = self
            .inner
            .rev_parse_single(spec)
            .map_err(|e| anyhow!("unknown revision '{spec}': {}", why_not(&chain(&e))))?;
        Ok(id.detach())
    }

    /// The commit `spec` names (a tag is peeled to its commit); the error
    /// names `spec` as the user wrote it.
    pub fn rev_parse_commit(&self, spec: &str) -> Result<Oid> {
        let id = self
            .inner
            .rev_parse_single(spec)
            .map_err(|e| anyhow!("'{spec}' is not a commit here: {}", why_not(&chain(&e))))?;
        let peeled = self
            .inner
            .rev_parse_single(format!("{}^{{commit}}", id.detach()).as_str());
        match peeled {
            Ok(commit) => Ok(commit.detach()),
            Err(_) => {
                let kind = self.inner.find_header(id.detach()).map(|h| h.kind().to_string());
                Err(anyhow!(
                    "'{spec}' is not a commit here: it names a {}",
                    kind.as_deref().unwrap_or("object that is no commit")
                ))
            }
        }
    }
}

/// An error and its sources, as one text.
fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// What gix's revision error means, in the words git uses: its messages
/// name its internal parser calls (`delegate.peel_until(…) failed`).
fn why_not(gix_error: &str) -> String {
    let between = |from: &str, to: char| {
        gix_error
            .find(from)
            .map(|at| &gix_error[at + from.len()..])
            .and_then(|rest| rest.split(to).next())
            .map(str::to_owned)
    };
    if let Some(n) = between("NthAncestor(", ')') {
        format!("it has no {n}th ancestor (the history is shorter)")
    } else if let Some(n) = between("NthParent(", ')') {
        format!("that commit has no parent {n}")
    } else if gix_error.contains("peel_until(Path(") {
        "no such path in that commit".into()
    } else if let Some(kind) = between("peel_until(ObjectKind(", ')') {
        format!("it names an object that cannot be peeled to a {}", kind.to_lowercase())
    } else if gix_error.contains("ambiguous") || gix_error.contains("Ambiguous") {
        "the abbreviated id is ambiguous; give more of it".into()
    } else if gix_error.contains("out of range") || gix_error.contains("parents") {
        "that commit has fewer parents".into()
    } else {
        "no such branch, tag or commit (see 'git rev-parse --verify')".into()
    }
}

/// The edit that moves `name` (through a symbolic reference to its target
/// when `deref`) to `new` if it holds `expected`, with a reflog line.
fn update_edit(name: &str, expected: PreviousValue, new: Target, message: &str, deref: bool) -> Result<RefEdit> {
    Ok(RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: false,
                message: message.into(),
            },
            expected,
            new,
        },
        name: full_name(name)?,
        deref,
    })
}

fn full_name(name: &str) -> Result<gix::refs::FullName> {
    name.try_into()
        .with_context(|| format!("invalid reference name '{name}'"))
}

/// What gix must find in a reference before changing it.
fn previous_value(expect: Expect) -> PreviousValue {
    match expect {
        Expect::Absent | Expect::AbsentOr(None) => PreviousValue::MustNotExist,
        Expect::Value(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
        Expect::AbsentOr(Some(old)) => PreviousValue::ExistingMustMatch(Target::Object(old)),
    }
}
