//! One round of a sync: fetch what the remote has into its namespace,
//! decide every merge locally, move our references in one transaction, push.
//! The caller ([`super::sync`]) repeats a round that lost a push race.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Result;

use super::{names, notes_merge, states, Action, Refused, RefusedNote, Relation, StateReport, SyncOptions, SyncReport};
use crate::git::{Expect, Oid, PushOutcome, RefUpdate, Repo};
use crate::ultraplan::state::{catalog, LockStatus, NOTES_REF};

/// How a round ended.
pub(super) enum Round {
    Done,
    LostRace,
}

/// Fetch, merge locally, push: once.
pub(super) fn one_round(repo: &Repo, remote: &str, opts: &SyncOptions, report: &mut SyncReport) -> Result<Round> {
    let write = !opts.dry_run;
    let fetched = Fetched::fetch(repo, remote, write, report)?;
    let mut changes = Changes::default();
    fetched.merge_notes(&mut changes, report)?;
    fetched.merge_states(&mut changes, report, opts.lock_timeout)?;
    fetched.merge_outcomes(&mut changes, report)?;
    // Copies of what is not exchanged, fetched by the globs.
    if write {
        for (name, id) in &fetched.drop_copies {
            changes.updates.push(RefUpdate {
                name: names::tracking(remote, name),
                new: None,
                expect: Expect::Value(*id),
            });
        }
        for (name, id, before) in &fetched.put_back {
            changes.updates.push(RefUpdate {
                name: names::tracking(remote, name),
                new: *before,
                expect: Expect::Value(*id),
            });
        }
    }
    report.foreign.sort();
    report.foreign.dedup();
    push(repo, remote, write, changes, report)
}

/// What the remote has (steps 1-2), and how to read it.
struct Fetched<'r> {
    repo: &'r Repo,
    remote: &'r str,
    write: bool,
    /// The exchanged references the remote has, by their remote names.
    remote_refs: BTreeMap<String, Oid>,
    /// Our copies of what is not exchanged, dropped after a real fetch.
    drop_copies: Vec<(String, Oid)>,
    /// Our copies of refused references, put back to what they held before
    /// the fetch (or dropped), so that plain git never reads them.
    put_back: Vec<(String, Oid, Option<Oid>)>,
}

/// What a round changes: our references in one transaction, theirs by a push.
#[derive(Default)]
struct Changes {
    updates: Vec<RefUpdate>,
    push: Vec<String>,
}

impl<'r> Fetched<'r> {
    /// 1-2. What the remote has. A real sync fetches it in one round trip into
    /// the remote's namespace (globs, so that a reference the remote lacks is
    /// no error; plan locks and published work excluded by negative refspecs,
    /// anything else that is not shared dropped right after); a dry run only
    /// asks (`git ls-remote`) and writes nothing.
    fn fetch(repo: &'r Repo, remote: &'r str, write: bool, report: &mut SyncReport) -> Result<Fetched<'r>> {
        let mut remote_refs: BTreeMap<String, Oid> = BTreeMap::new();
        let mut drop_copies: Vec<(String, Oid)> = Vec::new();
        let mut put_back: Vec<(String, Oid, Option<Oid>)> = Vec::new();
        let mut before = BTreeMap::new();
        let listed: Vec<(String, Oid)> = if write {
            before = tracked(repo, remote)?;
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
                names::Kind::Notes | names::Kind::Outcomes => match not_a_commit(repo, id) {
                    // A notes reference that is a blob breaks every `git log`
                    // that shows notes (`notes.displayRef`), and every merge.
                    Some(what) => {
                        report.refs_refused.push(Refused {
                            name: name.clone(),
                            why: format!("it points at {what}, not a commit"),
                        });
                        let was = before
                            .get(&name)
                            .copied()
                            .filter(|b| *b != id && not_a_commit(repo, *b).is_none());
                        put_back.push((name, id, was));
                    }
                    None => {
                        remote_refs.insert(name, id);
                    }
                },
                names::Kind::State => {
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
        Ok(Fetched {
            repo,
            remote,
            write,
            remote_refs,
            drop_copies,
            put_back,
        })
    }

    /// The value to merge for `name`: what was fetched (a dry run uses what
    /// ls-remote said when the objects are here already).
    fn theirs(&self, name: &str) -> Result<Option<Oid>> {
        if !self.remote_refs.contains_key(name) {
            // The remote lacks it, or it was refused.
            return Ok(None);
        }
        if self.write {
            self.repo.read_ref(&names::tracking(self.remote, name))
        } else {
            Ok(self
                .remote_refs
                .get(name)
                .copied()
                .filter(|id| self.repo.has_object(*id)))
        }
    }

    /// 3. Notes.
    fn merge_notes(&self, changes: &mut Changes, report: &mut SyncReport) -> Result<()> {
        let repo = self.repo;
        if refused(report, NOTES_REF) {
            // Neither taken nor pushed over: ours stay as they are.
            return Ok(());
        }
        let our_notes = repo.read_ref(NOTES_REF)?;
        let their_notes = self.theirs(NOTES_REF)?;
        let unseen = self.remote_refs.contains_key(NOTES_REF) && their_notes.is_none();
        let notes = notes_merge::merge(repo, our_notes, their_notes, self.remote, self.write)?;
        // A dry run that has not got the remote's notes cannot say how they relate.
        report.notes = (!unseen).then_some(notes.relation);
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
        if unseen {
            return Ok(());
        }
        if let Some(new) = notes.new_head {
            changes.updates.push(RefUpdate {
                name: NOTES_REF.into(),
                new: Some(new),
                expect: Expect::AbsentOr(our_notes),
            });
        }
        // With a remote note skipped, ours do not contain theirs: a push
        // would be refused as not a fast-forward.
        let ours_after = notes.new_head.or(our_notes);
        if notes.set_aside.is_empty()
            && ours_after.is_some()
            && ours_after != self.remote_refs.get(NOTES_REF).copied()
            && notes.relation != Relation::FastForward
        {
            report.notes_unpushable = self.gate_refuses(ours_after, their_notes)?;
            if report.notes_unpushable.is_empty() {
                changes.push.push(NOTES_REF.into());
            }
        }
        Ok(())
    }

    /// Our notes the remote lacks (or has otherwise) that the pre-push gate
    /// would refuse.
    fn gate_refuses(&self, ours: Option<Oid>, theirs: Option<Oid>) -> Result<Vec<RefusedNote>> {
        let Some(ours) = ours else { return Ok(Vec::new()) };
        let theirs = match theirs {
            Some(t) => self.repo.notes_at(t)?,
            None => BTreeMap::new(),
        };
        let new: Vec<(Oid, Oid)> = self
            .repo
            .notes_at(ours)?
            .into_iter()
            .filter(|(commit, blob)| theirs.get(commit) != Some(blob))
            .collect();
        let parsed = super::read_notes(self.repo, &new)?;
        Ok(new
            .iter()
            .zip(&parsed)
            .filter_map(|((commit, _), docs)| {
                super::gate::refuses(docs).map(|why| RefusedNote {
                    commit: commit.to_string(),
                    why,
                })
            })
            .collect())
    }

    /// 4. Run states: every one either side has.
    fn merge_states(&self, changes: &mut Changes, report: &mut SyncReport, lock_timeout: Duration) -> Result<()> {
        let repo = self.repo;
        let local_states: BTreeMap<String, Oid> = repo
            .refs_with_prefix("refs/ultraplan/")?
            .into_iter()
            .filter(|(n, _)| names::kind(n) == names::Kind::State)
            .collect();
        let running = running_slugs(repo, lock_timeout)?;
        let mut all: Vec<&String> = local_states.keys().chain(self.remote_refs.keys()).collect();
        all.sort();
        all.dedup();
        for name in all {
            if names::kind(name) != names::Kind::State {
                continue;
            }
            let ours = local_states.get(name).copied();
            let remote_value = self.theirs(name)?;
            if self.remote_refs.contains_key(name) && remote_value.is_none() {
                // Dry run: not fetched yet, nothing to decide on.
                continue;
            }
            let slug = name.split('/').nth(2).unwrap_or("");
            let action = states::decide(repo, ours, remote_value, running.iter().any(|s| s == slug))?;
            match action {
                Action::Created | Action::FastForward => changes.updates.push(RefUpdate {
                    name: name.clone(),
                    new: remote_value,
                    expect: Expect::AbsentOr(ours),
                }),
                Action::Push => changes.push.push(name.clone()),
                Action::NotAState => {
                    report.foreign.push(name.clone());
                    changes.updates.push(RefUpdate {
                        name: names::tracking(self.remote, name),
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
        Ok(())
    }

    /// 5. Outcomes.
    fn merge_outcomes(&self, changes: &mut Changes, report: &mut SyncReport) -> Result<()> {
        if refused(report, names::OUTCOMES_REMOTE_REF) {
            return Ok(());
        }
        let our_outcomes = self.repo.read_ref(names::OUTCOMES_REF)?;
        let theirs = self.theirs(names::OUTCOMES_REMOTE_REF)?;
        let outcomes = states::merge_outcomes(self.repo, our_outcomes, theirs, self.write)?;
        report.outcomes_taken = outcomes.taken;
        report.outcome_clashes = outcomes.clashes;
        report.outcomes_refused = outcomes
            .refused
            .into_iter()
            .map(|(name, why)| Refused { name, why })
            .collect();
        if let Some(new) = outcomes.new_head {
            changes.updates.push(RefUpdate {
                name: names::OUTCOMES_REF.into(),
                new: Some(new),
                expect: Expect::AbsentOr(our_outcomes),
            });
        }
        if outcomes.push && our_outcomes.is_some() {
            changes.push.push(names::OUTCOMES_REF.into());
        }
        Ok(())
    }
}

/// 6. One local transaction, then the push (a dry run reports what it would push).
fn push(repo: &Repo, remote: &str, write: bool, changes: Changes, report: &mut SyncReport) -> Result<Round> {
    if !write {
        // Named as a real push reports them: by their names on the remote.
        report.pushed = changes.push.iter().map(|n| names::remote_name(n).to_owned()).collect();
        return Ok(Round::Done);
    }
    repo.update_refs(&changes.updates, &format!("ultraplan: sync with '{remote}'"))?;
    if changes.push.is_empty() {
        return Ok(Round::Done);
    }
    let refspecs: Vec<String> = changes
        .push
        .iter()
        .map(|n| format!("{n}:{}", names::remote_name(n)))
        .collect();
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

/// Whether the remote reference `name` was refused this round.
fn refused(report: &SyncReport, name: &str) -> bool {
    report.refs_refused.iter().any(|r| r.name == name)
}

/// What `id` is when it is no commit (`a blob`), or `None` for a commit.
/// An object this repository lacks (a dry run that fetched nothing) is
/// judged when it is here.
fn not_a_commit(repo: &Repo, id: Oid) -> Option<&'static str> {
    match repo.object_kind(id) {
        Some("commit") | None => None,
        Some("blob") => Some("a blob"),
        Some("tree") => Some("a tree"),
        Some("tag") => Some("a tag"),
        Some(_) => Some("an object"),
    }
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
