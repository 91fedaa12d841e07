//! The outcome store: `refs/ultraplan-outcomes`, a commit chain whose tree
//! holds the seed's namespaces as folders — `outcomes/<agent>/<id>.yaml`,
//! `plans/<agent>/<plan-id>.yaml`, `training/<agent>/<training-id>.yaml`.
//! One record is one commit, one compare-and-swap ref update (retried on
//! contention). Everything written is redacted first; two clones' histories
//! merge as the union of their files (ids are unique).

use std::collections::BTreeMap;

use anyhow::{anyhow, Context as _, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::model::{agent_of, outcome_id_problem, ExtractedPlan, Outcome, TrainingExample};
use crate::git::{EntryKind, Oid, Repo, TreeEdit};
use crate::redact::redact;

/// Outside `refs/ultraplan/`, so that no plan's slug can collide with it.
pub const OUTCOMES_REF: &str = "refs/ultraplan-outcomes";

/// What one record adds: an outcome, and the plan extracted from it if any
/// (stored as a plan and as a training example).
pub struct Record<'a> {
    pub outcome: Option<&'a Outcome>,
    pub plan: Option<&'a ExtractedPlan>,
}

/// A stored outcome with the plan extracted from it, if one was.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stored {
    pub outcome: Outcome,
    pub plan: Option<ExtractedPlan>,
}

/// The seed's `get_statistics()` counters, for one agent or all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub outcomes_logged: usize,
    pub plans_extracted: usize,
    pub training_examples_stored: usize,
}

/// The counters in total and per agent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Statistics {
    #[serde(flatten)]
    pub total: Counters,
    pub agents: BTreeMap<String, Counters>,
}

/// Every string of `value` (keys and values, at any depth) redacted.
pub fn redacted<T: Serialize + DeserializeOwned>(value: &T) -> Result<T> {
    fn walk(v: &mut Value) {
        match v {
            Value::String(s) => {
                if let std::borrow::Cow::Owned(r) = redact(s) {
                    *s = r;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (k, mut child) in entries {
                    walk(&mut child);
                    map.insert(redact(&k).into_owned(), child);
                }
            }
            _ => {}
        }
    }
    let mut json = serde_json::to_value(value)?;
    walk(&mut json);
    Ok(serde_json::from_value(json)?)
}

fn outcome_path(outcome: &Outcome) -> String {
    format!("outcomes/{}/{}.yaml", outcome.agent_name, outcome.outcome_id)
}

fn plan_path(agent: &str, plan: &ExtractedPlan) -> String {
    format!("plans/{agent}/{}.yaml", plan.plan_id)
}

fn training_path(agent: &str, plan: &ExtractedPlan) -> String {
    format!("training/{agent}/training_{}.yaml", plan.plan_id)
}

/// Writes one record as one commit on [`OUTCOMES_REF`]. A new outcome whose
/// id is already stored is refused (the caller draws another id). Returns
/// the new tip.
pub fn write(repo: &Repo, record: Record<'_>, agent: &str, message: &str) -> Result<Oid> {
    let mut blobs: Vec<(String, Oid)> = Vec::new();
    let mut new_path = None;
    if let Some(outcome) = record.outcome {
        let path = outcome_path(outcome);
        blobs.push((path.clone(), write_yaml(repo, outcome)?));
        new_path = Some(path);
    }
    if let Some(plan) = record.plan {
        let outcome = match record.outcome {
            Some(o) => o.clone(),
            None => {
                find(repo, &plan.outcome_id)?
                    .ok_or_else(|| anyhow!("no outcome '{}' is stored", plan.outcome_id))?
                    .outcome
            }
        };
        blobs.push((plan_path(agent, plan), write_yaml(repo, plan)?));
        let training = TrainingExample::new(outcome, plan.clone());
        blobs.push((training_path(agent, plan), write_yaml(repo, &training)?));
    }
    let message = redact(message).into_owned();
    repo.append_to_chain(OUTCOMES_REF, &message, &mut |repo, tree| {
        if let (Some(path), Some(tree)) = (&new_path, tree) {
            if repo.tree_entry(tree, path)?.is_some() {
                return Err(anyhow!(IdTaken(path.clone())));
            }
        }
        Ok(blobs
            .iter()
            .map(|(path, id)| TreeEdit::Blob {
                path: path.clone(),
                id: *id,
                executable: false,
            })
            .collect())
    })
}

/// A new outcome's id is already stored.
#[derive(Debug)]
pub struct IdTaken(pub String);

impl std::fmt::Display for IdTaken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}' is already stored", self.0)
    }
}

impl std::error::Error for IdTaken {}

fn write_yaml<T: Serialize + DeserializeOwned>(repo: &Repo, value: &T) -> Result<Oid> {
    let text = serde_yaml::to_string(&redacted(value)?)?;
    repo.write_blob(text.as_bytes())
}

fn read_yaml<T: DeserializeOwned>(repo: &Repo, id: Oid, path: &str) -> Result<T> {
    let bytes = repo.read_blob(id)?;
    crate::yaml::parse_bytes_as(&bytes).with_context(|| format!("cannot read {OUTCOMES_REF}:{path}"))
}

/// Why the file at `path` of an outcomes tree, of `kind` and with `bytes`,
/// is not a record this store writes; `None` when it is one. `sync` asks
/// this of every file it would take from a remote, so that a hostile or
/// broken chain (`outcomes/..x/…`, a record whose id is not its name, a file
/// that does not read) is refused before it is merged, and never spread.
pub fn record_problem(path: &str, kind: EntryKind, bytes: &[u8]) -> Option<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let [folder, agent, file] = parts.as_slice() else {
        return Some("it is not <folder>/<agent>/<id>.yaml".into());
    };
    if !matches!(*folder, "outcomes" | "plans" | "training") {
        return Some(format!(
            "'{folder}' is not a folder of outcomes (outcomes, plans, training)"
        ));
    }
    if let Some(problem) = super::model::agent_name_problem(agent) {
        return Some(format!("the agent name {problem}"));
    }
    let Some(stem) = file.strip_suffix(".yaml") else {
        return Some("it is not a .yaml file".into());
    };
    if kind != EntryKind::Blob {
        return Some("it is not a plain file".into());
    }
    let named = |what: &str, id: &str, want: &str| {
        (id != want).then(|| format!("it holds {what} '{id}', not the one its name says ('{want}')"))
    };
    let unreadable = |e: crate::yaml::YamlError| Some(format!("it does not read as a record: {e}"));
    match *folder {
        "outcomes" => {
            if let Some(problem) = outcome_id_problem(stem) {
                return Some(problem);
            }
            if agent_of(stem) != Some(*agent) {
                return Some(format!("'{stem}' is not an outcome of agent '{agent}'"));
            }
            match crate::yaml::parse_bytes_as::<Outcome>(bytes) {
                Ok(o) => named("outcome", &o.outcome_id, stem).or_else(|| named("agent", &o.agent_name, agent)),
                Err(e) => unreadable(e),
            }
        }
        "plans" => match crate::yaml::parse_bytes_as::<ExtractedPlan>(bytes) {
            Ok(p) => named("plan", &p.plan_id, stem),
            Err(e) => unreadable(e),
        },
        _ => match crate::yaml::parse_bytes_as::<TrainingExample>(bytes) {
            Ok(t) => named("training example", &t.training_id, stem),
            Err(e) => unreadable(e),
        },
    }
}

/// The outcome `id` and its plan, if stored.
pub fn find(repo: &Repo, id: &str) -> Result<Option<Stored>> {
    if let Some(problem) = outcome_id_problem(id) {
        return Err(anyhow!(problem));
    }
    let Some(tip) = repo.read_ref(OUTCOMES_REF)? else {
        return Ok(None);
    };
    let tree = repo.commit_tree(tip)?;
    let agent = agent_of(id).unwrap_or_default();
    let path = format!("outcomes/{agent}/{id}.yaml");
    let Some((blob, _)) = repo.tree_entry(tree, &path)? else {
        return Ok(None);
    };
    let outcome: Outcome = read_yaml(repo, blob, &path)?;
    let plan_path = format!("plans/{agent}/{}.yaml", super::extract::plan_id(id));
    let plan = match repo.tree_entry(tree, &plan_path)? {
        Some((blob, _)) => Some(read_yaml(repo, blob, &plan_path)?),
        None => None,
    };
    Ok(Some(Stored { outcome, plan }))
}

/// Every stored outcome with its plan, by agent and id.
pub fn load_all(repo: &Repo) -> Result<Vec<Stored>> {
    let Some(tip) = repo.read_ref(OUTCOMES_REF)? else {
        return Ok(Vec::new());
    };
    let tree = repo.commit_tree(tip)?;
    let read = |folder: &str| -> Result<Vec<(String, Vec<u8>)>> {
        let mut out = Vec::new();
        for (agent, files) in namespace(repo, tree, folder)? {
            for (name, blob) in files {
                out.push((format!("{folder}/{agent}/{name}"), repo.read_blob(blob)?));
            }
        }
        Ok(out)
    };
    let plans: Vec<ExtractedPlan> = parse_all(read("plans")?)?;
    let outcomes: Vec<Outcome> = parse_all(read("outcomes")?)?;
    let mut plans: BTreeMap<String, ExtractedPlan> = plans.into_iter().map(|p| (p.outcome_id.clone(), p)).collect();
    Ok(outcomes
        .into_iter()
        .map(|outcome| {
            let plan = plans.remove(&outcome.outcome_id);
            Stored { outcome, plan }
        })
        .collect())
}

/// Parses YAML documents on every core: with thousands of outcomes, parsing
/// is most of the time a search takes. Keeps the order.
fn parse_all<T: DeserializeOwned + Send>(docs: Vec<(String, Vec<u8>)>) -> Result<Vec<T>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let chunk = docs.len().div_ceil(threads).max(256);
    let parse = |part: &[(String, Vec<u8>)]| -> Result<Vec<T>> {
        part.iter()
            .map(|(path, bytes)| {
                crate::yaml::parse_bytes_as(bytes).with_context(|| format!("cannot read {OUTCOMES_REF}:{path}"))
            })
            .collect()
    };
    if docs.len() <= chunk {
        return parse(&docs);
    }
    let parts: Vec<Result<Vec<T>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = docs
            .chunks(chunk)
            .map(|part| scope.spawn(move || parse(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(anyhow!("a parser thread panicked"))))
            .collect()
    });
    let mut out = Vec::with_capacity(docs.len());
    for part in parts {
        out.extend(part?);
    }
    Ok(out)
}

/// The seed's counters, from the tree alone (nothing parsed).
pub fn statistics(repo: &Repo) -> Result<Statistics> {
    let mut stats = Statistics::default();
    let Some(tip) = repo.read_ref(OUTCOMES_REF)? else {
        return Ok(stats);
    };
    let tree = repo.commit_tree(tip)?;
    for (folder, pick) in [
        (
            "outcomes",
            (|c: &mut Counters| &mut c.outcomes_logged) as fn(&mut Counters) -> &mut usize,
        ),
        ("plans", |c: &mut Counters| &mut c.plans_extracted),
        ("training", |c: &mut Counters| &mut c.training_examples_stored),
    ] {
        for (agent, files) in namespace(repo, tree, folder)? {
            *pick(stats.agents.entry(agent).or_default()) += files.len();
            *pick(&mut stats.total) += files.len();
        }
    }
    Ok(stats)
}

type Folder = Vec<(String, Oid)>;

/// The files of `folder/<agent>/` for each agent.
fn namespace(repo: &Repo, tree: Oid, folder: &str) -> Result<Vec<(String, Folder)>> {
    let Some((id, EntryKind::Tree)) = repo.tree_entry(tree, folder)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (agent, agent_tree, kind) in repo.list_tree(id)? {
        if kind != EntryKind::Tree {
            continue;
        }
        let files = repo
            .list_tree(agent_tree)?
            .into_iter()
            .filter(|(name, _, kind)| *kind != EntryKind::Tree && name.ends_with(".yaml"))
            .map(|(name, id, _)| (name, id))
            .collect();
        out.push((agent, files));
    }
    Ok(out)
}
