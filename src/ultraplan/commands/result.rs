//! `git ultraplan result check <file>`: validate an executor's result YAML.

use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::{anyhow, Context as _, Result};
use serde::Serialize;

use crate::cli::color::{use_color, Paint, Terminal};
use crate::cli::Exit;
use crate::git::Workspace;
use crate::ultraplan::plan::Plan;
use crate::ultraplan::result::{validate, Finding, Outcome, Validation, ValidationContext};

/// Work with executor result files.
#[derive(Debug, clap::Subcommand)]
pub enum ResultCommand {
    Check(CheckArgs),
}

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const CHECK_EXAMPLES: &str = r#"Examples:
  Validate an executor's result file, then also against the plan's tasks:
    git ultraplan result check result.yaml
    git ultraplan result check --plan plan.md result.yaml

  A result read from standard input:
    cat result.yaml | git ultraplan result check -
"#;

/// Validate a result YAML file against the schema rules.
///
/// Applies every rule of the result capture protocol: required fields and
/// their types; status consistency (success needs exit code 0, done criteria
/// met and no error; failure needs an error; blocked needs an error, no files
/// and no verification command); a task name starting with `Task N:` that
/// names a task of the plan (exactly or by prefix) when `--plan` is given; and
/// relative paths that stay inside the repository. Unknown fields, missing
/// optional metadata, files that do not exist and files outside the task's
/// list are warnings.
///
/// The first line printed is the outcome: VALID, VALID_WITH_WARNINGS or
/// INVALID; each violation and warning follows on its own line.
#[derive(Debug, clap::Args)]
#[command(after_long_help = CHECK_EXAMPLES)]
pub struct CheckArgs {
    /// The result YAML file (`-` reads standard input).
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub file: PathBuf,

    /// The plan the result reports on: its task names and file lists are checked.
    #[arg(long, value_name = "PLAN", value_hint = clap::ValueHint::FilePath)]
    pub plan: Option<PathBuf>,

    /// Print the validation as one JSON object instead.
    #[arg(long)]
    pub json: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 4] = [
    (Exit::Done, "the result is VALID or VALID_WITH_WARNINGS"),
    (Exit::Failed, "the result is INVALID"),
    (
        Exit::Fatal,
        "the result or the plan cannot be read (or the plan is none of the three formats)",
    ),
    (Exit::Usage, "the command line was wrong"),
];

/// Results larger than this are refused.
const MAX_RESULT_BYTES: u64 = 16 * 1024 * 1024;

/// What the validator knows besides the result: the plan named on the
/// command line, and the worktree its paths are relative to.
fn options<'a>(plan: Option<&'a Plan>, workspace: &'a Workspace) -> ValidationContext<'a> {
    ValidationContext {
        plan,
        root: Some(workspace.root()),
    }
}

pub fn run_check(args: CheckArgs, global: &crate::cli::GlobalArgs) -> Result<Exit> {
    let text = read_result(&args.file)?;
    let workspace = Workspace::discover()?;
    let plan = match &args.plan {
        Some(path) => Some(super::load_plan(path)?.1),
        None => None,
    };
    let validation = validate(&text, options(plan.as_ref(), &workspace));
    let mut out = std::io::stdout().lock();
    if args.json {
        #[derive(Serialize)]
        struct Json<'a> {
            file: String,
            #[serde(flatten)]
            validation: &'a Validation,
        }
        let json = serde_json::to_string_pretty(&Json {
            file: args.file.display().to_string(),
            validation: &validation,
        })?;
        writeln!(out, "{json}")?;
    } else {
        let paint = Paint::new(use_color(
            global.color,
            workspace.config(),
            "ultraplan",
            Terminal::stdout(),
        ));
        out.write_all(render(&validation, paint).as_bytes())?;
    }
    out.flush()?;
    Ok(match validation.outcome {
        Outcome::Valid | Outcome::ValidWithWarnings => Exit::Done,
        Outcome::Invalid => Exit::Failed,
    })
}

fn read_result(path: &PathBuf) -> Result<String> {
    let shown = path.display();
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .take(MAX_RESULT_BYTES + 1)
            .read_to_end(&mut bytes)
            .context("cannot read the result from standard input")?;
    } else {
        let meta = std::fs::metadata(path).with_context(|| format!("cannot read result '{shown}'"))?;
        if meta.is_dir() {
            return Err(anyhow!("cannot read result '{shown}': it is a directory"));
        }
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_RESULT_BYTES + 1).read_to_end(&mut bytes))
            .with_context(|| format!("cannot read result '{shown}'"))?;
    }
    if bytes.len() as u64 > MAX_RESULT_BYTES {
        return Err(anyhow!("cannot read result '{shown}': it is larger than 16 MiB"));
    }
    crate::input::utf8_text(bytes).map_err(|why| anyhow!("cannot read result '{shown}': {why}"))
}

fn render(v: &Validation, paint: Paint) -> String {
    let word = match v.outcome {
        Outcome::Valid => paint.green(v.outcome.as_str()),
        Outcome::ValidWithWarnings => paint.yellow(v.outcome.as_str()),
        Outcome::Invalid => paint.red(v.outcome.as_str()),
    };
    let mut out = format!("{word}\n");
    let item = |label: String, f: &Finding| match f.line {
        Some(line) => format!("{label}: line {line}: {}\n", f.message),
        None => format!("{label}: {}\n", f.message),
    };
    for f in &v.violations {
        out.push_str(&item(paint.red("critical"), f));
    }
    for f in &v.warnings {
        out.push_str(&item(paint.yellow("warning"), f));
    }
    out
}
