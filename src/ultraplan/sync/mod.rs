//! State that travels (DESIGN §15): `sync` exchanges notes, run states and
//! outcomes with a remote; `setup` configures plain git to carry and keep
//! notes; `gate` is the pre-push check over pushed checkpoints' results;
//! `install` puts the hook where git looks for it.
//!
//! Transport is git's own (`git fetch`/`git push`, through `src/git/`); every
//! merge decision is made here, locally. Nothing is ever forced: a push that
//! loses a race is refetched, remerged and retried a bounded number of times.
//! Local references change in one all-or-nothing transaction per round.

pub mod gate;
pub mod install;
pub mod names;
mod notes;
pub mod setup;
mod states;

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{anyhow, Result};
use serde::Serialize;

use crate::git::{Expect, Oid, PushOutcome, RefConflict, RefUpdate, Repo};
use crate::ultraplan::state::{catalog, LockStatus, NOTES_REF};
pub use notes::Relation;
pub use states::Action;

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
    /// Commits whose remote note is not YAML (nothing was taken from the remote's notes).
    pub notes_refused: Vec<RefusedNote>,
    pub states: Vec<StateReport>,
    pub outcomes_taken: usize,
    /// Outcome files both sides hold with different contents (ours kept).
    pub outcome_clashes: Vec<String>,
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
        self.push_refused.is_some() || !self.notes_refused.is_empty()
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
        return Err(crate::cli::FatalWithHint {
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

enum Round {
    Done,
    LostRace,
}

/// Fetch, merge locally, push: once.
fn one_round(repo: &Repo, remote: &str, opts: &SyncOptions, report: &mut SyncReport) -> Result<Round> {
    let write = !opts.dry_run;
    // 1-2. What the remote has. A real sync fetches it in one round trip into
    // the remote's namespace (globs, so that a reference the remote lacks is
    // no error; plan locks and published work excluded by negative refspecs,
    // anything else that is not shared dropped right after); a dry run only
    // asks (`git ls-remote`) and writes nothing.
    let mut remote_refs: BTreeMap<String, Oid> = BTreeMap::new();
    let mut drop_copies: Vec<(String, Oid)> = Vec::new();
    let listed: Vec<(String, Oid)> = if write {
        let before = tracked(repo, remote)?;
        repo.fetch_refspecs(remote, &names::fetch_refspecs(remote), true)?;
        let after = tracked(repo, remote)?;
        report.fetched = after
            .iter()
            .filter(|(name, id)| before.get(*name) != Some(*id))
            .map(|(name, _)| name.clone())
            .collect();
        after.into_iter().collect()
    } else {
        let listed = repo.ls_remote(remote, &names::REMOTE_PATTERNS)?;
        for (name, id) in &listed {
            if names::kind(name) != names::Kind::NotShared
                && repo.read_ref(&names::tracking(remote, name))? != Some(*id)
            {
                report.fetched.push(name.clone());
            }
        }
        listed
    };
    for (name, id) in listed {
        match names::kind(&name) {
            names::Kind::Notes | names::Kind::Outcomes | names::Kind::State => {
                remote_refs.insert(name, id);
            }
            names::Kind::NotShared => drop_copies.push((name, id)),
            names::Kind::Foreign => {
                report.foreign.push(name.clone());
                drop_copies.push((name, id));
            }
        }
    }
    report.fetched.retain(|n| remote_refs.contains_key(n));
    // The values to merge: what was fetched (a dry run uses what ls-remote
    // said when the objects are here already).
    let theirs = |name: &str| -> Result<Option<Oid>> {
        if write {
            repo.read_ref(&names::tracking(remote, name))
        } else {
            Ok(remote_refs.get(name).copied().filter(|id| repo.has_object(*id)))
        }
    };
    let mut updates: Vec<RefUpdate> = Vec::new();
    let mut push: Vec<String> = Vec::new();

    // 3. Notes.
    let our_notes = repo.read_ref(NOTES_REF)?;
    let their_notes = theirs(NOTES_REF)?;
    let unseen = remote_refs.contains_key(NOTES_REF) && their_notes.is_none();
    let notes = notes::merge(repo, our_notes, their_notes, remote, write)?;
    report.notes = Some(notes.relation);
    report.notes_taken = notes.taken;
    report.notes_streamed = notes.streams.iter().map(|c| c.to_string()).collect();
    report.notes_refused = notes
        .set_aside
        .iter()
        .map(|(c, why)| RefusedNote {
            commit: c.to_string(),
            why: why.clone(),
        })
        .collect();
    if notes.set_aside.is_empty() && !unseen {
        if let Some(new) = notes.new_head {
            updates.push(RefUpdate {
                name: NOTES_REF.into(),
                new: Some(new),
                expect: Expect::AbsentOr(our_notes),
            });
        }
        let ours_after = notes.new_head.or(our_notes);
        if ours_after.is_some()
            && ours_after != remote_refs.get(NOTES_REF).copied()
            && notes.relation != Relation::FastForward
        {
            push.push(NOTES_REF.into());
        }
    }

    // 4. Run states: every one either side has.
    let local_states: BTreeMap<String, Oid> = repo
        .refs_with_prefix("refs/ultraplan/")?
        .into_iter()
        .filter(|(n, _)| names::kind(n) == names::Kind::State)
        .collect();
    let running = running_slugs(repo, opts.lock_timeout)?;
    let mut all: Vec<&String> = local_states.keys().chain(remote_refs.keys()).collect();
    all.sort();
    all.dedup();
    for name in all {
        if names::kind(name) != names::Kind::State {
            continue;
        }
        let ours = local_states.get(name).copied();
        let remote_value = theirs(name)?;
        if remote_refs.contains_key(name) && remote_value.is_none() {
            // Dry run: not fetched yet, nothing to decide on.
            continue;
        }
        let slug = name.split('/').nth(2).unwrap_or("");
        let action = states::decide(repo, ours, remote_value, running.iter().any(|s| s == slug))?;
        match action {
            Action::Created | Action::FastForward => updates.push(RefUpdate {
                name: name.clone(),
                new: remote_value,
                expect: Expect::AbsentOr(ours),
            }),
            Action::Push => push.push(name.clone()),
            Action::NotAState => {
                report.foreign.push(name.clone());
                updates.push(RefUpdate {
                    name: names::tracking(remote, name),
                    new: None,
                    expect: Expect::AbsentOr(remote_value),
                });
            }
            Action::Same | Action::KeptApart | Action::RunningHere => {}
        }
        if action != Action::Same {
            report.states.push(StateReport {
                name: name.clone(),
                action,
            });
        }
    }

    // 5. Outcomes.
    let our_outcomes = repo.read_ref(names::OUTCOMES_REF)?;
    let outcomes = states::merge_outcomes(repo, our_outcomes, theirs(names::OUTCOMES_REMOTE_REF)?, write)?;
    report.outcomes_taken = outcomes.taken;
    report.outcome_clashes = outcomes.clashes;
    if let Some(new) = outcomes.new_head {
        updates.push(RefUpdate {
            name: names::OUTCOMES_REF.into(),
            new: Some(new),
            expect: Expect::AbsentOr(our_outcomes),
        });
    }
    if outcomes.push && our_outcomes.is_some() {
        push.push(names::OUTCOMES_REF.into());
    }

    // Copies of what is not exchanged, fetched by the globs.
    if write {
        for (name, id) in drop_copies {
            updates.push(RefUpdate {
                name: names::tracking(remote, &name),
                new: None,
                expect: Expect::Value(id),
            });
        }
    }
    report.foreign.sort();
    report.foreign.dedup();

    // 6. One local transaction, then the push.
    if !write {
        report.pushed = push;
        return Ok(Round::Done);
    }
    repo.update_refs(&updates, &format!("ultraplan: sync with '{remote}'"))?;
    if push.is_empty() {
        return Ok(Round::Done);
    }
    let refspecs: Vec<String> = push.iter().map(|n| format!("{n}:{}", names::remote_name(n))).collect();
    let mut outcome = repo.push_refspecs(remote, &refspecs, true)?;
    if !outcome.success && outcome.stderr.contains("does not support --atomic") {
        outcome = repo.push_refspecs(remote, &refspecs, false)?;
    }
    record_pushed(repo, remote, &outcome)?;
    report.pushed = outcome.refs.iter().filter(|r| r.ok).map(|r| r.name.clone()).collect();
    if outcome.success {
        return Ok(Round::Done);
    }
    if outcome.lost_a_race() {
        return Ok(Round::LostRace);
    }
    report.push_refused = Some(refusal(remote, &outcome));
    Ok(Round::Done)
}

/// The remote's references as our copies of them say, by their remote names.
fn tracked(repo: &Repo, remote: &str) -> Result<BTreeMap<String, Oid>> {
    let mut out = BTreeMap::new();
    if let Some(id) = repo.read_ref(&names::tracking_notes(remote))? {
        out.insert(NOTES_REF.to_owned(), id);
    }
    for (tracking, id) in repo.refs_with_prefix(&names::tracking_prefix(remote))? {
        if let Some(name) = names::untracked(remote, &tracking) {
            out.insert(name, id);
        }
    }
    Ok(out)
}

/// Moves our copies of what the remote now holds, so the gate knows which
/// results are on the remote without asking it.
fn record_pushed(repo: &Repo, remote: &str, outcome: &PushOutcome) -> Result<()> {
    let mut updates = Vec::new();
    for pushed in outcome.refs.iter().filter(|r| r.ok) {
        if let Some(id) = repo.read_ref(names::local_name(&pushed.name))? {
            let tracking = names::tracking(remote, &pushed.name);
            updates.push(RefUpdate {
                expect: Expect::AbsentOr(repo.read_ref(&tracking)?),
                name: tracking,
                new: Some(id),
            });
        }
    }
    // Losing this to a concurrent sync only means the next one fetches again.
    let _ = repo.update_refs(&updates, &format!("ultraplan: pushed to '{remote}'"));
    Ok(())
}

fn refusal(remote: &str, outcome: &PushOutcome) -> String {
    let reasons: Vec<String> = outcome
        .refs
        .iter()
        .filter(|r| !r.ok && !r.summary.contains("atomic push failed"))
        .map(|r| format!("{}: {}", r.name, r.summary))
        .collect();
    let remote_says: Vec<&str> = outcome
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("remote: "))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut text = format!("'{remote}' refused the push ({})", reasons.join("; "));
    if !remote_says.is_empty() {
        text.push_str(&format!("; the remote said: {}", remote_says.join(" / ")));
    }
    text
}

/// The documents of each note blob of `notes` (`(commit, blob)` pairs), in
/// order, or why one does not read as YAML. Parsing is most of the work of a
/// large sync or gate, so big batches are split over the machine's cores.
pub(crate) fn read_notes(repo: &Repo, notes: &[(Oid, Oid)]) -> Result<Vec<ParsedNote>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
    if notes.len() < 200 || threads < 2 {
        return read_notes_in(repo, notes);
    }
    let shared = repo.share();
    let chunks: Vec<&[(Oid, Oid)]> = notes.chunks(notes.len().div_ceil(threads)).collect();
    let results: Vec<Result<Vec<ParsedNote>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let shared = &shared;
                scope.spawn(move || read_notes_in(&shared.open(), chunk))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow!("a note reader stopped unexpectedly")))
            })
            .collect()
    });
    let mut out = Vec::with_capacity(notes.len());
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// A note's documents, or why it is not YAML.
pub(crate) type ParsedNote = std::result::Result<Vec<serde_yaml::Value>, String>;

fn read_notes_in(repo: &Repo, notes: &[(Oid, Oid)]) -> Result<Vec<ParsedNote>> {
    let mut out = Vec::with_capacity(notes.len());
    for (_, blob) in notes {
        let text = String::from_utf8_lossy(&repo.read_blob(*blob)?).into_owned();
        out.push(crate::ultraplan::state::note_stream::documents(&text).map_err(|e| e.to_string()));
    }
    Ok(out)
}

/// Slugs with a live lock in this repository.
fn running_slugs(repo: &Repo, timeout: Duration) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for slug in catalog::slugs(repo)? {
        if catalog::locks(repo, &slug)?
            .iter()
            .any(|(_, _, info)| info.status(timeout) == LockStatus::Live)
        {
            out.push(slug);
        }
    }
    Ok(out)
}

/// A run state whose local and remote histories diverged, as left by `sync`.
#[derive(Clone, Debug, Serialize)]
pub struct Diverged {
    /// Our state reference.
    pub local: String,
    /// The remote's copy, kept beside it.
    pub remote_copy: String,
    pub remote: String,
}

/// Every remote copy of a run state that neither equals nor is contained in ours.
pub fn diverged(repo: &Repo) -> Result<Vec<Diverged>> {
    let mut out = Vec::new();
    for (tracking, theirs) in repo.refs_with_prefix("refs/ultraplan-remotes/")? {
        let Some(rest) = tracking.strip_prefix("refs/ultraplan-remotes/") else {
            continue;
        };
        let Some((remote, name)) = rest.split_once("/ultraplan/") else {
            continue;
        };
        let local = format!("refs/ultraplan/{name}");
        if names::kind(&local) != names::Kind::State {
            continue;
        }
        let Some(ours) = repo.read_ref(&local)? else { continue };
        if ours != theirs && !repo.is_ancestor(theirs, ours)? && !repo.is_ancestor(ours, theirs)? {
            out.push(Diverged {
                local,
                remote_copy: tracking.clone(),
                remote: remote.to_owned(),
            });
        }
    }
    Ok(out)
}

/// The hint that says how to pick one of two diverged states.
pub fn pick_hint(d: &Diverged) -> String {
    format!(
        "both are kept; to adopt '{remote}''s: git update-ref {local} {copy}\nto publish yours over it instead: git push --force-with-lease={local}:$(git rev-parse {copy}) {remote} {local}",
        remote = d.remote,
        local = d.local,
        copy = d.remote_copy
    )
}

/// Reads the note of `commit`, ours first, else any remote's copy fetched
/// by `sync` or by a plain `git fetch` after `sync --setup`.
pub fn find_note(repo: &Repo, commit: Oid) -> Result<Option<String>> {
    if let Some(note) = repo.note(NOTES_REF, commit)? {
        return Ok(Some(note));
    }
    for (name, _) in repo.refs_with_prefix("refs/notes/remotes/")? {
        if name.ends_with("/ultraplan") {
            if let Some(note) = repo.note(&name, commit)? {
                return Ok(Some(note));
            }
        }
    }
    Ok(None)
}
