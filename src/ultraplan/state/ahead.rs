//! A resume's state read ahead: while the command parses the plan (tens of
//! milliseconds for thousands of steps), another thread reads the state's
//! `run.json` and every step's entry, and starts redacting the plan when it
//! is not the one recorded (the run records it, redacted). The run takes
//! what was read when it loads the same state commit's tree
//! ([`RunState::load`](super::RunState::load)); anything else (the ref
//! moved meanwhile, the thread failed) is read again then, as without it.
//! When there is a step to run, it also starts the run's first scan of the
//! worktree ahead ([`Repo::scan_ahead`]), which the run's first scan takes
//! if nothing changed meanwhile ([`scan_taken_ahead`]).

use std::sync::Mutex;
use std::thread::JoinHandle;

use anyhow::Result;

use super::index::{self, Depth, RunIndex};
use super::progress::RunStatus;
use crate::git::{Oid, Repo, ScanAhead};

type Reading = JoinHandle<Result<Option<RunIndex>>>;

/// The tree being read, and the thread reading it.
static AHEAD: Mutex<Option<(Oid, Reading)>> = Mutex::new(None);

/// The worktree's first scan, being taken ahead.
static SCAN: Mutex<Option<ScanAhead>> = Mutex::new(None);

/// Starts reading the state at `ref_name` ahead, for a resume of the plan
/// whose text is `plan_text`. A completed run whose plan is the one
/// recorded has nothing to run: then only `run.json` is read (a plan of the
/// recorded plan's size is taken for it).
pub fn read_ahead(repo: &Repo, ref_name: &str, plan_text: &str) {
    let Ok(Some(head)) = repo.read_ref(ref_name) else {
        return;
    };
    let Ok(tree) = repo.commit_tree(head) else {
        return;
    };
    let shared = repo.share();
    let text = plan_text.to_owned();
    let reading = std::thread::Builder::new().name("state".into()).spawn(move || {
        let repo = shared.open();
        let Some(run) = index::read(&repo, tree, Depth::Run)? else {
            return Ok(None);
        };
        // The recorded plan is the redacted text: a text of another size is
        // another plan (one of the same size is taken for the same: this
        // is only a guess of what the run will need, not hashed).
        let recorded_size = run
            .progress
            .plan_blob
            .parse::<Oid>()
            .ok()
            .and_then(|blob| repo.blob_size(blob).ok());
        let same = recorded_size == Some(text.len() as u64);
        if same && run.progress.status == RunStatus::Completed {
            return Ok(None);
        }
        *SCAN.lock().unwrap_or_else(|p| p.into_inner()) = repo.scan_ahead();
        if !same {
            crate::redact::redact_ahead(&text);
        }
        index::read(&repo, tree, Depth::Steps)
    });
    if let Ok(reading) = reading {
        *AHEAD.lock().unwrap_or_else(|p| p.into_inner()) = Some((tree, reading));
    }
}

/// The worktree's first scan, if one was started ahead.
pub fn scan_taken_ahead() -> Option<ScanAhead> {
    SCAN.lock().unwrap_or_else(|p| p.into_inner()).take()
}

/// What was read ahead of `tree` with every step's entry, if it was.
pub(super) fn take(tree: Oid) -> Option<Result<Option<RunIndex>>> {
    let (read, reading) = AHEAD.lock().unwrap_or_else(|p| p.into_inner()).take()?;
    if read != tree {
        return None;
    }
    reading.join().ok()?.transpose().map(|r| r.map(Some))
}
