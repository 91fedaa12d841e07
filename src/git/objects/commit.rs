//! Commits: reading them, and the one commit writer.

use anyhow::{bail, Context as _, Result};
use gix::bstr::ByteSlice;

use crate::git::repo::{Oid, Repo};

/// The parts of a commit the program reads.
#[derive(Clone, Debug)]
pub struct CommitInfo {
    pub id: Oid,
    pub tree: Oid,
    pub parents: Vec<Oid>,
    pub message: String,
    /// Committer time, seconds since the epoch.
    pub time: i64,
}

/// A person and a moment, as in a commit's author line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    pub email: String,
    /// Seconds since the epoch.
    pub time: i64,
    /// Offset from UTC in seconds.
    pub offset: i32,
}

/// A commit with its author (what rewriting a branch needs of each commit).
#[derive(Clone, Debug)]
pub struct BranchCommit {
    pub id: Oid,
    pub tree: Oid,
    pub parents: Vec<Oid>,
    pub message: String,
    pub author: Signature,
    pub committer: Signature,
}

impl BranchCommit {
    /// The first line of the message.
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("").trim()
    }
}

impl Repo {
    /// The tree of `commit`.
    pub fn commit_tree(&self, commit: Oid) -> Result<Oid> {
        Ok(self.commit_info(commit)?.tree)
    }

    /// The tree of `commit`, or the empty tree for none (an unborn branch).
    pub(crate) fn tree_of(&self, commit: Option<Oid>) -> Result<Oid> {
        match commit {
            Some(commit) => self.commit_tree(commit),
            None => Ok(self.empty_tree()),
        }
    }

    pub fn commit_info(&self, id: Oid) -> Result<CommitInfo> {
        let commit = self
            .inner
            .find_commit(id)
            .with_context(|| format!("cannot read commit {id}"))?;
        let decoded = commit.decode().with_context(|| format!("cannot decode commit {id}"))?;
        Ok(CommitInfo {
            id,
            tree: decoded.tree(),
            parents: decoded.parents().collect(),
            message: decoded.message.to_str_lossy().into_owned(),
            time: decoded.committer().map(|c| c.seconds()).unwrap_or(0),
        })
    }

    /// One commit with its author.
    pub fn branch_commit(&self, id: Oid) -> Result<BranchCommit> {
        let commit = self
            .inner
            .find_commit(id)
            .with_context(|| format!("cannot read commit {id}"))?;
        let decoded = commit.decode().with_context(|| format!("cannot decode commit {id}"))?;
        let author = decoded
            .author()
            .with_context(|| format!("cannot read the author of {id}"))?;
        let time = author.time().unwrap_or_default();
        let committer = decoded
            .committer()
            .with_context(|| format!("cannot read the committer of {id}"))?;
        let committed = committer.time().unwrap_or_default();
        Ok(BranchCommit {
            id,
            tree: decoded.tree(),
            parents: decoded.parents().collect(),
            message: decoded.message.to_str_lossy().into_owned(),
            author: Signature {
                name: author.name.to_str_lossy().into_owned(),
                email: author.email.to_str_lossy().into_owned(),
                time: time.seconds,
                offset: time.offset,
            },
            committer: Signature {
                name: committer.name.to_str_lossy().into_owned(),
                email: committer.email.to_str_lossy().into_owned(),
                time: committed.seconds,
                offset: committed.offset,
            },
        })
    }

    /// Writes a commit object with the user's identity; no reference moves.
    pub fn write_commit(&self, tree: Oid, parents: &[Oid], message: &str) -> Result<Oid> {
        self.commit_object(tree, parents, message, None, None)
    }

    /// Writes a commit with the given author and committer, so a commit
    /// written again from what another repository said of it gets the same
    /// id there; no reference moves.
    pub fn write_commit_exactly(
        &self,
        tree: Oid,
        parents: &[Oid],
        message: &str,
        author: &Signature,
        committer: &Signature,
    ) -> Result<Oid> {
        self.commit_object(tree, parents, message, Some(author), Some(committer))
    }

    /// Writes a commit with `author` and the configured committer (now);
    /// no reference moves.
    pub fn write_commit_as(&self, tree: Oid, parents: &[Oid], message: &str, author: &Signature) -> Result<Oid> {
        self.commit_object(tree, parents, message, Some(author), None)
    }

    /// The one commit writer: the configured committer, and `author` or the
    /// configured author, each dated the moment the commit is made — or
    /// `GIT_COMMITTER_DATE` / `GIT_AUTHOR_DATE` when set, as git does.
    /// (gix reads the identity, and the time with it, once per repository
    /// handle: every commit of a run would carry the run's start.)
    pub(crate) fn commit_object(
        &self,
        tree: Oid,
        parents: &[Oid],
        message: &str,
        author: Option<&Signature>,
        committer: Option<&Signature>,
    ) -> Result<Oid> {
        let (mut author_buf, mut committer_buf) = (
            gix::date::parse::TimeBuf::default(),
            gix::date::parse::TimeBuf::default(),
        );
        let now = gix::date::Time::now_local_or_utc();
        let author = match author {
            Some(author) => gix::actor::SignatureRef {
                name: author.name.as_bytes().as_bstr(),
                email: author.email.as_bytes().as_bstr(),
                time: gix::date::Time::new(author.time, author.offset).to_str(&mut author_buf),
            },
            None => self.dated(
                identity("author", self.inner.author())?,
                AUTHOR_DATE,
                now,
                &mut author_buf,
            ),
        };
        let committer = match committer {
            Some(c) => gix::actor::SignatureRef {
                name: c.name.as_bytes().as_bstr(),
                email: c.email.as_bytes().as_bstr(),
                time: gix::date::Time::new(c.time, c.offset).to_str(&mut committer_buf),
            },
            None => self.dated(
                identity("committer", self.inner.committer())?,
                COMMITTER_DATE,
                now,
                &mut committer_buf,
            ),
        };
        let commit = self
            .inner
            .new_commit_as(committer, author, message, tree, parents.iter().copied())
            .context("cannot write a commit")?;
        Ok(commit.id)
    }

    /// `sig` as configured, dated `now` unless the date is set (`key`, which
    /// `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE` set): then gix's reading of it.
    fn dated<'a>(
        &self,
        sig: gix::actor::SignatureRef<'a>,
        key: &str,
        now: gix::date::Time,
        buf: &'a mut gix::date::parse::TimeBuf,
    ) -> gix::actor::SignatureRef<'a> {
        if self.inner.config_snapshot().string(key).is_some() {
            return sig;
        }
        gix::actor::SignatureRef {
            time: now.to_str(buf),
            ..sig
        }
    }
}

/// The configuration keys the date environment variables arrive in.
const AUTHOR_DATE: &str = "gitoxide.commit.authorDate";
const COMMITTER_DATE: &str = "gitoxide.commit.committerDate";

/// The configured identity `what` (author or committer), or why there is none.
fn identity<'a, E: std::fmt::Display>(
    what: &str,
    configured: Option<std::result::Result<gix::actor::SignatureRef<'a>, E>>,
) -> Result<gix::actor::SignatureRef<'a>> {
    match configured {
        Some(Ok(sig)) => Ok(sig),
        Some(Err(e)) => bail!("cannot read the {what} identity: {e}"),
        None => bail!("{what} identity unknown"),
    }
}
