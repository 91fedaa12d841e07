//! What the figures take from one run, kept so the next reading need not
//! walk the run's commits again.
//!
//! A run's digest is its progress and, of each attempt it recorded, the
//! fields of the record the figures use. It is derived from the run's
//! commits alone, so it is keyed by the run's newest commit: a run that goes
//! on (a resume) has a new newest commit and is read afresh, and a digest
//! never goes stale. The digests live in `<git-common-dir>/ultraplan/digests.json`,
//! a cache like git's own commit-graph: local, never pushed, never the
//! source of truth. A missing, damaged or foreign-version file is read as
//! empty and written again; failing to write it costs only speed.
//!
//! Measured on 1,000 runs of a 10-step plan (`cargo bench --bench records`):
//! walking every commit, tree and record takes most of a second; reading
//! the digests takes a few milliseconds.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::git::{Oid, Repo};
use crate::ultraplan::result::Usage;
use crate::ultraplan::state::cache;
use crate::ultraplan::state::catalog::{self, Reading};
use crate::ultraplan::state::StepStatus;

/// The cache's file name.
const CACHE: &str = "digests.json";

/// Bumped whenever a digest's fields or their meaning change.
const VERSION: u32 = 2;

/// One attempt, as the figures read it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AttemptDigest {
    pub step: u32,
    pub attempt: u32,
    /// The record's blob, for whoever wants the record itself.
    pub blob: String,
    pub plan_id: String,
    pub task_name: String,
    pub status: String,
    pub duration_ms: u64,
    pub files_modified: usize,
    pub logged_at: String,
    /// The executor that made the attempt (`metadata.executor_id`).
    #[serde(default)]
    pub executor: String,
    /// Cost and tokens its executor reported.
    #[serde(default)]
    pub usage: Usage,
}

/// One run, as the figures read it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunDigest {
    pub plan: String,
    pub run_id: String,
    pub session: Option<u32>,
    pub status: String,
    pub started_at: String,
    pub updated_at: String,
    pub total_steps: usize,
    pub steps_passed: usize,
    /// The steps the run marked skipped.
    pub skipped: Vec<u32>,
    /// Every attempt, oldest first.
    pub attempts: Vec<AttemptDigest>,
    /// The commit before the run's first, where older runs go on.
    pub before: Option<String>,
}

#[derive(Default, Serialize, Deserialize)]
struct File {
    version: u32,
    /// By the run's newest commit.
    runs: BTreeMap<String, RunDigest>,
}

/// The digests of a repository: those read from the cache, and which of
/// them this reading used or added.
pub struct Digests {
    known: BTreeMap<String, RunDigest>,
    used: BTreeMap<String, RunDigest>,
    added: bool,
}

impl Digests {
    pub fn open(repo: &Repo) -> Digests {
        let known = cache::read(repo, CACHE)
            .and_then(|bytes| serde_json::from_slice::<File>(&bytes).ok())
            .filter(|f| f.version == VERSION)
            .map(|f| f.runs)
            .unwrap_or_default();
        Digests {
            known,
            used: BTreeMap::new(),
            added: false,
        }
    }

    /// Every run of the state chain at `ref_name`, newest first.
    pub fn chain(&mut self, repo: &Repo, ref_name: &str) -> Result<Vec<RunDigest>> {
        let mut out = Vec::new();
        let mut next = repo.read_ref(ref_name)?;
        while let Some(last) = next {
            let key = last.to_string();
            let digest = match self.used.get(&key).or_else(|| self.known.get(&key)) {
                Some(d) => d.clone(),
                None => {
                    let Some(d) = read(repo, last)? else { break };
                    self.added = true;
                    d
                }
            };
            next = match &digest.before {
                Some(b) => Some(Oid::from_hex(b.as_bytes())?),
                None => None,
            };
            self.used.insert(key, digest.clone());
            out.push(digest);
        }
        Ok(out)
    }

    /// Writes the cache when this reading added to it: what it used, and
    /// (when `complete` is false, the reading having passed some chains
    /// over) what it did not. Best effort: a failure costs only speed.
    pub fn save(self, repo: &Repo, complete: bool) {
        if !self.added {
            return;
        }
        let mut runs = self.used;
        if !complete {
            for (k, v) in self.known {
                runs.entry(k).or_insert(v);
            }
        }
        let file = File { version: VERSION, runs };
        if let Ok(bytes) = serde_json::to_vec(&file) {
            let _ = cache::write(repo, CACHE, &bytes);
        }
    }
}

/// Reads the run whose newest commit is `last` from its commits.
fn read(repo: &Repo, last: Oid) -> Result<Option<RunDigest>> {
    let Some((run, before)) = catalog::run_ending_at(repo, last, Reading::WithoutCheckpoints)? else {
        return Ok(None);
    };
    let p = &run.progress;
    let mut attempts = Vec::new();
    for a in &run.attempts {
        let Some((blob, record)) = a.record(repo)? else {
            continue;
        };
        // A record that is not YAML is not counted.
        let Ok(doc) = crate::yaml::parse(&record) else {
            continue;
        };
        let text = |v: &serde_yaml::Value| v.as_str().unwrap_or_default().to_owned();
        let result = &doc["result"];
        attempts.push(AttemptDigest {
            step: a.step,
            attempt: a.attempt,
            blob: blob.to_string(),
            plan_id: text(&doc["plan_id"]),
            task_name: text(&result["task_name"]),
            status: text(&result["status"]),
            duration_ms: result["metadata"]["duration_ms"].as_u64().unwrap_or(0),
            files_modified: result["files_modified"].as_sequence().map_or(0, |s| s.len()),
            logged_at: text(&doc["logged_at"]),
            executor: text(&result["metadata"]["executor_id"]),
            usage: Usage::of_record(&doc),
        });
    }
    Ok(Some(RunDigest {
        plan: p.plan.clone(),
        run_id: p.run_id.clone(),
        session: p.session,
        status: p.status.as_str().to_owned(),
        started_at: p.started_at.clone(),
        updated_at: p.updated_at.clone(),
        total_steps: p.total_steps,
        steps_passed: p.steps.values().filter(|s| s.status == StepStatus::Passed).count(),
        skipped: p
            .steps
            .iter()
            .filter(|(_, s)| s.status == StepStatus::Skipped)
            .map(|(n, _)| *n)
            .collect(),
        attempts,
        before: before.map(|b| b.to_string()),
    }))
}
