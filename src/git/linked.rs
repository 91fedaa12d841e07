//! Linked worktrees: adding them (on a branch or detached), listing,
//! checking another commit out in one, removing them.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _, Result};

use super::cli::GitCli;
use super::repo::{Oid, Repo};

/// A linked worktree as git has it registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkedWorktree {
    pub path: PathBuf,
    /// The branch checked out there (`refs/heads/…`), if any.
    pub branch: Option<String>,
}

impl Repo {
    /// Adds a linked worktree at `path` with `branch` checked out.
    pub fn add_worktree(&self, path: &Path, branch: &str) -> Result<()> {
        self.add_worktrees(&[(path, branch)]).remove(0)
    }

    /// Adds a linked worktree for each `(path, branch)` (existing local
    /// branches), their checkouts side by side: a checkout is mostly the
    /// kernel creating files, so two made at once take about the time of one
    /// on two cores. Registering is one at a time (`worktree add
    /// --no-checkout`): a `git worktree add` reads the other registrations
    /// and fails on one being written ("failed to read …/commondir"). Then
    /// each worktree's `reset --hard` runs at once, which is the checkout
    /// `worktree add` itself runs. One result per worktree, in order; a
    /// worktree whose checkout failed is removed again.
    pub fn add_worktrees(&self, wanted: &[(&Path, &str)]) -> Vec<Result<()>> {
        let mut results: Vec<Result<()>> = Vec::with_capacity(wanted.len());
        let mut checkouts = Vec::new();
        for (i, (path, branch)) in wanted.iter().enumerate() {
            let registered = (|| {
                let short = branch
                    .strip_prefix("refs/heads/")
                    .ok_or_else(|| anyhow!("invalid branch name '{branch}': not a local branch"))?;
                let mut what = vec![short];
                if wanted.len() > 1 {
                    what.insert(0, "--no-checkout");
                }
                self.register(path, &what)
            })();
            if registered.is_ok() && wanted.len() > 1 {
                let reset =
                    GitCli::in_dir(path)
                        .no_hooks()
                        .args(["reset", "--hard", "--quiet", "--no-recurse-submodules"]);
                checkouts.push((i, reset));
            }
            results.push(registered);
        }
        let finished: Vec<(usize, Result<()>)> = std::thread::scope(|scope| {
            let running: Vec<_> = checkouts
                .into_iter()
                .map(|(i, reset)| (i, scope.spawn(move || run_adding(reset, wanted[i].0))))
                .collect();
            running
                .into_iter()
                .map(|(i, thread)| {
                    let done = thread.join().unwrap_or_else(|_| Err(anyhow!("a checkout panicked")));
                    (i, done)
                })
                .collect()
        });
        for (i, done) in finished {
            if done.is_err() {
                let _ = self.remove_worktree(wanted[i].0);
            }
            results[i] = done;
        }
        results
    }

    /// Adds a linked worktree at `path` with `commit` checked out, detached.
    pub fn add_detached_worktree(&self, path: &Path, commit: Oid) -> Result<()> {
        self.register(path, &["--detach", &commit.to_string()])
    }

    /// `git worktree add` at `path` with `what`, tried again when it failed
    /// in git's own registry of worktrees (`.git/worktrees/`), which another
    /// process of this clone was changing: git locks no registration
    /// against another. An add reads every other registration and fails on
    /// one being written ("failed to read …/commondir"); a prune or a
    /// removal deletes `.git/worktrees` once it is empty, and a prune the
    /// entry of an add that has not written its files yet. A worker's jobs
    /// add and remove worktrees side by side in one clone. A failed add
    /// leaves nothing behind (git removes what it made), so trying again is
    /// safe; a failure elsewhere (the path taken, a bad branch) is final.
    fn register(&self, path: &Path, what: &[&str]) -> Result<()> {
        let registry = self.common_dir().join("worktrees");
        let mut attempts = 0;
        loop {
            attempts += 1;
            match run_adding(self.add_linked(path, what)?, path) {
                Err(e) if attempts < ADD_ATTEMPTS && format!("{e:#}").contains(&*registry.to_string_lossy()) => {
                    std::thread::sleep(std::time::Duration::from_millis(10 * attempts as u64));
                }
                done => return done,
            }
        }
    }

    /// The one worktree adder: `git worktree add` with hooks off, its parent
    /// directory made. gix can add a worktree too, but its checkout took
    /// twice git's CPU for 20,000 files (844 against 422 ms, one worker
    /// each), and a parallel session makes one per session; git's own
    /// honours `checkout.workers` as users expect.
    fn add_linked(&self, path: &Path, what: &[&str]) -> Result<GitCli> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create '{}'", parent.display()))?;
        }
        Ok(self
            .git_cli()
            .no_hooks()
            .args(["worktree", "add", "--quiet"])
            .arg(path)
            .args(what))
    }

    /// Every linked worktree (not the main one).
    pub fn linked_worktrees(&self) -> Result<Vec<LinkedWorktree>> {
        let mut out = Vec::new();
        for proxy in self.inner.worktrees().context("cannot list worktrees")? {
            let Ok(path) = proxy.base() else { continue };
            let head = std::fs::read_to_string(proxy.git_dir().join("HEAD")).unwrap_or_default();
            let branch = head.trim().strip_prefix("ref: ").map(str::to_owned);
            out.push(LinkedWorktree { path, branch });
        }
        Ok(out)
    }

    /// Removes the linked worktree at `path`, changes and locks included; a
    /// registration whose directory is gone is pruned.
    pub fn remove_worktree(&self, path: &Path) -> Result<()> {
        let removed =
            self.inner
                .remove_worktree(path, gix::worktree::remove::Force::OverrideLock, gix::progress::Discard);
        if let Err(e) = removed {
            // gix refuses what it cannot resolve; git's own command is the fallback.
            let out = self
                .git_cli_with_work_tree()
                .args(["worktree", "remove", "--force", "--force"])
                .arg(path)
                .output()?;
            if !out.status.success() && path.exists() {
                bail!("cannot remove the worktree '{}': {e}", path.display());
            }
        }
        Ok(())
    }

    /// Takes the linked worktree at `path` out of git's list at once and
    /// moves its directory to `trash` (a path on the same filesystem that
    /// does not exist yet), to be deleted later: deleting thousands of files
    /// takes seconds that nothing need wait for. The registration to drop is
    /// found in the repository's own list, never through the worktree's
    /// `.git` file (which whatever ran there could have rewritten).
    pub fn discard_worktree(&self, path: &Path, trash: &Path) -> Result<()> {
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_owned());
        let wanted = canonical(path);
        let mut admin = None;
        for proxy in self.inner.worktrees().context("cannot list worktrees")? {
            if proxy.base().is_ok_and(|base| canonical(&base) == wanted) {
                admin = Some(proxy.git_dir().to_owned());
            }
        }
        let Some(admin) = admin else {
            bail!("'{}' is not a linked worktree of this repository", path.display());
        };
        std::fs::rename(path, trash).map_err(|e| {
            anyhow!(
                "cannot move the worktree '{}' to '{}': {e}",
                path.display(),
                trash.display()
            )
        })?;
        std::fs::remove_dir_all(&admin).with_context(|| format!("cannot remove the registration '{}'", admin.display()))
    }

    /// `git worktree move`: the linked worktree at `from` goes to `to`, its
    /// registration with it (gix cannot move a worktree).
    pub fn move_worktree(&self, from: &Path, to: &Path) -> Result<()> {
        let out = self.git_cli().args(["worktree", "move"]).arg(from).arg(to).output()?;
        if !out.status.success() {
            bail!(
                "cannot move the worktree '{}' to '{}': {}",
                from.display(),
                to.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    }

    /// Makes the linked worktree at `worktree` what adding it anew on
    /// `branch` (created, or reset, at `commit`) would make, touching only
    /// the files that differ: `git checkout --force -B` (hooks off), then
    /// `git clean -ffdx` for everything untracked or ignored, nested
    /// repositories too. Then it is proved: HEAD is `commit` on `branch`, and
    /// `git status` lists nothing at all, ignored files included. A file an
    /// earlier session left would leak into the next one, so anything left
    /// is an error that names it. (gix can neither move a working tree from
    /// one tree to another nor clean.)
    pub fn reset_worktree(&self, worktree: &Path, branch: &str, commit: Oid) -> Result<()> {
        let short = branch.strip_prefix("refs/heads/").unwrap_or(branch);
        let run = |git: GitCli, what: &str| -> Result<Vec<u8>> {
            let out = git.output()?;
            if !out.status.success() {
                bail!(
                    "cannot {what} the worktree '{}': {}",
                    worktree.display(),
                    String::from_utf8_lossy(&out.stderr).trim()
                );
            }
            Ok(out.stdout)
        };
        run(
            GitCli::in_dir(worktree)
                .no_hooks()
                .args(["checkout", "--quiet", "--force", "--no-track", "-B", short])
                .arg(commit.to_string()),
            "check out a new base in",
        )?;
        run(GitCli::in_dir(worktree).args(["clean", "-q", "-ffdx"]), "clean")?;
        let status = run(
            GitCli::in_dir(worktree).args([
                "status",
                "--porcelain=v2",
                "--branch",
                "-z",
                "--ignored=matching",
                "--untracked-files=all",
                "--ignore-submodules=none",
            ]),
            "read the status of",
        )?;
        let (mut oid, mut head, mut left) = (None, None, Vec::new());
        for entry in status.split(|b| *b == 0).filter(|e| !e.is_empty()) {
            let entry = String::from_utf8_lossy(entry);
            if let Some(v) = entry.strip_prefix("# branch.oid ") {
                oid = Some(v.to_owned());
            } else if let Some(v) = entry.strip_prefix("# branch.head ") {
                head = Some(v.to_owned());
            } else if !entry.starts_with("# ") {
                // `? path`, `! path`; `1 …` has eight fields before the path.
                let path = match entry.get(..2) {
                    Some("? " | "! ") => &entry[2..],
                    _ => entry.splitn(9, ' ').last().unwrap_or_default(),
                };
                left.push(path.to_owned());
            }
        }
        if oid.as_deref() != Some(commit.to_string().as_str()) || head.as_deref() != Some(short) {
            bail!(
                "the worktree '{}' is not at {commit} on {short} after checking it out",
                worktree.display()
            );
        }
        if !left.is_empty() {
            left.truncate(10);
            bail!(
                "the worktree '{}' is not clean after a checkout and clean: {}",
                worktree.display(),
                left.join(", ")
            );
        }
        Ok(())
    }

    /// `git worktree prune`: forget registrations whose directories are gone
    /// (gix has no prune) — run only when one is. git's prune also deletes
    /// `.git/worktrees` once it is empty, and the entry of an add that has
    /// not written its files yet, under the feet of another process of this
    /// clone adding a worktree (a worker's jobs side by side).
    pub fn prune_worktrees(&self) -> Result<()> {
        let stale = self
            .inner
            .worktrees()
            .context("cannot list worktrees")?
            .iter()
            // An entry an add is still writing is locked ("initializing").
            .any(|proxy| !proxy.git_dir().join("locked").exists() && proxy.base().map_or(true, |base| !base.exists()));
        if stale {
            let _ = self.git(&["worktree", "prune"])?;
        }
        Ok(())
    }

    /// Checks `commit` out in the linked worktree at `worktree` (detached,
    /// hooks off) and removes every file it does not track, ignored ones
    /// too, with git: gix cannot move a working tree from one tree to
    /// another, and has no clean.
    pub fn checkout_detached(&self, worktree: &Path, commit: Oid) -> Result<()> {
        let out = GitCli::in_dir(worktree)
            .no_hooks()
            .args(["checkout", "--quiet", "--force", "--detach"])
            .arg(commit.to_string())
            .output()?;
        if !out.status.success() {
            bail!(
                "cannot check out {commit} in '{}': {}",
                worktree.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let out = GitCli::in_dir(worktree)
            .args(["clean", "-q", "-f", "-d", "-x"])
            .output()?;
        if !out.status.success() {
            bail!(
                "cannot clean the worktree '{}': {}",
                worktree.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    }
}

/// Runs a step of adding the worktree at `path`; its failure names the path.
/// How many times a worktree is added while other processes change git's
/// registry of worktrees ([`Repo::register`]).
const ADD_ATTEMPTS: usize = 8;

fn run_adding(git: GitCli, path: &Path) -> Result<()> {
    let out = git.output()?;
    if !out.status.success() {
        bail!(
            "cannot add a worktree at '{}': {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}
