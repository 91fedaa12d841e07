//! Stopping for a person: the size question, the commit writer's nested
//! question, and the session state they leave for `resume`.

use anyhow::Result;

use crate::historian::outcome::{Asked, Outcome, Step};
use crate::historian::plan::context::Context;
use crate::historian::plan::split;
use crate::historian::protocol::{Question, ResultBlock, ResumeEntry, ResumeValue, DEFAULT_PROMPT};
use crate::historian::session::{self, Pending, Session, Stage};

use super::branch::settle_branch;
use super::{limits, Run};

/// The resume state every question of ours carries.
fn resume_state(run: &Run<'_>) -> Vec<ResumeEntry> {
    let repo = run.repo;
    let a = run.analysis;
    let text = |key: &str, value: String| ResumeEntry {
        key: key.into(),
        value: ResumeValue::Text(value),
    };
    let plan_lines: Vec<String> = run
        .plan
        .commits
        .iter()
        .enumerate()
        .map(|(n, c)| format!("{}. {}", n + 1, c.subject()))
        .collect();
    vec![
        text("Step", Step::Execute.label()),
        text("Original branch", a.target.branch.clone()),
        text("Original tip", repo.short(a.target.tip)),
        text("Clean branch", run.clean_branch.clone()),
        text("Base commit", repo.short(a.base.commit)),
        text(
            "Commit plan",
            format!("{} commits\n{}", run.plan.commits.len(), plan_lines.join("\n")),
        ),
        text("Current commit", (run.current + 1).to_string()),
        text("Commits completed", run.built.len().to_string()),
        text("Session", session::ref_name(&a.target.branch)),
    ]
}

pub(super) fn ask_size(run: Run<'_>, ctx: &Context<'_>, splits: Vec<split::Split>) -> Result<Outcome> {
    let i = run.current;
    let commit = &run.plan.commits[i];
    let size = split::size(ctx, &commit.items);
    let limits = limits(&run.settings);
    let question = format!(
        "Commit {} of {} \"{}\" is too large: {} files and {} lines (the limits are {} files and {} lines).",
        i + 1,
        run.plan.commits.len(),
        commit.subject(),
        size.files,
        size.lines,
        limits.files,
        limits.lines
    );
    // One line each: a path's line break or escape would break the block.
    let mut options: Vec<String> = splits
        .iter()
        .map(|s| crate::historian::message::without_controls(&split::describe(ctx, s)).into_owned())
        .collect();
    options.push(split::KEEP.to_owned());
    let names: Vec<Vec<Vec<String>>> = splits
        .iter()
        .map(|s| {
            s.parts
                .iter()
                .map(|(_, items)| items.iter().map(|&it| run.analysis.changes.item_name(it)).collect())
                .collect()
        })
        .collect();
    let q = Question {
        context: format!("Executing commit plan - commit {} of {}", i + 1, run.plan.commits.len()),
        resume_state: resume_state(&run),
        question,
        options,
        prompt: DEFAULT_PROMPT.into(),
    };
    stop(run, q, Pending::Size { splits: names })
}

/// The writer's QUESTION (`inner`, read from `text`: what it wrote, already
/// redacted) wrapped in ours; the session keeps `text` as it was written.
pub(super) fn ask_writer(run: Run<'_>, inner: ResultBlock, text: String) -> Result<Outcome> {
    let i = run.current;
    let inner_q = match &inner {
        ResultBlock::Question(q) => q.clone(),
        _ => unreachable!("only questions are asked"),
    };
    let mut state = resume_state(&run);
    state.push(ResumeEntry {
        key: "Commit-writer question".into(),
        value: ResumeValue::Nested(Box::new(inner.clone())),
    });
    let q = Question {
        context: format!("Executing commit plan - commit {} of {}", i + 1, run.plan.commits.len()),
        resume_state: state,
        question: format!(
            "The commit writer asks about commit {} \"{}\": {}",
            i + 1,
            run.plan.commits[i].subject(),
            inner_q.question
        ),
        options: inner_q.options.clone(),
        prompt: DEFAULT_PROMPT.into(),
    };
    stop(run, q, Pending::Writer { block: text })
}

/// Records the session and moves the partial clean branch; the QUESTION.
fn stop(run: Run<'_>, question: Question, pending: Pending) -> Result<Outcome> {
    let repo = run.repo;
    let a = run.analysis;
    let plan_file = run.plan.to_file(&a.changes);
    let (_, hash) = session::plan_hash(repo, &plan_file)?;
    let text = ResultBlock::Question(question.clone()).render();
    let previous = run.stored.as_ref().map(|s| s.commit);
    let session = Session {
        version: session::VERSION,
        branch: a.target.branch.clone(),
        original_tip: a.target.tip.to_string(),
        base: a.base.commit.to_string(),
        base_source: a.base.source.clone(),
        clean_branch: run.clean_branch.clone(),
        stage: Stage::Question,
        step: Step::Execute.number(),
        current: run.current,
        built: run.built.iter().map(|b| b.to_string()).collect(),
        clean_tip: run.built.last().map(|b| b.to_string()),
        previous_clean_tip: run.stored.as_ref().and_then(|s| s.session.clean_tip.clone()),
        plan_hash: hash.to_string(),
        pending,
        settings: run.settings.clone(),
        created_at: run
            .stored
            .as_ref()
            .map(|s| s.session.created_at.clone())
            .unwrap_or_else(|| run.options.now.to_rfc3339()),
    };
    let message = format!(
        "historian: question at commit {} of {}",
        run.current + 1,
        run.plan.commits.len()
    );
    session::save(repo, previous, &session, &plan_file, &text, &message)?;
    settle_branch(repo, &session)?;
    Ok(Outcome::Question(Asked {
        question,
        session: session::ref_name(&a.target.branch),
    }))
}
