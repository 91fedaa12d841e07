//! Steps 5 and 6 (DESIGN §10.1): building the planned commits one by one,
//! stopping for a question when one is over the size limits or the commit
//! writer asks; then the tree-equality check, `--verify-each`, and the
//! clean branch. Also resuming a stopped session and aborting it.
//!
//! Order of writes, so that a process killed at any instant leaves a state
//! that `resume` (or `abort`) settles: objects first; then the session ref
//! (recording where the clean branch should point, and where it pointed);
//! then the clean branch; and last, when the run ends, the session ref's
//! removal.

use anyhow::{anyhow, bail, Context as _, Result};

use crate::cli::FatalWithHint;
use crate::git::{Expect, Oid, Repo};

use super::base;
use super::build::Builder;
use super::engine::{self, Analysis, Options, Target};
use super::group::Context;
use super::outcome::{Asked, BuiltCommit, Done, Failed, Outcome, Step};
use super::plan::{CommitPlan, PlanFile};
use super::planner;
use super::protocol::{self, Question, ResultBlock, ResumeEntry, ResumeValue, DEFAULT_PROMPT};
use super::session::{self, Pending, Session, Settings, Stage, Stored};
use super::split::{self, Limits};
use super::verify;
use super::writer::{self, Reply};

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
    repo.check_identity()?;
    let analysis = match engine::analyse(repo, target, options)? {
        Ok(a) => a,
        Err(failed) => return Ok(Outcome::Error(failed)),
    };
    let plan = engine::plan(repo, &analysis, options)?;
    let clean_branch = engine::clean_branch_name(repo, &target.branch, options.now)?;
    execute(Run {
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
        },
    })
}

fn limits(settings: &Settings) -> Limits {
    Limits {
        files: settings.max_files,
        lines: settings.max_lines,
    }
}

fn execute(mut run: Run<'_>) -> Result<Outcome> {
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
        let size = split::size(&ctx, &commit.items);
        if !commit.keep && size.over(limits(&run.settings)) {
            let splits = split::splits(&ctx, &commit.items, limits(&run.settings));
            if !splits.is_empty() {
                return ask_size(run, &ctx, splits);
            }
        }
        let prepared = builder.prepare(&commit.items)?;
        let message = match &run.options.commit_writer {
            None => commit.message.clone(),
            Some(command) => {
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
                        diff: writer::diff(repo, builder.tree(), prepared.tree)?,
                    },
                    resume: answer.map(|(block, answer)| writer::Resume::new(&block, &answer)),
                };
                match writer::ask(command, &run.options.root, &request, run.options.writer_timeout)? {
                    Reply::Message(m) => m,
                    Reply::Question(block) => return ask_writer(run, block),
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
                }
            }
        };
        let author = engine::author_for(&ctx, &commit.items);
        let message = crate::redact::redact(&message).into_owned();
        let id = builder.commit(prepared, &message, &author)?;
        run.built.push(id);
        run.current += 1;
    }
    // Step 6: the tree must be the original tip's, byte for byte.
    let tip_tree = analysis.changes.tip_tree;
    if builder.tree() != tip_tree {
        let differences = repo.tree_deltas(builder.tree(), tip_tree, crate::git::Renames::Off)?;
        let list: Vec<String> = differences.iter().take(20).map(|d| d.path().to_owned()).collect();
        let failed = Failed::new(
            Step::Verify,
            "The clean branch's final tree differs from the original tip's",
        )
        .context("Original branch", &analysis.target.branch)
        .details(format!(
            "clean tree {} != original tree {}; {} paths differ:\n{}",
            repo.short(builder.tree()),
            repo.short(tip_tree),
            differences.len(),
            list.join("\n")
        ));
        return end_with_error(run, failed);
    }
    if let Some(command) = run.settings.verify_each.clone() {
        if let Some(failure) = verify::each(repo, &run.built, &command, run.options.verify_timeout)? {
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
            return end_with_error(run, failed);
        }
    }
    finish(run, &ctx)
}

/// Everything built and checked: the clean branch points at the last
/// commit, the session is gone.
fn finish(run: Run<'_>, ctx: &Context<'_>) -> Result<Outcome> {
    let repo = run.repo;
    let analysis = run.analysis;
    let last = *run.built.last().ok_or_else(|| anyhow!("the plan made no commits"))?;
    let clean_ref = format!("refs/heads/{}", run.clean_branch);
    match &run.stored {
        None => repo
            .update_ref(&clean_ref, last, Expect::Absent, "historian: clean branch")
            .with_context(|| format!("cannot create the branch '{}'", run.clean_branch))?,
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
            let now = session::load(repo, &stored.ref_name)?.ok_or_else(|| anyhow!("the session vanished"))?;
            debug_assert_eq!(now.commit, state);
            session::delete(repo, &now)?;
        }
    }
    Ok(Outcome::Success(done(repo, ctx, &run)?))
}

fn done(repo: &Repo, ctx: &Context<'_>, run: &Run<'_>) -> Result<Done> {
    let analysis = run.analysis;
    let commits = run
        .built
        .iter()
        .zip(&run.plan.commits)
        .map(|(&id, planned)| {
            let size = split::size(ctx, &planned.items);
            let info = repo.commit_info(id)?;
            Ok(BuiltCommit {
                id,
                short: repo.short(id),
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

fn ask_size(run: Run<'_>, ctx: &Context<'_>, splits: Vec<split::Split>) -> Result<Outcome> {
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
    let mut options: Vec<String> = splits.iter().map(|s| split::describe(ctx, s)).collect();
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

fn ask_writer(run: Run<'_>, inner: ResultBlock) -> Result<Outcome> {
    let i = run.current;
    // What the writer says is stored in git: no secrets in it.
    let inner = match protocol::parse(&crate::redact::redact(&inner.render())) {
        Ok(block) => block,
        Err(_) => inner,
    };
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
    stop(run, q, Pending::Writer { block: inner.render() })
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

/// Moves the clean branch to where the session says, from where it says
/// it pointed (or already is); anything else means someone moved it.
fn settle_branch(repo: &Repo, session: &Session) -> Result<()> {
    let clean_ref = session.clean_ref();
    let target = session.clean_tip()?;
    let current = repo.read_ref(&clean_ref)?;
    if current == target {
        return Ok(());
    }
    let known = [session.previous_clean_tip()?, None];
    if !known.contains(&current) {
        bail!(
            "the branch '{}' was moved by someone else (to {}); leaving it alone",
            session.clean_branch,
            current.map(|c| repo.short(c)).unwrap_or_default()
        );
    }
    match target {
        Some(t) => repo.update_ref(
            &clean_ref,
            t,
            match current {
                Some(c) => Expect::Value(c),
                None => Expect::Absent,
            },
            "historian: partial clean branch",
        ),
        None => repo.delete_ref(&clean_ref, current),
    }
}

/// `git historian resume --answer <answer>`.
pub fn resume(repo: &Repo, stored: Stored, answer: &str, options: &Options) -> Result<Outcome> {
    repo.check_identity()?;
    let s = stored.session.clone();
    // A stale answer: the branch or its base moved since the question.
    let branch_ref = format!("refs/heads/{}", s.branch);
    let tip = repo.read_ref(&branch_ref)?;
    let original = s.original_tip()?;
    let stale_hint = format!(
        "drop the session and start again:\n  git historian abort {0}\n  git historian clean {0}",
        s.branch
    );
    match tip {
        None => {
            return Err(FatalWithHint {
                message: format!("the answer is stale: the branch '{}' no longer exists", s.branch),
                hint: stale_hint,
            }
            .into())
        }
        Some(t) if t != original => {
            return Err(FatalWithHint {
                message: format!(
                    "the answer is stale: '{}' moved from {} to {} since the question",
                    s.branch,
                    repo.short(original),
                    repo.short(t)
                ),
                hint: stale_hint,
            }
            .into())
        }
        Some(_) => {}
    }
    let recorded_base = s.base()?;
    let base_now = base::again(repo, original, &s.base_source)?;
    if base_now != Some(recorded_base) {
        return Err(FatalWithHint {
            message: format!(
                "the answer is stale: the base of '{}' ({}) is now {} instead of {}",
                s.branch,
                s.base_source.describe(),
                base_now.map(|b| repo.short(b)).unwrap_or_else(|| "not found".into()),
                repo.short(recorded_base)
            ),
            hint: stale_hint,
        }
        .into());
    }
    let (_, hash) = session::plan_hash(repo, &stored.plan)?;
    if session::oid(&s.plan_hash).ok() != Some(hash) {
        bail!(
            "the historian session '{}' is damaged: its plan does not match its hash",
            stored.ref_name
        );
    }
    let target = Target {
        branch: s.branch.clone(),
        branch_ref,
        tip: original,
    };
    let analysis = Analysis::read(
        repo,
        target,
        super::base::Base {
            commit: recorded_base,
            source: s.base_source.clone(),
        },
        &options.tuning,
    )?;
    let ctx = analysis.context();
    let mut plan = CommitPlan::from_file(&stored.plan, &analysis.changes).map_err(|p| {
        anyhow!(
            "the historian session '{}' no longer matches the branch:\n  {}",
            stored.ref_name,
            p.lines().join("\n  ")
        )
    })?;
    settle_branch(repo, &s)?;
    let mut run = Run {
        repo,
        analysis: &analysis,
        options,
        clean_branch: s.clean_branch.clone(),
        plan: CommitPlan::default(),
        current: s.current,
        built: s.built()?,
        stored: Some(stored.clone()),
        writer_answer: None,
        settings: s.settings.clone(),
    };
    if s.stage == Stage::Completing {
        run.plan = plan;
        return finish(run, &ctx);
    }
    let question = match protocol::parse(&stored.question) {
        Ok(ResultBlock::Question(q)) => q,
        _ => bail!("the historian session '{}' has no readable question", stored.ref_name),
    };
    let choice = choose(&question.options, answer)?;
    match &s.pending {
        Pending::Size { splits } => {
            if choice < splits.len() {
                let file = PlanFile {
                    base: None,
                    tip: None,
                    commits: splits[choice]
                        .iter()
                        .map(|names| super::plan::PlanFileCommit {
                            message: "part".into(),
                            files: Vec::new(),
                            hunks: names.clone(),
                            keep: false,
                        })
                        .collect(),
                };
                let index = analysis.changes.index();
                let parts: Vec<Vec<usize>> = file
                    .commits
                    .iter()
                    .map(|c| {
                        c.hunks
                            .iter()
                            .map(|n| {
                                index
                                    .by_name
                                    .get(n)
                                    .copied()
                                    .ok_or_else(|| anyhow!("the session names '{n}', which is not a change item"))
                            })
                            .collect::<Result<Vec<usize>>>()
                    })
                    .collect::<Result<_>>()?;
                let replacement = planner::commits_for(&ctx, parts).commits;
                plan.commits.splice(s.current..=s.current, replacement);
            } else {
                plan.commits[s.current].keep = true;
            }
        }
        Pending::Writer { block } => {
            run.writer_answer = Some((block.clone(), question.options[choice].clone()));
        }
        Pending::None => {}
    }
    run.plan = plan;
    execute(run)
}

/// The option an answer names: its number (`2`, `Option 2`), or its text
/// (whole, or a unique beginning or part, case ignored).
pub fn choose(options: &[String], answer: &str) -> Result<usize> {
    let a = answer.trim();
    let number = a
        .strip_prefix("Option ")
        .or_else(|| a.strip_prefix("option "))
        .unwrap_or(a)
        .trim_end_matches(':');
    if let Ok(n) = number.parse::<usize>() {
        if (1..=options.len()).contains(&n) {
            return Ok(n - 1);
        }
        return Err(FatalWithHint {
            message: format!("there is no option {n}: the question has {} options", options.len()),
            hint: numbered(options),
        }
        .into());
    }
    let lower = a.to_lowercase();
    if !lower.is_empty() {
        if let Some(i) = options.iter().position(|o| o.to_lowercase() == lower) {
            return Ok(i);
        }
        for matcher in [|o: &str, a: &str| o.starts_with(a), |o: &str, a: &str| o.contains(a)] {
            let found: Vec<usize> = (0..options.len())
                .filter(|&i| matcher(&options[i].to_lowercase(), &lower))
                .collect();
            if found.len() == 1 {
                return Ok(found[0]);
            }
            if found.len() > 1 {
                return Err(FatalWithHint {
                    message: format!("'{a}' matches several options"),
                    hint: numbered(options),
                }
                .into());
            }
        }
    }
    Err(FatalWithHint {
        message: format!("'{a}' is not one of the options"),
        hint: numbered(options),
    }
    .into())
}

fn numbered(options: &[String]) -> String {
    let mut out = String::from("answer with an option's number or its text:");
    for (i, o) in options.iter().enumerate() {
        out.push_str(&format!("\n  {}: {}", i + 1, o));
    }
    out
}

/// What `abort` removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aborted {
    pub branch: String,
    pub session: String,
    /// The partial clean branch, when it was removed.
    pub clean_branch: Option<String>,
    /// A clean branch moved by someone else, left alone.
    pub kept_branch: Option<String>,
}

/// `git historian abort`: the session and its partial clean branch go.
pub fn abort(repo: &Repo, stored: &Stored) -> Result<Aborted> {
    let s = &stored.session;
    let clean_ref = s.clean_ref();
    let current = repo.read_ref(&clean_ref)?;
    let ours = [s.clean_tip()?, s.previous_clean_tip()?];
    let mut aborted = Aborted {
        branch: s.branch.clone(),
        session: stored.ref_name.clone(),
        clean_branch: None,
        kept_branch: None,
    };
    if let Some(c) = current {
        if ours.contains(&Some(c)) {
            repo.delete_ref(&clean_ref, Some(c))?;
            aborted.clean_branch = Some(s.clean_branch.clone());
        } else {
            aborted.kept_branch = Some(s.clean_branch.clone());
        }
    }
    session::delete(repo, stored)?;
    Ok(aborted)
}

/// A limits pair from a session's settings (for status).
pub fn session_limits(s: &Session) -> Limits {
    limits(&s.settings)
}
