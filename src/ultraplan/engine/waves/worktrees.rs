//! A session's worktree: made when its session starts, not before, and
//! reused rather than made again. A worktree whose session ended (its
//! branch keeps the work) is free: the next session that starts — later in
//! the same wave under `--jobs`, or in the next wave — takes it, and only
//! the files that differ between the two bases are written. Before a session
//! starts in a reused worktree it is proved clean (`Repo::reset_worktree`:
//! HEAD on the session's branch at the base, nothing staged, modified,
//! untracked or ignored), so nothing of the previous session leaks into it;
//! include files and the setup command come anew, as for a new worktree.
//! Worktrees nobody needs are discarded in the background.
//!
//! Before a wave makes new worktrees, the disk must hold them: each is a
//! full checkout, and a wave refused early beats one half made.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::Waves;
use crate::git::Oid;
use crate::process;
use crate::ultraplan::plan::{pattern, Session};

impl<'a> Waves<'a> {
    pub(super) fn worktree(&self, n: u32) -> PathBuf {
        self.leftovers.dir.join(format!("session-{n}"))
    }

    /// Session `session`'s worktree on its branch at `base`, a free one
    /// reused when there is one, with the include files and the setup
    /// command. `false` when the setup failed (the session does not run).
    pub(super) fn place(&mut self, session: &Session, base: Oid) -> Result<bool> {
        let n = session.number;
        let path = self.worktree(n);
        if !self.made.remove(&n) && !self.reuse(&path, n, base)? {
            let branch = self.refs.branch(n);
            self.repo.create_branch(&branch, base)?;
            if let Err(e) = self.repo.add_worktree(&path, &branch) {
                let _ = self.repo.delete_ref(&branch, None);
                return Err(e);
            }
        }
        self.copy_includes(&path)?;
        let log_path = self.log_path(n);
        if let Some(dir) = log_path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&log_path, "").with_context(|| format!("cannot create '{}'", log_path.display()))?;
        let Some(setup) = &self.wave_opts.setup else {
            return Ok(true);
        };
        let finished = process::shell(
            setup,
            &path,
            Vec::new(),
            self.opts.verify_timeout,
            self.opts.transcript_cap,
        )?;
        let logged = format!(
            "--- ultraplan.worktreeSetup: {setup} ({})\n{}\n",
            finished.ending.describe(),
            crate::redact::redact(&finished.output())
        );
        std::fs::write(&log_path, logged).with_context(|| format!("cannot write '{}'", log_path.display()))?;
        if finished.ending.success() {
            return Ok(true);
        }
        if let Some(r) = self.sessions.get_mut(&n) {
            r.result = "setup-failed".into();
        }
        self.warn(format!(
            "session {n}: ultraplan.worktreeSetup '{setup}' ended with {}",
            finished.ending.describe()
        ));
        self.free.push(path);
        Ok(false)
    }

    /// Makes, all at once, the new worktrees of the sessions about to start
    /// that no free worktree will go to (the last of `starting`: `place`
    /// gives the free ones to the first). [`Waves::place`] then finds them
    /// made. With one or none to make, `place` makes it as it goes.
    pub(super) fn make_ahead(&mut self, starting: &[&Session], base: Oid) -> Result<()> {
        let new = starting.len().saturating_sub(self.free.len());
        if new < 2 {
            return Ok(());
        }
        let ahead = &starting[starting.len() - new..];
        let mut wanted = Vec::with_capacity(ahead.len());
        for session in ahead {
            let branch = self.refs.branch(session.number);
            self.repo.create_branch(&branch, base)?;
            wanted.push((self.worktree(session.number), branch));
        }
        let list: Vec<(&Path, &str)> = wanted.iter().map(|(p, b)| (p.as_path(), b.as_str())).collect();
        let mut first_error = None;
        for (session, added) in ahead.iter().zip(self.repo.add_worktrees(&list)) {
            match added {
                Ok(()) => {
                    self.made.insert(session.number);
                }
                Err(e) => {
                    let _ = self.repo.delete_ref(&self.refs.branch(session.number), None);
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// A free worktree moved to `path`, on session `n`'s branch at `base`
    /// and proved clean; `false` when there is none (or the one there was
    /// could not be made clean: it is discarded, with a warning).
    fn reuse(&mut self, path: &Path, n: u32, base: Oid) -> Result<bool> {
        let Some(free) = self.free.pop() else {
            return Ok(false);
        };
        let made = (|| {
            if free != path {
                self.repo.move_worktree(&free, path)?;
            }
            self.repo.reset_worktree(path, &self.refs.branch(n), base)
        })();
        match made {
            Ok(()) => Ok(true),
            Err(e) => {
                self.warn(format!("{e:#}; session {n} gets a new worktree"));
                let at = if path.exists() { path.to_owned() } else { free };
                self.leftovers.discard(&at)?;
                self.repo.prune_worktrees()?;
                self.leftovers.remove_branch(n)?;
                Ok(false)
            }
        }
    }

    /// Keeps at most `wanted` free worktrees for the wave about to start;
    /// the rest are discarded.
    pub(super) fn keep_free(&mut self, wanted: usize) -> Result<()> {
        while self.free.len() > wanted {
            if let Some(path) = self.free.pop() {
                self.leftovers.discard(&path)?;
            }
        }
        Ok(())
    }

    /// Refuses, before anything of the wave is made, a wave whose `new`
    /// worktrees the disk cannot hold: each is about a checkout of HEAD
    /// (estimated from the index of this worktree).
    pub(super) fn check_room(&self, new: usize, wave: usize) -> Result<()> {
        if new == 0 {
            return Ok(());
        }
        let free = process::free_space(&self.leftovers.dir)?;
        let (bytes, files) = self.repo.checkout_footprint(free.block)?;
        let need = bytes.saturating_mul(new as u64);
        let need_files = files.saturating_mul(new as u64);
        if need <= free.bytes && free.files.is_none_or(|f| need_files <= f) {
            return Ok(());
        }
        let what = match need <= free.bytes {
            true => format!(
                "{need_files} files and directories, but only {} more can be created there",
                free.files.unwrap_or(0)
            ),
            false => format!("{}, but only {} are free there", size(need), size(free.bytes)),
        };
        Err(crate::error::FatalWithHint {
            message: format!(
                "wave {wave} needs {new} new worktree{} of about {} each in '{}': {what}",
                if new == 1 { "" } else { "s" },
                size(bytes),
                self.leftovers.dir.display(),
            ),
            hint: "free some space, set ultraplan.worktreeDir to a disk with more room,\nor run fewer sessions at once with --jobs (each running session needs one worktree)".into(),
        }
        .into())
    }

    /// Copies files matching `ultraplan.worktreeInclude` (like `.env`) from
    /// the main worktree; they are not tracked, so checkout did not bring them.
    pub(super) fn copy_includes(&self, to: &Path) -> Result<()> {
        if self.wave_opts.include.is_empty() {
            return Ok(());
        }
        let root = self.repo.workdir()?;
        let head_tree = match self.repo.head()?.commit {
            Some(c) => self.repo.commit_tree(c)?,
            None => self.repo.empty_tree(),
        };
        let skip = self.worktrees_prefix(root);
        let mut paths: Vec<String> = self
            .wave_opts
            .include
            .iter()
            .flat_map(|p| pattern::expand(root, p))
            .filter(|p| {
                pattern::safe_relative_path(p).is_ok() && !skip.as_ref().is_some_and(|s| p.starts_with(s.as_str()))
            })
            .collect();
        paths.sort();
        paths.dedup();
        for path in paths {
            if self.repo.tree_entry(head_tree, &path)?.is_some() {
                continue; // tracked: the checkout brought it
            }
            let target = to.join(&path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::copy(root.join(&path), &target)
                .with_context(|| format!("cannot copy '{path}' into the worktree"))?;
        }
        Ok(())
    }

    /// Where session worktrees live, relative to the top of the main worktree
    /// (when `ultraplan.worktreeDir` puts them inside it), so include
    /// patterns never copy one worktree into another.
    fn worktrees_prefix(&self, root: &Path) -> Option<String> {
        let rel = self.leftovers.dir.parent()?.strip_prefix(root).ok()?;
        (!rel.as_os_str().is_empty()).then(|| format!("{}/", rel.display()))
    }
}

/// `12.3 MiB`.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ => format!("{value:.1} {}", UNITS[unit]),
    }
}
