//! Publishing a session's results: the claim closed with how the session
//! ended, its branch and its state — on the remote together or not at all.

use anyhow::{anyhow, Result};

use super::{claim_ref, Claim, View};
use crate::git::{Lease, Oid, Repo};
use crate::redact::redact;
use crate::ultraplan::state::Refs;

/// A claim this worker holds on the remote.
pub(super) struct Held<'a> {
    /// The published run it is a claim in.
    pub work: &'a str,
    pub slug: &'a str,
    pub session: u32,
    /// The claim's blob on the remote now.
    pub claim: Oid,
}

/// Closes the claim with `result` in one atomic push with the session's
/// branch and state, each under a lease on what the remote holds now: the
/// branch and the closed claim reach the remote together or not at all. A
/// remote without atomic pushes gets the branch and state first and the
/// claim after, so that no reader ever sees a closed claim before its
/// branch. A session that completed without a branch to publish is closed
/// as failed: an orchestrator has nothing to merge, and runs it again. A
/// push that lost a race to another reference is read again and retried
/// (never forced); `false` when the claim itself is no longer ours.
pub(super) fn close(
    repo: &Repo,
    remote: &str,
    held: &Held<'_>,
    result: &str,
    tip: Option<Oid>,
    state: Option<Oid>,
) -> Result<bool> {
    let slug = held.slug;
    let n = held.session;
    let refs = Refs::new(slug.to_owned());
    let result = match (result, tip) {
        ("completed", None) => "failed",
        _ => result,
    };
    let mut closed = Claim::mine(held.work, n);
    closed.result = Some(result.to_owned());
    let blob = repo.write_blob(redact(&closed.render()).as_bytes())?;
    for _ in 0..PUBLISH_TRIES {
        let now = View::read(repo, remote, Some(slug))?;
        let key = (slug.to_owned(), n);
        if now.claims.get(&key).map(|(id, _)| *id) != Some(held.claim) {
            return Ok(false);
        }
        let claim = Lease {
            name: claim_ref(slug, n),
            new: Some(blob),
            expect: Some(held.claim),
        };
        let mut results = Vec::new();
        if let Some(tip) = tip {
            results.push(Lease {
                name: refs.branch(n),
                new: Some(tip),
                expect: now.branches.get(&key).copied(),
            });
        }
        if let Some(state) = state {
            results.push(Lease {
                name: refs.session(n),
                new: Some(state),
                expect: now.states.get(&key).copied(),
            });
        }
        let mut leases = results.clone();
        leases.push(claim.clone());
        let mut outcome = repo.push_leased(remote, &leases, true)?;
        if !outcome.success && outcome.stderr.contains("does not support --atomic") {
            outcome = match results.is_empty() {
                true => repo.push_leased(remote, std::slice::from_ref(&claim), false)?,
                false => {
                    let first = repo.push_leased(remote, &results, false)?;
                    match first.success {
                        true => repo.push_leased(remote, &[claim], false)?,
                        false => first,
                    }
                }
            };
        }
        if outcome.success {
            return Ok(true);
        }
        if !outcome.lost_a_race() {
            return Err(anyhow!("cannot publish session {n} to '{}': {}", remote, outcome.why()));
        }
    }
    Err(anyhow!(
        "cannot publish session {n} to '{}': its references kept moving ({PUBLISH_TRIES} tries)",
        remote
    ))
}

/// How often a publication that lost a race is read again and retried.
const PUBLISH_TRIES: usize = 5;
