//! The clean branch (DESIGN §10.1): a free name for it, and moving it to
//! where the session says it should point. It is the only reference
//! `execute` writes besides the session's, always with a compare-and-swap —
//! and, with `clean --stack`, the stack branches beside it.
//!
//! **Stack branches.** `clean --stack` also makes one branch per clean
//! commit, each at its commit (so each is the previous one plus a commit),
//! for stacked review: `<clean>-stack/01-<slug>`, `<clean>-stack/02-<slug>`,
//! … with the slug made from the commit's subject. They cannot live under
//! `<clean>/` itself: git stores `refs/heads/<clean>` as a file, so no
//! branch `<clean>/01-x` can exist beside it (a directory/file conflict).
//! A clean branch name is only chosen when its `-stack` namespace is free
//! too, and the stack branches are created with the clean branch, all or
//! none, when the run ends in SUCCESS.

use anyhow::{bail, Result};

use crate::git::{Expect, Oid, Repo};
use crate::historian::session::{self, Session};

/// A free name `<branch>-<YYYYMMDD-HHMMSS>-clean`: if a branch or a
/// session already has it (or, for a stack, a branch is at or under its
/// stack namespace), the next second's.
pub fn clean_branch_name(
    repo: &Repo,
    branch: &str,
    now: chrono::DateTime<chrono::Local>,
    stack: bool,
) -> Result<String> {
    let claimed: Vec<String> = session::list(repo)?
        .iter()
        .filter_map(|r| session::load(repo, r).ok().flatten())
        .map(|s| s.session.clean_branch)
        .collect();
    for offset in 0..3600 {
        let at = now + chrono::Duration::seconds(offset);
        let name = format!("{branch}-{}-clean", at.format("%Y%m%d-%H%M%S"));
        if repo.read_ref(&format!("refs/heads/{name}"))?.is_none()
            && !claimed.contains(&name)
            && (!stack || stack_namespace_free(repo, &name)?)
        {
            return Ok(name);
        }
    }
    bail!("cannot find a free name for the clean branch of '{branch}'")
}

/// The folder of the stack branches of the clean branch `clean`.
pub fn stack_prefix(clean: &str) -> String {
    format!("{clean}-stack")
}

fn stack_namespace_free(repo: &Repo, clean: &str) -> Result<bool> {
    let prefix = stack_prefix(clean);
    Ok(repo.read_ref(&format!("refs/heads/{prefix}"))?.is_none()
        && repo.refs_with_prefix(&format!("refs/heads/{prefix}/"))?.is_empty())
}

/// The stack branches of `clean` for its commits (with their subjects), in
/// order: `<clean>-stack/01-<slug>`, …; numbered with at least two digits,
/// more when there are more commits.
pub fn stack_branches(clean: &str, commits: &[(Oid, &str)]) -> Vec<(String, Oid)> {
    let width = commits.len().to_string().len().max(2);
    let prefix = stack_prefix(clean);
    commits
        .iter()
        .enumerate()
        .map(|(n, (id, subject))| (format!("{prefix}/{:0width$}-{}", n + 1, slug(subject)), *id))
        .collect()
}

/// The stack branches of `clean` that exist and point at one of `built`
/// (those a run made; anything else there is someone else's).
pub fn existing_stack(repo: &Repo, clean: &str, built: &[Oid]) -> Result<Vec<(String, Oid)>> {
    let prefix = format!("refs/heads/{}/", stack_prefix(clean));
    Ok(repo
        .refs_with_prefix(&prefix)?
        .into_iter()
        .filter(|(_, id)| built.contains(id))
        .collect())
}

/// A branch-name piece from a subject: its summary (after `type(scope): `)
/// in lowercase letters, digits and dashes, at most 40 characters, cut at a
/// dash; `commit` when nothing is left.
pub fn slug(subject: &str) -> String {
    let summary = match subject.split_once(": ") {
        Some((head, rest)) if !head.contains(' ') => rest,
        _ => subject,
    };
    let mut out = String::new();
    for c in summary.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    const MOST: usize = 40;
    if out.len() > MOST {
        let cut = out[..=MOST].rfind('-').filter(|&c| c >= MOST / 2).unwrap_or(MOST);
        out.truncate(cut);
    }
    let out = out.trim_matches('-').to_owned();
    if out.is_empty() {
        "commit".to_owned()
    } else {
        out
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_short_ref_safe_summaries() {
        assert_eq!(slug("feat(parser): add the parser"), "add-the-parser");
        assert_eq!(slug("Fix crash: empty plan"), "fix-crash-empty-plan");
        assert_eq!(slug("build: bump version to 1.2.0"), "bump-version-to-1-2-0");
        assert_eq!(slug("docs: ..."), "commit");
        assert_eq!(slug("feat: Ünïcode wörds"), "n-code-w-rds");
        let long = slug("refactor(engine): split the very long function into several smaller pieces");
        assert_eq!(long, "split-the-very-long-function-into");
        assert!(long.len() <= 40);
    }

    #[test]
    fn stack_branches_are_numbered_under_their_own_folder() {
        let id = Oid::from_hex(b"0123456789012345678901234567890123456789").unwrap();
        let names: Vec<String> = stack_branches("f-clean", &[(id, "feat: one"), (id, "fix(x): two")])
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["f-clean-stack/01-one", "f-clean-stack/02-two"]);
        let many: Vec<(Oid, &str)> = (0..100).map(|_| (id, "chore: x")).collect();
        assert_eq!(stack_branches("c", &many)[0].0, "c-stack/001-x");
    }
}
