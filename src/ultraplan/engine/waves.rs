//! Parallel sessions (DESIGN §7): pre-flight, then for each wave one linked
//! worktree per session (created serially, on `ultraplan/<slug>/session-<N>`),
//! each session run as `git-ultraplan run --session N` in its worktree, and
//! — only when every session of the wave completed — merges one at a time as
//! `--no-ff` commits, decided in memory and applied through git. A conflict, or
//! an untracked file in the way, changes nothing and stops the run. Worktrees
//! and branches are removed on every exit path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};

use super::leftovers::{worktree_dir, Leftovers, Removed};
use super::risk::{assess, Risk};
use super::verify::run_check;
use super::{Event, Failure, Observer, PlanInput, RunOptions, RunReport, RunResult, StepReport};
use crate::git::{EntryKind, FileChange, MergePlan, Repo, Snapshot};
use crate::ultraplan::exec::process;
use crate::ultraplan::plan::{pattern, Session};
use crate::ultraplan::state::{now, slug, Lock, Progress, Refs, RunState, RunStatus, StepStatus, Summary};

/// How sessions are run.
#[derive(Clone, Debug, Default)]
pub struct WaveOptions {
    /// At most this many sessions at once (all of a wave when `None`).
    pub jobs: Option<usize>,
    /// `ultraplan.worktreeDir`.
    pub worktree_dir: Option<PathBuf>,
    /// `ultraplan.worktreeInclude`: patterns of files copied into each worktree.
    pub include: Vec<String>,
    /// `ultraplan.worktreeSetup`: run in each new worktree.
    pub setup: Option<String>,
    /// Options forwarded to each session's run (executor, attempts, …).
    pub child_args: Vec<String>,
    /// The git-ultraplan binary to run sessions with.
    pub program: PathBuf,
}

/// One session of the run, as recorded in the state's `sessions.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SessionRecord {
    pub number: u32,
    pub title: String,
    pub wave: u32,
    /// pending, completed, failed, stopped, waiting, interrupted, crashed,
    /// setup-failed, merge-failed.
    pub result: String,
    pub merged: bool,
    pub merge_commit: Option<String>,
    pub log: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ConflictRecord {
    pub session: u32,
    pub paths: Vec<String>,
    /// What git said when it refused (untracked files in the way), if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    pub command: String,
    pub passed: bool,
    pub detail: String,
}

pub struct WavesReport {
    pub run: RunReport,
    pub sessions: Vec<SessionRecord>,
    pub conflicts: Vec<ConflictRecord>,
    pub risk: Option<Risk>,
    pub verification: Vec<Checked>,
    /// Untracked files in the main worktree (sessions cannot see them).
    pub untracked: Vec<String>,
    /// Leftovers of an earlier run removed by the pre-flight.
    pub cleaned: Removed,
}

/// Whether `--resume` of this plan continues a multi-session run (rather
/// than a foreground one): its run state records sessions.
pub fn resumes_sessions(repo: &Repo, input: &PlanInput<'_>) -> Result<bool> {
    let refs = Refs::new(slug(Path::new(&input.path)));
    Ok(match RunState::load(repo, &refs.run())? {
        Some(state) => state.read_text("sessions.json")?.is_some(),
        None => false,
    })
}

/// Runs `input.plan`'s sessions in worktrees, wave by wave (or, in
/// [`super::Mode::Resume`], the sessions a recorded run did not merge).
pub fn run_waves(
    repo: &Repo,
    input: &PlanInput<'_>,
    opts: &RunOptions,
    wave_opts: &WaveOptions,
    observer: &mut dyn Observer,
) -> Result<WavesReport> {
    super::refuse_problems(input)?;
    repo.check_identity()?;
    repo.check_index_supported()?;
    if let Some(operation) = repo.operation_in_progress() {
        return Err(anyhow!(
            "an operation is in progress ({operation}); finish or abort it first"
        ));
    }
    let Some(plan_rel) = input.in_worktree.clone() else {
        return Err(crate::cli::FatalWithHint {
            message: format!(
                "'{}' is outside the repository; sessions in worktrees cannot see it",
                input.path
            ),
            hint: "move the plan into the repository, or run the steps here with --fg".into(),
        }
        .into());
    };
    let refs = Refs::new(slug(Path::new(&input.path)));
    let lock = Lock::acquire(repo, &refs.lock(), &opts.command_line, opts.lock_timeout)?;
    if let Some((holder, why)) = &lock.took_over {
        observer.event(Event::Warning(format!(
            "took over a stale lock of pid {} on {} ({why})",
            holder.pid, holder.host
        )));
    }
    let leftovers = Leftovers {
        repo,
        slug: refs.slug.clone(),
        dir: worktree_dir(repo, wave_opts.worktree_dir.as_deref(), &refs.slug),
    };
    let outcome = leftovers.remove().and_then(|cleaned| {
        if !cleaned.is_empty() {
            observer.event(Event::Warning(format!(
                "removed {} worktree(s) and {} branch(es) left by an earlier run",
                cleaned.worktrees.len(),
                cleaned.branches.len()
            )));
        }
        let mut waves = Waves {
            repo,
            input,
            opts,
            wave_opts,
            observer,
            refs: &refs,
            leftovers: &leftovers,
            plan_rel: &plan_rel,
            sessions: BTreeMap::new(),
            conflicts: Vec::new(),
            warnings: Vec::new(),
            failure: None,
        };
        waves.run(cleaned)
    });
    // Every exit path: no worktree or branch of this plan survives the run.
    let cleaned = leftovers.remove();
    let released = lock.release(repo);
    let report = outcome?;
    cleaned?;
    released?;
    Ok(report)
}

struct Waves<'a> {
    repo: &'a Repo,
    input: &'a PlanInput<'a>,
    opts: &'a RunOptions,
    wave_opts: &'a WaveOptions,
    observer: &'a mut dyn Observer,
    refs: &'a Refs,
    leftovers: &'a Leftovers<'a>,
    plan_rel: &'a str,
    sessions: BTreeMap<u32, SessionRecord>,
    conflicts: Vec<ConflictRecord>,
    warnings: Vec<String>,
    failure: Option<Failure>,
}

impl<'a> Waves<'a> {
    fn warn(&mut self, message: String) {
        self.observer.event(Event::Warning(message.clone()));
        self.warnings.push(message);
    }

    fn run(&mut self, cleaned: Removed) -> Result<WavesReport> {
        let untracked = self.preflight()?;
        let plan = self.input.plan;
        let base = self
            .repo
            .head()?
            .commit
            .ok_or_else(|| anyhow!("the repository has no commits yet; sessions branch from HEAD"))?;
        for session in &plan.sessions {
            self.sessions.insert(
                session.number,
                SessionRecord {
                    number: session.number,
                    title: session.title.clone(),
                    wave: session.wave.unwrap_or(0),
                    result: "pending".into(),
                    merged: false,
                    merge_commit: None,
                    log: self.log_path(session.number).display().to_string(),
                },
            );
        }
        let mut state = match self.resumable()? {
            Some(state) => self.continue_state(state, base)?,
            None => self.start_state()?,
        };
        let mut result = RunResult::Completed;
        'waves: for (w, wave) in plan.waves.iter().enumerate() {
            let sessions: Vec<&Session> = wave.iter().filter_map(|n| plan.session(*n)).collect();
            if sessions.is_empty() {
                continue;
            }
            let wave_number = w + 1;
            let sessions: Vec<&Session> = sessions
                .into_iter()
                .filter(|s| self.sessions.get(&s.number).is_some_and(|r| !r.merged))
                .collect();
            if sessions.is_empty() {
                continue; // merged by the run this one resumes
            }
            self.create_worktrees(&sessions)?;
            self.launch(&sessions, wave_number, plan.waves.len())?;
            self.collect(&sessions, &mut state)?;
            if process::interrupted() {
                result = RunResult::Interrupted;
                break;
            }
            let unfinished: Vec<&SessionRecord> = sessions
                .iter()
                .filter_map(|s| self.sessions.get(&s.number))
                .filter(|r| r.result != "completed")
                .collect();
            if let Some(first) = unfinished.first() {
                result = if unfinished
                    .iter()
                    .any(|r| matches!(r.result.as_str(), "failed" | "crashed" | "setup-failed"))
                {
                    RunResult::Failed
                } else {
                    RunResult::Stopped
                };
                self.failure = Some(Failure {
                    step: 0,
                    title: format!("session {}: {}", first.number, first.title),
                    status: if result == RunResult::Failed {
                        StepStatus::Failed
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
                break;
            }
            for (i, session) in sessions.iter().enumerate() {
                if !self.merge(session, &mut state)? {
                    for later in &sessions[i + 1..] {
                        if let Some(r) = self.sessions.get_mut(&later.number) {
                            r.result = "merge-failed".into();
                        }
                    }
                    result = RunResult::Failed;
                    self.save(
                        &mut state,
                        &format!("wave {wave_number}: merge of session {} failed", session.number),
                    )?;
                    break 'waves;
                }
            }
            for session in &sessions {
                self.leftovers.remove_session(session.number)?;
            }
            self.save(&mut state, &format!("wave {wave_number}: merged"))?;
        }
        let mut verification = Vec::new();
        if result == RunResult::Completed {
            verification = self.verification()?;
            if verification.iter().any(|c| !c.passed) {
                result = RunResult::Failed;
            }
        }
        let head = self.repo.head()?.commit.unwrap_or(base);
        let (files, lines) = self
            .repo
            .diff_stat(self.repo.commit_tree(base)?, self.repo.commit_tree(head)?)?;
        let risk = assess(files, lines);
        let run = self.finish(&mut state, result)?;
        Ok(WavesReport {
            run,
            sessions: self.sessions.values().cloned().collect(),
            conflicts: self.conflicts.clone(),
            risk: Some(risk),
            verification,
            untracked,
            cleaned,
        })
    }

    /// DESIGN §7.1: no tracked changes (untracked files are listed), the plan
    /// committed (alone) when it is not tracked yet.
    fn preflight(&mut self) -> Result<Vec<String>> {
        let dirt = self.repo.dirt()?;
        // The plan itself may differ from its commit (a person fixed it
        // before --resume): it is committed alone below, like an untracked one.
        let tracked: Vec<&String> = dirt.tracked.iter().filter(|p| *p != self.plan_rel).collect();
        if !tracked.is_empty() {
            let shown: Vec<&str> = tracked.iter().take(10).map(|p| p.as_str()).collect();
            return Err(crate::cli::FatalWithHint {
                message: format!(
                    "uncommitted changes to tracked files: {}{}",
                    shown.join(", "),
                    if tracked.len() > 10 { ", …" } else { "" }
                ),
                hint: "session worktrees see only committed work: commit or stash these first,\nor run the steps here with --fg".into(),
            }
            .into());
        }
        let untracked: Vec<String> = dirt.untracked.into_iter().filter(|p| p != self.plan_rel).collect();
        if !untracked.is_empty() {
            let shown: Vec<&str> = untracked.iter().take(10).map(String::as_str).collect();
            self.warn(format!(
                "untracked files stay in this worktree, unseen by the sessions: {}{} (a merge that would overwrite one is refused)",
                shown.join(", "),
                if untracked.len() > 10 { ", …" } else { "" }
            ));
        }
        let head = self
            .repo
            .head()?
            .commit
            .ok_or_else(|| anyhow!("the repository has no commits yet"))?;
        let head_tree = self.repo.commit_tree(head)?;
        let text = std::fs::read(self.repo.workdir()?.join(self.plan_rel))
            .map_err(|e| anyhow!("cannot read '{}': {e}", self.plan_rel))?;
        let blob = self.repo.write_blob(&text)?;
        let committed = self.repo.tree_entry(head_tree, self.plan_rel)?;
        if committed.is_none_or(|(id, _)| id != blob) {
            let kind = match committed {
                Some((_, EntryKind::Executable)) => EntryKind::Executable,
                _ => EntryKind::Blob,
            };
            let change = FileChange {
                path: self.plan_rel.to_owned(),
                new: Some((blob, kind)),
            };
            let message = match committed {
                None => "chore: track plan file for parallel execution",
                Some(_) => "chore: update plan file for parallel execution",
            };
            let commit = self
                .repo
                .commit_changes(Some(head), std::slice::from_ref(&change), message)?;
            self.repo
                .advance_head(Some(head), commit, &format!("commit: {message}"))?;
            self.repo.stage(
                std::slice::from_ref(&change),
                &Snapshot::recorded(Some(commit), head_tree),
            )?;
            self.warn(format!(
                "committed the plan '{}' so that the worktrees see it",
                self.plan_rel
            ));
        }
        Ok(untracked)
    }

    /// The recorded multi-session run `--resume` continues, if any.
    fn resumable(&self) -> Result<Option<RunState<'a>>> {
        if self.opts.mode != super::Mode::Resume {
            return Ok(None);
        }
        let Some(state) = RunState::load(self.repo, &self.refs.run())? else {
            return Ok(None);
        };
        Ok(state.read_text("sessions.json")?.is_some().then_some(state))
    }

    /// Resumes a recorded run: a session whose merge is still in HEAD's
    /// history stays merged; every other session runs again from the start in
    /// a fresh worktree (its old worktree and branch were removed when that
    /// run ended), and its own state says it started over.
    fn continue_state(&mut self, mut state: RunState<'a>, head: crate::git::Oid) -> Result<RunState<'a>> {
        let text = state.read_text("sessions.json")?.unwrap_or_default();
        let recorded: Vec<SessionRecord> =
            serde_json::from_str(&text).map_err(|e| anyhow!("unreadable sessions.json in the run state: {e}"))?;
        let mut kept = Vec::new();
        for old in recorded {
            let Some(record) = self.sessions.get_mut(&old.number) else {
                continue;
            };
            let still_merged = old.merged
                && match old.merge_commit.as_deref().map(str::parse::<crate::git::Oid>) {
                    Some(Ok(commit)) => self.repo.is_ancestor(commit, head)?,
                    Some(Err(_)) => false,
                    None => true, // it had nothing to merge
                };
            if still_merged {
                record.result = old.result;
                record.merged = true;
                record.merge_commit = old.merge_commit;
                kept.push(old.number.to_string());
            }
        }
        state.progress.mode = "resume".into();
        state.progress.status = RunStatus::InProgress;
        state.progress.summary = None;
        state.put_text("plan.md", self.input.text)?;
        let message = match kept.is_empty() {
            true => "resumed; no session is merged yet".to_owned(),
            false => format!("resumed; merged sessions kept: {}", kept.join(", ")),
        };
        self.save(&mut state, &message)?;
        Ok(state)
    }

    fn start_state(&mut self) -> Result<RunState<'a>> {
        let plan = self.input.plan;
        let t = now();
        let progress = Progress {
            schema_version: "1".into(),
            plan: self.input.path.clone(),
            plan_type: plan.kind.as_str().into(),
            started_at: t.clone(),
            updated_at: t,
            mode: "execute".into(),
            total_steps: plan.sessions.iter().map(|s| s.steps.len()).sum(),
            current_step: 0,
            status: RunStatus::InProgress,
            steps: plan
                .sessions
                .iter()
                .flat_map(|s| s.steps.iter().map(|n| (*n, Default::default())))
                .collect(),
            entry_condition_checked: false,
            exit_condition_checked: false,
            summary: None,
            run_id: super::run_id(),
            session: None,
            executor: self.opts.executor.id(),
            plan_blob: self
                .repo
                .write_blob(crate::redact::redact(self.input.text).as_bytes())?
                .to_string(),
        };
        let mut state = RunState::start(self.repo, &self.refs.run(), progress, self.input.text)?;
        state.put_text(
            "sessions.json",
            &serde_json::to_string_pretty(&self.sessions.values().collect::<Vec<_>>())?,
        )?;
        state.save(&format!("run {}: started (sessions)", state.progress.run_id))?;
        Ok(state)
    }

    fn save(&self, state: &mut RunState<'_>, message: &str) -> Result<()> {
        state.put_text(
            "sessions.json",
            &serde_json::to_string_pretty(&self.sessions.values().collect::<Vec<_>>())?,
        )?;
        state.save(message)
    }

    fn log_path(&self, n: u32) -> PathBuf {
        self.repo
            .common_dir()
            .join("ultraplan")
            .join("logs")
            .join(&self.refs.slug)
            .join(format!("session-{n}.log"))
    }

    fn worktree(&self, n: u32) -> PathBuf {
        self.leftovers.dir.join(format!("session-{n}"))
    }

    /// One worktree per session, serially (in parallel they race on the
    /// shared config and worktree registrations), with the include files and
    /// the setup command.
    fn create_worktrees(&mut self, sessions: &[&Session]) -> Result<()> {
        let head = self.repo.head()?.commit.ok_or_else(|| anyhow!("HEAD has no commit"))?;
        for session in sessions {
            let n = session.number;
            let branch = self.refs.branch(n);
            let path = self.worktree(n);
            self.repo.create_branch(&branch, head)?;
            if let Err(e) = self.repo.add_worktree(&path, &branch) {
                let _ = self.repo.delete_ref(&branch, None);
                return Err(e);
            }
            self.copy_includes(&path)?;
            if let Some(setup) = &self.wave_opts.setup {
                let finished = process::shell(
                    setup,
                    &path,
                    Vec::new(),
                    self.opts.verify_timeout,
                    self.opts.transcript_cap,
                )?;
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
    fn copy_includes(&self, to: &Path) -> Result<()> {
        if self.wave_opts.include.is_empty() {
            return Ok(());
        }
        let root = self.repo.workdir()?;
        let dirt = self.repo.dirt()?;
        for path in dirt
            .untracked
            .iter()
            .chain(ignored_candidates(root, &self.wave_opts.include).iter())
        {
            if self.wave_opts.include.iter().any(|p| pattern::matches(p, path))
                && pattern::safe_relative_path(path).is_ok()
            {
                let target = to.join(path);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::copy(root.join(path), &target)
                    .map_err(|e| anyhow!("cannot copy '{path}' into the worktree: {e}"))?;
            }
        }
        Ok(())
    }

    /// Runs the wave's sessions, at most `jobs` at once, with live progress.
    fn launch(&mut self, sessions: &[&Session], wave: usize, waves: usize) -> Result<()> {
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

    fn spawn(&self, session: &Session) -> Result<std::process::Child> {
        let log_path = self.log_path(session.number);
        if let Some(dir) = log_path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let log =
            std::fs::File::create(&log_path).map_err(|e| anyhow!("cannot create '{}': {e}", log_path.display()))?;
        let mut command = Command::new(&self.wave_opts.program);
        command
            .arg("run")
            .arg("--session")
            .arg(session.number.to_string())
            .args(&self.wave_opts.child_args)
            .arg(self.plan_rel)
            .current_dir(self.worktree(session.number))
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_PREFIX")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        process::spawn_registered(&mut command)
    }

    fn progress_line(&self, wave: usize, waves: usize) -> String {
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
    fn collect(&mut self, sessions: &[&Session], state: &mut RunState<'_>) -> Result<()> {
        for session in sessions {
            if let Some(s) = RunState::load(self.repo, &self.refs.session(session.number))? {
                for (n, step) in &s.progress.steps {
                    state.progress.steps.insert(*n, step.clone());
                }
                if let Some(r) = self.sessions.get_mut(&session.number) {
                    if r.result == "crashed" && s.progress.status == RunStatus::Completed {
                        r.result = "completed".into();
                    }
                }
            }
        }
        let done: Vec<String> = sessions
            .iter()
            .filter_map(|s| self.sessions.get(&s.number))
            .map(|r| format!("session {} {}", r.number, r.result))
            .collect();
        self.save(state, &format!("sessions ran: {}", done.join(", ")))
    }

    /// Merges one session's branch; `false` when it conflicted or was refused
    /// (nothing changed then).
    fn merge(&mut self, session: &Session, state: &mut RunState<'_>) -> Result<bool> {
        let n = session.number;
        let branch = self.refs.branch(n);
        let tip = self
            .repo
            .read_ref(&branch)?
            .ok_or_else(|| anyhow!("the branch of session {n} is gone"))?;
        let head = self.repo.head()?.commit.ok_or_else(|| anyhow!("HEAD has no commit"))?;
        if self.repo.is_ancestor(tip, head)? {
            // The session committed nothing new: there is nothing to merge.
            if let Some(r) = self.sessions.get_mut(&n) {
                r.merged = true;
            }
            self.warn(format!("session {n} made no commits; nothing to merge"));
            return Ok(true);
        }
        let message = format!("merge: ultraplan session {n} — {}", session.title);
        let label = branch.trim_start_matches("refs/heads/").to_owned();
        let (paths, refused) = match self.repo.plan_merge(head, tip, &label, &message)? {
            MergePlan::Conflicts(paths) => (paths, None),
            MergePlan::Clean(commit) => match self.repo.apply_merge(head, commit, &message)? {
                Ok(()) => {
                    if let Some(r) = self.sessions.get_mut(&n) {
                        r.merged = true;
                        r.merge_commit = Some(commit.to_string());
                    }
                    self.save(state, &format!("session {n}: merged ({})", self.repo.short(commit)))?;
                    return Ok(true);
                }
                Err(text) => (paths_in_refusal(&text), Some(text)),
            },
        };
        if let Some(r) = self.sessions.get_mut(&n) {
            r.result = "merge-failed".into();
        }
        let why = match &refused {
            Some(_) => format!(
                "merging session {n} would overwrite untracked files: {}",
                paths.join(", ")
            ),
            None => format!("session {n} conflicts with what is merged: {}", paths.join(", ")),
        };
        self.failure = Some(Failure {
            step: 0,
            title: format!("session {n}: {}", session.title),
            status: StepStatus::Failed,
            policy: "stop; nothing changed".into(),
            error: why,
            attempts: 0,
        });
        self.conflicts.push(ConflictRecord {
            session: n,
            paths,
            refused,
        });
        Ok(false)
    }

    fn verification(&mut self) -> Result<Vec<Checked>> {
        let mut out = Vec::new();
        let root = self.repo.workdir()?.to_owned();
        for check in &self.input.plan.verification {
            let expected = check.expected.as_deref().zip(check.expected_kind);
            let checked = run_check(
                &check.command,
                expected,
                &root,
                Vec::new(),
                self.opts.verify_timeout,
                self.opts.transcript_cap,
            )?;
            let detail = match &checked.failure {
                Some(f) => format!("{f}: {}", checked.tail(5)),
                None => checked.ending.describe(),
            };
            out.push(Checked {
                command: check.command.clone(),
                passed: checked.passed(),
                detail,
            });
        }
        if let Some(failed) = out.iter().find(|c| !c.passed) {
            self.failure = Some(Failure {
                step: 0,
                title: "verification".into(),
                status: StepStatus::Failed,
                policy: "report".into(),
                error: format!("`{}` failed: {}", failed.command, failed.detail),
                attempts: 0,
            });
        }
        Ok(out)
    }

    fn finish(&mut self, state: &mut RunState<'_>, result: RunResult) -> Result<RunReport> {
        let plan = self.input.plan;
        state.progress.status = match result {
            RunResult::Completed => RunStatus::Completed,
            RunResult::Failed => RunStatus::Failed,
            RunResult::Stopped | RunResult::Interrupted => RunStatus::Stopped,
        };
        let steps: Vec<StepReport> = plan
            .sessions
            .iter()
            .flat_map(|s| s.steps.iter())
            .map(|n| {
                let p = state.progress.step(*n);
                StepReport {
                    number: *n,
                    title: plan.step(*n).map(|s| s.title.clone()).unwrap_or_default(),
                    result: p.status.as_str(),
                    attempts: p.attempts,
                    commit: p.commit.clone(),
                }
            })
            .collect();
        let failed_at_step = steps
            .iter()
            .find(|s| matches!(s.result, "failed" | "escalated" | "blocked" | "waiting"))
            .map(|s| s.number);
        let count = |r: &str| steps.iter().filter(|s| s.result == r).count();
        state.progress.summary = Some(Summary {
            result: result.as_str().into(),
            steps_total: steps.len(),
            steps_passed: count("passed"),
            steps_failed: count("failed") + count("escalated") + count("blocked") + count("waiting"),
            steps_skipped: count("skipped"),
            steps_not_reached: count("pending") + count("running"),
            failed_at_step,
            exit_condition: "n/a".into(),
        });
        let message = format!("run {}: {}", state.progress.run_id, result.as_str());
        self.save(state, &message)?;
        Ok(RunReport {
            plan: self.input.path.clone(),
            plan_type: plan.kind.as_str(),
            mode: self.opts.mode.name(),
            result,
            steps,
            failed_at_step,
            exit_condition: "n/a",
            progress_ref: state.ref_name.clone(),
            failure: self.failure.clone(),
            instructions: None,
            warnings: self.warnings.clone(),
            run_id: state.progress.run_id.clone(),
            session: None,
        })
    }
}

/// The paths git names when it refuses to overwrite files: quoted in
/// `read-tree`'s "Untracked working tree file 'x' would be overwritten" and
/// "Entry 'x' not uptodate", or tab-indented in `merge`'s lists.
fn paths_in_refusal(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for line in text.lines() {
        if line.starts_with('\t') {
            paths.push(line.trim().to_owned());
        } else if line.contains("would be overwritten") || line.contains("not uptodate") {
            if let Some((_, rest)) = line.split_once('\'') {
                if let Some((path, _)) = rest.rsplit_once('\'') {
                    paths.push(path.to_owned());
                }
            }
        }
    }
    paths.sort();
    paths.dedup();
    paths
}

/// Files matching literal (non-glob) include patterns, which may be ignored
/// files the status does not list (`.env` is usually ignored).
fn ignored_candidates(root: &Path, patterns: &[String]) -> Vec<String> {
    patterns
        .iter()
        .filter(|p| !pattern::is_glob(p) && root.join(p).is_file())
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn refusals_name_their_paths() {
        let read_tree = "error: Untracked working tree file 'out.txt' would be overwritten by merge.\nerror: Entry 'a b.txt' not uptodate. Cannot merge.";
        assert_eq!(super::paths_in_refusal(read_tree), vec!["a b.txt", "out.txt"]);
        let merge = "error: The following untracked working tree files would be overwritten by merge:\n\tx.txt\n\ty.txt\nPlease move or remove them";
        assert_eq!(super::paths_in_refusal(merge), vec!["x.txt", "y.txt"]);
    }
}
