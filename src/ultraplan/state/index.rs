//! Reading and writing a state commit's progress in either layout
//! ([`super::layout`]): layout 2's `run.json` and the `steps.json` of each
//! folder of ten steps, layout 1's `progress.json`.

use std::collections::BTreeMap;

use anyhow::{anyhow, Context as _, Result};

use super::layout::{Layout, ENTRIES, PROGRESS_V1, RUN_INDEX, STEPS};
use super::progress::{Progress, StepProgress, StepStatus};
use crate::git::{EntryKind, Oid, Repo};

/// A state commit's progress, as its tree holds it.
#[derive(Clone, Debug)]
pub struct RunIndex {
    pub layout: Layout,
    pub progress: Progress,
    /// The last state commit of the run before this one on the same ref
    /// (layout 2; layout 1 finds it by walking to `run <id>: started`).
    pub previous_run: Option<Oid>,
    /// How many steps are in each status (layout 2's `run.json`; layout 1
    /// counts its steps).
    pub step_counts: BTreeMap<String, usize>,
}

/// How much of a layout-2 state to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// `run.json` alone: the run's fields and counts, no step entries.
    Run,
    /// `run.json` and the entries of the steps it lists as failing (those
    /// that did not pass and say why): what a headline names. A `run.json`
    /// that lists none (written before the list existed) reads every step.
    Headline,
    /// Every step's entry as well.
    Steps,
}

/// The progress in `tree`, `None` when it holds neither `run.json` nor
/// `progress.json` (not a run state).
pub fn read(repo: &Repo, tree: Oid, depth: Depth) -> Result<Option<RunIndex>> {
    if let Some(bytes) = repo.read_path(tree, RUN_INDEX)? {
        let mut value: serde_json::Value =
            serde_json::from_slice(&bytes).with_context(|| format!("cannot read {RUN_INDEX}"))?;
        let layout = value.get("layout").and_then(|v| v.as_u64());
        if layout != Some(2) {
            return Err(anyhow!(
                "{RUN_INDEX} says layout {}; this git-ultraplan reads layouts 1 and 2 (a newer version wrote it: upgrade git-ultraplan)",
                layout.map_or_else(|| "(none)".to_owned(), |l| l.to_string())
            ));
        }
        let previous_run = value
            .get("previous_run")
            .and_then(|v| v.as_str())
            .map(|s| s.parse::<Oid>())
            .transpose()
            .map_err(|_| anyhow!("{RUN_INDEX} names a previous run that is not an object id"))?;
        let step_counts: BTreeMap<String, usize> = value
            .get("step_counts")
            .and_then(|c| serde_json::from_value(c.clone()).ok())
            .unwrap_or_default();
        let failing: Option<Vec<u32>> = value
            .get("failing")
            .and_then(|f| serde_json::from_value(f.clone()).ok());
        if let Some(map) = value.as_object_mut() {
            for extra in ["layout", "previous_run", "step_counts", "failing"] {
                map.remove(extra);
            }
            map.insert("steps".into(), serde_json::json!({}));
        }
        let mut progress: Progress =
            serde_json::from_value(value).with_context(|| format!("cannot read {RUN_INDEX}"))?;
        match (depth, failing) {
            (Depth::Run, _) => {}
            (Depth::Headline, Some(failing)) => {
                for n in failing {
                    if let Some(step) = read_step(repo, tree, n)? {
                        progress.steps.insert(n, step);
                    }
                }
            }
            (Depth::Headline | Depth::Steps, _) => progress.steps = read_steps(repo, tree)?,
        }
        return Ok(Some(RunIndex {
            layout: Layout::V2,
            progress,
            previous_run,
            step_counts,
        }));
    }
    let Some(bytes) = repo.read_path(tree, PROGRESS_V1)? else {
        return Ok(None);
    };
    let progress: Progress = serde_json::from_slice(&bytes).with_context(|| format!("cannot read {PROGRESS_V1}"))?;
    let mut step_counts = BTreeMap::new();
    for step in progress.steps.values() {
        *step_counts.entry(step.status.as_str().to_owned()).or_default() += 1;
    }
    Ok(Some(RunIndex {
        layout: Layout::V1,
        progress,
        previous_run: None,
        step_counts,
    }))
}

/// Every step's entry of a layout-2 tree, by number: one `steps.json` per
/// folder of ten.
pub fn read_steps(repo: &Repo, tree: Oid) -> Result<BTreeMap<u32, StepProgress>> {
    let mut out = BTreeMap::new();
    // Two objects for every ten steps, small and (until git packs them)
    // loose: read by one reader (see `ObjectReader`).
    let mut reader = repo.object_reader();
    let Some((steps, EntryKind::Tree)) = reader.tree_entry(tree, STEPS)? else {
        return Ok(out);
    };
    // The folders above the steps' own, level by level.
    let mut folders = vec![(STEPS.to_owned(), steps)];
    for _ in 0..Layout::V2.depth() {
        let mut inner = Vec::new();
        for (path, folder) in folders {
            for (name, id, kind) in reader.list_tree(folder)? {
                if kind == EntryKind::Tree {
                    inner.push((format!("{path}/{name}"), id));
                }
            }
        }
        folders = inner;
    }
    for (path, folder) in folders {
        if let Some(bytes) = reader.read_path(folder, ENTRIES)? {
            out.extend(parse_entries(&bytes, &format!("{path}/{ENTRIES}"))?);
        }
    }
    Ok(out)
}

/// The step entry of step `n` in a layout-2 tree.
pub fn read_step(repo: &Repo, tree: Oid, n: u32) -> Result<Option<StepProgress>> {
    let path = Layout::V2.entries(n);
    match repo.object_reader().read_path(tree, &path)? {
        None => Ok(None),
        Some(bytes) => Ok(parse_entries(&bytes, &path)?.remove(&n)),
    }
}

/// The entries of the `steps.json` at `path` (named in the error).
fn parse_entries(bytes: &[u8], path: &str) -> Result<BTreeMap<u32, StepProgress>> {
    serde_json::from_slice(bytes).with_context(|| format!("cannot read {path}"))
}

/// Whether step `step` is one a headline names: it did not pass, and says why.
pub fn is_failing(step: &StepProgress) -> bool {
    step.status != StepStatus::Passed && step.error.is_some()
}

/// `run.json`'s text: the progress without its steps, with the layout, the
/// count of steps in each status, the steps that are failing (see
/// [`is_failing`]; as many as failed, not as many as the run has) and the
/// previous run.
///
/// The steps are set aside while the rest is serialized (and put back), so
/// a save does not build and drop a document of every step.
pub fn render_run(progress: &mut Progress, previous_run: Option<Oid>) -> Result<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failing = Vec::new();
    for (n, step) in &progress.steps {
        *counts.entry(step.status.as_str()).or_default() += 1;
        if is_failing(step) {
            failing.push(*n);
        }
    }
    let counts = serde_json::to_value(counts)?;
    let steps = std::mem::take(&mut progress.steps);
    let value = serde_json::to_value(&*progress);
    progress.steps = steps;
    let mut value = value?;
    if let Some(map) = value.as_object_mut() {
        map.remove("steps");
        map.insert("layout".into(), serde_json::json!(2));
        map.insert("step_counts".into(), counts);
        map.insert("failing".into(), serde_json::to_value(failing)?);
        map.insert(
            "previous_run".into(),
            serde_json::json!(previous_run.map(|p| p.to_string())),
        );
    }
    Ok(serde_json::to_string(&value)? + "\n")
}

/// The text of a folder's `steps.json`: a JSON object of the folder's
/// step entries by number, one line each, so that a change to one step is
/// a one-line change (`git diff` shows which step) and `jq` reads it whole
/// (`git show <ref>:steps/0/0/1/steps.json | jq '."12"'`).
pub fn render_entries<'s>(steps: impl IntoIterator<Item = (&'s u32, &'s StepProgress)>) -> Result<String> {
    let mut out = String::from("{");
    for (k, (n, step)) in steps.into_iter().enumerate() {
        out.push_str(if k == 0 { "\n" } else { ",\n" });
        out.push_str(&format!("\"{n}\":{}", serde_json::to_string(step)?));
    }
    out.push_str("\n}\n");
    Ok(out)
}

/// The commit before the `run <id>: started` commit at or below `last`.
pub fn start_parent(repo: &Repo, last: Oid) -> Result<Option<Oid>> {
    let mut next = Some(last);
    while let Some(c) = next {
        let info = repo.commit_info(c)?;
        next = info.parents.first().copied();
        let subject = info.message.lines().next().unwrap_or("");
        if subject.starts_with("run ") && subject.contains(": started") {
            return Ok(next);
        }
    }
    Ok(None)
}
