//! Outcomes (DESIGN §17, seed `002_…`): what an execution did, the plan
//! reverse-engineered from it, and search over both, stored in git as
//! `refs/ultraplan-outcomes`. Runs record their own ([`from_run`]); any agent
//! records its own through `git ultraplan outcome log` ([`log`]).
//!
//! Never prints: warnings (an extractor that failed) are returned.

pub mod extract;
pub mod from_run;
pub mod model;
pub mod search;
pub mod search_index;
pub mod store;

use std::path::Path;

use anyhow::{anyhow, Result};

pub use extract::ExtractorCommand;
pub use model::{ExtractedPlan, Outcome, OutcomeInput};
pub use store::{Statistics, Stored, OUTCOMES_REF};

use crate::cli::config;
use crate::git::{GitConfig, Repo};

/// What `ultraplan.outcomes` asks runs to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recording {
    Off,
    Runs,
    Steps,
}

/// The outcome settings from git configuration.
#[derive(Clone, Debug)]
pub struct Settings {
    pub recording: Recording,
    pub auto_extract: bool,
    pub extractor: Option<ExtractorCommand>,
}

impl Settings {
    pub fn from_config(cfg: &GitConfig) -> Result<Settings> {
        let recording = match config::string(cfg, &config::OUTCOMES).trim() {
            "runs" | "true" | "on" => Recording::Runs,
            "steps" => Recording::Steps,
            "off" | "false" | "none" => Recording::Off,
            other => {
                return Err(anyhow!(
                    "bad config value '{other}' for '{}': expected runs, steps or off",
                    config::OUTCOMES.name
                ))
            }
        };
        let extractor = cfg
            .string(config::OUTCOMES_EXTRACTOR.name)
            .filter(|c| !c.trim().is_empty())
            .map(|command| -> Result<ExtractorCommand> {
                Ok(ExtractorCommand {
                    command,
                    timeout: config::duration(cfg, &config::OUTCOMES_EXTRACTOR_TIMEOUT)?,
                })
            })
            .transpose()?;
        Ok(Settings {
            recording,
            auto_extract: config::boolean(cfg, &config::OUTCOMES_AUTO_EXTRACT)?,
            extractor,
        })
    }
}

/// What recording an outcome did.
#[derive(Clone, Debug)]
pub struct Logged {
    pub outcome: Outcome,
    pub plan: Option<ExtractedPlan>,
    pub warnings: Vec<String>,
}

/// The seed's `log_outcome()`: validates `input`, redacts it, extracts a
/// plan from a success (unless auto-extraction is off) and stores both as
/// one record. `cwd` is where an extractor command runs.
pub fn log(repo: &Repo, input: &OutcomeInput, settings: &Settings, cwd: &Path) -> Result<Logged> {
    input.validate()?;
    let mut last_taken = None;
    // A 32-bit id drawn again if it is taken (rare, but ids must be unique).
    for _ in 0..8 {
        let outcome = new_outcome(input)?;
        let mut warnings = Vec::new();
        let plan = if outcome.success && settings.auto_extract {
            let extraction = extract::extract(&outcome, settings.extractor.as_ref(), cwd, &outcome.timestamp);
            warnings.extend(extraction.warning);
            Some(store::redacted(&extraction.plan)?)
        } else {
            None
        };
        let record = store::Record {
            outcome: Some(&outcome),
            plan: plan.as_ref(),
        };
        let message = format!(
            "outcome {}: {}",
            outcome.outcome_id,
            if outcome.success { "success" } else { "failure" }
        );
        match store::write(repo, record, &outcome.agent_name, &message) {
            Ok(_) => {
                return Ok(Logged {
                    outcome,
                    plan,
                    warnings,
                })
            }
            Err(err) if err.chain().any(|e| e.downcast_ref::<store::IdTaken>().is_some()) => last_taken = Some(err),
            Err(err) => return Err(err),
        }
    }
    Err(last_taken.unwrap_or_else(|| anyhow!("cannot draw an unused outcome id")))
}

/// The outcome as stored: a fresh id and timestamp, every string redacted.
fn new_outcome(input: &OutcomeInput) -> Result<Outcome> {
    let outcome = Outcome {
        outcome_id: format!("outcome_{}_{}", input.agent_name, model::random_hex8(&input.task)),
        task_description: input.task.clone(),
        agent_name: input.agent_name.clone(),
        execution_path: input.execution_path.clone(),
        result: input.result.clone(),
        success: input.success,
        error_message: input.error_message.clone(),
        execution_time: input.execution_time,
        timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        context: input.context.clone(),
        tags: vec![
            "production".into(),
            "outcome".into(),
            if input.success { "success" } else { "failure" }.into(),
        ],
    };
    let clean = store::redacted(&outcome)?;
    if clean.agent_name != outcome.agent_name {
        return Err(anyhow!(
            "invalid agent_name: it looks like a secret and would be stored redacted"
        ));
    }
    Ok(clean)
}

/// `outcome extract <id>`: extracts the plan of a stored outcome again (by
/// the configured extractor or the rules) and stores it in place of the old one.
pub fn extract_again(repo: &Repo, id: &str, settings: &Settings, cwd: &Path) -> Result<(ExtractedPlan, Vec<String>)> {
    let stored = store::find(repo, id)?.ok_or_else(|| unknown(id))?;
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let extraction = extract::extract(&stored.outcome, settings.extractor.as_ref(), cwd, &now);
    let plan = store::redacted(&extraction.plan)?;
    store::write(
        repo,
        store::Record {
            outcome: None,
            plan: Some(&plan),
        },
        &stored.outcome.agent_name,
        &format!("plan {}: extracted by {}", plan.plan_id, plan.extracted_by),
    )?;
    Ok((plan, extraction.warning.into_iter().collect()))
}

/// The error for an id that names no stored outcome.
pub fn unknown(id: &str) -> anyhow::Error {
    anyhow!("no outcome '{id}' is stored in {OUTCOMES_REF}")
}

/// Which outcomes `list` and `search` show.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub agent: Option<String>,
    /// `Some(true)`: successes only; `Some(false)`: failures only.
    pub success: Option<bool>,
    /// Only outcomes at or after this instant.
    pub since: Option<chrono::DateTime<chrono::Utc>>,
}

impl Filter {
    pub fn keeps(&self, outcome: &Outcome) -> bool {
        self.keeps_fields(&outcome.agent_name, outcome.success, &outcome.timestamp)
    }

    /// [`Filter::keeps`] from the fields it reads.
    pub fn keeps_fields(&self, agent: &str, success: bool, timestamp: &str) -> bool {
        self.agent.as_ref().is_none_or(|a| a == agent)
            && self.success.is_none_or(|s| s == success)
            && self
                .since
                .is_none_or(|since| chrono::DateTime::parse_from_rfc3339(timestamp).is_ok_and(|at| at >= since))
    }
}

/// Stored outcomes that pass `filter`, newest first.
pub fn list(repo: &Repo, filter: &Filter) -> Result<Vec<Stored>> {
    let mut all: Vec<Stored> = store::load_all(repo)?
        .into_iter()
        .filter(|s| filter.keeps(&s.outcome))
        .collect();
    all.sort_by(|a, b| {
        b.outcome
            .timestamp
            .cmp(&a.outcome.timestamp)
            .then_with(|| a.outcome.outcome_id.cmp(&b.outcome.outcome_id))
    });
    Ok(all)
}

/// A search hit.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Hit {
    pub score: f64,
    #[serde(flatten)]
    pub stored: Stored,
}

/// Outcomes that pass `filter`, ranked by BM25 against `query`, at most `limit`.
pub fn search_stored(all: Vec<Stored>, filter: &Filter, query: &str, limit: usize) -> Vec<Hit> {
    let kept: Vec<Stored> = all.into_iter().filter(|s| filter.keeps(&s.outcome)).collect();
    let documents: Vec<String> = kept.iter().map(search::document).collect();
    let ranked = search::rank(&documents, query);
    let mut kept: Vec<Option<Stored>> = kept.into_iter().map(Some).collect();
    ranked
        .into_iter()
        .take(limit)
        .filter_map(|(i, score)| kept[i].take().map(|stored| Hit { score, stored }))
        .collect()
}

/// [`search_stored`] over the outcomes stored in `repo`, ranked from the
/// [`search_index`]; only the hits are read from the store in full.
pub fn search(repo: &Repo, filter: &Filter, query: &str, limit: usize) -> Result<Vec<Hit>> {
    let kept: Vec<search_index::Entry> = search_index::entries(repo)?
        .into_iter()
        .filter(|e| filter.keeps_fields(&e.agent, e.success, &e.timestamp))
        .collect();
    let documents: Vec<String> = kept.iter().map(|e| e.document.clone()).collect();
    let mut hits = Vec::new();
    for (i, score) in search::rank(&documents, query).into_iter().take(limit) {
        let stored = store::find(repo, &kept[i].outcome_id)?.ok_or_else(|| unknown(&kept[i].outcome_id))?;
        hits.push(Hit { score, stored });
    }
    Ok(hits)
}

#[cfg(test)]
mod tests;
