//! The one room where the program meets git; it knows no domain (no plans,
//! runs or sessions), only repositories.
//!
//! gix reads and writes objects, refs and configuration; where gix lacks
//! something, the one `git` runner (`cli`) calls the binary and the caller
//! says why next to the call. Nothing outside `src/git/` names gix: the rest
//! of the program asks for what it needs in its own words.
//!
//! The room by subject, each adding its operations to [`Repo`]:
//!
//! | module | subject |
//! |---|---|
//! | `repo` | the handle: opening, directories, `HEAD`, identity |
//! | `objects` | blobs, trees (the one tree editor), commits (the one commit writer) |
//! | `refs` | references and compare-and-swap; notes, append-only chains, HEAD and the stash, name rules |
//! | `diff` | the one tree diff (renames on or off) and what is built from a diff |
//! | `history` | walks, ancestry, merge bases |
//! | `workdir` | the working tree: snapshot, status, scan and watch, ignored and git's own files, restore, index and staging |
//! | `linked` | linked worktrees |
//! | `locks` | the `.lock` files a killed writer left, and which of them are stale |
//! | `merge` | merges decided in memory and applied through git; text merges |
//! | `remote` | fetch, push, ls-remote |
//! | `config` | configuration with git's precedence, `-c` parameters, local writes |
//! | `cli` | the one runner of the `git` binary, and what gix lacks at each use |
//!
//! Floors inside the room (held by `tests/cli/project/floors.rs`): `repo` at the
//! bottom; `cli` and `objects` on it; `refs`, `diff`, `history`, `config`,
//! `linked`, `locks`, `merge` and `remote` on those, none importing another;
//! `workdir` on top (it stages the changes `diff` finds). The floors hold
//! for imports; calls through [`Repo`]'s methods follow the same direction
//! (a chain in `refs` asks `history` for ancestry, `workdir` carries the
//! index over with `merge`'s text merge); none runs the other way.

mod cli;
mod config;
mod diff;
mod history;
mod linked;
mod locks;
mod merge;
mod objects;
mod refs;
mod remote;
mod repo;
#[cfg(test)]
pub(crate) mod testing;
mod workdir;

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context as _, Result};

pub use cli::apply_patch;
pub use config::{parse_config_parameters, ConfigParameter, GitConfig};
pub use diff::{Delta, FileChange, Renames};
pub use linked::LinkedWorktree;
pub use locks::{LockFile, LockSweep};
pub use merge::MergePlan;
pub use objects::{blob_id, BranchCommit, CommitInfo, Entry, EntryKind, ObjectReader, Signature, TreeEdit};
pub use refs::{
    component_problem, ref_name_problem, BuildRecord, ChainMerge, ChainRelation, ChainUnion, Expect, Pointers, PutBack,
    RefConflict, RefUpdate,
};
pub use remote::{Lease, PushOutcome, PushedRef};
pub use repo::{Head, Oid, Repo, SharedRepo};
pub use workdir::{
    remove_files, risky_settings_added, storable, Dirt, IgnoredBound, IgnoredFiles, ScanAhead, Snapshot, Tracker,
};

/// Where a command runs: the repository around the current directory (if any),
/// the effective configuration, and the directory that plan paths are relative to.
pub struct Workspace {
    repo: Option<Repo>,
    config: GitConfig,
    cwd: PathBuf,
}

/// How many pack indices a process can hold (gix fixes it when the
/// repository is opened; its default is the packs there then, and at least
/// 32). git adds packs under a long run — `git gc --auto` writes one each
/// time loose objects pile up, and merges them only past 50 — and once the
/// slots are used up gix fails every lookup of an object in a new pack ("too
/// few index slots"), which a run took for a missing commit. git itself has
/// no such limit; 1,024 is far more than a repository keeps.
pub(crate) const SLOTS: gix::odb::store::init::Slots = gix::odb::store::init::Slots::AsNeededByDiskState {
    multiplier: 2.0,
    minimum: 1024,
};

impl Workspace {
    /// Finds the repository the way git does, honouring `GIT_DIR`,
    /// `GIT_WORK_TREE`, `GIT_CEILING_DIRECTORIES` and
    /// `GIT_DISCOVERY_ACROSS_FILESYSTEM`, with `git -c` overrides applied to its
    /// configuration. Outside a repository the workspace still has the global
    /// configuration and the current directory as its root.
    pub fn discover() -> Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        Self::discover_in(&cwd)
    }

    /// [`Workspace::discover`] starting from `cwd` instead of the process's directory.
    pub fn discover_in(cwd: &Path) -> Result<Self> {
        let overrides = config::command_line_overrides()?;
        // File times to the nanosecond, as git built with USE_NSEC compares
        // them: an entry written just before the index in the same second is
        // not racy. Without it, gix re-read every file of a worktree checked
        // out a moment ago on each status (20,000 files, 0.15 s per session
        // of a parallel run). A user's `-c gitoxide.core.useNsec` comes later
        // and wins.
        let cli: Vec<String> = std::iter::once("gitoxide.core.useNsec=true".to_owned())
            .chain(overrides.iter().map(ConfigParameter::to_override))
            .collect();
        let mut trust = gix::sec::trust::Mapping::<gix::open::Options>::default();
        trust.full = trust.full.cli_overrides(cli.clone()).object_store_slots(SLOTS);
        trust.reduced = trust.reduced.cli_overrides(cli).object_store_slots(SLOTS);
        // Like git, a GIT_CEILING_DIRECTORIES entry that does not match is not an error.
        let discover_opts = gix::discover::upwards::Options {
            match_ceiling_dir_or_error: false,
            ..Default::default()
        };
        match gix::ThreadSafeRepository::discover_with_environment_overrides_opts(cwd, discover_opts, trust) {
            Ok(repo) => {
                let repo = repo.to_thread_local();
                let config = GitConfig::from_repository(&repo);
                Ok(Workspace {
                    repo: Some(Repo::new(repo)),
                    config,
                    cwd: cwd.to_owned(),
                })
            }
            Err(err) if is_not_a_repository(&err) => Ok(Workspace {
                repo: None,
                config: GitConfig::without_repository(&overrides)?,
                cwd: cwd.to_owned(),
            }),
            Err(err) => Err(anyhow!("{err}")),
        }
    }

    /// Whether the current directory is inside a repository.
    pub fn in_repository(&self) -> bool {
        self.repo.is_some()
    }

    /// The top of the working tree; the current directory outside a repository
    /// (or in a bare one), so that plan paths still have something to resolve against.
    pub fn root(&self) -> &Path {
        self.repo.as_ref().and_then(|r| r.workdir().ok()).unwrap_or(&self.cwd)
    }

    /// The repository, or git's own fatal error when there is none.
    pub fn repo(&self) -> Result<&Repo> {
        self.repo
            .as_ref()
            .ok_or_else(|| anyhow!("not a git repository (or any of the parent directories): .git"))
    }

    /// The directory the command was started in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The effective configuration (git's precedence, `-c` last).
    pub fn config(&self) -> &GitConfig {
        &self.config
    }
}

fn is_not_a_repository(err: &gix::Error) -> bool {
    use gix::discover::upwards::Error as Upwards;
    matches!(
        err.downcast_any_ref::<Upwards>(),
        Some(
            Upwards::NoGitRepository { .. }
                | Upwards::NoGitRepositoryWithinCeiling { .. }
                | Upwards::NoGitRepositoryWithinFs { .. }
        )
    )
}

#[cfg(test)]
mod objects_tests;
#[cfg(test)]
mod reader_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod worktree_tests;
