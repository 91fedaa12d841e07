//! Stopping for a person: the size question, the commit writer's nested
//! question, and the session state they leave for `resume`.

use anyhow::Result;

use crate::historian::outcome::{Asked, Outcome, Step};
use crate::historian::plan::auto::{self, Unsure};
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
            format!(
                "{} commit{}\n{}",
                run.plan.commits.len(),
                if run.plan.commits.len() == 1 { "" } else { "s" },
                plan_lines.join("\n")
            ),
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

/// The plan is unsure how to split the work: the QUESTION shows the split
/// proposed (its commits and their items), the closest call it rests on,
/// and offers each reading weighed, "keep as one commit" last.
pub(super) fn ask_untangle(mut run: Run<'_>, ctx: &Context<'_>, unsure: Unsure) -> Result<Outcome> {
    let changes = &run.analysis.changes;
    let names = |items: &[usize]| -> Vec<String> { items.iter().map(|&i| changes.item_name(i)).collect() };
    let listed = |items: &[usize]| -> String {
        let all = names(items);
        let shown: Vec<&str> = all.iter().take(4).map(String::as_str).collect();
        let more = all.len().saturating_sub(shown.len());
        let list = crate::historian::message::without_controls(&shown.join(", ")).into_owned();
        if more > 0 {
            format!("{list} and {more} more")
        } else {
            list
        }
    };
    let (a, b, chance) = &unsure.closest;
    let proposed = &unsure.readings[0].1;
    let drafted = auto::commits_described(ctx, proposed.clone());
    let mut question = format!(
        "The plan is not sure how to split this work. It proposes {} {}:\n",
        proposed.len(),
        if proposed.len() == 1 { "commit" } else { "commits" }
    );
    for (n, (commit, items)) in drafted.commits.iter().zip(proposed).enumerate() {
        let subject = crate::historian::message::without_controls(commit.subject()).into_owned();
        question.push_str(&format!("  {}. {subject}: {}\n", n + 1, listed(items)));
    }
    if !a.is_empty() && !b.is_empty() {
        question.push_str(&format!(
            "Its closest call: {} with {}, a chance of {:.2} of belonging together against a threshold of {:.2}.",
            listed(a),
            listed(b),
            chance,
            unsure.threshold
        ));
    }
    let options: Vec<String> = unsure
        .readings
        .iter()
        .map(|(label, groups)| {
            let parts: Vec<String> = groups.iter().map(|g| listed(g)).collect();
            let count = match groups.len() {
                1 => "1 commit".to_owned(),
                n => format!("{n} commits"),
            };
            let mut label = label.clone();
            if let Some(first) = label.get_mut(0..1) {
                first.make_ascii_uppercase();
            }
            if groups.len() == 1 {
                format!("{label} ({count})")
            } else {
                format!("{label}: {count} ({})", parts.join(" | "))
            }
        })
        .collect();
    let readings: Vec<Vec<Vec<String>>> = unsure
        .readings
        .iter()
        .map(|(_, groups)| groups.iter().map(|g| names(g)).collect())
        .collect();
    run.plan = drafted;
    let q = Question {
        context: "Planning commits - the split is unsure".to_owned(),
        resume_state: resume_state(&run),
        question,
        options,
        prompt: DEFAULT_PROMPT.into(),
    };
    stop(run, q, Pending::Untangle { readings })
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
