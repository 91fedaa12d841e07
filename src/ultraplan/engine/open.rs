//! Opening a run's state: a fresh one, or the recorded one a resume (or a
//! `--step` run) continues, with the plan as it is now.

use anyhow::{Context, Result};

use super::{Event, Mode, Observer, PlanInput, RunOptions};
use crate::error::FatalWithHint;
use crate::git::{Oid, Repo};
use crate::redact::redact;
use crate::ultraplan::plan::sync::same_plan;
use crate::ultraplan::plan::Step;
use crate::ultraplan::state::{now, Progress, RunState, RunStatus, StepStatus};

/// The run state this run records in: a fresh one, or the recorded one it
/// continues.
#[allow(clippy::too_many_arguments)]
pub(super) fn open_state<'r>(
    repo: &'r Repo,
    input: &PlanInput<'_>,
    opts: &RunOptions,
    state_ref: &str,
    steps: &[&Step],
    session: Option<u32>,
    warnings: &mut Vec<String>,
    observer: &mut dyn Observer,
) -> Result<RunState<'r>> {
    let mut warn = |w: String| {
        observer.event(Event::Warning(w.clone()));
        warnings.push(w);
    };
    let existing = RunState::load(repo, state_ref)?;
    if let Some(previous) = &existing {
        refuse_shared_state(previous, &input.path)?;
    }
    let continuing = matches!(opts.mode, Mode::Resume | Mode::ResumeSession(_) | Mode::Step(_));
    match existing {
        Some(state) if continuing => continue_state(repo, input, opts, steps, state, &mut warn),
        previous => {
            let plan_text = redact(input.text).into_owned();
            let fresh = Fresh {
                state_ref,
                steps,
                session,
                plan_text: &plan_text,
            };
            fresh_state(repo, input, opts, fresh, previous, &mut warn)
        }
    }
}

/// The recorded state a resume (or a `--step` run) continues, with the
/// plan as it is now.
fn continue_state<'r>(
    repo: &'r Repo,
    input: &PlanInput<'_>,
    opts: &RunOptions,
    steps: &[&Step],
    mut state: RunState<'r>,
    warn: &mut dyn FnMut(String),
) -> Result<RunState<'r>> {
    // A state an earlier version wrote goes on in this version's layout.
    state.upgrade()?;
    if matches!(opts.mode, Mode::Resume | Mode::ResumeSession(_)) {
        if let Some(holder) = checkpoints_in_head(repo, &state, &input.path)? {
            state.progress.checkpoints_tip = Some(holder.to_string());
        }
    }
    // The checkboxes and status attributes this run wrote into a
    // task plan are its own edits, not a change of the plan.
    let recorded = state.read_text(crate::ultraplan::state::layout::PLAN)?;
    let same = recorded.as_deref().is_some_and(|r| same_plan(r, input.text));
    if !same {
        warn("the plan changed since the run started; its steps are matched by number".into());
        let old_titles = old_titles(recorded.as_deref(), input.text);
        for step in steps {
            if state.progress.status(step.number) == StepStatus::Passed {
                if let Some(old) = old_titles.get(&step.number) {
                    if *old != step.title {
                        warn(format!(
                            "step {} passed as '{old}' and is now titled '{}'; it is not run again",
                            step.number, step.title
                        ));
                    }
                }
            }
        }
    }
    // The plan as recorded and its blob are one object (`plan.md`, as
    // `.md` is redacted, is the redacted text). A plan that is the
    // record byte for byte is the recorded blob: not redacted again.
    let recorded_blob = match recorded.as_deref() == Some(input.text) {
        true => state.read_blob_id(crate::ultraplan::state::layout::PLAN)?,
        false => None,
    };
    let plan_blob = match (same, recorded_blob) {
        (false, _) => state.put_text(crate::ultraplan::state::layout::PLAN, input.text)?,
        (true, Some(blob)) => blob,
        (true, None) => crate::ultraplan::state::write_text(repo, input.text)?,
    };
    state.progress.mode = opts.mode.name();
    state.progress.status = RunStatus::InProgress;
    state.progress.summary = None;
    state.progress.plan_blob = plan_blob.to_string();
    for step in steps {
        state.progress.steps.entry(step.number).or_default();
    }
    state.progress.total_steps = state.progress.steps.len();
    Ok(state)
}

/// What a fresh state starts from.
struct Fresh<'a> {
    state_ref: &'a str,
    steps: &'a [&'a Step],
    session: Option<u32>,
    plan_text: &'a str,
}

/// A fresh state, keeping what the `previous` run showed to a person.
fn fresh_state<'r>(
    repo: &'r Repo,
    input: &PlanInput<'_>,
    opts: &RunOptions,
    fresh: Fresh<'_>,
    previous: Option<RunState<'r>>,
    warn: &mut dyn FnMut(String),
) -> Result<RunState<'r>> {
    let Fresh {
        state_ref,
        steps,
        session,
        plan_text,
    } = fresh;
    // Steps the previous run stopped at for a person: their prompt
    // was shown, so a `blocking-human` gate may take an answer now
    // (a session started over in a new worktree runs them again).
    let previous_answers: Vec<(u32, String)> = previous
        .as_ref()
        .map(|p| {
            p.progress
                .steps
                .keys()
                .filter_map(|n| Some((*n, p.read_text(&p.step_paths(*n).answers()).ok().flatten()?)))
                .collect()
        })
        .unwrap_or_default();
    let mut waited: Vec<u32> = previous
        .as_ref()
        .map(|p| {
            p.progress
                .steps
                .iter()
                .filter(|(_, s)| s.status == crate::ultraplan::state::StepStatus::Waiting)
                .map(|(n, _)| *n)
                .collect()
        })
        .unwrap_or_default();
    // …and those it already knew were shown (a run that failed
    // before reaching them again does not forget them).
    if let Some(p) = &previous {
        let known = p.read_text("shown-to-a-person").ok().flatten().unwrap_or_default();
        for n in known.lines().filter_map(|l| l.trim().parse::<u32>().ok()) {
            if !waited.contains(&n) {
                waited.push(n);
            }
        }
    }
    if let Some(previous) = previous {
        if !matches!(previous.progress.status, RunStatus::Completed) {
            warn(format!(
                "a previous run of this plan ended {} at step {}; starting over (use --resume to continue it)",
                previous.progress.status.as_str(),
                previous.progress.current_step
            ));
        }
    }
    let t = now();
    let progress = Progress {
        schema_version: "1".into(),
        plan: input.path.clone(),
        plan_type: input.plan.kind.as_str().into(),
        started_at: t.clone(),
        updated_at: t,
        mode: opts.mode.name(),
        total_steps: steps.len(),
        current_step: 0,
        status: RunStatus::InProgress,
        steps: steps.iter().map(|s| (s.number, Default::default())).collect(),
        entry_condition_checked: false,
        exit_condition_checked: false,
        summary: None,
        run_id: super::run_id(),
        session,
        executor: opts.executor.id(),
        plan_blob: crate::ultraplan::state::write_text(repo, plan_text)?.to_string(),
        attempts_recorded: 0,
        checkpoints_tip: None,
        touched: Default::default(),
    };
    let mut state = RunState::start(repo, state_ref, progress, input.text)?;
    if !waited.is_empty() {
        let list: String = waited.iter().map(|n| format!("{n}\n")).collect();
        state.put_text("shown-to-a-person", &list)?;
    }
    // What a person already answered in an end-of-phase review is
    // kept when a session starts over.
    for n in &waited {
        let path = state.step_paths(*n).answers();
        if let Some(answers) = previous_answers.iter().find(|(m, _)| m == n).map(|(_, a)| a) {
            state.put_text(&path, answers)?;
        }
    }
    state.save(&format!(
        "run {}: started ({})",
        state.progress.run_id,
        opts.mode.name()
    ))?;
    Ok(state)
}

/// A resume goes on from where the passed steps left HEAD: their work
/// must be in it. Another clone's state (taken by `sync`) while HEAD is on
/// another branch, or a branch reset since, would otherwise end COMPLETED
/// with those steps' work missing. A checkpoint HEAD contains is there; one
/// it does not (amended, rebased) still counts when HEAD holds what it
/// committed, path by path, unless a later step changed that path again.
///
/// When HEAD's history holds the state's [`checkpoints_tip`] it holds every
/// checkpoint: the walk ends there, not at the first step's checkpoint.
/// Returns HEAD when its history holds every checkpoint (the next tip).
///
/// [`checkpoints_tip`]: crate::ultraplan::state::progress::Progress::checkpoints_tip
fn checkpoints_in_head(repo: &Repo, state: &RunState<'_>, plan_path: &str) -> Result<Option<Oid>> {
    let head = repo.head()?;
    let tip = state.progress.checkpoints_tip.as_deref().and_then(|t| t.parse().ok());
    if let (Some(tip), Some(_)) = (tip, head.commit) {
        if repo.not_reachable(head.commit, &[tip])?.is_empty() {
            return Ok(head.commit);
        }
    }
    let mut passed = Vec::new();
    for (n, step) in &state.progress.steps {
        if let Some(commit) = step.passed_checkpoint() {
            let id: crate::git::Oid = commit
                .parse()
                .ok()
                .with_context(|| format!("unreadable checkpoint id of step {n} in the run state"))?;
            passed.push((*n, id));
        }
    }
    let ids: Vec<_> = passed.iter().map(|(_, id)| *id).collect();
    let missing = repo.not_reachable(head.commit, &ids)?;
    if missing.is_empty() {
        return Ok(head.commit);
    }
    let head_tree = match head.commit {
        Some(c) => repo.commit_tree(c)?,
        None => repo.empty_tree(),
    };
    // What each checkpoint committed, and per path the latest step (by
    // number) whose checkpoint changed it: that one's content must be HEAD's.
    let mut committed = Vec::new();
    let mut latest: std::collections::BTreeMap<String, u32> = Default::default();
    for &(n, id) in &passed {
        let changes = if repo.has_object(id) {
            let info = repo.commit_info(id)?;
            let parent = match info.parents.first() {
                Some(p) => repo.commit_tree(*p)?,
                None => repo.empty_tree(),
            };
            Some(repo.changes(parent, info.tree)?)
        } else {
            None
        };
        for change in changes.iter().flatten() {
            latest.insert(change.path.clone(), n);
        }
        committed.push((n, id, changes));
    }
    // Whether HEAD holds what step `n`'s checkpoint committed.
    let holds = |n: u32, changes: &[crate::git::FileChange]| -> Result<bool> {
        for change in changes.iter().filter(|c| latest.get(&c.path) == Some(&n)) {
            if repo.tree_entry(head_tree, &change.path)? != change.new {
                return Ok(false);
            }
        }
        Ok(true)
    };
    let mut lacking = None;
    for (n, id, changes) in committed.iter().filter(|(_, id, _)| missing.contains(id)) {
        let held = match changes {
            Some(changes) => holds(*n, changes)?,
            None => false,
        };
        if !held {
            lacking = Some((*n, *id));
            break;
        }
    }
    let Some((n, id)) = lacking else {
        return Ok(None);
    };
    let short = repo.short(id);
    let hint = format!(
        "check out the branch that holds it (git branch -a --contains {short}), or run the steps left one by one with 'git ultraplan run --step N {}', or start afresh without --resume",
        crate::cli::shell::operand(plan_path)
    );
    if !repo.has_object(id) {
        return Err(FatalWithHint {
            message: format!(
                "step {n} passed with checkpoint {short}, which this repository does not have (it was made in another clone)"
            ),
            hint: format!("fetch the branch the run was on; then {hint}"),
        }
        .into());
    }
    let on = head
        .branch
        .as_deref()
        .map_or("HEAD".to_owned(), |b| b.trim_start_matches("refs/heads/").to_owned());
    Err(FatalWithHint {
        message: format!("step {n} passed with checkpoint {short}, whose work {on} does not hold"),
        hint,
    }
    .into())
}

/// The steps' titles in the plan the run recorded, by number: parsed once,
/// whatever the number of steps (and only when the plan changed). None
/// when steps were only added at the end (the plan `text` goes on from
/// the recorded one): the steps recorded read as they did.
fn old_titles(recorded: Option<&str>, text: &str) -> std::collections::HashMap<u32, String> {
    recorded
        .filter(|recorded| !text.starts_with(recorded))
        .and_then(|text| crate::ultraplan::plan::parse(text, "plan.md").ok())
        .map(|plan| plan.steps.iter().map(|s| (s.number, s.title.clone())).collect())
        .unwrap_or_default()
}

/// DESIGN §8: two plan paths with the same slug are refused with a hint.
pub(super) fn refuse_shared_state(state: &RunState<'_>, plan_path: &str) -> Result<()> {
    if state.progress.plan == plan_path {
        return Ok(());
    }
    Err(crate::error::FatalWithHint {
        message: format!(
            "'{plan_path}' and '{}' share the state '{}'",
            state.progress.plan, state.ref_name
        ),
        hint: "plan files with the same name share their state; rename one of them".into(),
    }
    .into())
}
