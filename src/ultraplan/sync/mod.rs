//! State that travels (DESIGN §15): `sync` exchanges notes, run states and
//! outcomes with a remote; `setup` configures plain git to carry and keep
//! notes; `gate` is the pre-push check over pushed checkpoints' results;
//! `install` puts the hook where git looks for it.
//!
//! Transport is git's own (`git fetch`/`git push`, through `src/git/`); every
//! merge decision is made here, locally. Nothing is ever forced: a push that
//! loses a race is refetched, remerged and retried a bounded number of times.
//! Local references change in one all-or-nothing transaction per round.

mod fetched;
pub mod gate;
pub mod install;
pub mod names;
mod notes_merge;
mod round;
pub mod setup;
mod states;

use std::time::Duration;

use anyhow::{anyhow, Result};
use serde::Serialize;

use crate::git::{RefConflict, Repo};
pub(crate) use fetched::{check_notes, read_notes};
pub use fetched::{diverged, diverged_states, find_note, pick_hint, Diverged};
pub use notes_merge::Relation;
use round::{one_round, Round};
pub use states::{merge_outcomes, Action, OutcomesMerge};

/// How many times a push that lost a race is retried.
const MAX_ROUNDS: u32 = 8;

/// What `sync` is asked to do.
pub struct SyncOptions {
    /// The remote; `None` picks the current branch's upstream, else `origin`.
    pub remote: Option<String>,
    pub dry_run: bool,
    /// When a lock stops being live (`ultraplan.lockTimeout`).
    pub lock_timeout: Duration,
}

/// One run state's fate.
#[derive(Clone, Debug, Serialize)]
pub struct StateReport {
    #[serde(rename = "ref")]
    pub name: String,
    pub action: Action,
}

/// A remote note that could not be merged.
#[derive(Clone, Debug, Serialize)]
pub struct RefusedNote {
    pub commit: String,
    pub why: String,
}

/// A remote reference or file that sync would not take, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Refused {
    pub name: String,
    pub why: String,
}

/// What a sync did (or, with `--dry-run`, would do).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SyncReport {
    pub remote: String,
    pub dry_run: bool,
    /// Remote references fetched (their remote names).
    pub fetched: Vec<String>,
    /// How our notes relate to the remote's, and what merging took.
    pub notes: Option<Relation>,
    pub notes_taken: usize,
    /// Commits whose two notes became one YAML stream.
    pub notes_streamed: Vec<String>,
    /// Commits whose remote note is not YAML: skipped, the rest taken.
    pub notes_refused: Vec<RefusedNote>,
    /// Our notes the pre-push gate would refuse (not YAML, INVALID, not a
    /// success): while any is left, our notes are not pushed.
    pub notes_unpushable: Vec<RefusedNote>,
    pub states: Vec<StateReport>,
    pub outcomes_taken: usize,
    /// Outcome files both sides hold with different contents (ours kept).
    pub outcome_clashes: Vec<String>,
    /// Outcome files of the remote that are no records (nothing of its
    /// outcomes was taken).
    pub outcomes_refused: Vec<Refused>,
    /// Remote references that are not what their name says (a notes or
    /// outcomes reference that is no commit): not taken, ours kept.
    pub refs_refused: Vec<Refused>,
    /// References under `refs/ultraplan/` on the remote that are not ours, left alone.
    pub foreign: Vec<String>,
    /// Remote references pushed.
    pub pushed: Vec<String>,
    /// Pushes that lost a race and were retried.
    pub retries: u32,
    /// Why the remote refused the push, when it did.
    pub push_refused: Option<String>,
}

impl SyncReport {
    /// States kept apart (diverged) by this sync.
    pub fn kept_apart(&self) -> impl Iterator<Item = &StateReport> {
        self.states.iter().filter(|s| s.action == Action::KeptApart)
    }

    /// Whether something was refused or set aside (exit status 1).
    pub fn incomplete(&self) -> bool {
        self.push_refused.is_some()
            || !self.notes_refused.is_empty()
            || !self.notes_unpushable.is_empty()
            || !self.outcomes_refused.is_empty()
            || !self.refs_refused.is_empty()
    }
}

/// The remote a sync talks to: `wanted`, else the current branch's upstream
/// remote, else `origin`; it must be a configured remote.
pub fn resolve_remote(repo: &Repo, wanted: Option<&str>) -> Result<String> {
    let name = match wanted {
        Some(name) => name.to_owned(),
        None => repo
            .head()
            .ok()
            .and_then(|h| h.branch)
            .and_then(|b| repo.upstream_remote(&b))
            .filter(|r| r != ".")
            .unwrap_or_else(|| "origin".into()),
    };
    if repo.remote_url(&name).is_none() {
        return Err(crate::error::FatalWithHint {
            message: format!("'{name}' is not a remote of this repository"),
            hint: "'git remote -v' lists the remotes; add one with 'git remote add <name> <url>'".into(),
        }
        .into());
    }
    Ok(name)
}

/// Runs one sync with `remote`.
pub fn sync(repo: &Repo, opts: &SyncOptions) -> Result<SyncReport> {
    let remote = resolve_remote(repo, opts.remote.as_deref())?;
    let mut report = SyncReport::default();
    let mut round = 0;
    loop {
        round += 1;
        let mut this = SyncReport {
            remote: remote.clone(),
            dry_run: opts.dry_run,
            retries: report.retries,
            ..Default::default()
        };
        let raced = match one_round(repo, &remote, opts, &mut this) {
            Ok(Round::Done) => return Ok(this),
            Ok(Round::LostRace) => true,
            // A local run moved a state while we merged: start over on a fresh view.
            Err(e) if e.downcast_ref::<RefConflict>().is_some() => false,
            Err(e) => return Err(e),
        };
        if round >= MAX_ROUNDS {
            if raced {
                this.push_refused = Some(format!(
                    "'{remote}' kept moving: the push lost the race {round} times; run sync again"
                ));
                return Ok(this);
            }
            return Err(anyhow!(
                "the local run states kept changing while sync merged them ({round} tries); run sync again"
            ));
        }
        report.retries += 1;
        backoff(round);
    }
}

fn backoff(round: u32) {
    let jitter = u64::from(std::process::id()) % 37 + u64::from(round) * 13;
    std::thread::sleep(Duration::from_millis(10 * u64::from(round) + jitter));
}
