//! `git historian clean [<branch>]`: the whole rewrite.

use std::io::IsTerminal;

use anyhow::Result;

use crate::agents::{self, Agent};
use crate::cli::config;
use crate::cli::progress::StatusLine;
use crate::cli::{Exit, Ui};
use crate::git::Workspace;
use crate::historian::{engine, execute};

use super::RewriteArgs;

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Rewrite the current branch into <branch>-<YYYYMMDD-HHMMSS>-clean beside it:
    git historian clean

  Another branch, from another base, testing every new commit:
    git historian clean --base origin/develop --verify-each 'make test' feature

  Also one branch per commit, for stacked review:
    git historian clean --stack

  Build a plan you edited by hand:
    git historian plan --json > plan.json
    git historian clean --plan plan.json
"#;

/// Build a clean branch of logical commits beside the branch.
///
/// Finds the base, reads the change items (whole files and hunks) between
/// the base and the branch's tip, groups them into commits a reviewer would
/// accept — by the original commits they come from (fixup!, squash!, "wip"
/// and "fix typo" commits folded into what they amend), by component, tests
/// with the code they test, build, configuration and docs apart,
/// definitions before uses — and writes each commit in the object database.
/// The branch `<branch>-<YYYYMMDD-HHMMSS>-clean` is created only when its
/// tree is byte-identical to the original tip's (and, with --verify-each,
/// every commit passed). The working tree, the index, HEAD and the original
/// branch are never touched.
///
/// With --agent, a coding agent (claude, codex, gemini, opencode, cursor,
/// aider, goose, qwen or amp, run headless as git-ultraplan runs it; see
/// git-ultraplan-agents(1)) is sent the analysed change set — every item
/// with its stable id (`path`, or `path#N` for a hunk), what it changes,
/// the names it defines and uses —, the branch's commit messages and the
/// deterministic plan, and asked for a grouping and messages as JSON. It
/// runs read-only in an empty directory outside the repository. Its answer
/// is built only when every item is placed exactly once, no commit is
/// empty, the order keeps what the analysis says must come first
/// (definitions before uses, moved lines never missing in between), and a
/// trial build ends at the tip's tree; otherwise a warning says why and the
/// deterministic plan is built. Size questions and `resume` work as without
/// it.
///
/// A split resting on weak calls (its sureness — how well the chances it
/// was made from agree with it, less 0.15 per e-fold of its files — below
/// 0.34) stops with a RESULT: QUESTION showing the proposed
/// commits and the closest call, offering "Split as proposed", the other
/// readings weighed and "Keep as one commit"; a planned commit over the
/// size limits stops with one offering splits. Answer with
/// `git historian resume --answer <N>`.
/// The answer is a RESULT block (the historian result protocol): SUCCESS, ERROR or QUESTION.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub rewrite: RewriteArgs,

    /// Check out each new commit in a temporary worktree and run this
    /// command there (sh -c); the first failing commit is an ERROR naming
    /// it, with the tail of the command's output. The worktree
    /// (<git-common-dir>/historian/verify-<pid>) goes on every way out; one
    /// a killed run left is removed, with a warning, by the next clean,
    /// resume or abort.
    #[arg(long, value_name = "COMMAND")]
    pub verify_each: Option<String>,

    /// Also create one branch per clean commit, for stacked review.
    ///
    /// `<clean>-stack/01-<slug>`, `<clean>-stack/02-<slug>`, … each at its
    /// commit, so each branch is the previous one plus one commit; the slug
    /// comes from the commit's subject. (Not `<clean>/01-…`: git cannot
    /// hold a branch and branches under it of the same name.) They are
    /// made with the clean branch when the run succeeds — after a QUESTION,
    /// when `resume` finishes — and `abort` removes any it made. Nothing
    /// else is touched. Push them all with
    /// `git push origin 'refs/heads/<clean>-stack/*:refs/heads/<clean>-stack/*'`
    /// and open one pull request per branch, each based on the one before
    /// (the first on the base branch).
    #[arg(long)]
    pub stack: bool,

    /// Ask this coding agent for the grouping and messages (validated; the
    /// deterministic plan when its answer does not hold). Its program and
    /// extra arguments: ultraplan.<agent>.path and ultraplan.<agent>.args.
    #[arg(long, value_name = "AGENT", value_parser = agent_name, conflicts_with = "plan")]
    pub agent: Option<String>,
}

fn agent_name(name: &str) -> Result<String, String> {
    match Agent::named(name) {
        Some(_) => Ok(name.to_owned()),
        None => Err(format!(
            "no adapter for '{name}' (the agents are {})",
            Agent::ALL.map(|a| a.name()).join(", ")
        )),
    }
}

pub fn run(args: Args, ui: Ui) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    super::sweep_verify_worktrees(repo, ui)?;
    let target = engine::target(repo, args.rewrite.branch.as_deref())?;
    let mut options = super::options(&workspace, &args.rewrite, &target.branch)?;
    options.verify_each = args.verify_each.filter(|c| !c.trim().is_empty());
    options.stack = args.stack;
    let Some(name) = &args.agent else {
        let outcome = execute::clean(repo, &target, &options)?;
        return super::render(&outcome, args.rewrite.json, ui);
    };
    let agent = Agent::named(name).expect("clap checked the name");
    let cfg = workspace.config();
    let settings = config::agent_settings(cfg, name)?;
    if let Err(why) = agents::launch::program(agent, &settings) {
        return Err(crate::error::FatalWithHint {
            message: why,
            hint: "see which agents are installed with 'git ultraplan agents', or clean without --agent".into(),
        }
        .into());
    }
    let billed: Vec<&str> = agent
        .adapter()
        .billing_variables()
        .iter()
        .copied()
        .filter(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
        .collect();
    if !billed.is_empty() {
        ui.warning(format!(
            "{} set: {name} bills your API account per token for this question",
            billed.join(", ")
        ));
    }
    let ask = execute::agent_grouping::Ask {
        agent,
        settings,
        timeout: config::duration(cfg, &config::HISTORIAN_AGENT_TIMEOUT)?,
    };
    let status = StatusLine::new(!ui.quiet && std::io::stderr().is_terminal());
    let outcome = execute::clean_choosing(repo, &target, &options, &mut |analysis, plan| {
        status.set(format!("asking {name} for a grouping"));
        let proposal = execute::agent_grouping::propose(repo, analysis, plan, &ask, &mut |text| status.set_text(text))?;
        status.clear();
        match &proposal.rejected {
            Some(why) => ui.warning(format!(
                "the grouping {name} proposed was not used: {why}; building the deterministic plan"
            )),
            None => ui.note(format!("building the grouping {name} proposed (validated)")),
        }
        Ok(proposal.plan)
    })?;
    drop(status);
    super::render(&outcome, args.rewrite.json, ui)
}
