//! `git ultraplan run --distribute`: the orchestrator of DESIGN §7 with the
//! shared remote in place of local worktrees. Each wave is published (the
//! work reference names it open, from the commit its sessions start from);
//! the orchestrator waits for every session's closed claim, polling with
//! backoff, fetches the sessions' branches and states, and hands them to
//! the waves engine, which merges them one at a time as for local sessions.
//! After the merges it pushes the integration branch; at the end it closes
//! the work. With `--jobs N` it also runs up to N workers here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{anyhow, Context as _, Result};

use super::{work_ref, View, Work};
use crate::git::{Expect, Lease, Oid, Repo};
use crate::process;
use crate::ultraplan::engine::waves::Elsewhere;
use crate::ultraplan::engine::{Event, Observer, RunResult};
use crate::ultraplan::plan::{Plan, Session};
use crate::ultraplan::state::Refs;

/// What the orchestrator publishes and how it waits.
#[derive(Clone, Debug)]
pub struct Orchestrator {
    pub remote: String,
    /// The published work, as the next publication starts from.
    work: Work,
    plan_text: String,
    /// Workers run here, at most this many at once.
    pub jobs: usize,
    pub program: PathBuf,
    /// Options for the workers run here (executor, attempts, `--yes`).
    pub worker_args: Vec<String>,
    /// The first and the longest pause between looks at the remote.
    pub poll: (Duration, Duration),
    /// A claim silent for longer is free for a worker here to take over.
    pub lock_timeout: Duration,
    log_dir: PathBuf,
    /// Where the run's remote is remembered, so `run --resume` goes on there.
    memo: PathBuf,
}

impl Orchestrator {
    /// An orchestrator for `plan` (at `path`, text `plan_text`) through `remote`.
    pub fn new(repo: &Repo, remote: &str, plan: &Plan, path: &str, plan_text: &str) -> Result<Orchestrator> {
        let slug = crate::ultraplan::state::slug(std::path::Path::new(path));
        let head = repo.head()?;
        let base = head
            .commit
            .ok_or_else(|| anyhow!("the repository has no commits yet; sessions branch from HEAD"))?;
        let common = repo.common_dir().join("ultraplan");
        Ok(Orchestrator {
            remote: remote.to_owned(),
            work: Work::new(crate::ultraplan::engine::run_id(), plan, path, &slug, head.branch, base),
            plan_text: plan_text.to_owned(),
            jobs: 0,
            program: PathBuf::new(),
            worker_args: Vec::new(),
            poll: (Duration::from_millis(200), Duration::from_secs(5)),
            lock_timeout: Duration::from_secs(600),
            log_dir: common.join("logs").join(&slug),
            memo: memo_path(repo, &slug),
        })
    }

    /// Publishes wave `wave` from `base`: the run the remote already has open
    /// for this plan when it is the same plan (a resumed run), else a new one.
    fn publish(&mut self, repo: &Repo, wave: usize, base: Oid) -> Result<()> {
        // The remote is remembered before anything is published there: a
        // run killed once its work is on the remote resumes through it.
        if let Some(dir) = self.memo.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // Its URL too: a remote renamed meanwhile is found again by it.
        let url = repo.remote_url(&self.remote).unwrap_or_default();
        std::fs::write(&self.memo, format!("{}\n{url}\n", self.remote))
            .with_context(|| format!("cannot write '{}'", self.memo.display()))?;
        let view = View::read(repo, &self.remote, Some(&self.work.slug)).map_err(|e| unreachable(&self.remote, e))?;
        let published = view.works.get(&self.work.slug);
        let ours = |theirs: &Work, text: &str| {
            !theirs.finished && text == crate::redact::redact(&self.plan_text) && theirs.plan == self.work.plan
        };
        match published {
            // A resumed run: this wave is open already, from the base its
            // sessions started at (this clone may have merged some since).
            Some((_, theirs, text)) if ours(theirs, text) && theirs.wave == wave => {
                self.work = theirs.clone();
            }
            _ => {
                if let Some((_, theirs, _)) = published.filter(|(_, t, x)| ours(t, x)) {
                    self.work.id = theirs.id.clone();
                }
                self.work.wave = wave;
                self.work.base = base.to_string();
                self.work.finished = false;
                self.push_work(repo, published.map(|(id, _, _)| *id))?;
            }
        }
        Ok(())
    }

    fn push_work(&self, repo: &Repo, expect: Option<Oid>) -> Result<()> {
        let commit = self.work.write(repo, &self.plan_text)?;
        let lease = Lease {
            name: work_ref(&self.work.slug),
            new: Some(commit),
            expect,
        };
        let outcome = repo.push_leased(&self.remote, &[lease], false)?;
        if !outcome.success {
            return Err(anyhow!(
                "cannot publish the work of {} to '{}': {}",
                self.work.plan,
                self.remote,
                outcome.why()
            ));
        }
        Ok(())
    }

    /// Keeps up to `jobs` workers running here while sessions wait for one.
    fn start_workers(&self, running: &mut Vec<std::process::Child>, unclaimed: usize) -> Result<()> {
        running.retain_mut(|c| match c.try_wait() {
            Ok(Some(_)) => {
                process::unregister(c.id());
                false
            }
            _ => true,
        });
        while running.len() < self.jobs.min(unclaimed + running.len()) && unclaimed > running.len() {
            std::fs::create_dir_all(&self.log_dir)?;
            let log_path = self.log_dir.join(format!("worker-{}.log", running.len() + 1));
            let log = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&log_path)
                .with_context(|| format!("cannot open '{}'", log_path.display()))?;
            let mut command = Command::new(&self.program);
            command
                .args(["work", "--once", "--plan", &self.work.slug])
                .args(&self.worker_args)
                .arg(&self.remote)
                .stdin(Stdio::null())
                .stdout(log.try_clone()?)
                .stderr(log);
            running.push(process::spawn_registered(&mut command)?);
        }
        Ok(())
    }

    fn progress(&self, view: &View, wave: (usize, usize), sessions: &[&Session]) -> String {
        let parts: Vec<String> = sessions
            .iter()
            .map(|s| {
                let detail = match view.claim_in(&self.work.slug, s.number, &self.work.id) {
                    None => "waiting for a worker".to_owned(),
                    Some((_, c)) => match (&c.result, c.step) {
                        (Some(result), _) => result.clone(),
                        (None, Some(step)) => format!("{}, step {step}", c.holder()),
                        (None, None) => format!("{}, starting", c.holder()),
                    },
                };
                format!("session {}: {detail}", s.number)
            })
            .collect();
        format!(
            "wave {}/{} on '{}' · {}",
            wave.0,
            wave.1,
            self.remote,
            parts.join(" · ")
        )
    }
}

impl Elsewhere for Orchestrator {
    fn run_wave(
        &mut self,
        repo: &Repo,
        wave: (usize, usize),
        base: Oid,
        sessions: &[&Session],
        observer: &mut dyn Observer,
    ) -> Result<BTreeMap<u32, String>> {
        self.publish(repo, wave.0, base)?;
        let base = self.work.base()?;
        let slug = self.work.slug.clone();
        let mut workers: Vec<std::process::Child> = Vec::new();
        let mut pause = self.poll.0;
        let mut last_line = String::new();
        let mut looks_without_branch: BTreeMap<u32, u32> = BTreeMap::new();
        let view = loop {
            let view = match View::read(repo, &self.remote, Some(&slug)) {
                Ok(view) => view,
                Err(e) => {
                    stop_workers(&mut workers);
                    return Err(unreachable(&self.remote, e));
                }
            };
            // A worker publishes branch, state and closed claim in one atomic
            // push, but a remote's files backend renames them into place one
            // by one: a listing can show the result before the state. A
            // completed session counts once both are listed too, or once
            // they stayed missing for a few looks: then it counts as failed
            // (below), never as something to merge.
            let results: Vec<Option<&String>> = sessions
                .iter()
                .map(|s| {
                    let key = (slug.clone(), s.number);
                    let result = view
                        .claim_in(&slug, s.number, &self.work.id)
                        .and_then(|(_, c)| c.result.as_ref());
                    result.filter(|r| {
                        r.as_str() != "completed"
                            || (view.branches.contains_key(&key) && view.states.contains_key(&key))
                            || {
                                let looks = looks_without_branch.entry(s.number).or_insert(0);
                                *looks += 1;
                                *looks > LOOKS_FOR_RESULTS
                            }
                    })
                })
                .collect();
            if results.iter().all(Option::is_some) || process::interrupted() {
                break view;
            }
            let unclaimed = sessions
                .iter()
                .filter(|s| match view.claim_in(&slug, s.number, &self.work.id) {
                    None => true,
                    Some((_, c)) => c.expired(self.lock_timeout),
                })
                .count();
            if self.jobs > 0 {
                self.start_workers(&mut workers, unclaimed)?;
            }
            let line = self.progress(&view, wave, sessions);
            if line != last_line {
                pause = self.poll.0;
                last_line = line.clone();
            }
            observer.event(Event::Progress(line));
            std::thread::sleep(pause);
            pause = (pause * 2).min(self.poll.1);
        };
        stop_workers(&mut workers);
        let refs = Refs::new(slug.clone());
        let mut out = BTreeMap::new();
        let mut fetch = Vec::new();
        for s in sessions {
            let n = s.number;
            let result = view
                .claim_in(&slug, n, &self.work.id)
                .and_then(|(_, c)| c.result.clone())
                .unwrap_or_else(|| "interrupted".into());
            for map in [&view.branches, &view.states] {
                if let Some(id) = map.get(&(slug.clone(), n)) {
                    fetch.push(*id);
                }
            }
            out.insert(n, result);
        }
        repo.fetch_objects(&self.remote, &fetch)
            .map_err(|e| unreachable(&self.remote, e))?;
        for s in sessions {
            let n = s.number;
            let key = (slug.clone(), n);
            // Only what this run's session published counts: a branch from an
            // earlier run of the plan starts from another commit.
            let branch = match view.branches.get(&key) {
                Some(tip) if repo.is_ancestor(base, *tip)? => Ok(*tip),
                Some(tip) => Err(format!(
                    "its branch on '{}' ({}) does not start from the wave's base {} (it is from an earlier run)",
                    self.remote,
                    repo.short(*tip),
                    repo.short(base)
                )),
                None => Err(format!("'{}' has no branch for it", self.remote)),
            };
            let state = view.states.get(&key).copied();
            match (&branch, state) {
                (Ok(tip), _) => {
                    let name = refs.branch(n);
                    let old = repo.read_ref(&name)?;
                    repo.update_ref(
                        &name,
                        *tip,
                        Expect::AbsentOr(old),
                        "ultraplan: a session's branch from the remote",
                    )?;
                }
                (Err(why), _) if out.get(&n).is_some_and(|r| r == "completed") => {
                    // Nothing to merge: a failed session, which the
                    // resumed run publishes again.
                    observer.event(Event::Warning(format!(
                        "session {n} says it completed, but {why}; counted as failed ('git ultraplan run --resume' runs it again)"
                    )));
                    out.insert(n, "failed".into());
                }
                (Err(_), _) => {}
            }
            if out.get(&n).is_some_and(|r| r == "completed") && state.is_none() {
                observer.event(Event::Warning(format!(
                    "session {n} says it completed, but '{}' has no run state for it; counted as failed ('git ultraplan run --resume' runs it again)",
                    self.remote
                )));
                out.insert(n, "failed".into());
            }
            if let Some(state) = state {
                let name = refs.session(n);
                let old = repo.read_ref(&name)?;
                repo.update_ref(
                    &name,
                    state,
                    Expect::AbsentOr(old),
                    "ultraplan: a session's state from the remote",
                )?;
            }
        }
        Ok(out)
    }

    fn merged(&mut self, repo: &Repo, wave: usize, head: Oid, observer: &mut dyn Observer) -> Result<()> {
        let Some(branch) = self.work.branch.clone() else {
            return Ok(());
        };
        let outcome = repo.push_refspecs(&self.remote, &[format!("{head}:{branch}")], false)?;
        if !outcome.success {
            observer.event(Event::Warning(format!(
                "wave {wave} is merged here, but '{}' refused {branch}: {}; push it yourself",
                self.remote,
                outcome.why()
            )));
        }
        Ok(())
    }

    fn ended(&mut self, repo: &Repo, result: RunResult) -> Result<()> {
        // A stopped or interrupted run stays open: `run --resume` goes on.
        if !matches!(result, RunResult::Completed | RunResult::Failed) {
            return Ok(());
        }
        let _ = std::fs::remove_file(&self.memo);
        let view = View::read(repo, &self.remote, Some(&self.work.slug))?;
        let Some((id, theirs, _)) = view.works.get(&self.work.slug) else {
            return Ok(());
        };
        if theirs.id != self.work.id || theirs.finished {
            return Ok(());
        }
        let mut work = theirs.clone();
        work.finished = true;
        let closing = Orchestrator { work, ..self.clone() };
        closing.push_work(repo, Some(*id))
    }
}

/// How many looks at the remote a completed session's branch and state may
/// lag behind its closed claim (a files backend renaming them into place
/// one by one) before the session counts as failed.
const LOOKS_FOR_RESULTS: u32 = 3;

fn stop_workers(workers: &mut Vec<std::process::Child>) {
    for mut child in workers.drain(..) {
        // A worker here finishes the session it holds; it takes no other (--once).
        let _ = child.wait();
        process::unregister(child.id());
    }
}

fn unreachable(remote: &str, e: anyhow::Error) -> anyhow::Error {
    anyhow!(
        "{e:#}; nothing is lost here: 'git ultraplan run --resume --distribute={remote} <plan>' goes on once '{remote}' answers"
    )
}

/// Where the remote of a distributed run of `slug` is remembered.
pub fn memo_path(repo: &Repo, slug: &str) -> PathBuf {
    repo.common_dir().join("ultraplan").join("distribute").join(slug)
}

/// The remote a distributed run of `slug` left open here, if any, and —
/// when that remote was renamed or removed since — what happened to it.
pub fn remembered_remote(repo: &Repo, slug: &str) -> Result<Option<Remembered>> {
    let Ok(text) = std::fs::read_to_string(memo_path(repo, slug)) else {
        return Ok(None);
    };
    let mut lines = text.lines().map(str::trim);
    let Some(name) = lines.next().filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    if repo.remote_url(name).is_some() {
        return Ok(Some(Remembered {
            remote: name.to_owned(),
            renamed_from: None,
        }));
    }
    // Gone by that name: the remote with its URL is the same remote.
    let url = lines.next().filter(|u| !u.is_empty());
    let names = repo.remote_names();
    let same: Vec<&String> = names
        .iter()
        .filter(|n| url.is_some() && repo.remote_url(n).as_deref() == url)
        .collect();
    if let [remote] = same.as_slice() {
        return Ok(Some(Remembered {
            remote: (*remote).clone(),
            renamed_from: Some(name.to_owned()),
        }));
    }
    let suggestion = match (same.as_slice(), names.as_slice()) {
        ([first, ..], _) => format!("'{}' has its URL", first),
        ([], []) => "this repository has no remote now; add it back with 'git remote add'".to_owned(),
        ([], [only]) => format!("the remote that exists is '{only}'"),
        ([], all) => format!(
            "the remotes that exist: {}",
            all.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")
        ),
    };
    let example = same
        .first()
        .map(|n| n.as_str())
        .or(names.first().map(String::as_str))
        .unwrap_or("<remote>");
    Err(crate::error::FatalWithHint {
        message: format!(
            "the distributed run of '{slug}' went through the remote '{name}', which this repository no longer has"
        ),
        hint: format!("{suggestion}: resume there with 'git ultraplan run --resume --distribute={example} <plan>'"),
    }
    .into())
}

/// The remote a distributed run goes on through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remembered {
    pub remote: String,
    /// The name it had when the run began, if it was renamed since.
    pub renamed_from: Option<String>,
}
