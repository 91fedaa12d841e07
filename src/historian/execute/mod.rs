//! Steps 5 and 6 (DESIGN §10.1): building the planned commits one by one,
//! stopping for a question when one is over the size limits or the commit
//! writer asks; then the tree-equality check, `--verify-each`, and the
//! clean branch. Also resuming a stopped session and aborting it.
//!
//! The room: [`build`] writes each commit in memory, the [`writer`] (a
//! `historian.commitWriter` command) may write its message, `ask` stops
//! with a QUESTION, `resume` continues after the answer, [`verify_each`] runs
//! `--verify-each` on every commit, and [`branch`] names and moves the
//! clean branch.
//!
//! Order of writes, so that a process killed at any instant leaves a state
//! that `resume` (or `abort`) settles: objects first; then the session ref
//! (recording where the clean branch should point, and where it pointed);
//! then the clean branch; and last, when the run ends, the session ref's
//! removal.

use anyhow::{anyhow, Context as _, Result};

use crate::git::{Expect, Oid, RefUpdate, Repo};

use super::engine::{self, Analysis, Options, Target};
use super::outcome::{BuiltCommit, Done, Failed, Outcome, Step};
use super::plan::context::Context;
use super::plan::split::{self, Limits};
use super::plan::{CommitPlan, PlannedCommit};
use super::session::{self, Pending, Settings, Stage, Stored};

pub mod agent_grouping;
mod ask;
pub mod branch;
pub mod build;
mod resume;
pub mod verify_each;
pub mod writer;

use build::Builder;
use writer::Reply;

use ask::{ask_size, ask_untangle, ask_writer};
use branch::settle_branch;
pub use resume::{abort, choose, resume, session_limits, Aborted};

/// Where an execution starts.
struct Run<'a> {
    repo: &'a Repo,
    analysis: &'a Analysis,
    options: &'a Options,
    clean_branch: String,
    plan: CommitPlan,
    /// The next commit to build (from 0).
    current: usize,
    built: Vec<Oid>,
    /// The session being continued, if any.
    stored: Option<Stored>,
    /// The writer's question for the current commit and the answer chosen.
    writer_answer: Option<(String, String)>,
    settings: Settings,
}

/// `git historian clean`: every step from the start.
pub fn clean(repo: &Repo, target: &Target, options: &Options) -> Result<Outcome> {
    clean_choosing(repo, target, options, &mut |_, plan| Ok(plan))
}

/// [`clean`], with the plan of step 4 handed to `choose`, which returns
/// the plan to build (`clean --agent`: an agent's grouping, validated).
pub fn clean_choosing(
    repo: &Repo,
    target: &Target,
    options: &Options,
    choose: &mut dyn FnMut(&Analysis, CommitPlan) -> Result<CommitPlan>,
) -> Result<Outcome> {
    repo.check_identity()?;
    let analysis = match engine::analyse(repo, target, options)? {
        Ok(a) => a,
        Err(failed) => return Ok(Outcome::Error(failed)),
    };
    let (proposed, unsure) = engine::plan_with_doubts(repo, &analysis, options)?;
    let groups = |plan: &CommitPlan| plan.commits.iter().map(|c| c.items.clone()).collect::<Vec<_>>();
    let ours = groups(&proposed);
    let plan = choose(&analysis, proposed)?;
    // The doubts are the automatic plan's: a plan chosen otherwise (an
    // agent's grouping) is built as it is.
    let unsure = unsure.filter(|_| groups(&plan) == ours);
    let clean_branch = branch::clean_branch_name(repo, &target.branch, options.now, options.stack)?;
    let run = Run {
        repo,
        analysis: &analysis,
        options,
        clean_branch,
        plan,
        current: 0,
        built: Vec::new(),
        stored: None,
        writer_answer: None,
        settings: Settings {
            max_files: options.limits.files,
            max_lines: options.limits.lines,
            verify_each: options.verify_each.clone(),
            stack: options.stack,
        },
    };
    match unsure {
        // Not sure how to split: a person decides before anything is built.
        Some(unsure) => ask_untangle(run, &analysis.context(), unsure),
        None => execute(run),
    }
}

fn limits(settings: &Settings) -> Limits {
    Limits {
        files: settings.max_files,
        lines: settings.max_lines,
    }
}

fn execute(run: Run<'_>) -> Result<Outcome> {
    // The commits, trees and blobs built stay in memory and are written as
    // one pack before any reference moves (`Repo::holding_objects`).
    let holding = run.repo.holding_objects();
    let mut run = Run { repo: &holding, ..run };
    let repo = run.repo;
    let analysis = run.analysis;
    let ctx = analysis.context();
    let done: Vec<&[usize]> = run.plan.commits[..run.current]
        .iter()
        .map(|c| c.items.as_slice())
        .collect();
    let mut builder = Builder::after(repo, &analysis.changes, &done, run.built.last().copied())?;
    while run.current < run.plan.commits.len() {
        let i = run.current;
        let commit = run.plan.commits[i].clone();
        if let Some(splits) = split::question(&ctx, &commit.items, commit.keep, limits(&run.settings)) {
            return ask_size(run, &ctx, splits);
        }
        let prepared = builder.prepare(&commit.items)?;
        let message = match run.options.commit_writer.clone() {
            None => commit.message.clone(),
            Some(command) => match ask_the_writer(&mut run, &command, &commit, builder.tree(), prepared.tree)? {
                Reply::Message(m) => m,
                Reply::Question { block, text } => return ask_writer(run, block, text),
                Reply::Error { description, details } => {
                    let failed = Failed::new(
                        Step::Execute,
                        format!("the commit writer failed on commit {}: {description}", i + 1),
                    )
                    .context("Original branch", &analysis.target.branch)
                    .context("Commit", format!("{} of {}", i + 1, run.plan.commits.len()));
                    let failed = match details {
                        Some(d) => failed.details(d),
                        None => failed,
                    };
                    return end_with_error(run, failed);
                }
            },
        };
        let author = build::author_for(&ctx, &commit.items);
        let id = builder.commit(prepared, &message, &author)?;
        run.built.push(id);
        run.current += 1;
    }
    match check_result(&run, builder.tree())? {
        Some(failed) => end_with_error(run, failed),
        None => finish(run, &ctx),
    }
}

/// The commit writer's reply for the current commit, whose tree goes from
/// `from` to `to`; with the answer to its last question, if it asked one.
fn ask_the_writer(run: &mut Run<'_>, command: &str, commit: &PlannedCommit, from: Oid, to: Oid) -> Result<Reply> {
    let i = run.current;
    let analysis = run.analysis;
    let answer = run.writer_answer.take();
    let listed = run.plan.to_file(&analysis.changes).commits.swap_remove(i);
    let request = writer::Request {
        branch: analysis.target.branch.clone(),
        clean_branch: run.clean_branch.clone(),
        commit: writer::CommitRequest {
            number: i + 1,
            of: run.plan.commits.len(),
            message: commit.message.clone(),
            files: listed.files,
            hunks: listed.hunks,
            diff: writer::diff(run.repo, from, to)?,
        },
        resume: answer.map(|(block, answer)| writer::Resume::new(&block, &answer)),
    };
    writer::ask(command, &run.options.root, &request, run.options.writer_timeout)
}

/// Step 6 on every commit built, whose last tree is `tree`: the tree must
/// be the original tip's, byte for byte, and each commit must pass
/// `--verify-each`. The first failure, if any.
fn check_result(run: &Run<'_>, tree: Oid) -> Result<Option<Failed>> {
    let repo = run.repo;
    let analysis = run.analysis;
    let tip_tree = analysis.changes.tip_tree;
    if tree != tip_tree {
        let differences = repo.tree_deltas(tree, tip_tree, crate::git::Renames::Off)?;
        let list: Vec<String> = differences.iter().take(20).map(|d| d.path().to_owned()).collect();
        let failed = Failed::new(
            Step::Verify,
            "The clean branch's final tree differs from the original tip's",
        )
        .context("Original branch", &analysis.target.branch)
        .details(format!(
            "clean tree {} != original tree {}; {} paths differ:\n{}",
            repo.short(tree),
            repo.short(tip_tree),
            differences.len(),
            list.join("\n")
        ));
        return Ok(Some(failed));
    }
    let Some(command) = run.settings.verify_each.clone() else {
        return Ok(None);
    };
    // The commits are checked out by other processes.
    repo.write_held_objects()?;
    let Some(failure) = verify_each::each(repo, &run.built, &command, run.options.verify_timeout)? else {
        return Ok(None);
    };
    let subject = repo
        .commit_info(failure.commit)
        .map(|c| c.message.lines().next().unwrap_or("").to_owned())
        .unwrap_or_default();
    let failed = Failed::new(
        Step::Verify,
        format!(
            "commit {} of {} fails the verify command ({})",
            failure.number,
            run.built.len(),
            failure.ending
        ),
    )
    .context("Original branch", &analysis.target.branch)
    .context(
        "Commit",
        format!("{} ({} {subject})", failure.number, repo.short(failure.commit)),
    )
    .context("Command", &command)
    .details(if failure.tail.is_empty() {
        "(no output)".to_owned()
    } else {
        failure.tail.clone()
    })
    .hint("edit the plan so the failing commit goes with the next one:\n  git historian plan --json > plan.json   # edit it\n  git historian clean --plan plan.json --verify-each '<command>'");
    Ok(Some(failed))
}

/// Everything built and checked: the clean branch points at the last
/// commit (with `--stack`, each stack branch at its commit), the session is
/// gone.
fn finish(run: Run<'_>, ctx: &Context<'_>) -> Result<Outcome> {
    let repo = run.repo;
    let analysis = run.analysis;
    let last = *run.built.last().ok_or_else(|| anyhow!("the plan made no commits"))?;
    let clean_ref = format!("refs/heads/{}", run.clean_branch);
    let mut done = done(repo, ctx, &run)?;
    let stack = if run.settings.stack {
        let subjects: Vec<(Oid, &str)> = done.commits.iter().map(|c| (c.id, c.subject.as_str())).collect();
        branch::stack_branches(&run.clean_branch, &subjects)
    } else {
        Vec::new()
    };
    // Created as absent, or found where an interrupted run put them.
    let stack_updates = |expect: fn(Oid) -> Expect| -> Vec<RefUpdate> {
        stack
            .iter()
            .map(|(name, id)| RefUpdate {
                name: format!("refs/heads/{name}"),
                new: Some(*id),
                expect: expect(*id),
            })
            .collect()
    };
    match &run.stored {
        None => {
            // The clean branch and its stack: all or none.
            let mut updates = vec![RefUpdate {
                name: clean_ref.clone(),
                new: Some(last),
                expect: Expect::Absent,
            }];
            updates.extend(stack_updates(|_| Expect::Absent));
            if updates.len() == 1 {
                repo.update_ref(&clean_ref, last, Expect::Absent, "historian: clean branch")
            } else {
                repo.update_refs(&updates, "historian: clean branch")
            }
            .with_context(|| format!("cannot create the branch '{}'", run.clean_branch))?
        }
        Some(stored) => {
            // Record the end first, so a run killed now is settled by resume.
            let mut s = stored.session.clone();
            s.stage = Stage::Completing;
            s.previous_clean_tip = s.clean_tip.clone();
            s.clean_tip = Some(last.to_string());
            s.built = run.built.iter().map(|b| b.to_string()).collect();
            s.current = run.plan.commits.len();
            s.pending = Pending::None;
            let plan_file = run.plan.to_file(&analysis.changes);
            s.plan_hash = session::plan_hash(repo, &plan_file)?.1.to_string();
            let state = session::save(
                repo,
                Some(stored.commit),
                &s,
                &plan_file,
                "",
                "historian: every commit built and checked",
            )?;
            settle_branch(repo, &s)?;
            repo.update_refs(
                &stack_updates(|id| Expect::AbsentOr(Some(id))),
                "historian: stack branch",
            )
            .with_context(|| format!("cannot create the stack branches of '{}'", run.clean_branch))?;
            let now = session::load(repo, &stored.ref_name)?.ok_or_else(|| anyhow!("the session vanished"))?;
            debug_assert_eq!(now.commit, state);
            session::delete(repo, &now)?;
        }
    }
    done.stack = stack.into_iter().map(|(name, _)| name).collect();
    Ok(Outcome::Success(done))
}

fn done(repo: &Repo, ctx: &Context<'_>, run: &Run<'_>) -> Result<Done> {
    let analysis = run.analysis;
    let shorts = repo.shorts(&run.built);
    let commits = run
        .built
        .iter()
        .zip(&run.plan.commits)
        .zip(shorts)
        .map(|((&id, planned), short)| {
            let size = split::size(ctx, &planned.items);
            let info = repo.commit_info(id)?;
            Ok(BuiltCommit {
                id,
                short,
                subject: info.message.lines().next().unwrap_or("").to_owned(),
                files: size.files,
                lines: size.lines,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Done {
        original_branch: analysis.target.branch.clone(),
        clean_branch: run.clean_branch.clone(),
        base: analysis.base.commit,
        base_short: repo.short(analysis.base.commit),
        original_tip: analysis.target.tip,
        tip_short: repo.short(analysis.target.tip),
        tree: analysis.changes.tip_tree,
        commits,
        stack: Vec::new(),
    })
}

/// An ERROR ends the run: the partial clean branch and the session go.
fn end_with_error(run: Run<'_>, failed: Failed) -> Result<Outcome> {
    if let Some(stored) = &run.stored {
        let s = &stored.session;
        let clean_ref = s.clean_ref();
        let current = run.repo.read_ref(&clean_ref)?;
        if current.is_some() && [s.clean_tip()?, s.previous_clean_tip()?].contains(&current) {
            run.repo.delete_ref(&clean_ref, current)?;
        }
        session::delete(run.repo, stored)?;
    }
    Ok(Outcome::Error(failed))
}
