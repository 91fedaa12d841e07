//! Steps 1 to 4 of a run (DESIGN §10.1): validate the branch, prepare its
//! base, analyse its changes (the facts come from `analyse`), and plan the
//! commits (a `--plan` file checked against the changes, or `plan::auto`).
//! What they return, an [`Analysis`] and a [`CommitPlan`], is what
//! `execute` builds from; `git historian plan` stops here. The [`Options`]
//! of a whole run are defined here because these steps read most of them.
//!
//! Not to be confused with `ultraplan::engine`, which runs the steps, waves
//! and merges of a task plan: this one only reads.
//!
//! What this module must never do: write anything. The working tree, the
//! index, `HEAD` and the original branch are never touched by the
//! historian; the clean branch and the session ref are written by
//! `execute`, each with a compare-and-swap.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Result};

use crate::cli::config;
use crate::error::FatalWithHint;
use crate::git::{BranchCommit, Oid, Repo};

use super::analyse::base::{self, Base, NoBase};
use super::analyse::coupling::{self, Coupling};
use super::analyse::items::ChangeSet;
use super::analyse::line_history;
use super::analyse::provenance::{self, Provenance};
use super::outcome::{Failed, Step};
use super::plan::auto::{self, Unsure};
use super::plan::context::{Context, Tuning};
use super::plan::explanation::{self, Explanation};
use super::plan::split::Limits;
use super::plan::{CommitPlan, PlanFile};
use super::session;

/// What a run is asked to do, with configuration already merged in.
#[derive(Clone, Debug)]
pub struct Options {
    /// `--base`.
    pub base: Option<String>,
    /// `historian.base`.
    pub config_base: Option<String>,
    /// The remote whose default branch is the base when nothing names one.
    pub remote: String,
    /// `--plan <file>`, read.
    pub plan_file: Option<PlanFile>,
    pub limits: Limits,
    pub verify_each: Option<String>,
    /// `clean --stack`: one branch per clean commit too.
    pub stack: bool,
    pub verify_timeout: Duration,
    /// `historian.commitWriter`.
    pub commit_writer: Option<String>,
    pub writer_timeout: Duration,
    /// Where commands run (the top of the working tree).
    pub root: PathBuf,
    /// When the run started, for the clean branch's name.
    pub now: chrono::DateTime<chrono::Local>,
    pub tuning: Tuning,
}

impl Options {
    /// The options of a run nothing was asked of: every default is the
    /// configuration key's (`crate::cli::config`), read from its table.
    pub fn new(root: PathBuf) -> Result<Options> {
        Ok(Options {
            base: None,
            config_base: None,
            remote: "origin".into(),
            plan_file: None,
            limits: Limits {
                files: default_number(&config::HISTORIAN_MAX_FILES)?,
                lines: default_number(&config::HISTORIAN_MAX_LINES)?,
            },
            verify_each: None,
            stack: false,
            verify_timeout: config::default_duration(&config::HISTORIAN_VERIFY_TIMEOUT)?,
            commit_writer: None,
            writer_timeout: config::default_duration(&config::HISTORIAN_COMMIT_WRITER_TIMEOUT)?,
            root,
            now: chrono::Local::now(),
            tuning: Tuning::default(),
        })
    }
}

/// A count's default from the key table.
fn default_number(key: &config::Key) -> Result<usize> {
    Ok(usize::try_from(config::default_integer(key)?)?)
}

/// The branch a command works on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The short name (`feature/login`).
    pub branch: String,
    /// `refs/heads/feature/login`.
    pub branch_ref: String,
    pub tip: Oid,
}

/// The branch named, or the one `HEAD` is on; a fatal error otherwise.
pub fn target(repo: &Repo, name: Option<&str>) -> Result<Target> {
    let branch_ref = match name {
        Some(name) => {
            let name = name.trim();
            if name.starts_with("refs/heads/") {
                name.to_owned()
            } else {
                format!("refs/heads/{name}")
            }
        }
        None => match repo.head()?.branch {
            Some(b) => b,
            None => {
                return Err(FatalWithHint {
                    message: "HEAD is detached: not on a branch".into(),
                    hint: "name the branch to clean: git historian clean <branch>".into(),
                }
                .into())
            }
        },
    };
    let branch = branch_ref.trim_start_matches("refs/heads/").to_owned();
    let tip = match repo.read_ref(&branch_ref) {
        Ok(Some(tip)) => tip,
        Ok(None) if name.is_none() => bail!("the branch '{branch}' has no commits yet"),
        Ok(None) | Err(_) => bail!("'{branch}' is not a branch"),
    };
    Ok(Target {
        branch,
        branch_ref,
        tip,
    })
}

/// Steps 1 to 3 done: the branch, its base, its commits and its change items.
pub struct Analysis {
    pub target: Target,
    pub base: Base,
    pub commits: Vec<BranchCommit>,
    pub changes: ChangeSet,
    pub provenance: Provenance,
    pub coupling: Coupling,
}

impl Analysis {
    /// Steps 1 to 3 once the base is known.
    pub fn read(repo: &Repo, target: Target, base: Base, tuning: &Tuning) -> Result<Analysis> {
        let commits = repo.branch_commits(base.commit, target.tip)?;
        let changes = ChangeSet::analyse(repo, base.commit, target.tip)?;
        let provenance = provenance::trace(repo, &changes, &commits)?;
        let mut coupling = coupling::read(repo, &changes, tuning.coupling_history)?;
        coupling.lines = line_history::read(repo, &changes, tuning.coupling_history)?;
        Ok(Analysis {
            target,
            base,
            commits,
            changes,
            provenance,
            coupling,
        })
    }

    pub fn context(&self) -> Context<'_> {
        Context::new(&self.changes, &self.provenance, &self.commits, self.coupling.clone())
    }
}

/// Steps 1 to 3 for `target`: a failed step is an `Err(Failed)` value.
pub fn analyse(repo: &Repo, target: &Target, options: &Options) -> Result<std::result::Result<Analysis, Failed>> {
    let session_ref = session::ref_name(&target.branch);
    if repo.read_ref(&session_ref)?.is_some() {
        return Ok(Err(Failed::new(
            Step::Validate,
            format!("a historian session is pending for '{}'", target.branch),
        )
        .context("Original branch", &target.branch)
        .details(format!("the session is recorded in '{session_ref}'"))
        .hint(format!(
            "answer its question with 'git historian resume --answer <N>' (see 'git historian status'),\nor drop it with: git historian abort {}",
            crate::cli::shell::shell_word(&target.branch)
        ))));
    }
    let plan_base = options
        .plan_file
        .as_ref()
        .and_then(|p| p.base.clone())
        .filter(|_| options.base.is_none());
    let explicit = options.base.as_deref().or(plan_base.as_deref());
    let found = base::find(
        repo,
        target.tip,
        &target.branch_ref,
        explicit,
        options.config_base.as_deref(),
        &options.remote,
    )?;
    let base = match found {
        Ok(base) => base,
        Err(no_base) => return Ok(Err(no_base_found(target, no_base))),
    };
    if base.commit == target.tip {
        return Ok(Err(Failed::new(
            Step::Validate,
            format!("'{}' has no commits beyond its base", target.branch),
        )
        .context("Original branch", &target.branch)
        .details(format!(
            "the base is {} ({}), which is the branch's tip",
            repo.short(base.commit),
            base.source.describe()
        ))));
    }
    Ok(Ok(Analysis::read(repo, target.clone(), base, &options.tuning)?))
}

/// Step 2's failure: why no base was found, as an ERROR.
fn no_base_found(target: &Target, no_base: NoBase) -> Failed {
    let failed =
        Failed::new(Step::Prepare, "Cannot find base commit for branch").context("Original branch", &target.branch);
    match no_base {
        NoBase::BadRevision { rev, source, reason } => {
            failed.details(format!("'{rev}' ({}) is not a commit: {reason}", source.describe()))
        }
        NoBase::Unrelated { source } => failed.details(format!(
            "{} shares no history with '{}'",
            source.describe(),
            target.branch
        )),
        NoBase::NotFound { tried, skipped } => failed
            .details(format!(
                "none of {} exists or shares history with '{}'{}",
                tried.join(", "),
                target.branch,
                match skipped {
                    Some(s) => format!(" ({s} is the branch being cleaned)"),
                    None => String::new(),
                }
            ))
            .hint("name the base: git historian clean --base <rev> (or set historian.base)"),
    }
}

/// Step 4: the plan from `--plan`, or made here. A plan file that misses,
/// doubles or invents an item is a fatal error listing them.
pub fn plan(repo: &Repo, analysis: &Analysis, options: &Options) -> Result<CommitPlan> {
    Ok(plan_in(repo, &analysis.context(), analysis, options)?.0)
}

/// Step 4, and the readings weighed when the plan made here is unsure (a
/// plan file is what a person chose: never unsure).
pub fn plan_with_doubts(repo: &Repo, analysis: &Analysis, options: &Options) -> Result<(CommitPlan, Option<Unsure>)> {
    plan_in(repo, &analysis.context(), analysis, options)
}

/// Step 4 and why each item is where it is (`plan --explain`).
pub fn plan_explained(repo: &Repo, analysis: &Analysis, options: &Options) -> Result<(CommitPlan, Explanation)> {
    let ctx = analysis.context();
    let (plan, _) = plan_in(repo, &ctx, analysis, options)?;
    let explanation = explanation::explain(&ctx, &plan, options.limits, options.plan_file.is_some());
    Ok((plan, explanation))
}

fn plan_in(
    repo: &Repo,
    ctx: &Context<'_>,
    analysis: &Analysis,
    options: &Options,
) -> Result<(CommitPlan, Option<Unsure>)> {
    match &options.plan_file {
        Some(file) => {
            if let Some(tip) = &file.tip {
                let planned = repo
                    .rev_parse(&format!("{tip}^{{commit}}"))
                    .map_err(|_| anyhow!("the plan names tip '{tip}', which is not a commit here"))?;
                if planned != analysis.target.tip {
                    return Err(FatalWithHint {
                        message: format!(
                            "the plan was made for tip {}, but '{}' is at {}",
                            repo.short(planned),
                            analysis.target.branch,
                            repo.short(analysis.target.tip)
                        ),
                        hint: "make a new plan: git historian plan --json".into(),
                    }
                    .into());
                }
            }
            let plan = CommitPlan::from_file(file, &analysis.changes).map_err(|problems| {
                let lines = problems.lines();
                anyhow!(
                    "the plan file cannot be built as it is ({} {}):\n  {}",
                    lines.len(),
                    if lines.len() == 1 { "problem" } else { "problems" },
                    lines.join("\n  ")
                )
            })?;
            Ok((plan, None))
        }
        None => {
            let (plan, unsure) = auto::plan_with_doubts(ctx, &options.tuning);
            let problems = plan.check(&analysis.changes);
            if !problems.is_empty() {
                bail!(
                    "internal error: the plan made does not use every change item exactly once:\n  {}",
                    problems.lines().join("\n  ")
                );
            }
            Ok((plan, unsure))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_config_keys() {
        let options = Options::new(PathBuf::from("/")).unwrap();
        assert_eq!(options.limits.files.to_string(), config::HISTORIAN_MAX_FILES.default);
        assert_eq!(options.limits.lines.to_string(), config::HISTORIAN_MAX_LINES.default);
        let timeout = |key: &config::Key| config::parse_duration(key.default);
        assert_eq!(Some(options.verify_timeout), timeout(&config::HISTORIAN_VERIFY_TIMEOUT));
        assert_eq!(
            Some(options.writer_timeout),
            timeout(&config::HISTORIAN_COMMIT_WRITER_TIMEOUT)
        );
    }
}
