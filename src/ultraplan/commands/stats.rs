//! `git ultraplan stats [<plan>…]`: seed 000's metrics from the recorded runs.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{anyhow, Context as _, Result};

use crate::cli::date::{self, Date};
use crate::cli::{Exit, GlobalArgs};
use crate::git::Workspace;
use crate::ultraplan::records::metrics::{human_duration, Group};
use crate::ultraplan::records::{collect, state_md, Filter, Metrics};
use crate::ultraplan::state::slug;

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  The totals, and a table per plan:
    git ultraplan stats

  A table per day of January, as JSON:
    git ultraplan stats --by day --since 2026-01-01 --until 2026-01-31 --json

  Rewrite the Performance Metrics section of STATE.md:
    git ultraplan stats --state-md
"#;

/// Count, rate and time the recorded step executions.
///
/// Reads every run of every plan with state here (sessions included, each
/// attempt once) and reports the result capture protocol's metrics: tasks executed, succeeded,
/// failed, blocked and skipped; retries; the success rate; durations (total,
/// average, min, max); files modified; velocity (plans completed, their
/// average and total time) and the recent trend of the last five completed
/// plans (Improving when the last two average less than the first three,
/// Declining when more by over 20 %, else Stable). A task is one step's
/// execution within one run: its last attempt decides its status, the
/// attempts before it are retries.
///
/// Cost and tokens are what agent executors reported (metadata.cost_usd and
/// metadata.tokens of each attempt), summed per run, plan, phase, day and
/// agent (`--by agent`); `-` where no attempt reported any. Tokens are
/// shown as input at the full rate, output and cached input.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// Only these plans' runs.
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub plans: Vec<PathBuf>,

    /// Only what was logged at or after DATE (2026-11-01, 2.weeks.ago, …).
    #[arg(long, value_name = "DATE", value_parser = date::parse_arg,
          long_help = date::long_help("Only what was logged at or after DATE (a day: from its start)."))]
    pub since: Option<Date>,

    /// Only what was logged at or before DATE (2026-11-30, yesterday, …).
    #[arg(long, value_name = "DATE", value_parser = date::parse_arg,
          long_help = date::long_help("Only what was logged at or before DATE (a day: to its end)."))]
    pub until: Option<Date>,

    /// The table to show besides the totals.
    #[arg(long, value_enum, default_value = "plan")]
    pub by: By,

    /// Rewrite the `## Performance Metrics` section of FILE (default
    /// STATE.md), leaving every other byte of it as it is.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "STATE.md", value_hint = clap::ValueHint::FilePath)]
    pub state_md: Option<PathBuf>,

    /// Print the metrics as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum By {
    Day,
    Plan,
    Phase,
    /// By executor: what each agent did and cost.
    Agent,
    Run,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the metrics were shown (or the file written)"),
    (
        Exit::Fatal,
        "not a git repository, unreadable state, or a file that cannot be written",
    ),
    (
        Exit::Usage,
        "the command line was wrong (a DATE in none of the forms git reads)",
    ),
];

/// The record's filter from the command line.
fn options(args: &Args) -> Filter {
    Filter {
        slugs: (!args.plans.is_empty()).then(|| args.plans.iter().map(|p| slug(p)).collect()),
        since: args.since.map(|d| d.first()),
        until: args.until.map(|d| d.last()),
        records: false,
    }
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let record = collect(repo, &options(&args))?;
    let metrics = Metrics::of(&record);
    if let Some(file) = &args.state_md {
        let path = if file.is_absolute() {
            file.clone()
        } else {
            workspace.cwd().join(file)
        };
        let text = match std::fs::read(&path) {
            Ok(bytes) => String::from_utf8(bytes).map_err(|_| anyhow!("'{}' is not UTF-8 text", file.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e).with_context(|| format!("cannot read '{}'", file.display())),
        };
        let updated = state_md::splice(&text, &state_md::render(&metrics, &record));
        std::fs::write(&path, updated).with_context(|| format!("cannot write '{}'", file.display()))?;
        if !global.quiet {
            eprintln!("Updated the Performance Metrics of '{}'", file.display());
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&metrics)?)?;
        return Ok(Exit::Done);
    }
    if args.state_md.is_some() {
        return Ok(Exit::Done);
    }
    render(&mut out, &metrics, args.by)?;
    Ok(Exit::Done)
}

fn percent(rate: f64) -> String {
    format!("{:.0}%", rate * 100.0)
}

fn render(out: &mut impl Write, m: &Metrics, by: By) -> Result<()> {
    let t = &m.totals;
    writeln!(
        out,
        "Tasks: {} executed, {} succeeded, {} failed, {} blocked, {} skipped; {} retries; success rate {}",
        t.tasks_executed,
        t.tasks_succeeded,
        t.tasks_failed,
        t.tasks_blocked,
        t.tasks_skipped,
        t.total_retries,
        percent(t.success_rate)
    )?;
    let opt = |d: Option<u64>| d.map_or_else(|| "-".to_owned(), human_duration);
    writeln!(
        out,
        "Durations: total {}, average {}, min {}, max {}",
        human_duration(t.total_duration_ms),
        human_duration(t.average_duration_ms),
        opt(t.min_duration_ms),
        opt(t.max_duration_ms)
    )?;
    writeln!(out, "Files modified: {}", t.files_modified_count)?;
    // Only agents report cost and tokens: a record without any shows none.
    let costed = !t.usage.is_empty();
    if costed {
        writeln!(
            out,
            "Cost: {} (as agents reported it); tokens: {}",
            t.usage.cost_text(),
            t.usage.tokens_text()
        )?;
    }
    let v = &m.velocity;
    writeln!(
        out,
        "Velocity: {} of {} plan runs completed; average {}, total {}",
        v.plans_completed,
        v.plans_total,
        human_duration(v.average_duration_ms),
        human_duration(v.total_duration_ms)
    )?;
    let recent: Vec<String> = m.recent_durations_ms.iter().map(|d| human_duration(*d)).collect();
    writeln!(
        out,
        "Recent trend: {} ({})",
        m.trend.as_str(),
        if recent.is_empty() {
            "no completed plan".to_owned()
        } else {
            recent.join(", ")
        }
    )?;
    let (title, groups): (&str, &[Group]) = match by {
        By::Day => ("Day", &m.by_day),
        By::Plan => ("Plan", &m.by_plan),
        By::Phase => ("Phase", &m.by_phase),
        By::Agent => ("Agent", &m.by_agent),
        By::Run => ("Run", &m.by_run),
    };
    writeln!(out)?;
    let width = groups.iter().map(|g| g.key.len()).max().unwrap_or(0).max(title.len());
    writeln!(
        out,
        "{title:<width$}  Tasks  OK  Failed  Blocked  Skipped  Retries  Rate  Duration  Plans done{}",
        if costed { "  Cost     Tokens" } else { "" }
    )?;
    for g in groups {
        let c = &g.counts;
        let usage = if costed {
            format!("  {:<7}  {}", c.usage.cost_text(), c.usage.tokens_text())
        } else {
            String::new()
        };
        writeln!(
            out,
            "{:<width$}  {:>5}  {:>2}  {:>6}  {:>7}  {:>7}  {:>7}  {:>4}  {:>8}  {}/{}{usage}",
            g.key,
            c.tasks_executed,
            c.tasks_succeeded,
            c.tasks_failed,
            c.tasks_blocked,
            c.tasks_skipped,
            c.total_retries,
            percent(c.success_rate),
            human_duration(c.total_duration_ms),
            g.velocity.plans_completed,
            g.velocity.plans_total,
        )?;
    }
    Ok(())
}
