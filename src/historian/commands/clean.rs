//! `git historian clean [<branch>]`: the whole rewrite.

use anyhow::Result;

use crate::cli::{Exit, Ui};
use crate::git::Workspace;
use crate::historian::{engine, execute};

use super::RewriteArgs;

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
/// A planned commit over the size limits stops with a RESULT: QUESTION
/// offering splits; answer it with `git historian resume --answer <N>`.
/// The answer is a RESULT block (seed 001): SUCCESS, ERROR or QUESTION.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub rewrite: RewriteArgs,

    /// Check out each new commit in a temporary worktree and run this
    /// command there (sh -c); the first failing commit is an ERROR naming
    /// it, with the tail of the command's output.
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
}

pub fn run(args: Args, ui: Ui) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let target = engine::target(repo, args.rewrite.branch.as_deref())?;
    let mut options = super::options(&workspace, &args.rewrite, &target.branch)?;
    options.verify_each = args.verify_each.filter(|c| !c.trim().is_empty());
    options.stack = args.stack;
    let outcome = execute::clean(repo, &target, &options)?;
    super::render(&outcome, args.rewrite.json, ui)
}
