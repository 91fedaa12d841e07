//! One wave's sessions: their worktrees (the new ones of sessions starting
//! together made side by side; include files and setup one at a time),
//! their `git-ultraplan run --session N` processes with logs and live
//! progress, and what their own states say afterwards.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result};

use super::{SessionRecord, Waves};
use crate::process;
use crate::ultraplan::engine::{Event, Failure, RunResult};
use crate::ultraplan::plan::Session;
use crate::ultraplan::state::{
    guarded_refs, in_guarded, lock_file_warnings, LockInfo, LockStatus, RunState, RunStatus, StepStatus,
};

/// How often the live progress line is redrawn while sessions run.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

impl<'a> Waves<'a> {
    pub(super) fn log_path(&self, n: u32) -> PathBuf {
        self.repo
            .common_dir()
            .join("ultraplan")
            .join("logs")
            .join(&self.refs.slug)
            .join(format!("session-{n}.log"))
    }

    /// Runs the wave's sessions elsewhere (DESIGN §18): their results, their
    /// branches and states come back into this repository.
    /// Every session of the wave not merged yet is asked for, finished ones
    /// too: a resumed run fetches their branches again (its pre-flight
    /// removed the copies the killed run had).
    pub(super) fn run_elsewhere(
        &mut self,
        sessions: &[&Session],
        base: crate::git::Oid,
        wave: usize,
        waves: usize,
    ) -> Result<()> {
        let pending: Vec<&Session> = sessions.to_vec();
        for session in &pending {
            let before = self.repo.read_ref(&self.refs.session(session.number))?;
            self.states_before.insert(session.number, before);
        }
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

    /// Runs the wave's sessions from `base`, at most `jobs` at once, with
    /// live progress: each in its worktree, placed when it starts; a
    /// session's exit is waited for, not polled, and frees its worktree for
    /// the next.
    pub(super) fn launch(
        &mut self,
        sessions: &[&Session],
        base: crate::git::Oid,
        wave: usize,
        waves: usize,
    ) -> Result<()> {
        for session in sessions {
            // What the session's state is before it runs: a state this run's
            // session did not write is not its outcome.
            let before = self.repo.read_ref(&self.refs.session(session.number))?;
            self.states_before.insert(session.number, before);
        }
        let mut queue: Vec<&Session> = sessions
            .iter()
            .copied()
            .filter(|s| self.sessions.get(&s.number).is_some_and(|r| r.result == "pending"))
            .rev()
            .collect();
        if queue.is_empty() {
            return Ok(());
        }
        let jobs = self.wave_opts.jobs.unwrap_or(queue.len()).clamp(1, queue.len());
        self.keep_free(jobs)?;
        self.check_room(jobs.saturating_sub(self.free.len()), wave)?;
        // A placed worktree is clean at the base (checked out, or proved
        // clean) unless include files or a setup command added to it: then
        // the session need not look at every file before its first step.
        let clean_at = (self.wave_opts.include.is_empty() && self.wave_opts.setup.is_none()).then_some(base);
        let (done, ended) = mpsc::channel();
        let mut running: Vec<u32> = Vec::new();
        // A session that could not be started stops the wave: the others are
        // interrupted and waited for before the error goes up (their
        // worktrees are removed after, never under them).
        let mut failed: Option<anyhow::Error> = None;
        loop {
            let room = jobs.saturating_sub(running.len()).min(queue.len());
            let mut starting: Vec<&Session> = Vec::new();
            if room > 0 && failed.is_none() && !process::interrupted() {
                starting = queue.split_off(queue.len() - room);
                starting.reverse();
                if let Err(e) = self.make_ahead(&starting, base) {
                    starting.clear();
                    interrupt_all(&running);
                    failed = Some(e);
                }
            }
            for session in starting {
                if failed.is_some() || process::interrupted() {
                    break;
                }
                let started = self.place(session, base).and_then(|ready| match ready {
                    true => self.spawn(session, clean_at).map(Some),
                    false => Ok(None), // its setup failed
                });
                match started {
                    Ok(Some(mut child)) => {
                        let (n, done) = (session.number, done.clone());
                        running.push(child.id());
                        std::thread::spawn(move || {
                            let status = child.wait();
                            let _ = done.send((n, child.id(), status));
                        });
                    }
                    Ok(None) => {}
                    Err(e) => {
                        interrupt_all(&running);
                        failed = Some(e);
                    }
                }
            }
            let stopping = failed.is_some() || process::interrupted();
            if running.is_empty() && (queue.is_empty() || stopping) {
                break;
            }
            if running.len() < jobs && !queue.is_empty() && !stopping {
                continue; // a setup failed: the next session takes its place
            }
            self.observer.event(Event::Progress(self.progress_line(wave, waves)));
            let Ok((n, pid, status)) = ended.recv_timeout(PROGRESS_EVERY) else {
                continue;
            };
            running.retain(|p| *p != pid);
            process::unregister(pid);
            if let Some(r) = self.sessions.get_mut(&n) {
                r.result = match status.ok().and_then(|s| s.code()) {
                    Some(0) => "completed",
                    Some(1) => "failed",
                    Some(3) => "stopped",
                    Some(130) => "interrupted",
                    _ => "crashed",
                }
                .into();
            }
            // The session's work is on its branch: the worktree is free.
            self.free.push(self.worktree(n));
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    pub(super) fn spawn(&self, session: &Session, clean_at: Option<crate::git::Oid>) -> Result<std::process::Child> {
        let log_path = self.log_path(session.number);
        let log = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&log_path)
            .with_context(|| format!("cannot open '{}'", log_path.display()))?;
        // A person's answers go to the sessions that wait for one, never
        // handed to every session of the wave.
        let waiting = self.waits_for_a_person(session.number);
        let mut args = Vec::new();
        let mut given = self.wave_opts.child_args.iter();
        while let Some(a) = given.next() {
            if a == "--answer" {
                let value = given.next();
                if waiting {
                    args.push(a.clone());
                    args.extend(value.cloned());
                }
            } else {
                args.push(a.clone());
            }
        }
        let mut command = Command::new(&self.wave_opts.program);
        command
            .arg("run")
            .arg("--session")
            .arg(session.number.to_string())
            .args(&args)
            .args(clean_at.map(|at| format!("--clean-at={at}")))
            // `--`: a plan may be called `-x.md`.
            .arg("--")
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
                    *state.progress.step_mut(*n) = step.clone();
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
    /// left running, and the lock files of git's it left on its own refs
    /// (its state, its branch), which the resumed session would trip on.
    fn clear_session_locks(&mut self, sessions: &[&Session]) -> Result<()> {
        let mut gone = Vec::new();
        let mut stale = Vec::new();
        for session in sessions {
            let name = format!("{}lock-session-{}", self.refs.prefix(), session.number);
            let Some(id) = self.repo.read_ref(&name)? else { continue };
            let info = LockInfo::parse(&String::from_utf8_lossy(&self.repo.read_blob(id)?));
            if let LockStatus::Stale(_) = info.settled_status(self.opts.lock_timeout) {
                info.kill_leftovers();
                if info.gone_from_this_host() {
                    gone.extend(guarded_refs(&name));
                    gone.push(name.clone());
                }
                stale.push((name, id));
            }
        }
        // Its lock files first: a session killed while it released its lock
        // left one on the lock ref too.
        if !gone.is_empty() {
            let sweep = self.repo.remove_stale_lock_files(&|locked| in_guarded(&gone, locked))?;
            for warning in lock_file_warnings(&sweep) {
                self.warn(warning);
            }
        }
        for (name, id) in stale {
            // Only if it still holds what we read.
            let _ = self.repo.delete_ref(&name, Some(id));
        }
        Ok(())
    }
}

/// Interrupts the sessions still running (a wave that cannot go on): they
/// are waited for before their worktrees go.
fn interrupt_all(running: &[u32]) {
    for pid in running {
        process::kill_group(*pid as i32, process::Signal::INT);
    }
}

impl Waves<'_> {
    /// Whether session `n` stopped at a step waiting for a person (a check
    /// or a decision), as its own run state says; not an escalation.
    fn waits_for_a_person(&self, n: u32) -> bool {
        crate::ultraplan::state::RunState::load(self.repo, &self.refs.state(Some(n)))
            .ok()
            .flatten()
            .is_some_and(|state| state.progress.steps.values().any(|s| s.status == StepStatus::Waiting))
    }

    /// A wave with a session that did not complete is not merged: the run
    /// fails (a session failed or crashed) or stops (it waits for a person).
    pub(super) fn stop_for_unfinished(&mut self, sessions: &[&Session], wave_number: usize) -> Option<RunResult> {
        let unfinished: Vec<&SessionRecord> = sessions
            .iter()
            .filter_map(|s| self.sessions.get(&s.number))
            .filter(|r| r.result != "completed")
            .collect();
        let first = unfinished.first()?;
        let result = if unfinished
            .iter()
            .any(|r| matches!(r.result.as_str(), "failed" | "crashed" | "setup-failed"))
        {
            RunResult::Failed
        } else {
            RunResult::Stopped
        };
        self.failure = Some(Failure {
            step: None,
            title: format!("session {}: {}", first.number, first.title),
            status: if result == RunResult::Failed {
                StepStatus::Failed
            } else if unfinished.iter().all(|r| self.waits_for_a_person(r.number)) {
                StepStatus::Waiting
            } else {
                StepStatus::Escalated
            },
            policy: "stop before merging".into(),
            error: format!(
                "session {} {}; wave {wave_number} is not merged and later waves do not run (log: {})",
                first.number, first.result, first.log
            ),
            attempts: 0,
        });
        Some(result)
    }
}
