//! The search index: what `search` ranks, kept beside the store so a search
//! need not read and parse every outcome again.
//!
//! For each stored outcome, in the store's order: its id, agent, success,
//! timestamp (what the filters read) and its searchable text
//! ([`super::search::document`]). It is derived from the outcomes ref alone
//! and keyed by the ref's commit, so a new record (here or fetched) makes it
//! read afresh; it lives in `<git-common-dir>/ultraplan/outcome-index.json`,
//! local and never pushed, like git's commit-graph. A missing, damaged or
//! foreign-version file is rebuilt; failing to write one costs only speed.
//! Only the hits a search returns are read from the store in full.

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::search;
use super::store::{self, Stored, OUTCOMES_REF};
use crate::git::Repo;
use crate::ultraplan::state::cache;

/// Bumped whenever an entry's fields or their meaning change.
const VERSION: u32 = 1;

/// One outcome, as search and its filters read it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    pub outcome_id: String,
    pub agent: String,
    pub success: bool,
    pub timestamp: String,
    pub document: String,
}

#[derive(Serialize, Deserialize)]
struct File {
    version: u32,
    /// The outcomes ref's commit the entries were read from.
    tip: String,
    entries: Vec<Entry>,
}

/// The cache's file name.
const CACHE: &str = "outcome-index.json";

/// The entries of every stored outcome, in the store's order.
pub fn entries(repo: &Repo) -> Result<Vec<Entry>> {
    let Some(tip) = repo.read_ref(OUTCOMES_REF)? else {
        return Ok(Vec::new());
    };
    let tip_hex = tip.to_string();
    if let Some(kept) = cache::read(repo, CACHE)
        .and_then(|bytes| serde_json::from_slice::<File>(&bytes).ok())
        .filter(|f| f.version == VERSION && f.tip == tip_hex)
    {
        return Ok(kept.entries);
    }
    let entries: Vec<Entry> = store::load_all(repo)?.iter().map(entry).collect();
    let file = File {
        version: VERSION,
        tip: tip_hex,
        entries,
    };
    if let Ok(bytes) = serde_json::to_vec(&file) {
        let _ = cache::write(repo, CACHE, &bytes);
    }
    Ok(file.entries)
}

fn entry(stored: &Stored) -> Entry {
    Entry {
        outcome_id: stored.outcome.outcome_id.clone(),
        agent: stored.outcome.agent_name.clone(),
        success: stored.outcome.success,
        timestamp: stored.outcome.timestamp.clone(),
        document: search::document(stored),
    }
}
