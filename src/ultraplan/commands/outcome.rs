//! `git ultraplan outcome log|list|show|search|stats|extract`: outcome
//! trajectories and the plans extracted from them (DESIGN §17).

use std::io::{IsTerminal, Read, Write};

use anyhow::{anyhow, Context as _, Result};
use serde_json::{json, Map, Value};

use crate::cli::date::{self, Date};
use crate::cli::{Exit, GlobalArgs, Ui};
use crate::git::Workspace;
use crate::ultraplan::outcomes::{self, model, store, Filter, OutcomeInput, Settings, Stored};

/// Record and search what executions did and the plans behind them.
///
/// Every finished run records an outcome in refs/ultraplan-outcomes; any
/// other agent records its own with `outcome log`. A plan is extracted from
/// each success, by the rules or by the command ultraplan.outcomes.extractor
/// names.
#[derive(Debug, clap::Subcommand)]
pub enum OutcomeCommand {
    Log(LogArgs),
    List(ListArgs),
    Show(ShowArgs),
    Search(SearchArgs),
    Stats(StatsArgs),
    Extract(ExtractArgs),
}

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const LOG_EXAMPLES: &str = r#"Examples:
  Record what an agent did (prints the new outcome's id):
    git ultraplan outcome log --task "Build auth endpoint" --agent builder \
      --success --step analyze --step code --step test --time 4.2

  The same, as one JSON object on stdin:
    echo '{"task":"Deploy","agent_name":"deploy","success":false,"error_message":"timeout"}' |
      git ultraplan outcome log
"#;

/// Record an outcome: from flags, or one JSON object on stdin.
///
/// Without --task, standard input holds one JSON object with the arguments of
/// the trajectory logger's log_outcome(): task, agent_name, success (required),
/// execution_path (strings), result and context (objects), error_message,
/// execution_time (seconds). Unknown fields, wrong types, inputs over 1 MiB,
/// tasks over 16 KiB, more than 1000 steps, nesting deeper than 16 levels and
/// agent names other than letters, digits, '-', '_' and '.' are refused and
/// nothing is written. Everything is redacted before it is stored. Prints
/// the new outcome's id.
#[derive(Debug, clap::Args)]
#[command(after_long_help = LOG_EXAMPLES)]
pub struct LogArgs {
    /// What was being done.
    #[arg(long, value_name = "TEXT")]
    pub task: Option<String>,
    /// The agent that did it (a folder name: letters, digits, '-', '_', '.').
    #[arg(long, value_name = "NAME", requires = "task")]
    pub agent: Option<String>,
    /// It succeeded.
    #[arg(long, conflicts_with = "failure", requires = "task")]
    pub success: bool,
    /// It failed.
    #[arg(long, requires = "task")]
    pub failure: bool,
    /// A step or tool of the execution path, in order (repeatable).
    #[arg(long = "step", value_name = "STEP", requires = "task")]
    pub steps: Vec<String>,
    /// The result, as a JSON object.
    #[arg(long, value_name = "JSON", requires = "task")]
    pub result: Option<String>,
    /// What went wrong.
    #[arg(long, value_name = "TEXT", requires = "task")]
    pub error: Option<String>,
    /// How long it took, in seconds.
    #[arg(long, value_name = "SECONDS", requires = "task")]
    pub time: Option<f64>,
    /// More about it, as a JSON object.
    #[arg(long, value_name = "JSON", requires = "task")]
    pub context: Option<String>,
    /// Do not extract a plan, even from a success (beats ultraplan.outcomes.autoExtract).
    #[arg(long)]
    pub no_extract: bool,
    /// Print the stored outcome (and plan) as JSON instead of its id.
    #[arg(long)]
    pub json: bool,
}

/// Which outcomes to show.
#[derive(Debug, Clone, clap::Args)]
pub struct FilterArgs {
    /// Only this agent's outcomes.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Only successes.
    #[arg(long, conflicts_with = "failure")]
    pub success: bool,
    /// Only failures.
    #[arg(long)]
    pub failure: bool,
}

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const LIST_EXAMPLES: &str = r#"Examples:
  One agent's failures since the first of January:
    git ultraplan outcome list --agent builder --failure --since 2026-01-01
"#;

/// List recorded outcomes, newest first.
#[derive(Debug, clap::Args)]
#[command(after_long_help = LIST_EXAMPLES)]
pub struct ListArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Only outcomes recorded at or after DATE (2026-11-01, 2.weeks.ago, …).
    #[arg(long, value_name = "DATE", value_parser = date::parse_arg,
          long_help = date::long_help("Only outcomes recorded at or after DATE (a day: from its start)."))]
    pub since: Option<Date>,
    /// Print JSON Lines, one outcome (with its plan) per line.
    #[arg(long)]
    pub json: bool,
}

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const SHOW_EXAMPLES: &str = r#"Examples:
  An outcome and the plan extracted from it:
    git ultraplan outcome show outcome_builder_1a2b3c4d
"#;

/// Show one outcome and the plan extracted from it.
#[derive(Debug, clap::Args)]
#[command(after_long_help = SHOW_EXAMPLES)]
pub struct ShowArgs {
    /// The outcome id (outcome_<agent>_<8 hex digits>).
    pub id: String,
    /// Print one JSON object {outcome, plan}.
    #[arg(long)]
    pub json: bool,
}

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const SEARCH_EXAMPLES: &str = r#"Examples:
  The five successful outcomes that best match some words:
    git ultraplan outcome search auth endpoint --success --limit 5
"#;

/// Search outcomes and their plans, ranked by BM25.
///
/// Matches the task, the error, and the plan's strategy, success and failure
/// factors and key decisions; words are compared lowercased.
#[derive(Debug, clap::Args)]
#[command(after_long_help = SEARCH_EXAMPLES)]
pub struct SearchArgs {
    /// The words to look for.
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// At most this many results.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub limit: usize,
    /// Print JSON Lines, one hit (score, outcome, plan) per line.
    #[arg(long)]
    pub json: bool,
}

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const STATS_EXAMPLES: &str = r#"Examples:
  How many outcomes, plans and training examples are stored, per agent:
    git ultraplan outcome stats
"#;

/// Count outcomes, extracted plans and training examples, per agent.
#[derive(Debug, clap::Args)]
#[command(after_long_help = STATS_EXAMPLES)]
pub struct StatsArgs {
    /// Print the get_statistics() counters as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXTRACT_EXAMPLES: &str = r#"Examples:
  Extract an outcome's plan again (after changing the extractor):
    git config ultraplan.outcomes.extractor ./extract-plan
    git ultraplan outcome extract outcome_builder_1a2b3c4d
"#;

/// Extract the plan of a stored outcome again, and store it.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXTRACT_EXAMPLES)]
pub struct ExtractArgs {
    /// The outcome id.
    pub id: String,
    /// Print the plan as JSON.
    #[arg(long)]
    pub json: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "done"),
    (
        Exit::Fatal,
        "invalid input (nothing was written), an unknown outcome id, or not a repository",
    ),
    (Exit::Usage, "the command line was wrong"),
];

pub fn run(command: OutcomeCommand, global: &GlobalArgs) -> Result<Exit> {
    let ui = Ui { quiet: global.quiet };
    let workspace = Workspace::discover()?;
    let repo = workspace.repo()?;
    let mut out = std::io::stdout().lock();
    match command {
        OutcomeCommand::Log(args) => {
            let input = log_input(&args)?;
            let mut settings = Settings::from_config(workspace.config())?;
            settings.auto_extract &= !args.no_extract;
            let logged = outcomes::log(repo, &input, &settings, workspace.root())?;
            for warning in &logged.warnings {
                ui.warning(warning);
            }
            if args.json {
                writeln!(out, "{}", json!({"outcome": logged.outcome, "plan": logged.plan}))?;
            } else {
                writeln!(out, "{}", logged.outcome.outcome_id)?;
                if let Some(plan) = &logged.plan {
                    ui.note(format!(
                        "extracted {} ({}, confidence {})",
                        plan.plan_id, plan.extracted_by, plan.confidence
                    ));
                }
            }
        }
        OutcomeCommand::List(args) => {
            let mut filter = filter(&args.filter)?;
            filter.since = args.since.map(|d| d.first());
            for stored in outcomes::list(repo, &filter)? {
                if args.json {
                    writeln!(out, "{}", serde_json::to_string(&stored)?)?;
                } else {
                    writeln!(out, "{}", summary_line(&stored))?;
                }
            }
        }
        OutcomeCommand::Show(args) => {
            let stored = store::find(repo, &args.id)?.ok_or_else(|| outcomes::unknown(&args.id))?;
            if args.json {
                writeln!(out, "{}", serde_json::to_string_pretty(&stored)?)?;
            } else {
                out.write_all(serde_yaml::to_string(&stored.outcome)?.as_bytes())?;
                if let Some(plan) = &stored.plan {
                    writeln!(out, "---")?;
                    out.write_all(serde_yaml::to_string(plan)?.as_bytes())?;
                }
            }
        }
        OutcomeCommand::Search(args) => {
            let query = args.query.join(" ");
            for hit in outcomes::search(repo, &filter(&args.filter)?, &query, args.limit)? {
                if args.json {
                    writeln!(out, "{}", serde_json::to_string(&hit)?)?;
                } else {
                    writeln!(out, "{:6.3}  {}", hit.score, summary_line(&hit.stored))?;
                }
            }
        }
        OutcomeCommand::Stats(args) => {
            let stats = store::statistics(repo)?;
            if args.json {
                writeln!(out, "{}", serde_json::to_string_pretty(&stats)?)?;
            } else {
                let row = |name: &str, c: &store::Counters| {
                    format!(
                        "{name:<24} {:>9} {:>9} {:>9}",
                        c.outcomes_logged, c.plans_extracted, c.training_examples_stored
                    )
                };
                writeln!(
                    out,
                    "{:<24} {:>9} {:>9} {:>9}",
                    "agent", "outcomes", "plans", "training"
                )?;
                for (agent, counters) in &stats.agents {
                    writeln!(out, "{}", row(agent, counters))?;
                }
                writeln!(out, "{}", row("total", &stats.total))?;
            }
        }
        OutcomeCommand::Extract(args) => {
            let settings = Settings::from_config(workspace.config())?;
            let (plan, warnings) = outcomes::extract_again(repo, &args.id, &settings, workspace.root())?;
            for warning in &warnings {
                ui.warning(warning);
            }
            if args.json {
                writeln!(out, "{}", serde_json::to_string_pretty(&plan)?)?;
            } else {
                out.write_all(serde_yaml::to_string(&plan)?.as_bytes())?;
            }
        }
    }
    out.flush()?;
    Ok(Exit::Done)
}

fn filter(args: &FilterArgs) -> Result<Filter> {
    if let Some(problem) = args.agent.as_deref().and_then(model::agent_name_problem) {
        return Err(anyhow!("invalid --agent: {problem}"));
    }
    Ok(Filter {
        agent: args.agent.clone(),
        success: match (args.success, args.failure) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        },
        since: None,
    })
}

fn summary_line(stored: &Stored) -> String {
    let o = &stored.outcome;
    let task = o.task_description.lines().next().unwrap_or_default();
    format!(
        "{}  {:<7}  {:>8.1}s  {}  {}",
        o.outcome_id,
        if o.success { "success" } else { "failure" },
        o.execution_time,
        o.timestamp,
        task
    )
}

/// The outcome from flags, or from one JSON object on stdin (read only up
/// to the size limit, so a huge input is refused without being read whole).
fn log_input(args: &LogArgs) -> Result<OutcomeInput> {
    let Some(task) = &args.task else {
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            return Err(crate::error::FatalWithHint {
                message:
                    "no outcome given: pass --task, --agent and --success or --failure, or one JSON object on stdin"
                        .into(),
                hint: "echo '{\"task\":\"…\",\"agent_name\":\"me\",\"success\":true}' | git ultraplan outcome log"
                    .into(),
            }
            .into());
        }
        let mut bytes = Vec::new();
        stdin
            .lock()
            .take(model::MAX_INPUT_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .context("cannot read stdin")?;
        return OutcomeInput::from_json(&bytes);
    };
    let agent = args
        .agent
        .clone()
        .ok_or_else(|| anyhow!("--task needs --agent <NAME>"))?;
    if !args.success && !args.failure {
        return Err(anyhow!("--task needs --success or --failure"));
    }
    Ok(OutcomeInput {
        task: task.clone(),
        agent_name: agent,
        success: args.success,
        execution_path: args.steps.clone(),
        result: json_object("--result", args.result.as_deref())?,
        error_message: args.error.clone(),
        execution_time: args.time.unwrap_or(0.0),
        context: json_object("--context", args.context.as_deref())?,
    })
}

fn json_object(flag: &str, text: Option<&str>) -> Result<Map<String, Value>> {
    let Some(text) = text else { return Ok(Map::new()) };
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(anyhow!("invalid {flag}: expected a JSON object")),
        Err(e) => Err(e).with_context(|| format!("invalid {flag}: not JSON")),
    }
}
