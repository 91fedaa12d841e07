//! `git historian plan [<branch>]`: the plan, writing nothing.

use std::io::Write;

use anyhow::Result;

use crate::cli::{Exit, Ui};
use crate::git::Workspace;
use crate::historian::engine;
use crate::historian::outcome::Outcome;
use crate::historian::plan::split;

use super::{explain, RewriteArgs};

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  What clean would build, and why each file is in its commit:
    git historian plan
    git historian plan --explain

  The plan as a file to edit and give back to clean --plan:
    git historian plan --json > plan.json

  The proposed commits side by side, with their hunks and why, in a browser:
    git historian plan --format html > plan.html
"#;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The plan as lines of text (the default).
    Text,
    /// One self-contained page: the commits side by side, each hunk and why.
    Html,
}

/// Print the commit plan `clean` would build, writing nothing.
///
/// The plan lists each new commit's message and the change items it holds,
/// and marks commits over the size limits (clean would ask about them).
/// With --json it prints `{"base", "tip", "commits": [{"message", "files",
/// "hunks"}]}`: edit it and give it to `git historian clean --plan <file>`.
/// Hunks are named `path#N`, counted from 1 in the file's diff, where a
/// hunk holding several entries (rows of a table, definitions added one
/// after the other, list items) counts as one hunk per entry; a file
/// listed under files holds all of its hunks.
///
/// With --format html it prints one self-contained HTML page (no script,
/// nothing fetched, light and dark) with the proposed commits side by side:
/// each commit's message and size, every change item it takes with the
/// item's lines as a diff (up to 40 lines each) or what happened to a whole
/// file, and why the item is there (the --explain reasons, always given on
/// the page), then the splits clean will offer for a commit over the limits.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub rewrite: RewriteArgs,

    /// Also say why each item is in its commit.
    ///
    /// Under each commit, one `why <item>:` line per change item: the
    /// signal that put it there and how strong it was — the branch commit
    /// that wrote most of its lines (and its share), the affinity link that
    /// joined its file to another (the link's strongest signal and the
    /// estimated chance, 0 to 1, against the threshold the joins used:
    /// 0.45; 0.25 in a commit naming one piece of work on a branch of two
    /// or more described commits, the author's cut; or 0.80 once a squash
    /// has as many commits as its message names), or the rule that moved it — and the rivals it beat: other
    /// commits that wrote its lines, the strongest link to a file in
    /// another commit. When a squash was split by the subjects its message
    /// names, the line also names the subject the item's piece answered
    /// to. A commit over the limits lists the splits clean will offer (one
    /// that no split parts, one file from one branch commit, is written as
    /// it is). With
    /// --json, the same as `explanation` beside the plan (which `clean
    /// --plan` reads back, ignoring it).
    #[arg(long)]
    pub explain: bool,

    /// text, or html: a page with the commits side by side (implies --explain).
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "json")]
    pub format: Option<Format>,
}

pub const EXIT_STATUS: [(Exit, &str); 4] = [
    (Exit::Done, "the plan was printed"),
    (
        Exit::Failed,
        "RESULT: ERROR — no base was found, or the branch has no commits beyond it",
    ),
    (
        Exit::Fatal,
        "not a git repository, not a branch, or an unreadable or invalid plan file",
    ),
    (Exit::Usage, "the command line was wrong"),
];

pub fn run(args: Args, ui: Ui) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let target = engine::target(repo, args.rewrite.branch.as_deref())?;
    let options = super::options(&workspace, &args.rewrite, &target.branch)?;
    let analysis = match engine::analyse(repo, &target, &options)? {
        Ok(a) => a,
        Err(failed) => return super::render(&Outcome::Error(failed), args.rewrite.json, ui),
    };
    let html = args.format == Some(Format::Html);
    let (plan, explanation) = if args.explain || html {
        let (plan, explanation) = engine::plan_explained(repo, &analysis, &options)?;
        (plan, Some(explanation))
    } else {
        (engine::plan(repo, &analysis, &options)?, None)
    };
    let ctx = analysis.context();
    let names = explanation.as_ref().map(|explanation| explain::Names {
        changes: &analysis.changes,
        commits: &analysis.commits,
        explanation,
    });
    let questions = match &explanation {
        Some(e) => explain::question_texts(&ctx, e),
        None => Vec::new(),
    };
    let mut out = std::io::stdout().lock();
    if let (true, Some(names)) = (html, &names) {
        let page = super::plan_html::render(
            repo,
            &super::plan_html::PlanPage {
                branch: &target.branch,
                base: repo.short(analysis.base.commit),
                tip: repo.short(target.tip),
                plan: &plan,
                names,
                ctx: &ctx,
                limits: options.limits,
                questions: &questions,
            },
        )?;
        out.write_all(page.as_bytes())?;
        return Ok(Exit::Done);
    }
    if args.rewrite.json {
        let file = plan.to_file(&analysis.changes);
        let mut value = serde_json::to_value(&file)?;
        if let Some(names) = &names {
            value["explanation"] = explain::json(&ctx, names);
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(Exit::Done);
    }
    let counted = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    writeln!(
        out,
        "Plan for '{}': {} from {} and {}",
        target.branch,
        counted(plan.commits.len(), "commit"),
        counted(analysis.commits.len(), "branch commit"),
        counted(analysis.changes.items.len(), "change item")
    )?;
    writeln!(
        out,
        "Base: {} ({}); tip: {}",
        repo.short(analysis.base.commit),
        analysis.base.source.describe(),
        repo.short(target.tip)
    )?;
    for (n, commit) in plan.commits.iter().enumerate() {
        let size = split::size(&ctx, &commit.items);
        writeln!(out)?;
        writeln!(
            out,
            "{}. {}  [{}: {} {}, {} {}]",
            n + 1,
            commit.subject(),
            size.class(options.limits),
            size.files,
            if size.files == 1 { "file" } else { "files" },
            size.lines,
            if size.lines == 1 { "line" } else { "lines" },
        )?;
        for line in commit.message.lines().skip(1) {
            if line.is_empty() {
                continue;
            }
            writeln!(out, "   {line}")?;
        }
        if size.over(options.limits) {
            let then = match split::question(&ctx, &commit.items, commit.keep, options.limits) {
                Some(_) => "clean will ask how to split it",
                None => "nothing splits it, so clean writes it as it is",
            };
            writeln!(
                out,
                "   (over the limits of {} files and {} lines: {then})",
                options.limits.files, options.limits.lines
            )?;
        }
        if let Some(names) = &names {
            for line in explain::commit_lines(n, names, &questions) {
                writeln!(out, "   {line}")?;
            }
        }
    }
    Ok(Exit::Done)
}
