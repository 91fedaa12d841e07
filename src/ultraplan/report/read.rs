//! The report's model, read from what a run recorded — only through the
//! state's own accessors ([`catalog`]: the plan's run and session states and
//! the runs in their chains; a state's progress, `sessions.json`, `base`
//! and `plan.md`) and the attempts' records (the note format). Nothing is
//! written, and nothing is read that redaction did not pass: every text
//! here was redacted when it was stored, and the attempts' texts pass
//! [`crate::redact::redact`] once more on their way into the model.
//!
//! Which run: the latest run of the plan's run state. A parallel run's
//! lanes are its sessions, each with every run of its session state that
//! started within the parallel run (a resume runs again the sessions it
//! had not merged); a foreground run is one lane. Sessions run on their
//! own (`run --session N`, with no run state) are each a lane of their
//! latest run.

use anyhow::Result;

use super::model::{Attempt, Lane, Report, Step, Verify};
use crate::git::{Oid, Repo};
use crate::ultraplan::engine::risk;
use crate::ultraplan::engine::waves::SessionRecord;
use crate::ultraplan::plan::Plan;
use crate::ultraplan::result::Usage;
use crate::ultraplan::state::{catalog, note_stream, Progress, RunState};

/// What to read.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The plan's slug (`refs/ultraplan/<slug>/`).
    pub slug: String,
    /// The plan's path as runs record it, when one was named: states of
    /// another plan with the same slug are passed over, with a warning.
    pub wanted: Option<String>,
    /// Where a commit can be looked at: this prefix and the full id.
    pub commit_url: Option<String>,
}

/// The report of the plan's latest run; `None` when nothing is recorded.
pub fn read(repo: &Repo, options: &Options) -> Result<Option<Report>> {
    let mut warnings = Vec::new();
    let states: Vec<RunState<'_>> = catalog::states(repo, &options.slug)?
        .into_iter()
        .filter(|s| match &options.wanted {
            Some(w) if *w != s.progress.plan => {
                warnings.push(format!(
                    "the state '{}' belongs to '{}', not to '{w}'; left out",
                    s.ref_name, s.progress.plan
                ));
                false
            }
            _ => true,
        })
        .collect();
    let (main, sessions): (Vec<&RunState<'_>>, Vec<&RunState<'_>>) =
        states.iter().partition(|s| s.ref_name.ends_with("/run"));
    let Some(first) = main.first().or(sessions.first()) else {
        return Ok(None);
    };
    let plan_text = first.read_text("plan.md")?.unwrap_or_default();
    let plan = parse_plan(&plan_text, &first.progress.plan);
    let mut report = Report {
        plan: first.progress.plan.clone(),
        title: plan.as_ref().and_then(|p| p.title.clone()),
        commit_url: options.commit_url.clone(),
        warnings,
        ..Report::default()
    };
    let mut attempts: Vec<(Option<u32>, u32, Attempt)> = Vec::new();
    let mut progress_of_steps: Vec<&Progress> = Vec::new();
    match main.first() {
        Some(run) => {
            describe_run(&mut report, &run.progress);
            progress_of_steps.push(&run.progress);
            match run.read_text("sessions.json")? {
                Some(text) => {
                    report.parallel = true;
                    let records: Vec<SessionRecord> = serde_json::from_str(&text).unwrap_or_default();
                    for record in records {
                        let state = sessions.iter().find(|s| {
                            s.progress.session == Some(record.number)
                                && s.ref_name.ends_with(&format!("/session-{}", record.number))
                        });
                        let mut lane = lane_of(&record);
                        if let Some(state) = state {
                            // Oldest first: a rerun's attempts come after the first run's.
                            let mut runs = catalog::history(repo, &state.ref_name)?;
                            runs.retain(|r| r.progress.started_at >= run.progress.started_at);
                            runs.reverse();
                            for past in runs {
                                lane.runs += 1;
                                for a in &past.attempts {
                                    attempts.push((Some(record.number), a.step, attempt_of(repo, a, lane.runs)?));
                                }
                            }
                        }
                        report.lanes.push(lane);
                    }
                }
                None => {
                    report.lanes.push(Lane {
                        session: None,
                        result: run.progress.status.as_str().into(),
                        runs: 1,
                        ..Lane::default()
                    });
                    if let Some(past) = catalog::history(repo, &run.ref_name)?.into_iter().next() {
                        for a in &past.attempts {
                            attempts.push((None, a.step, attempt_of(repo, a, 1)?));
                        }
                    }
                }
            }
        }
        None => {
            // Sessions run on their own: each its latest run.
            for state in &sessions {
                if report.run_id.is_empty() {
                    describe_run(&mut report, &state.progress);
                }
                let n = state.progress.session;
                report.lanes.push(Lane {
                    session: n,
                    title: n
                        .and_then(|n| plan.as_ref().and_then(|p| p.session(n)))
                        .map(|s| s.title.clone())
                        .unwrap_or_default(),
                    wave: None,
                    result: state.progress.status.as_str().into(),
                    runs: 1,
                    ..Lane::default()
                });
                progress_of_steps.push(&state.progress);
                if let Some(past) = catalog::history(repo, &state.ref_name)?.into_iter().next() {
                    for a in &past.attempts {
                        attempts.push((n, a.step, attempt_of(repo, a, 1)?));
                    }
                }
            }
            report.started_at = sessions
                .iter()
                .map(|s| s.progress.started_at.clone())
                .min()
                .unwrap_or_default();
            report.updated_at = sessions
                .iter()
                .map(|s| s.progress.updated_at.clone())
                .max()
                .unwrap_or_default();
            report.status = sessions
                .iter()
                .map(|s| s.progress.status.as_str())
                .find(|s| *s != "completed")
                .unwrap_or("completed")
                .into();
        }
    }
    for (seq, (_, _, a)) in attempts.iter_mut().enumerate() {
        a.seq = seq;
    }
    report.steps = steps(plan.as_ref(), &progress_of_steps, attempts, report.parallel);
    measure_risk(repo, &mut report, main.first().copied())?;
    Ok(Some(report))
}

fn parse_plan(text: &str, path: &str) -> Option<Plan> {
    if text.is_empty() {
        return None;
    }
    let name = std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_owned());
    crate::ultraplan::plan::parse(text, &name).ok()
}

fn describe_run(report: &mut Report, p: &Progress) {
    report.run_id = p.run_id.clone();
    report.status = p.status.as_str().into();
    report.mode = p.mode.clone();
    report.started_at = p.started_at.clone();
    report.updated_at = p.updated_at.clone();
    report.executor = p.executor.clone();
}

fn lane_of(record: &SessionRecord) -> Lane {
    Lane {
        session: Some(record.number),
        title: record.title.clone(),
        wave: Some(record.wave),
        result: record.result.clone(),
        merged: record.merged,
        merge_commit: record.merge_commit.clone(),
        runs: 0,
    }
}

/// An attempt from its record (the newest document, should a record be a
/// stream of two clones' results); what the state's summary of it says
/// where the record is missing or unreadable.
fn attempt_of(repo: &Repo, recorded: &catalog::RecordedAttempt, run: u32) -> Result<Attempt> {
    let doc = recorded
        .record(repo)?
        .and_then(|(_, text)| note_stream::documents(&text).ok())
        .and_then(|mut d| d.pop())
        .unwrap_or_default();
    let result = &doc["result"];
    let meta = &result["metadata"];
    // Stored redacted; passed through redaction again all the same, as a
    // record may come from another clone or an older version (and a
    // redacted text comes back unchanged).
    let text = |v: &serde_yaml::Value| v.as_str().map(|t| crate::redact::redact(t).into_owned());
    let verification = &result["verification"];
    let verify = text(&verification["command"]).map(|command| Verify {
        command,
        exit_code: verification["exit_code"].as_i64(),
        output: text(&verification["output_summary"]).unwrap_or_default(),
    });
    Ok(Attempt {
        number: recorded.attempt,
        run,
        seq: 0,
        task_name: text(&result["task_name"]).unwrap_or_default(),
        status: text(&result["status"]).unwrap_or_else(|| recorded.status.clone()),
        logged_at: text(&doc["logged_at"]).unwrap_or_default(),
        duration_ms: meta["duration_ms"].as_u64().or(recorded.duration_ms).unwrap_or(0),
        executor: text(&meta["executor_id"]).unwrap_or_default(),
        model: text(&meta["model"]),
        agent_session: text(&meta["session_id"]),
        verify,
        error: text(&result["error"])
            .or_else(|| recorded.error.as_deref().map(|e| crate::redact::redact(e).into_owned())),
        files: result["files_modified"]
            .as_sequence()
            .map(|s| s.iter().filter_map(|f| f.as_str().map(str::to_owned)).collect())
            .unwrap_or_default(),
        commit: recorded.commit.clone(),
        usage: Usage::of_record(&doc),
        validation: text(&doc["validation"]).unwrap_or_default(),
        warnings: doc["warnings"]
            .as_sequence()
            .map(|s| s.iter().filter_map(|w| w.as_str().map(str::to_owned)).collect())
            .unwrap_or_default(),
    })
}

/// The plan's steps (or, when its text does not parse, the steps the
/// progress names) with their attempts and final status.
fn steps(
    plan: Option<&Plan>,
    progress: &[&Progress],
    mut attempts: Vec<(Option<u32>, u32, Attempt)>,
    parallel: bool,
) -> Vec<Step> {
    let mut numbers: Vec<(u32, String)> = match plan {
        Some(p) => p.steps.iter().map(|s| (s.number, s.title.clone())).collect(),
        None => Vec::new(),
    };
    for p in progress {
        for n in p.steps.keys() {
            if !numbers.iter().any(|(m, _)| m == n) {
                numbers.push((*n, String::new()));
            }
        }
    }
    // A step only an attempt names (a plan changed since).
    for (_, n, _) in &attempts {
        if !numbers.iter().any(|(m, _)| m == n) {
            numbers.push((*n, String::new()));
        }
    }
    numbers.sort_by_key(|(n, _)| *n);
    // Stable: attempts stay in the order they ran within each step.
    attempts.sort_by_key(|(_, n, _)| *n);
    let mut by_step = attempts.into_iter().peekable();
    let mut out = Vec::with_capacity(numbers.len());
    for (number, title) in numbers {
        let mut step = Step {
            number,
            title,
            status: "pending".into(),
            ..Step::default()
        };
        while let Some((session, _, attempt)) = by_step.next_if(|(_, n, _)| *n == number) {
            step.session = session;
            step.attempts.push(attempt);
        }
        if step.session.is_none() && parallel {
            step.session = plan
                .and_then(|p| p.sessions.iter().find(|s| s.steps.contains(&number)))
                .map(|s| s.number);
        }
        for p in progress {
            if let Some(s) = p.steps.get(&number) {
                step.status = s.status.as_str().into();
                step.commit = s.commit.clone();
            }
        }
        if step.title.is_empty() {
            // No plan text names it: the title its results name.
            step.title = step
                .attempts
                .iter()
                .map(|a| task_title(&a.task_name))
                .find(|t| !t.is_empty())
                .unwrap_or_default();
        }
        out.push(step);
    }
    out
}

/// `Write a` of a result's `Task 3: Write a`.
fn task_title(task_name: &str) -> String {
    match task_name.split_once(':') {
        Some((task, title)) if task.trim_start().starts_with("Task") => title.trim().to_owned(),
        _ => task_name.trim().to_owned(),
    }
}

/// The risk table of the run's changes (seed 003's, as the run printed
/// it): a parallel run's from the commit it started on to its last merge;
/// a foreground run's from before its first checkpoint to its last.
fn measure_risk(repo: &Repo, report: &mut Report, run: Option<&RunState<'_>>) -> Result<()> {
    let parse = |id: &str| id.trim().parse::<Oid>().ok();
    let (base, head) = if report.parallel {
        let base = match run {
            Some(state) => state.read_text("base")?.as_deref().and_then(parse),
            None => None,
        };
        let mut merged: Vec<&Lane> = report.lanes.iter().filter(|l| l.merged).collect();
        merged.sort_by_key(|l| (l.wave, l.session));
        let head = merged
            .iter()
            .rev()
            .find_map(|l| l.merge_commit.as_deref().and_then(parse));
        (base, head)
    } else {
        let mut commits: Vec<(&str, &str)> = report
            .attempts()
            .filter_map(|(_, a)| a.commit.as_deref().map(|c| (a.logged_at.as_str(), c)))
            .collect();
        commits.sort();
        let first = commits.first().and_then(|(_, c)| parse(c));
        let base = match first {
            Some(c) if repo.has_object(c) => repo.commit_info(c)?.parents.first().copied(),
            _ => None,
        };
        (base, commits.last().and_then(|(_, c)| parse(c)))
    };
    let (Some(base), Some(head)) = (base, head) else {
        report.risk_note = Some("nothing was merged or committed yet".into());
        return Ok(());
    };
    if !repo.has_object(base) || !repo.has_object(head) {
        report.risk_note = Some("the run's commits are not in this repository".into());
        return Ok(());
    }
    let (files, lines) = repo.diff_stat(repo.commit_tree(base)?, repo.commit_tree(head)?)?;
    let mut assessed = risk::assess(files, lines);
    if report.status != "completed" {
        // What is merged so far is no result to act on (as the run says).
        assessed.action = "none yet: the run did not complete";
    }
    report.risk = Some(assessed);
    Ok(())
}
