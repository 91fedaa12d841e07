//! One wave's sessions: their worktrees (created serially, with include
//! files and setup), their `git-ultraplan run --session N` processes with
//! logs and live progress, and what their own states say afterwards.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{anyhow, Result};

use super::Waves;
use crate::process;
use crate::ultraplan::engine::Event;
use crate::ultraplan::plan::{pattern, Session};
use crate::ultraplan::state::{RunState, RunStatus};

impl<'a> Waves<'a> {
    pub(super) fn log_path(&self, n: u32) -> PathBuf {
        self.repo
            .common_dir()
            .join("ultraplan")
            .join("logs")
            .join(&self.refs.slug)
            .join(format!("session-{n}.log"))
    }

    pub(super) fn worktree(&self, n: u32) -> PathBuf {
        self.leftovers.dir.join(format!("session-{n}"))
    }

    /// One worktree per session, serially (in parallel they race on the
    /// shared config and worktree registrations), with the include files and
    /// the setup command.
    pub(super) fn create_worktrees(&mut self, sessions: &[&Session]) -> Result<()> {
        let head = self.repo.head()?.commit.ok_or_else(|| anyhow!("HEAD has no commit"))?;
        for session in sessions {
            let n = session.number;
            // What the session's state is before it runs: a state this run's
            // session did not write is not its outcome.
            let before = self.repo.read_ref(&self.refs.session(n))?;
            self.states_before.insert(n, before);
            let branch = self.refs.branch(n);
            let path = self.worktree(n);
            self.repo.create_branch(&branch, head)?;
            if let Err(e) = self.repo.add_worktree(&path, &branch) {
                let _ = self.repo.delete_ref(&branch, None);
                return Err(e);
            }
            self.copy_includes(&path)?;
            let log_path = self.log_path(n);
            if let Some(dir) = log_path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&log_path, "").map_err(|e| anyhow!("cannot create '{}': {e}", log_path.display()))?;
            if let Some(setup) = &self.wave_opts.setup {
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
                std::fs::write(&log_path, logged).map_err(|e| anyhow!("cannot write '{}': {e}", log_path.display()))?;
                if !finished.ending.success() {
                    if let Some(r) = self.sessions.get_mut(&n) {
                        r.result = "setup-failed".into();
                    }
                    self.warn(format!(
                        "session {n}: ultraplan.worktreeSetup '{setup}' ended with {}",
                        finished.ending.describe()
                    ));
                }
            }
        }
        Ok(())
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
                .map_err(|e| anyhow!("cannot copy '{path}' into the worktree: {e}"))?;
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

    /// Runs the wave's sessions elsewhere (DESIGN §18): their results, their
    /// branches and states come back into this repository.
    /// Every session of the wave not merged yet is asked for, finished ones
    /// too: a resumed run fetches their branches again (its pre-flight
    /// removed the copies the killed run had).
    pub(super) fn run_elsewhere(&mut self, sessions: &[&Session], wave: usize, waves: usize) -> Result<()> {
        let pending: Vec<&Session> = sessions.to_vec();
        for session in &pending {
            let before = self.repo.read_ref(&self.refs.session(session.number))?;
            self.states_before.insert(session.number, before);
        }
        let base = self.repo.head()?.commit.ok_or_else(|| anyhow!("HEAD has no commit"))?;
        let Some(elsewhere) = self.elsewhere.as_deref_mut() else {
            return Ok(());
        };
        let results = elsewhere.run_wave(self.repo, (wave, waves), base, &pending, &mut *self.observer)?;
        for (n, result) in results {
            if let Some(r) = self.sessions.get_mut(&n) {
                r.result = result;
            }
        }
        Ok(())
    }

    /// Runs the wave's sessions, at most `jobs` at once, with live progress.
    pub(super) fn launch(&mut self, sessions: &[&Session], wave: usize, waves: usize) -> Result<()> {
        let jobs = self.wave_opts.jobs.unwrap_or(sessions.len()).max(1);
        let mut queue: Vec<&Session> = sessions
            .iter()
            .copied()
            .filter(|s| self.sessions.get(&s.number).is_some_and(|r| r.result == "pending"))
            .rev()
            .collect();
        let mut running: Vec<(u32, std::process::Child)> = Vec::new();
        loop {
            while running.len() < jobs && !process::interrupted() {
                let Some(session) = queue.pop() else { break };
                running.push((session.number, self.spawn(session)?));
            }
            let mut i = 0;
            while i < running.len() {
                if let Some(status) = running[i].1.try_wait()? {
                    let (n, child) = running.remove(i);
                    process::unregister(child.id());
                    if let Some(r) = self.sessions.get_mut(&n) {
                        r.result = match status.code() {
                            Some(0) => "completed",
                            Some(1) => "failed",
                            Some(3) => "stopped",
                            Some(130) => "interrupted",
                            _ => "crashed",
                        }
                        .into();
                    }
                } else {
                    i += 1;
                }
            }
            if running.is_empty() && (queue.is_empty() || process::interrupted()) {
                break;
            }
            self.observer.event(Event::Progress(self.progress_line(wave, waves)));
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(())
    }

    pub(super) fn spawn(&self, session: &Session) -> Result<std::process::Child> {
        let log_path = self.log_path(session.number);
        let log = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&log_path)
            .map_err(|e| anyhow!("cannot open '{}': {e}", log_path.display()))?;
        let mut command = Command::new(&self.wave_opts.program);
        command
            .arg("run")
            .arg("--session")
            .arg(session.number.to_string())
            .args(&self.wave_opts.child_args)
            .arg(self.plan_rel)
            .current_dir(self.worktree(session.number))
            .env(crate::ultraplan::engine::ORCHESTRATED_VAR, "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_PREFIX")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        process::spawn_registered(&mut command)
    }

    pub(super) fn progress_line(&self, wave: usize, waves: usize) -> String {
        let parts: Vec<String> = self
            .sessions
            .values()
            .filter(|r| r.wave as usize == wave)
            .map(|r| {
                let detail = match RunState::load(self.repo, &self.refs.session(r.number)) {
                    Ok(Some(state)) if state.progress.status == RunStatus::InProgress && r.result == "pending" => {
                        let step = state.progress.current_step;
                        let attempts = state.progress.step(step).attempts;
                        format!("step {step} (attempt {attempts})")
                    }
                    _ if r.result == "pending" => "starting".into(),
                    _ => r.result.clone(),
                };
                format!("session {}: {detail}", r.number)
            })
            .collect();
        format!("wave {wave}/{waves} · {}", parts.join(" · "))
    }

    /// Reads each session's own state into the run's progress.
    pub(super) fn collect(&mut self, sessions: &[&Session], state: &mut RunState<'_>) -> Result<()> {
        for session in sessions {
            let name = self.refs.session(session.number);
            let before = self.states_before.get(&session.number).copied().flatten();
            if self.repo.read_ref(&name)? == before {
                continue; // it did not run (refused, or it never started)
            }
            if let Some(s) = RunState::load(self.repo, &name)? {
                for (n, step) in &s.progress.steps {
                    state.progress.steps.insert(*n, step.clone());
                }
            }
        }
        self.clear_session_locks(sessions)?;
        let done: Vec<String> = sessions
            .iter()
            .filter_map(|s| self.sessions.get(&s.number))
            .map(|r| format!("session {} {}", r.number, r.result))
            .collect();
        self.save(state, &format!("sessions ran: {}", done.join(", ")))
    }
}

impl Waves<'_> {
    /// The lock a session child left when it died without releasing it (a
    /// crash, SIGKILL): removed once its holder is gone, with whatever it
    /// left running.
    fn clear_session_locks(&mut self, sessions: &[&Session]) -> Result<()> {
        for session in sessions {
            let name = format!("{}lock-session-{}", self.refs.prefix(), session.number);
            let Some(id) = self.repo.read_ref(&name)? else { continue };
            let info = crate::ultraplan::state::LockInfo::parse(&String::from_utf8_lossy(&self.repo.read_blob(id)?));
            if let crate::ultraplan::state::LockStatus::Stale(_) = info.status(self.opts.lock_timeout) {
                if self.repo.delete_ref(&name, Some(id)).is_ok() {
                    info.kill_leftovers();
                }
            }
        }
        Ok(())
    }
}
