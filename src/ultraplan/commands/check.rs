//! `git ultraplan check <plan>`: parse, validate and preview, writing nothing.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use crate::cli::color::{use_color, Paint, Terminal};
use crate::cli::{table, Exit, GlobalArgs, Ui};
use crate::git::Workspace;
use crate::ultraplan::plan::check::{check, CheckReport, Reference, Verdict};
use crate::ultraplan::plan::verify_lint::lint;
use crate::ultraplan::plan::{Checkpoint, Diagnostic, Plan};

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
        out.write_all(render(&file, &plan, &report, &executor, paint).as_bytes())?;
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
            problems: report.problems().collect(),
            warnings: report.warnings().collect(),
            verdict: report.verdict(),
        }
    }
}

/// Seed 004's dry-run report, as plain text.
fn render(file: &str, plan: &Plan, report: &CheckReport, executor: &str, paint: Paint) -> String {
    let mut out = String::new();
    overview(&mut out, file, plan, paint);
    line(
        &mut out,
        &format!("Executor: {executor} (the verdict assumes it; --executor to check for another)"),
    );
    out.push('\n');
    step_table(&mut out, plan, report, paint);
    skipped(&mut out, plan, paint);
    file_references(&mut out, report, paint);
    conditions(&mut out, plan, paint);
    execution_preview(&mut out, file, plan, paint);
    verification(&mut out, plan, paint);
    findings_and_verdict(&mut out, report, paint);
    out
}

fn line(out: &mut String, s: &str) {
    out.push_str(s);
    out.push('\n');
}

/// The plan's kind, id, title, size and strategy.
fn overview(out: &mut String, file: &str, plan: &Plan, paint: Paint) {
    line(out, &paint.bold(format!("Dry run report: {file}")));
    line(out, "");
    line(out, &format!("Type: {}", plan.kind.as_str()));
    if let Some(why) = &plan.format_reason {
        line(out, &format!("Read as: {why}"));
    }
    line(out, &format!("Plan: {}", plan.plan_id));
    if let Some(title) = &plan.title {
        line(out, &format!("Title: {title}"));
    }
    if let Some(version) = &plan.plan_version {
        line(out, &format!("Plan version: {version}"));
    }
    line(out, &format!("Steps: {}", plan.steps.len()));
    line(out, &format!("Strategy: {}", plan.strategy()));
    if let Some(note) = &plan.verify_note {
        line(out, &format!("Verify: {note}"));
    }
    if let Some(spec) = &plan.session_spec {
        let session = plan.sessions.first();
        line(
            out,
            &format!(
                "Scope fence: {} touch, {} never-touch",
                session.map_or(0, |s| s.touch.len()),
                session.map_or(0, |s| s.never_touch.len())
            ),
        );
        if let Some(master) = &spec.master_plan {
            line(out, &format!("Master plan: {master}"));
        }
    }
}

/// One row per step: its Verify, failure policy, checkpoint and issues.
fn step_table(out: &mut String, plan: &Plan, report: &CheckReport, paint: Paint) {
    line(out, &paint.bold("Step validation"));
    let issues = issues_by_step(report);
    let rows: Vec<Vec<String>> = plan
        .steps
        .iter()
        .map(|step| {
            vec![
                step.number.to_string(),
                step.title.clone(),
                match (&step.verify, &step.human, step.verified_by) {
                    (Some(v), _, _) => v.command.clone(),
                    (None, Some(h), _) => format!("(a person: {})", h.kind.as_str()),
                    (None, None, Some(n)) => format!("(checked by step {n})"),
                    (None, None, None) => "—".into(),
                },
                step.on_failure.action.as_str().to_owned(),
                match &step.checkpoint {
                    Some(Checkpoint::Commit { message }) => message.clone(),
                    Some(Checkpoint::Command { command }) => command.clone(),
                    None => "none".into(),
                },
                match (&step.skip, step.optional) {
                    (Some(_), _) => format!("skipped; {}", step_issues(step.number, &issues)),
                    (None, true) => format!("optional; {}", step_issues(step.number, &issues)),
                    (None, false) => step_issues(step.number, &issues),
                },
            ]
        })
        .collect();
    let table = table::render(
        &["Step", "Description", "Verify", "On failure", "Checkpoint", "Issues"],
        &rows,
        40,
        2,
    );
    out.push_str(&table);
}

/// Steps the run will skip, and why.
fn skipped(out: &mut String, plan: &Plan, paint: Paint) {
    let skipped: Vec<_> = plan
        .steps
        .iter()
        .filter_map(|s| s.skip.as_ref().map(|w| (s.number, w)))
        .collect();
    if skipped.is_empty() {
        return;
    }
    out.push('\n');
    out.push_str(&paint.bold(format!("Skipped ({})", skipped.len())));
    out.push('\n');
    for (n, why) in skipped {
        out.push_str(&format!("  step {n}: {why}\n"));
    }
}

/// What the plan's file references point at: each path once, as its first
/// step finds it (a later step's reference to a file an earlier one makes
/// says nothing new), with the steps listing it when there are several.
/// `--json` keeps every reference with its step.
fn file_references(out: &mut String, report: &CheckReport, paint: Paint) {
    if report.file_references.is_empty() {
        return;
    }
    out.push('\n');
    out.push_str(&paint.bold("File references"));
    out.push('\n');
    let mut steps: std::collections::HashMap<&str, Vec<u32>> = Default::default();
    let mut first = Vec::new();
    for r in &report.file_references {
        let listed = steps.entry(r.path.as_str()).or_default();
        if listed.is_empty() {
            first.push(r);
        }
        if !listed.contains(&r.step) {
            listed.push(r.step);
        }
    }
    for r in first {
        let status = match r.status {
            Reference::NotFound => paint.yellow(r.status.describe()),
            _ => r.status.describe().to_owned(),
        };
        let listed = &steps[r.path.as_str()];
        let by = if listed.len() > 1 {
            let numbers: Vec<String> = listed.iter().map(u32::to_string).collect();
            format!(" (steps {})", numbers.join(", "))
        } else {
            String::new()
        };
        out.push_str(&format!("  {}{by}: {status}\n", r.path));
    }
}

/// A session spec's entry and exit conditions.
fn conditions(out: &mut String, plan: &Plan, paint: Paint) {
    if let Some(spec) = &plan.session_spec {
        out.push('\n');
        out.push_str(&paint.bold("Entry / exit conditions"));
        out.push('\n');
        match &spec.entry_condition {
            Some(c) => out.push_str(&format!("  Entry: {}\n", describe_condition(c))),
            None => out.push_str("  Entry: none\n"),
        }
        for c in &spec.exit_conditions {
            out.push_str(&format!("  Exit:  {}\n", describe_condition(c)));
        }
    }
}

/// Sessions by wave, with the command that runs each.
fn execution_preview(out: &mut String, file: &str, plan: &Plan, paint: Paint) {
    if plan.is_multi_session() {
        out.push('\n');
        out.push_str(&paint.bold("Execution preview"));
        out.push('\n');
        out.push_str(&format!(
            "  Sessions: {} across {} waves\n",
            plan.sessions.len(),
            plan.waves.len()
        ));
        let mut rows = Vec::new();
        for session in &plan.sessions {
            let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
            rows.push(vec![
                session.wave.map_or("?".into(), |w| w.to_string()),
                format!("Session {}: {}", session.number, session.title),
                list(&session.steps),
                if session.depends_on.is_empty() {
                    "none".into()
                } else {
                    list(&session.depends_on)
                },
                format!(
                    "git ultraplan run --session {} {}",
                    session.number,
                    crate::cli::shell::operand(file)
                ),
            ]);
        }
        rows.sort_by_key(|r| r[0].parse::<u32>().unwrap_or(u32::MAX));
        out.push_str(&table::render(
            &["Wave", "Session", "Steps", "Depends on", "Command"],
            &rows,
            60,
            2,
        ));
    }
}

/// The plan's `## Verification` checks.
fn verification(out: &mut String, plan: &Plan, paint: Paint) {
    if !plan.verification.is_empty() {
        out.push('\n');
        out.push_str(&paint.bold("Verification"));
        out.push('\n');
        for check in &plan.verification {
            match &check.expected {
                Some(e) => out.push_str(&format!("  {} → expected: {e}\n", check.command)),
                None => out.push_str(&format!("  {}\n", check.command)),
            }
        }
    }
}

/// Problems, warnings and the verdict.
fn findings_and_verdict(out: &mut String, report: &CheckReport, paint: Paint) {
    let problems: Vec<_> = report.problems().collect();
    let warnings: Vec<_> = report.warnings().collect();
    if !problems.is_empty() {
        out.push('\n');
        out.push_str(&paint.red(paint.bold(format!("Problems ({})", problems.len()))));
        out.push('\n');
        for d in &problems {
            out.push_str(&format!("  line {}: {}\n", d.line, d.message));
        }
    }
    if !warnings.is_empty() {
        out.push('\n');
        out.push_str(&paint.yellow(paint.bold(format!("Warnings ({})", warnings.len()))));
        out.push('\n');
        for d in &warnings {
            out.push_str(&format!("  line {}: {}\n", d.line, d.message));
        }
    }

    out.push('\n');
    let verdict = match report.verdict() {
        Verdict::Ready => paint.green(paint.bold("READY")),
        Verdict::NeedsAttention => paint.red(paint.bold(format!(
            "NEEDS ATTENTION — {} problem{} found",
            problems.len(),
            if problems.len() == 1 { "" } else { "s" }
        ))),
    };
    out.push_str(&format!("Verdict: {verdict}\n"));
}

fn describe_condition(c: &crate::ultraplan::plan::Condition) -> String {
    match &c.check {
        Some(check) => match &check.expected {
            Some(e) => format!("run `{}` → expected: {e}", check.command),
            None => format!("run `{}` (exit code decides)", check.command),
        },
        None => format!("{} (prose; checked by a person)", c.text),
    }
}

/// How many problems and warnings name each step (`step N: …`, `task N: …`),
/// counted in one pass over the diagnostics.
fn issues_by_step(report: &CheckReport) -> std::collections::HashMap<u32, (usize, usize)> {
    let mut counts = std::collections::HashMap::new();
    for d in &report.diagnostics {
        let Some(rest) = d
            .message
            .strip_prefix("step ")
            .or_else(|| d.message.strip_prefix("task "))
        else {
            continue;
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let named = rest[digits.len()..].starts_with([':', ' ']);
        if let (Ok(n), true) = (digits.parse::<u32>(), named) {
            let entry: &mut (usize, usize) = counts.entry(n).or_default();
            match d.severity {
                crate::ultraplan::plan::Severity::Problem => entry.0 += 1,
                crate::ultraplan::plan::Severity::Warning => entry.1 += 1,
            }
        }
    }
    counts
}

/// "none", or how many problems and warnings name the step.
fn step_issues(number: u32, counts: &std::collections::HashMap<u32, (usize, usize)>) -> String {
    match counts.get(&number).copied().unwrap_or_default() {
        (0, 0) => "none".into(),
        (p, 0) => plural(p, "problem"),
        (0, w) => plural(w, "warning"),
        (p, w) => format!("{}, {}", plural(p, "problem"), plural(w, "warning")),
    }
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}
