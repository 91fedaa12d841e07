//! `git ultraplan report [<plan>]`: the latest run of a plan as one
//! self-contained HTML page or as Markdown.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context as _, Result};

use crate::cli::{Exit, GlobalArgs};
use crate::git::Workspace;
use crate::ultraplan::report;
use crate::ultraplan::state::{catalog, slug};

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  The last run of plan.md as a page to open in a browser:
    git ultraplan report plan.md -o report.html

  The same run as a CI job's summary on GitHub:
    git ultraplan report plan.md >> "$GITHUB_STEP_SUMMARY"

  Commits linked to a host git ultraplan does not know:
    git ultraplan report plan.md -o report.html --commit-url https://git.example.com/team/app/commit/
"#;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One self-contained page: inline style and SVG, no script, nothing fetched.
    Html,
    /// GitHub-flavoured Markdown (a pull request, `$GITHUB_STEP_SUMMARY`).
    Markdown,
}

/// Show a plan's latest run as an HTML page or as Markdown.
///
/// Reads the run recorded under refs/ultraplan/ (as `status` and `log` do)
/// and renders: a timeline of the run (sessions as lanes, each attempt a
/// bar coloured by its result, retries outlined and numbered step·attempt,
/// merges marked with a diamond), the sessions and their merge commits,
/// each step with its result, attempts, time, cost, tokens and checkpoint
/// commit, cost and tokens by agent (executor and model), the risk table of
/// what the run changed, and per step every attempt's Verify command, exit
/// code and output, its error, and the files it changed. Everything shown
/// comes from the record, which was redacted when it was stored.
///
/// The HTML page is one file that needs nothing else: no script, no font,
/// no address to fetch (its Content-Security-Policy forbids them); it
/// follows the reader's light or dark preference. The Markdown carries the
/// same content, the timeline as a table (one row per step, its attempts as
/// marks in the order they ran), for a pull request description or a CI
/// job summary.
///
/// Without <plan>, the plan whose run was updated last. The run shown is
/// the plan's latest (with a parallel run, every session's attempts within
/// it, a resumed session's earlier run included). The format is html when
/// FILE ends in .html or .htm, else markdown, unless --format says.
/// Commits link to GitHub, GitLab or Codeberg when the remote `origin`
/// is there; --commit-url names the address for any other host.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The plan whose run to show (default: the plan run last).
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub plan: Option<PathBuf>,

    /// html or markdown (default: html when FILE ends in .html, else markdown).
    #[arg(long, value_enum)]
    pub format: Option<Format>,

    /// Write to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub output: Option<PathBuf>,

    /// Link commits to this address followed by the commit id.
    #[arg(long, value_name = "PREFIX")]
    pub commit_url: Option<String>,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the report was written"),
    (
        Exit::Fatal,
        "not a git repository, unreadable state, no run recorded (of the plan named; a path that does not exist or is no plan is named so), or FILE not writable",
    ),
    (Exit::Usage, "the command line was wrong"),
];

/// The format: asked for, else by FILE's extension, else Markdown.
fn format_of(args: &Args) -> Format {
    args.format.unwrap_or_else(|| {
        let html = args
            .output
            .as_deref()
            .and_then(Path::extension)
            .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));
        if html {
            Format::Html
        } else {
            Format::Markdown
        }
    })
}

/// The plan to show and how runs name it: the one named, else the one
/// whose state was updated last.
fn options(args: &Args, repo: &crate::git::Repo) -> Result<report::Options> {
    let (slug, wanted) = match &args.plan {
        Some(plan) => {
            let slug = slug(plan);
            if catalog::states(repo, &slug)?.is_empty() {
                super::plan_without_runs(plan)?;
                return Err(anyhow!("no run of '{}' is recorded; nothing to report", plan.display()));
            }
            let wanted = crate::ultraplan::plan::load::plan_location(plan, repo.workdir().unwrap_or(Path::new("."))).0;
            (slug, Some(wanted))
        }
        None => {
            let mut latest: Option<(String, String)> = None;
            for slug in catalog::slugs(repo)? {
                for state in catalog::states(repo, &slug)? {
                    let updated = state.progress.updated_at.clone();
                    if latest.as_ref().is_none_or(|(_, u)| updated > *u) {
                        latest = Some((slug.clone(), updated));
                    }
                }
            }
            let Some((slug, _)) = latest else {
                return Err(crate::error::FatalWithHint {
                    message: "no run is recorded in this repository; nothing to report".into(),
                    hint: "run a plan first: git ultraplan run plan.md".into(),
                }
                .into());
            };
            (slug, None)
        }
    };
    let commit_url = args.commit_url.clone().or_else(|| {
        repo.remote_url("origin")
            .as_deref()
            .and_then(report::commit_url_of_remote)
    });
    Ok(report::Options {
        slug,
        wanted,
        commit_url,
    })
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let options = options(&args, repo)?;
    let ui = crate::cli::Ui { quiet: global.quiet };
    let Some(found) = report::read(repo, &options)? else {
        let named = args
            .plan
            .as_ref()
            .map_or_else(|| options.slug.clone(), |p| p.display().to_string());
        return Err(anyhow!("no run of '{named}' is recorded; nothing to report"));
    };
    for w in &found.warnings {
        ui.warning(w);
    }
    let text = match format_of(&args) {
        Format::Html => report::html::render(&found),
        Format::Markdown => report::markdown::render(&found),
    };
    match &args.output {
        Some(file) => {
            let path = if file.is_absolute() {
                file.clone()
            } else {
                workspace.cwd().join(file)
            };
            std::fs::write(&path, text).with_context(|| format!("cannot write '{}'", file.display()))?;
            if !global.quiet {
                eprintln!(
                    "Wrote the report of run {} of '{}' to '{}'",
                    found.run_id,
                    found.plan,
                    file.display()
                );
            }
        }
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(Exit::Done)
}
