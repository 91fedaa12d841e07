//! Which references travel, and where a remote's copies are kept locally.
//!
//! A remote's notes go to `refs/notes/remotes/<remote>/ultraplan` (where
//! git's own `notes.displayRef` globs find them); its run states and
//! outcomes to `refs/ultraplan-remotes/<remote>/` followed by the remote
//! name without `refs/`, so no plan slug can collide with the outcomes ref.

use crate::ultraplan::state::NOTES_REF;

/// The outcomes chain (DESIGN §17).
pub const OUTCOMES_REF: &str = "refs/ultraplan-outcomes";

/// Where the outcomes chain lives on a remote. `git receive-pack` refuses to
/// update a one-level name like `refs/ultraplan-outcomes` ("funny refname"),
/// so on remotes it takes a two-level name; not `refs/ultraplan-outcomes/…`,
/// which could not exist beside the local name in a repository that is both.
pub const OUTCOMES_REMOTE_REF: &str = "refs/ultraplan-shared/outcomes";

/// The patterns `git ls-remote` is asked for.
pub const REMOTE_PATTERNS: [&str; 3] = [NOTES_REF, "refs/ultraplan/*", OUTCOMES_REMOTE_REF];

/// What a sync fetches from `remote`, into its namespace: globs (a glob that
/// matches nothing is fine, an exact name the remote lacks fails the whole
/// fetch; `*` also matches the empty string), never plan locks or published
/// work.
pub fn fetch_refspecs(remote: &str) -> Vec<String> {
    let prefix = tracking_prefix(remote);
    vec![
        format!("+{NOTES_REF}*:{}*", tracking_notes(remote)),
        format!("+refs/ultraplan/*:{prefix}ultraplan/*"),
        "^refs/ultraplan/*/lock".into(),
        "^refs/ultraplan/*/work".into(),
        format!("+{OUTCOMES_REMOTE_REF}*:{prefix}ultraplan-shared/outcomes*"),
    ]
}

/// The name a local reference has on remotes.
pub fn remote_name(local: &str) -> &str {
    if local == OUTCOMES_REF {
        OUTCOMES_REMOTE_REF
    } else {
        local
    }
}

/// The local name of a reference as remotes name it.
pub fn local_name(remote: &str) -> &str {
    if remote == OUTCOMES_REMOTE_REF {
        OUTCOMES_REF
    } else {
        remote
    }
}

/// Where `remote`'s notes are kept.
pub fn tracking_notes(remote: &str) -> String {
    format!("refs/notes/remotes/{remote}/ultraplan")
}

/// Where `remote`'s run states and outcomes are kept.
pub fn tracking_prefix(remote: &str) -> String {
    format!("refs/ultraplan-remotes/{remote}/")
}

/// The local copy of the remote reference `name` of `remote`.
pub fn tracking(remote: &str, name: &str) -> String {
    if name == NOTES_REF {
        return tracking_notes(remote);
    }
    format!(
        "{}{}",
        tracking_prefix(remote),
        name.strip_prefix("refs/").unwrap_or(name)
    )
}

/// The remote reference a local copy under [`tracking_prefix`] stands for.
pub fn untracked(remote: &str, tracking_name: &str) -> Option<String> {
    tracking_name
        .strip_prefix(&tracking_prefix(remote))
        .map(|rest| format!("refs/{rest}"))
}

/// What a reference found on a remote is to sync.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Notes,
    Outcomes,
    /// A run or session state: `refs/ultraplan/<slug>/run` or `…/session-<N>`.
    State,
    /// Ours but not exchanged: locks (a lock belongs to one machine's
    /// process), and the claims and published work of `work` (DESIGN §18).
    NotShared,
    /// Under `refs/ultraplan/` but no name git-ultraplan writes.
    Foreign,
}

pub fn kind(name: &str) -> Kind {
    if name == NOTES_REF {
        return Kind::Notes;
    }
    if name == OUTCOMES_REF || name == OUTCOMES_REMOTE_REF {
        return Kind::Outcomes;
    }
    let Some(rest) = name.strip_prefix("refs/ultraplan/") else {
        return Kind::Foreign;
    };
    let parts: Vec<&str> = rest.split('/').collect();
    match parts.as_slice() {
        [slug, "run"] if !slug.is_empty() => Kind::State,
        [slug, last] if !slug.is_empty() && is_session(last) => Kind::State,
        [slug, last]
            if !slug.is_empty() && (*last == "lock" || last.starts_with("lock-session-") || *last == "work") =>
        {
            Kind::NotShared
        }
        [slug, "claims", last] if !slug.is_empty() && is_session(last) => Kind::NotShared,
        _ => Kind::Foreign,
    }
}

fn is_session(last: &str) -> bool {
    last.strip_prefix("session-")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_references_are_sorted_by_what_they_are() {
        assert_eq!(kind("refs/notes/ultraplan"), Kind::Notes);
        assert_eq!(kind("refs/ultraplan-outcomes"), Kind::Outcomes);
        assert_eq!(kind("refs/ultraplan/plan/run"), Kind::State);
        assert_eq!(kind("refs/ultraplan/plan/session-12"), Kind::State);
        assert_eq!(kind("refs/ultraplan/plan/lock"), Kind::NotShared);
        assert_eq!(kind("refs/ultraplan/plan/lock-session-2"), Kind::NotShared);
        assert_eq!(kind("refs/ultraplan/plan/claims/session-2"), Kind::NotShared);
        assert_eq!(kind("refs/ultraplan/plan/session-x"), Kind::Foreign);
        assert_eq!(kind("refs/ultraplan/stray"), Kind::Foreign);
        assert_eq!(kind("refs/ultraplan/a/b/run"), Kind::Foreign);
    }

    #[test]
    fn tracking_names_do_not_collide() {
        assert_eq!(tracking_notes("origin"), "refs/notes/remotes/origin/ultraplan");
        assert_eq!(tracking("origin", NOTES_REF), "refs/notes/remotes/origin/ultraplan");
        assert_eq!(
            tracking("origin", "refs/ultraplan/plan/run"),
            "refs/ultraplan-remotes/origin/ultraplan/plan/run"
        );
        assert_eq!(
            tracking("origin", OUTCOMES_REMOTE_REF),
            "refs/ultraplan-remotes/origin/ultraplan-shared/outcomes"
        );
        assert_eq!(local_name(remote_name(OUTCOMES_REF)), OUTCOMES_REF);
        assert_eq!(remote_name(NOTES_REF), NOTES_REF);
        assert_eq!(
            untracked("origin", "refs/ultraplan-remotes/origin/ultraplan/plan/run").as_deref(),
            Some("refs/ultraplan/plan/run")
        );
    }
}
