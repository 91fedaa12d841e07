//! What is stored under `refs/ultraplan/`: which plans have state, their run
//! and session states, their locks, and the history of runs in a state chain.

use std::collections::BTreeSet;

use anyhow::Result;

use super::index::{self, Depth};
use super::layout::Layout;
use super::lock::LockInfo;
use super::progress::{AttemptSummary, Progress};
use super::run_state::RunState;
use crate::git::{EntryKind, Oid, Repo};

/// Every slug with something under `refs/ultraplan/<slug>/`. A name no plan
/// slug can be (one gix refuses to look under, made by another tool) is not a
/// plan's, and is passed over rather than failing every other plan's listing.
pub fn slugs(repo: &Repo) -> Result<Vec<String>> {
    let mut out = BTreeSet::new();
    for (name, _) in repo.refs_with_prefix("refs/ultraplan/")? {
        if let Some(slug) = name.strip_prefix("refs/ultraplan/").and_then(|r| r.split('/').next()) {
            if crate::git::component_problem(slug).is_none() {
                out.insert(slug.to_owned());
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// The run state and every session state of `slug`, run first.
pub fn states<'r>(repo: &'r Repo, slug: &str) -> Result<Vec<RunState<'r>>> {
    states_at(repo, slug, Depth::Steps)
}

/// [`states`] read to `depth` (see [`RunState::load_at`]).
pub fn states_at<'r>(repo: &'r Repo, slug: &str, depth: Depth) -> Result<Vec<RunState<'r>>> {
    let mut out = Vec::new();
    let mut names: Vec<String> = repo
        .refs_with_prefix(&format!("refs/ultraplan/{slug}/"))?
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.ends_with("/run") || n.rsplit('/').next().is_some_and(|last| last.starts_with("session-")))
        .collect();
    names.sort_by_key(|n| (!n.ends_with("/run"), session_number(n)));
    for name in names {
        if let Some(state) = RunState::load_at(repo, &name, depth)? {
            out.push(state);
        }
    }
    Ok(out)
}

fn session_number(name: &str) -> u32 {
    name.rsplit("session-").next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// The locks of `slug`: the plan's, its sessions' (`lock-session-<N>`) and
/// its workers' (`lock-work-<N>`).
pub fn locks(repo: &Repo, slug: &str) -> Result<Vec<(String, Oid, LockInfo)>> {
    let mut out = Vec::new();
    for (name, id) in repo.refs_with_prefix(&format!("refs/ultraplan/{slug}/"))? {
        let last = name.rsplit('/').next().unwrap_or("");
        if last == "lock" || last.starts_with("lock-") {
            let info = LockInfo::parse(&String::from_utf8_lossy(&repo.read_blob(id)?));
            out.push((name, id, info));
        }
    }
    Ok(out)
}

/// One recorded attempt found in a state chain.
pub struct RecordedAttempt {
    pub step: u32,
    pub attempt: u32,
    /// The result's status (`success`, `failure`, `blocked`; `unknown` when
    /// the record does not say).
    pub status: String,
    pub duration_ms: Option<u64>,
    /// Why it failed, as its record says.
    pub error: Option<String>,
    /// The checkpoint commit, when this attempt passed and was committed
    /// (layout 1 reads it only when asked for: see [`Reading`]).
    pub commit: Option<String>,
    /// The state tree that holds the record, and its path there.
    tree: Oid,
    path: String,
}

impl RecordedAttempt {
    /// The attempt's record (the note format) and its blob.
    pub fn record(&self, repo: &Repo) -> Result<Option<(Oid, String)>> {
        match repo.tree_entry(self.tree, &self.path)? {
            Some((blob, EntryKind::Blob | EntryKind::Executable)) => Ok(Some((
                blob,
                String::from_utf8_lossy(&repo.read_blob(blob)?).into_owned(),
            ))),
            _ => Ok(None),
        }
    }
}

/// One run found in a state chain.
pub struct PastRun {
    /// Its latest progress.
    pub progress: Progress,
    /// Every attempt it recorded, oldest first.
    pub attempts: Vec<RecordedAttempt>,
}

impl PastRun {
    /// The attempts a process killed while they ran left behind, as
    /// `(step, attempt)` in step order: a resume keeps what such an attempt
    /// had changed (`steps/<N>/attempt-<A>.interrupted`) and starts attempt
    /// A again, so its record is the new one's. Read from the steps'
    /// entries (`StepProgress::interrupted`); none for a run in layout 1 or
    /// an entry written before they were kept.
    pub fn interrupted(&self) -> Vec<(u32, u32)> {
        let steps = self.progress.steps.iter();
        steps
            .flat_map(|(n, step)| step.interrupted.iter().map(move |a| (*n, *a)))
            .collect()
    }
}

/// How much of a run to read: in layout 1, the checkpoint commits of passed
/// attempts cost a read of the progress at each `step N: passed` commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    WithCheckpoints,
    WithoutCheckpoints,
}

/// Every run recorded in the chain at `ref_name`, newest first, with every
/// attempt it recorded (also those a later re-run of the step superseded).
pub fn history(repo: &Repo, ref_name: &str) -> Result<Vec<PastRun>> {
    let mut runs = Vec::new();
    let mut next = repo.read_ref(ref_name)?;
    while let Some(last) = next {
        let Some((run, before)) = run_ending_at(repo, last, Reading::WithCheckpoints)? else {
            break;
        };
        runs.push(run);
        next = before;
    }
    Ok(runs)
}

/// The run whose newest commit is `last` (or, when `last` holds no
/// progress, the first older commit that does), and the commit before the
/// run's start, where older runs go on; `None` when no commit from `last`
/// down holds a run.
///
/// A run in layout 2 is read from its newest commit alone: `run.json`
/// names the run before it, and each step's entry summarizes its attempts.
/// A run in layout 1 is read commit by commit: its start is marked
/// `run <id>: started`, its attempts `step N attempt A: passed|failed …`.
pub fn run_ending_at(repo: &Repo, last: Oid, reading: Reading) -> Result<Option<(PastRun, Option<Oid>)>> {
    let mut next = Some(last);
    while let Some(commit) = next {
        let info = repo.commit_info(commit)?;
        match index::read(repo, info.tree, Depth::Steps) {
            Ok(Some(found)) if found.layout == Layout::V2 => {
                let before = match found.previous_run {
                    // Imported without the commits it names (an export
                    // without transcripts writes other commits): found by
                    // the run's first commit, as layout 1 does.
                    Some(p) if !repo.has_object(p) => index::start_parent(repo, commit)?,
                    p => p,
                };
                return Ok(Some((run_of_index(found.progress, info.tree), before)));
            }
            Ok(Some(_)) => return run_ending_at_v1(repo, commit, reading),
            _ => next = info.parents.first().copied(),
        }
    }
    Ok(None)
}

/// A layout-2 run: its attempts from the step entries, in the order they
/// were logged.
fn run_of_index(progress: Progress, tree: Oid) -> PastRun {
    let mut attempts = Vec::new();
    for (n, step) in &progress.steps {
        for r in &step.results {
            attempts.push((
                (r.logged_at.clone(), r.seq),
                RecordedAttempt {
                    step: *n,
                    attempt: r.attempt,
                    status: r.status.clone(),
                    duration_ms: r.duration_ms,
                    error: r.error.clone(),
                    commit: r.commit.clone(),
                    tree,
                    path: Layout::V2.step(*n).record(r.attempt),
                },
            ));
        }
    }
    attempts.sort_by(|(a, x), (b, y)| (a, x.step, x.attempt).cmp(&(b, y.step, y.attempt)));
    PastRun {
        progress,
        attempts: attempts.into_iter().map(|(_, a)| a).collect(),
    }
}

fn run_ending_at_v1(repo: &Repo, last: Oid, reading: Reading) -> Result<Option<(PastRun, Option<Oid>)>> {
    let mut current: Option<PastRun> = None;
    let mut committed: std::collections::HashMap<u32, Option<String>> = std::collections::HashMap::new();
    let mut next = Some(last);
    while let Some(commit) = next {
        let info = repo.commit_info(commit)?;
        next = info.parents.first().copied();
        let subject = info.message.lines().next().unwrap_or("");
        if current.is_none() {
            let Ok(Some(found)) = index::read(repo, info.tree, Depth::Steps) else {
                continue;
            };
            current = Some(PastRun {
                progress: found.progress,
                attempts: Vec::new(),
            });
        }
        if let Some((step, rest)) = subject.strip_prefix("step ").and_then(|r| r.split_once(' ')) {
            let Ok(step) = step.trim_end_matches(':').parse::<u32>() else {
                continue;
            };
            if rest.starts_with("passed") && subject.starts_with(&format!("step {step}: ")) {
                if reading == Reading::WithCheckpoints {
                    let commit = repo
                        .read_path(info.tree, super::layout::PROGRESS_V1)?
                        .and_then(|b| serde_json::from_slice::<Progress>(&b).ok())
                        .and_then(|p| p.step(step).commit);
                    committed.insert(step, commit);
                }
            } else if let Some(after) = rest.strip_prefix("attempt ") {
                if let Some((attempt, verdict)) = after.split_once(": ") {
                    let Ok(attempt) = attempt.parse::<u32>() else { continue };
                    if verdict.starts_with("passed") || verdict.starts_with("failed") {
                        let path = Layout::V1.step(step).record(attempt);
                        if let Some((blob, EntryKind::Blob | EntryKind::Executable)) =
                            repo.tree_entry(info.tree, &path)?
                        {
                            let record = String::from_utf8_lossy(&repo.read_blob(blob)?).into_owned();
                            let summary = AttemptSummary::of_record(attempt, &record);
                            let commit = if verdict.starts_with("passed") {
                                committed.remove(&step).flatten()
                            } else {
                                None
                            };
                            if let Some(run) = current.as_mut() {
                                run.attempts.push(RecordedAttempt {
                                    step,
                                    attempt,
                                    status: summary.status,
                                    duration_ms: summary.duration_ms,
                                    error: summary.error,
                                    commit,
                                    tree: info.tree,
                                    path,
                                });
                            }
                        }
                    }
                }
            }
        }
        if subject.starts_with("run ") && subject.contains(": started") {
            break;
        }
    }
    Ok(current.map(|mut run| {
        run.attempts.reverse();
        (run, next)
    }))
}
