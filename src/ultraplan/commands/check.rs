//! `git ultraplan check <plan>`: parse, validate and preview, writing nothing.

mod render;

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use crate::cli::color::{use_color, Paint, Terminal};
use crate::cli::{Exit, GlobalArgs, Ui};
use crate::git::Workspace;
use crate::ultraplan::plan::check::{check, CheckReport, Verdict};
use crate::ultraplan::plan::unverified::unverified_diagnostic;
use crate::ultraplan::plan::verify_lint::lint;
use crate::ultraplan::plan::{Diagnostic, Plan};

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Validate a plan and preview its run, writing nothing:
    git ultraplan check plan.md

  The same report as data, for a script or an editor:
    git ultraplan check --json plan.md
"#;

/// Parse, validate and preview a plan, writing nothing.
///
/// Reads a plan in any of the formats run takes (an ultraplan, a session
/// spec, a GSD task plan or phase directory, a spec-kit or Kiro tasks.md, a
/// Taskmaster tasks.json, a BMAD story; `Read as:` says which, and why) and
/// prints the dry-run report: the plan's type and steps, how it will run (`single session` or
/// `N sessions (M parallel, K sequential)`), a table of steps, where each file
/// reference stands (exists, new, not found), the waves of sessions, and a
/// verdict. Checks step numbering, sessions and their steps, dependencies and
/// cycles, waves, Touch overlaps within a wave, scope fences, and that every
/// path is relative and stays inside the repository.
///
/// Task plans may be GSD's PLAN.md files: `<verify><automated>` is the
/// command; a Verify written as prose is flagged (naming its line) and left to
/// a person; checkpoint tasks (`checkpoint:human-verify`, `decision`,
/// `human-action`) are steps for a person; TDD plans (`type: tdd`) become RED,
/// GREEN and REFACTOR steps. A GSD phase directory (its `*-PLAN.md` files) is checked
/// as one multi-session plan: `wave`, `depends_on` and `files_modified` as the
/// sessions' waves, dependencies and Touch lists. Each plan of a phase must be a
/// file in it (not a directory, link or pipe), and two plans of one id are a
/// problem. A multi-session plan outside the repository or inside .git is a
/// problem: the sessions read it from a commit. What check calls READY, run
/// runs.
///
/// A step with no Verify command — and no check by a person, no later step
/// that checks it, not skipped — can pass only on the executor's word, which
/// run takes only with --allow-unverified: check names such steps as a
/// problem (NEEDS ATTENTION), as run refuses the plan without the flag.
/// Kiro and spec-kit tasks often have none. `check --allow-unverified`
/// checks the plan as `run --allow-unverified` runs it: the steps are named
/// in a warning instead.
///
/// Verify commands are read, never run: `check` warns about a Verify that
/// cannot fail (`|| true`, `|| echo …`), one with a shell syntax error (`sh
/// -n`), paths from another machine (`/Users/…`, `C:/…`) and servers that
/// never end (`npm run dev`, `uvicorn`) — the safe way to read a plan you
/// did not write, as Verify commands and shell blocks run code.
///
/// Paths are resolved against the top of the working tree (the current
/// directory outside a repository).
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// The plan: an ultraplan, a session spec, a task plan, or a GSD phase directory.
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub plan: PathBuf,

    /// Print the report as one JSON object instead.
    #[arg(long)]
    pub json: bool,

    /// The executor the verdict assumes (default: ultraplan.executor, else
    /// shell): for the shell executor, a step whose Changes has no fenced
    /// sh, bash or diff block is a problem, as `run` would stop it blocked.
    #[arg(long, value_name = "NAME|COMMAND")]
    pub executor: Option<String>,

    /// Check the plan as 'run --allow-unverified' runs it: steps without a
    /// Verify command pass on the executor's word (a warning), rather than
    /// being a problem that makes run refuse the plan.
    #[arg(long)]
    pub allow_unverified: bool,

    #[command(flatten)]
    pub choices: super::plan_choices::PlanChoices,
}

pub const EXIT_STATUS: [(Exit, &str); 4] = [
    (Exit::Done, "the plan is READY"),
    (
        Exit::Failed,
        "the plan NEEDS ATTENTION: it has problems (listed with their lines)",
    ),
    (
        Exit::Fatal,
        "the file cannot be read or is none of the plan formats (with --json, a JSON error document)",
    ),
    (Exit::Usage, "the command line was wrong"),
];

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let ui = Ui { quiet: global.quiet };
    let workspace = Workspace::discover()?;
    let plan = match super::load_plan_with(&args.plan, &args.choices.context()) {
        Ok((_, plan)) => plan,
        Err(err) if args.json => {
            // `--json` promises one JSON document, also for a file that is not a plan.
            let doc = serde_json::json!({"file": args.plan.display().to_string(), "error": format!("{err:#}")});
            writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(&doc)?)?;
            // And the usual `fatal:` line on stderr.
            return Err(err);
        }
        Err(err) => return Err(err),
    };
    if !workspace.in_repository() {
        ui.note(format_args!(
            "note: not in a git repository; checking paths against '{}'",
            workspace.root().display()
        ));
    }
    let executor = crate::ultraplan::exec::Executor::parse(
        &args
            .executor
            .clone()
            .unwrap_or_else(|| crate::cli::config::string(workspace.config(), &crate::cli::config::EXECUTOR)),
    );
    let mut report = check(&plan, workspace.root());
    let shell = executor == crate::ultraplan::exec::Executor::Shell;
    report.diagnostics.extend(lint(&plan, workspace.root(), shell));
    report
        .diagnostics
        .extend(unverified_diagnostic(&plan, args.allow_unverified));
    if workspace.in_repository() {
        let (_, in_worktree) = crate::ultraplan::plan::load::plan_location(&args.plan, workspace.root());
        report
            .diagnostics
            .extend(crate::ultraplan::plan::check::placement_problem(
                &plan,
                in_worktree.as_deref(),
            ));
        report.diagnostics.extend(crate::ultraplan::plan::check::plan_in_files(
            &plan,
            in_worktree.as_deref(),
        ));
    }
    report.diagnostics.sort_by_key(|d| (d.line, d.severity));
    let executor = executor.id();
    let file = args.plan.display().to_string();
    let mut out = std::io::stdout().lock();
    if args.json {
        let json = serde_json::to_string_pretty(&CheckJson::new(&file, &plan, &report, &executor))?;
        writeln!(out, "{json}")?;
    } else {
        let paint = Paint::new(use_color(
            global.color,
            workspace.config(),
            "ultraplan",
            Terminal::stdout(),
        ));
        out.write_all(render::render(&file, &plan, &report, &executor, paint).as_bytes())?;
    }
    out.flush()?;
    Ok(match report.verdict() {
        Verdict::Ready => Exit::Done,
        Verdict::NeedsAttention => Exit::Failed,
    })
}

/// The `--json` document: the plan model plus the report.
#[derive(Serialize)]
struct CheckJson<'a> {
    file: &'a str,
    /// The format's name (the same as `type`), for scripts that ask which.
    format: &'static str,
    #[serde(flatten)]
    plan: &'a Plan,
    strategy: String,
    /// The executor the verdict assumes.
    executor: &'a str,
    file_references: &'a [crate::ultraplan::plan::check::FileReference],
    /// The steps that pass only with --allow-unverified.
    unverified_steps: Vec<u32>,
    problems: Vec<&'a Diagnostic>,
    warnings: Vec<&'a Diagnostic>,
    verdict: Verdict,
}

impl<'a> CheckJson<'a> {
    fn new(file: &'a str, plan: &'a Plan, report: &'a CheckReport, executor: &'a str) -> Self {
        CheckJson {
            file,
            format: plan.kind.as_str(),
            plan,
            strategy: plan.strategy().to_string(),
            executor,
            file_references: &report.file_references,
            unverified_steps: plan.unverified_steps().map(|s| s.number).collect(),
            problems: report.problems().collect(),
            warnings: report.warnings().collect(),
            verdict: report.verdict(),
        }
    }
}
