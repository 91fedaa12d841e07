//! What a lock guards: the references whose every writer ran under it, so
//! that the `.lock` files a dead holder left there are leftovers — and what
//! a run says of the lock files it found.

use crate::git::LockSweep;

/// The references whose writers all ran under the lock `name`, as prefixes
/// of the names `git::locks` gives lock files: when its holder is dead (with
/// every process it started), a `.lock` file there is a leftover.
///
/// * A plan's lock (`refs/ultraplan/<plan>/lock`) guards every ref of the
///   plan and its session branches: no other run of the plan goes on beside it.
/// * A session's (`…/lock-session-<N>`) guards only that session's state and
///   branch (`ultraplan/<plan>/session-<N>` here, `ultraplan-work/…` in a
///   worker's clone): its sibling sessions run beside it and write their
///   own refs meanwhile.
/// * A worker's (`…/lock-work-<N>`) guards the branch of the place it runs
///   session N in.
pub fn guarded_refs(name: &str) -> Vec<String> {
    let Some((namespace, last)) = name.rsplit_once('/') else {
        return Vec::new();
    };
    let Some(slug) = namespace.strip_prefix("refs/ultraplan/") else {
        return Vec::new();
    };
    if last == "lock" {
        return vec![format!("{namespace}/"), format!("refs/heads/ultraplan/{slug}/")];
    }
    let session = |rest: &str| rest.parse::<u32>().ok();
    if let Some(n) = last.strip_prefix("lock-session-").and_then(session) {
        return vec![
            format!("{namespace}/session-{n}"),
            format!("refs/heads/ultraplan/{slug}/session-{n}"),
            format!("refs/heads/ultraplan-work/{slug}/session-{n}"),
        ];
    }
    if let Some(n) = last.strip_prefix("lock-work-").and_then(session) {
        return vec![format!("refs/heads/ultraplan-work/{slug}/session-{n}")];
    }
    Vec::new()
}

/// Whether the lock file of `locked` (a name as `git::locks` gives it) lies
/// in what `guarded` (from [`guarded_refs`]) names: under a prefix ending in
/// `/`, or that very ref.
pub fn in_guarded(guarded: &[String], locked: &str) -> bool {
    guarded.iter().any(|g| {
        if g.ends_with('/') {
            locked.starts_with(g.as_str())
        } else {
            locked == g
        }
    })
}

/// What a run says of the lock files it found: each removed one with why,
/// each kept one with who may hold it.
pub fn lock_file_warnings(sweep: &LockSweep) -> Vec<String> {
    let mut out: Vec<String> = sweep
        .removed
        .iter()
        .map(|(lock, why)| format!("removed the stale lock file '{}' ({why})", lock.path.display()))
        .collect();
    out.extend(sweep.kept.iter().map(|(lock, who)| {
        format!(
            "kept the lock file '{}': {who}; git fails to update '{}' while it is there",
            lock.path.display(),
            lock.name
        )
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_each_lock_guards() {
        let plan = guarded_refs("refs/ultraplan/plan/lock");
        assert!(in_guarded(&plan, "refs/ultraplan/plan/run"));
        assert!(in_guarded(&plan, "refs/heads/ultraplan/plan/session-2"));
        assert!(!in_guarded(&plan, "refs/ultraplan/planet/run"));
        assert!(!in_guarded(&plan, "refs/notes/ultraplan"), "shared: never one run's");
        let session = guarded_refs("refs/ultraplan/plan/lock-session-2");
        assert!(in_guarded(&session, "refs/ultraplan/plan/session-2"));
        assert!(in_guarded(&session, "refs/heads/ultraplan/plan/session-2"));
        assert!(!in_guarded(&session, "refs/ultraplan/plan/session-22"));
        assert!(!in_guarded(&session, "refs/ultraplan/plan/run"), "the orchestrator's");
        let worker = guarded_refs("refs/ultraplan/plan/lock-work-3");
        assert_eq!(worker, ["refs/heads/ultraplan-work/plan/session-3"]);
        assert!(guarded_refs("refs/ultraplan/plan/run").is_empty());
        assert!(guarded_refs("refs/heads/main").is_empty());
    }
}
