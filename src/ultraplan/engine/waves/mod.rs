//! Parallel sessions (DESIGN §7) — a session here is a part of the plan run
//! in its own worktree, not the historian's rewrite session: pre-flight, then
//! for each wave one linked worktree per session (created serially, on
//! `ultraplan/<slug>/session-<N>`),
//! each session run as `git-ultraplan run --session N` in its worktree, and
//! — only when every session of the wave completed — merges one at a time as
//! `--no-ff` commits, decided in memory and applied through git. A conflict, or
//! an untracked file in the way, changes nothing and stops the run. Worktrees
//! and branches are removed on every exit path.

mod checkboxes;
mod merge;
mod preflight;
mod record;
mod sessions;
mod worktrees;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};

use super::leftovers::{worktree_dir, Leftovers, Removal, Removed};
use super::risk::{assess, Risk};
use super::{Event, Failure, Observer, PlanInput, RunOptions, RunReport, RunResult};
use crate::git::Repo;
use crate::process;
use crate::ultraplan::plan::Session;
use crate::ultraplan::state::{Lock, Refs, RunState};

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

/// Where a wave's sessions run when not in worktrees here: other clones,
/// through a shared remote (DESIGN §18). The waves engine keeps everything
/// else — pre-flight, the run state, merging one at a time, cleanup.
pub trait Elsewhere {
    /// Runs `sessions` (wave `wave` of `waves`), each from `base`, and returns
    /// once every one has a result (`completed`, `failed`, `stopped`,
    /// `crashed`, `interrupted`), having put each finished session's branch
    /// at [`Refs::branch`] and its state at [`Refs::session`] here.
    fn run_wave(
        &mut self,
        repo: &Repo,
        wave: (usize, usize),
        base: crate::git::Oid,
        sessions: &[&Session],
        observer: &mut dyn Observer,
    ) -> Result<BTreeMap<u32, String>>;

    /// The wave's sessions are merged and `head` is the integration commit.
    fn merged(&mut self, repo: &Repo, wave: usize, head: crate::git::Oid, observer: &mut dyn Observer) -> Result<()>;

    /// The run ended with `result`.
    fn ended(&mut self, repo: &Repo, result: RunResult) -> Result<()>;
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
    /// The commit its wave's sessions started from (HEAD when the wave
    /// began): a session run again after a kill starts there too, not from
    /// what its wave merged meanwhile. Absent in states written before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ConflictRecord {
    pub session: u32,
    pub paths: Vec<String>,
    /// The session's last commit, kept reachable from the run state (its
    /// branch goes with the run), to merge by hand.
    pub tip: String,
    /// What git said when it refused (untracked files in the way), if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

pub use super::plan_verification::Checked;

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

/// Whether `--resume` of a multi-session plan runs its sessions (rather
/// than continuing a foreground `--fg` run): its run state records
/// sessions, or there is no recorded run to continue at all.
pub fn resumes_sessions(repo: &Repo, input: &PlanInput<'_>) -> Result<bool> {
    let refs = Refs::of_plan(&input.path);
    Ok(
        match RunState::load_at(repo, &refs.run(), crate::ultraplan::state::index::Depth::Run)? {
            Some(state) => state.read_text("sessions.json")?.is_some(),
            None => true,
        },
    )
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
    run_waves_with(repo, input, opts, wave_opts, None, observer)
}

/// [`run_waves`], with the sessions run `elsewhere` when given.
pub fn run_waves_with(
    repo: &Repo,
    input: &PlanInput<'_>,
    opts: &RunOptions,
    wave_opts: &WaveOptions,
    elsewhere: Option<&mut (dyn Elsewhere + 'static)>,
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
        return Err(crate::error::FatalWithHint {
            message: format!(
                "'{}' is outside the repository; sessions in worktrees cannot see it",
                input.path
            ),
            hint: "move the plan into the repository, or run the steps here with --fg".into(),
        }
        .into());
    };
    let refs = Refs::of_plan(&input.path);
    for state in crate::ultraplan::state::catalog::states(repo, &refs.slug)? {
        super::open::refuse_shared_state(&state, &input.path)?;
    }
    let leftovers = Leftovers {
        repo,
        slug: refs.slug.clone(),
        dir: worktree_dir(repo, wave_opts.worktree_dir.as_deref(), &refs.slug),
    };
    let mut waves = Waves {
        repo,
        input,
        opts,
        wave_opts,
        observer,
        elsewhere,
        refs: &refs,
        leftovers: &leftovers,
        plan_rel: &plan_rel,
        sessions: BTreeMap::new(),
        branch: None,
        free: Vec::new(),
        made: BTreeSet::new(),
        states_before: BTreeMap::new(),
        conflicts: Vec::new(),
        warnings: Vec::new(),
        failure: None,
        started: false,
    };
    // Refused before anything, the lock included, changes: unless a killed
    // run left a merge half-applied, which only the lock's holder may finish.
    let resumed = waves.resumable()?;
    let pending = match &resumed {
        Some(state) => waves.pending_merge(state)?.is_some(),
        None => false,
    };
    let untracked = match pending {
        false => Some(waves.refuse_dirt()?),
        true => None,
    };
    let lock = Lock::acquire(repo, &refs.lock(), &opts.command_line, opts.lock_timeout)?;
    if let Some((holder, why)) = &lock.took_over {
        waves.warn(format!(
            "took over a stale lock of pid {} on {} ({why})",
            holder.pid, holder.host
        ));
    }
    for warning in crate::ultraplan::state::lock_file_warnings(&lock.lock_files) {
        waves.warn(warning);
    }
    let outcome = waves.run(resumed, untracked);
    // Every exit path once anything changed: no worktree or branch of this
    // plan survives the run. A refused run changes nothing at all.
    let cleaned = match waves.started {
        true => leftovers.remove(Removal::Background).map(|_| ()),
        false => Ok(()),
    };
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
    elsewhere: Option<&'a mut (dyn Elsewhere + 'static)>,
    refs: &'a Refs,
    leftovers: &'a Leftovers<'a>,
    plan_rel: &'a str,
    sessions: BTreeMap<u32, SessionRecord>,
    /// The branch HEAD named when the run started (merges go there only).
    branch: Option<String>,
    /// Worktrees whose sessions ended, free for the next ones.
    free: Vec<PathBuf>,
    /// Sessions whose new worktrees were made ahead, side by side.
    made: BTreeSet<u32>,
    /// Each session's state ref before it ran this time.
    states_before: BTreeMap<u32, Option<crate::git::Oid>>,
    conflicts: Vec<ConflictRecord>,
    warnings: Vec<String>,
    failure: Option<Failure>,
    /// Past the refusals: something may have changed, cleanup is due.
    started: bool,
}

impl<'a> Waves<'a> {
    /// The commit the sessions of `wave` start from: HEAD when the wave
    /// begins — or, for a run resumed after some of the wave's sessions were
    /// merged, the base they were recorded with, as an uninterrupted run
    /// would have it. Only while HEAD is still the wave's last merge: a
    /// commit made since (a plan fixed and committed by the pre-flight, a
    /// person's) is something the sessions must see. Every session of the
    /// wave is recorded with it.
    fn wave_base(&mut self, wave: &[u32]) -> Result<crate::git::Oid> {
        let head = self.repo.head()?.commit.ok_or_else(|| anyhow!("HEAD has no commit"))?;
        let records: Vec<&SessionRecord> = wave.iter().filter_map(|n| self.sessions.get(n)).collect();
        let at_last_merge = records
            .iter()
            .any(|r| r.merged && r.merge_commit.as_deref() == Some(head.to_string().as_str()));
        let recorded = records
            .iter()
            .find_map(|r| r.base.as_deref().and_then(|b| b.parse::<crate::git::Oid>().ok()));
        let base = match recorded {
            Some(base) if at_last_merge && self.repo.is_ancestor(base, head)? => base,
            _ => head,
        };
        for n in wave {
            if let Some(r) = self.sessions.get_mut(n) {
                r.base = Some(base.to_string());
            }
        }
        Ok(base)
    }

    fn warn(&mut self, message: String) {
        self.observer.event(Event::Warning(message.clone()));
        self.warnings.push(message);
    }

    fn run(&mut self, resumed: Option<RunState<'a>>, untracked: Option<Vec<String>>) -> Result<WavesReport> {
        if let Some(state) = &resumed {
            self.finish_pending_merge(state)?;
        }
        let untracked = match untracked {
            Some(list) => list,
            None => self.refuse_dirt()?,
        };
        self.started = true;
        let cleaned = self.leftovers.remove(Removal::Background)?;
        if !cleaned.is_empty() {
            self.warn(format!(
                "removed {} worktree(s) and {} branch(es) left by an earlier run",
                cleaned.worktrees.len(),
                cleaned.branches.len()
            ));
        }
        self.track_plan()?;
        self.branch = self.repo.head()?.branch;
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
                    base: None,
                },
            );
        }
        let mut state = match resumed {
            Some(state) => self.continue_state(state, base)?,
            None => self.start_state()?,
        };
        // The risk covers the whole run, from where its first invocation began.
        if state.read_text("base")?.is_none() {
            state.put_text("base", &format!("{base}\n"))?;
        }
        let base = match state.read_text("base")?.and_then(|t| t.trim().parse().ok()) {
            Some(first) if self.repo.is_ancestor(first, base)? => first,
            _ => base,
        };
        let mut result = RunResult::Completed;
        for (w, wave) in plan.waves.iter().enumerate() {
            if let Some(end) = self.run_wave(w + 1, wave, &mut state)? {
                result = end;
                break;
            }
        }
        let mut verification = Vec::new();
        if result == RunResult::Completed {
            self.check_off_phase_tasks(&state)?;
            verification = self.verification()?;
            if verification.iter().any(|c| !c.passed) {
                result = RunResult::Failed;
            }
        }
        let head = self.repo.head()?.commit.unwrap_or(base);
        let (files, lines) = self
            .repo
            .diff_stat(self.repo.commit_tree(base)?, self.repo.commit_tree(head)?)?;
        let mut risk = assess(files, lines);
        if result != RunResult::Completed {
            // What is merged so far is no result to act on.
            risk.action = "none yet: the run did not complete";
        }
        if let Some(elsewhere) = self.elsewhere.as_deref_mut() {
            if let Err(e) = elsewhere.ended(self.repo, result) {
                self.warn(format!("{e:#}"));
            }
        }
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

    /// One wave: its sessions run, each in its worktree, then — only when
    /// every one completed — merged one at a time. `Some` when the run stops
    /// here, with how it ended.
    fn run_wave(&mut self, wave_number: usize, wave: &[u32], state: &mut RunState<'a>) -> Result<Option<RunResult>> {
        let plan = self.input.plan;
        let sessions: Vec<&Session> = wave
            .iter()
            .filter_map(|n| plan.session(*n))
            .filter(|s| self.sessions.get(&s.number).is_some_and(|r| !r.merged))
            .collect();
        if sessions.is_empty() {
            return Ok(None); // an empty wave, or merged by the run this one resumes
        }
        let base = self.wave_base(wave)?;
        match self.elsewhere.is_some() {
            true => self.run_elsewhere(&sessions, base, wave_number, plan.waves.len())?,
            false => self.launch(&sessions, base, wave_number, plan.waves.len())?,
        }
        self.collect(&sessions, state)?;
        if process::interrupted() {
            return Ok(Some(RunResult::Interrupted));
        }
        if let Some(result) = self.stop_for_unfinished(&sessions, wave_number) {
            return Ok(Some(result));
        }
        for (i, session) in sessions.iter().enumerate() {
            if !self.merge(session, state)? {
                for later in &sessions[i + 1..] {
                    if let Some(r) = self.sessions.get_mut(&later.number) {
                        r.result = "merge-failed".into();
                    }
                }
                // The unmerged sessions' work outlives their branches (and
                // `git gc`): the state keeps it until merged by hand.
                for unmerged in &sessions[i..] {
                    if let Some(tip) = self.repo.read_ref(&self.refs.branch(unmerged.number))? {
                        state.keep_commit(tip);
                    }
                }
                self.save(
                    state,
                    &format!("wave {wave_number}: merge of session {} failed", session.number),
                )?;
                return Ok(Some(RunResult::Failed));
            }
        }
        self.check_off_wave(wave_number, &sessions, state)?;
        // Their worktrees stay for the next wave's sessions (reset, cleaned
        // and proved clean before one starts there).
        for session in &sessions {
            self.leftovers.remove_branch(session.number)?;
        }
        self.save(state, &format!("wave {wave_number}: merged"))?;
        if let Some(elsewhere) = self.elsewhere.as_deref_mut() {
            let head = self.repo.head()?.commit.ok_or_else(|| anyhow!("HEAD has no commit"))?;
            elsewhere.merged(self.repo, wave_number, head, &mut *self.observer)?;
        }
        Ok(None)
    }
}
