//! The clean branch (DESIGN §10.1): a free name for it, and moving it to
//! where the session says it should point. It is the only reference
//! `execute` writes besides the session's, always with a compare-and-swap.

use anyhow::{bail, Result};

use crate::git::{Expect, Repo};
use crate::historian::session::{self, Session};

/// A free name `<branch>-<YYYYMMDD-HHMMSS>-clean`: if a branch or a
/// session already has it, the next second's.
pub fn clean_branch_name(repo: &Repo, branch: &str, now: chrono::DateTime<chrono::Local>) -> Result<String> {
    let claimed: Vec<String> = session::list(repo)?
        .iter()
        .filter_map(|r| session::load(repo, r).ok().flatten())
        .map(|s| s.session.clean_branch)
        .collect();
    for offset in 0..3600 {
        let at = now + chrono::Duration::seconds(offset);
        let name = format!("{branch}-{}-clean", at.format("%Y%m%d-%H%M%S"));
        if repo.read_ref(&format!("refs/heads/{name}"))?.is_none() && !claimed.contains(&name) {
            return Ok(name);
        }
    }
    bail!("cannot find a free name for the clean branch of '{branch}'")
}

/// Moves the clean branch to where the session says, from where it says
/// it pointed (or already is); anything else means someone moved it.
pub fn settle_branch(repo: &Repo, session: &Session) -> Result<()> {
    let clean_ref = session.clean_ref();
    let target = session.clean_tip()?;
    let current = repo.read_ref(&clean_ref)?;
    if current == target {
        return Ok(());
    }
    let known = [session.previous_clean_tip()?, None];
    if !known.contains(&current) {
        bail!(
            "the branch '{}' was moved by someone else (to {}); leaving it alone",
            session.clean_branch,
            current.map(|c| repo.short(c)).unwrap_or_default()
        );
    }
    match target {
        Some(t) => repo.update_ref(
            &clean_ref,
            t,
            match current {
                Some(c) => Expect::Value(c),
                None => Expect::Absent,
            },
            "historian: partial clean branch",
        ),
        None => repo.delete_ref(&clean_ref, current),
    }
}
