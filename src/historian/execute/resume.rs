//! Continuing a stopped session with the answer chosen, and aborting it.

use anyhow::{anyhow, bail, Result};

use crate::error::FatalWithHint;
use crate::git::{Expect, RefUpdate, Repo};
use crate::historian::analyse::base::{self, Base};
use crate::historian::engine::{Analysis, Options, Target};
use crate::historian::outcome::Outcome;
use crate::historian::plan::auto;
use crate::historian::plan::split::Limits;
use crate::historian::plan::CommitPlan;
use crate::historian::protocol::{self, ResultBlock};
use crate::historian::session::{self, Pending, Session, Stage, Stored};

use super::branch::settle_branch;
use super::{execute, finish, limits, Run};

/// `git historian resume --answer <answer>`.
pub fn resume(repo: &Repo, stored: Stored, answer: &str, options: &Options) -> Result<Outcome> {
    repo.check_identity()?;
    let s = stored.session.clone();
    let (target, base) = still_current(repo, &stored)?;
    let analysis = Analysis::read(repo, target, base, &options.tuning)?;
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
    if let Some(command) = s.settings.verify_each.as_deref().filter(|c| c.contains("[REDACTED:")) {
        // The session holds it redacted; running that would check nothing.
        return Err(FatalWithHint {
            message: format!("the recorded --verify-each command '{command}' had a secret redacted from it"),
            hint: "abort and clean again with the command reading the secret from the environment:\n  git historian abort\n  git historian clean --verify-each 'make test TOKEN=\"$TOKEN\"'".into(),
        }
        .into());
    }
    let question = match protocol::parse(&stored.question) {
        Ok(ResultBlock::Question(q)) => q,
        _ => bail!("the historian session '{}' has no readable question", stored.ref_name),
    };
    let choice = choose(&question.options, answer)?;
    match &s.pending {
        Pending::Size { splits } => match splits.get(choice) {
            Some(split) => {
                let parts = items_named(&analysis, split)?;
                let replacement = auto::commits_for(&ctx, parts).commits;
                plan.commits.splice(s.current..=s.current, replacement);
            }
            None => plan.commits[s.current].keep = true,
        },
        Pending::Untangle { readings } => {
            let chosen = readings
                .get(choice)
                .ok_or_else(|| anyhow!("the session has no reading for option {}", choice + 1))?;
            let groups = items_named(&analysis, chosen)?;
            plan = auto::commits_described(&ctx, groups);
        }
        Pending::Writer { block } => {
            run.writer_answer = Some((block.clone(), question.options[choice].clone()));
        }
        Pending::None => {}
    }
    run.plan = plan;
    execute(run)
}

/// The branch and base the session was stopped on, when neither moved and
/// its plan is intact; a fatal error saying what changed otherwise.
fn still_current(repo: &Repo, stored: &Stored) -> Result<(Target, Base)> {
    let s = &stored.session;
    let branch_ref = format!("refs/heads/{}", s.branch);
    let tip = repo.read_ref(&branch_ref)?;
    let original = s.original_tip()?;
    let stale_hint = format!(
        "drop the session and start again:\n  git historian abort {0}\n  git historian clean {0}",
        crate::cli::shell::shell_word(&s.branch)
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
    let base = Base {
        commit: recorded_base,
        source: s.base_source.clone(),
    };
    Ok((target, base))
}

/// The change items of each part of a split the session offered, by name.
fn items_named(analysis: &Analysis, split: &[Vec<String>]) -> Result<Vec<Vec<usize>>> {
    let index = analysis.changes.index();
    split
        .iter()
        .map(|names| {
            names
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
        .collect()
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
    /// Stack branches (`clean --stack`) the run had made, removed.
    pub stack_branches: Vec<String>,
}

/// `git historian abort`: the session and its partial clean branch go,
/// and the stack branches it made (only those at commits it built).
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
        stack_branches: Vec::new(),
    };
    if s.settings.stack {
        let stack = super::branch::existing_stack(repo, &s.clean_branch, &s.built()?)?;
        let updates: Vec<RefUpdate> = stack
            .iter()
            .map(|(name, id)| RefUpdate {
                name: name.clone(),
                new: None,
                expect: Expect::Value(*id),
            })
            .collect();
        repo.update_refs(&updates, "historian: abort")?;
        aborted.stack_branches = stack
            .into_iter()
            .map(|(name, _)| name.trim_start_matches("refs/heads/").to_owned())
            .collect();
    }
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
