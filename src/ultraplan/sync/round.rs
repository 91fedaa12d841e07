//! One round of a sync: fetch what the remote has into its namespace,
//! decide every merge locally, move our references in one transaction, push.
//! The caller ([`super::sync`]) repeats a round that lost a push race.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Result;

use super::{names, notes, states, Action, RefusedNote, Relation, StateReport, SyncOptions, SyncReport};
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
