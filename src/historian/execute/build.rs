//! Building the new commits (DESIGN §10.1, step 5) in the object database:
//! each commit's tree is the previous tree with its items applied — whole
//! files put or removed, and for a file changed hunk by hunk, the base text
//! with every hunk applied so far. Blobs, trees and commits are written;
//! no reference, index or working tree is touched here.

use std::collections::HashMap;

use anyhow::{bail, Result};

use crate::git::{Entry, Oid, Repo, Signature};

use crate::historian::analyse::items::{ChangeSet, Status};
use crate::historian::analyse::lines;
use crate::historian::plan::context::Context;

/// Builds commits one after the other on top of the base.
pub struct Builder<'a> {
    repo: &'a Repo,
    changes: &'a ChangeSet,
    /// For each file changed hunk by hunk: which hunks are in so far.
    applied: Vec<Vec<bool>>,
    /// Base and tip texts of files applied partly, read once.
    texts: HashMap<usize, (Vec<u8>, Vec<u8>)>,
    tree: Oid,
    parent: Oid,
}

/// A tree ready to be committed.
pub struct Prepared {
    pub tree: Oid,
    applied: Vec<(usize, Vec<bool>)>,
}

impl<'a> Builder<'a> {
    /// A builder at the base.
    pub fn new(repo: &'a Repo, changes: &'a ChangeSet) -> Builder<'a> {
        Builder {
            repo,
            changes,
            applied: changes.files.iter().map(|f| vec![false; f.hunks.len()]).collect(),
            texts: HashMap::new(),
            tree: changes.base_tree,
            parent: changes.base,
        }
    }

    /// A builder after `done` (the items of the commits already built, in
    /// order), whose last commit is `last`.
    pub fn after(repo: &'a Repo, changes: &'a ChangeSet, done: &[&[usize]], last: Option<Oid>) -> Result<Builder<'a>> {
        let mut builder = Builder::new(repo, changes);
        for items in done {
            for &i in *items {
                let item = &changes.items[i];
                if let Some(h) = item.hunk {
                    builder.applied[item.file][h] = true;
                }
            }
        }
        if let Some(last) = last {
            builder.tree = repo.commit_tree(last)?;
            builder.parent = last;
        }
        Ok(builder)
    }

    /// The commit the next one goes on.
    pub fn parent(&self) -> Oid {
        self.parent
    }

    /// The tree after the last commit.
    pub fn tree(&self) -> Oid {
        self.tree
    }

    /// Writes the tree of the next commit, holding `items`.
    pub fn prepare(&mut self, items: &[usize]) -> Result<Prepared> {
        let changes = self.changes;
        let mut edits: Vec<(String, Option<Entry>)> = Vec::new();
        let mut hunked: HashMap<usize, Vec<bool>> = HashMap::new();
        for &i in items {
            let item = &changes.items[i];
            let file = &changes.files[item.file];
            match item.hunk {
                Some(h) => {
                    let state = hunked
                        .entry(item.file)
                        .or_insert_with(|| self.applied[item.file].clone());
                    if state[h] {
                        bail!("{} is applied twice", changes.item_name(i));
                    }
                    state[h] = true;
                }
                None => {
                    if let Status::Renamed { from } = &file.status {
                        edits.push((from.clone(), None));
                    }
                    edits.push((file.path.clone(), file.new));
                }
            }
        }
        let mut applied: Vec<(usize, Vec<bool>)> = hunked.into_iter().collect();
        applied.sort_by_key(|(f, _)| *f);
        for (f, state) in &applied {
            let file = &changes.files[*f];
            let (Some(old), Some(new)) = (file.old, file.new) else {
                bail!("'{}' has hunks but is not a modification", file.path);
            };
            let entry = if state.iter().all(|a| *a) {
                new
            } else {
                if !self.texts.contains_key(f) {
                    let texts = (self.repo.read_blob(old.id)?, self.repo.read_blob(new.id)?);
                    self.texts.insert(*f, texts);
                }
                let (old_text, new_text) = &self.texts[f];
                let text = lines::apply(
                    &lines::split_lines(old_text),
                    &lines::split_lines(new_text),
                    &file.hunks,
                    |h| state[h],
                );
                Entry {
                    id: self.repo.write_blob(text)?,
                    kind: old.kind,
                }
            };
            edits.push((file.path.clone(), Some(entry)));
        }
        let tree = self.repo.build_tree(self.tree, &edits)?;
        Ok(Prepared { tree, applied })
    }

    /// Moves on to `prepared` without writing a commit (a trial build: does
    /// a plan end at the tip's tree?).
    pub fn advance(&mut self, prepared: Prepared) {
        for (f, state) in prepared.applied {
            self.applied[f] = state;
        }
        self.tree = prepared.tree;
    }

    /// Writes the commit for `prepared` and moves on to it. The message is
    /// redacted here, whoever wrote it (historian, a plan file, the commit
    /// writer): a pending session keeps the partial branch reachable from
    /// its ref.
    pub fn commit(&mut self, prepared: Prepared, message: &str, author: &Signature) -> Result<Oid> {
        let message = crate::redact::redact(message);
        let id = self
            .repo
            .write_commit_as(prepared.tree, &[self.parent], &message, author)?;
        for (f, state) in prepared.applied {
            self.applied[f] = state;
        }
        self.tree = prepared.tree;
        self.parent = id;
        Ok(id)
    }
}

/// The author of a new commit: the author of the branch commit most of its
/// lines come from, dated like the latest branch commit it draws from.
pub fn author_for(ctx: &Context<'_>, items: &[usize]) -> Signature {
    let mut weights: std::collections::BTreeMap<usize, u64> = std::collections::BTreeMap::new();
    for &i in items {
        for &(k, w) in &ctx.provenance.items[i] {
            *weights.entry(k).or_default() += u64::from(w);
        }
    }
    let heaviest = weights
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, _)| *k)
        .unwrap_or(ctx.commits.len().saturating_sub(1));
    let latest = weights
        .keys()
        .map(|&k| &ctx.commits[k].author)
        .max_by_key(|a| a.time)
        .cloned();
    let mut author = ctx
        .commits
        .get(heaviest)
        .map(|c| c.author.clone())
        .unwrap_or_else(|| Signature {
            name: "git-historian".into(),
            email: String::new(),
            time: 0,
            offset: 0,
        });
    if let Some(latest) = latest {
        author.time = latest.time;
        author.offset = latest.offset;
    }
    author
}

#[cfg(test)]
#[path = "build_tests.rs"]
mod tests;
