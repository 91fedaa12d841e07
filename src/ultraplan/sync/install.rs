//! `hook install`: put the gate's script (`hooks/pre-push`) where git looks
//! for hooks — `core.hooksPath` honoured, linked worktrees sharing it — and
//! never lose a user's own hook: one that is there already is kept beside it
//! as `pre-push.ultraplan-chained` and run first; `--uninstall` puts it back.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};

use crate::git::Repo;

/// The script, as shipped in `hooks/pre-push`.
pub const SCRIPT: &str = include_str!("../../../hooks/pre-push");

/// How the installed script recognises itself.
const MARKER: &str = "# git-ultraplan pre-push gate";

const CHAINED: &str = "pre-push.ultraplan-chained";

/// What installing did.
#[derive(Debug, PartialEq, Eq)]
pub enum Installed {
    /// Written where there was no hook.
    New(PathBuf),
    /// Ours was there already and is now the current script.
    Updated(PathBuf),
    /// The user's hook was moved aside (second path) and is run first.
    Chained(PathBuf, PathBuf),
}

/// What uninstalling did.
#[derive(Debug, PartialEq, Eq)]
pub enum Uninstalled {
    Removed(PathBuf),
    /// Removed, and the chained hook put back in its place.
    Restored(PathBuf),
    NothingThere(PathBuf),
}

fn is_ours(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| text.contains(MARKER))
}

/// Installs the hook. An existing hook of the user's is chained; when a
/// chained hook is there already (from an earlier install whose hook was then
/// replaced), `force` is needed to replace that one.
pub fn install(repo: &Repo, force: bool) -> Result<Installed> {
    let dir = repo.hooks_dir()?;
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create '{}'", dir.display()))?;
    let hook = dir.join("pre-push");
    let chained = dir.join(CHAINED);
    let existing = hook.symlink_metadata().is_ok();
    let outcome = if !existing {
        Installed::New(hook.clone())
    } else if is_ours(&hook) {
        Installed::Updated(hook.clone())
    } else {
        if chained.symlink_metadata().is_ok() && !force {
            bail!(
                "'{}' is not git-ultraplan's, and '{}' holds a hook kept by an earlier install; \
                 use --force to keep the current one in its place instead",
                hook.display(),
                chained.display()
            );
        }
        std::fs::rename(&hook, &chained).with_context(|| format!("cannot move '{}' aside", hook.display()))?;
        Installed::Chained(hook.clone(), chained)
    };
    write_executable(&hook, SCRIPT)?;
    Ok(outcome)
}

/// Removes the hook if it is ours, restoring a chained one.
pub fn uninstall(repo: &Repo) -> Result<Uninstalled> {
    let dir = repo.hooks_dir()?;
    let hook = dir.join("pre-push");
    let chained = dir.join(CHAINED);
    if hook.symlink_metadata().is_err() {
        return Ok(Uninstalled::NothingThere(hook));
    }
    if !is_ours(&hook) {
        bail!("'{}' is not git-ultraplan's hook; left alone", hook.display());
    }
    if chained.symlink_metadata().is_ok() {
        std::fs::rename(&chained, &hook).with_context(|| format!("cannot restore '{}'", chained.display()))?;
        return Ok(Uninstalled::Restored(hook));
    }
    std::fs::remove_file(&hook).with_context(|| format!("cannot remove '{}'", hook.display()))?;
    Ok(Uninstalled::Removed(hook))
}

fn write_executable(path: &Path, text: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = path.with_extension("ultraplan-tmp");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write '{}'", tmp.display()))?;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make '{}' executable", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write '{}'", path.display()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_script_knows_itself() {
        assert!(super::SCRIPT.starts_with("#!/bin/sh\n"));
        assert!(super::SCRIPT.contains(super::MARKER));
        assert!(super::SCRIPT.contains(super::CHAINED));
    }
}
