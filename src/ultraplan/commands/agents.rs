//! `git ultraplan agents`: the agent executors, whether each is installed,
//! the credentials it would use and the billing that applies.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

use crate::agents::{launch, Agent};
use crate::cli::{config, Exit, GlobalArgs};
use crate::git::Workspace;
use crate::ultraplan::exec::Executor;

/// The EXAMPLES section of the man page and of `--help`.
pub(crate) const EXAMPLES: &str = r#"Examples:
  Every agent: installed or not, its flags, credentials and billing:
    git ultraplan agents

  Only codex and gemini, as JSON:
    git ultraplan agents codex gemini --json

  Then run a plan with one of them:
    git config ultraplan.codex.args '--model o3'
    git ultraplan run --executor codex plan.md
"#;

/// List the coding-agent CLIs ultraplan runs as executors.
///
/// For each agent with a built-in adapter (claude, codex, gemini, opencode,
/// cursor, aider, goose, qwen, amp): whether it is installed — the program
/// found (ultraplan.<agent>.path, else on PATH) and what its `--version`
/// prints —, the flags the adapter passes (the least permissive mode that
/// lets it edit a worktree headless), how the prompt reaches it, the names
/// of the credential variables it reads (marked when set; values are never
/// shown), the billing that applies (an API key that bills per token, set
/// in this environment, makes `run` ask first unless --yes or
/// ultraplan.allowApiBilling), and the version of its output format the
/// adapter reads. Any other agent can be run as a command line speaking the
/// command protocol (see git-ultraplan-run(1)).
///
/// Outside a repository the configuration is the user's and the system's.
#[derive(Debug, clap::Args)]
#[command(after_long_help = EXAMPLES)]
pub struct Args {
    /// Only these agents.
    #[arg(value_name = "AGENT", value_parser = agent_name)]
    pub agents: Vec<String>,

    /// Print the list as JSON.
    #[arg(long)]
    pub json: bool,
}

pub const EXIT_STATUS: [(Exit, &str); 3] = [
    (Exit::Done, "the agents were listed (installed or not)"),
    (Exit::Fatal, "a configuration value cannot be read"),
    (Exit::Usage, "the command line was wrong (an agent with no adapter)"),
];

fn agent_name(name: &str) -> Result<String, String> {
    match Agent::named(name) {
        Some(_) => Ok(name.to_owned()),
        None => Err(format!(
            "no adapter for '{name}' (the agents are {})",
            Agent::ALL.map(|a| a.name()).join(", ")
        )),
    }
}

#[derive(Serialize)]
struct Listed {
    name: &'static str,
    title: &'static str,
    installed: bool,
    path: Option<String>,
    version: Option<String>,
    /// Why it was not found.
    missing: Option<String>,
    flags: &'static str,
    prompt: &'static str,
    resumes: bool,
    credentials: Vec<Credential>,
    billing: String,
    /// Set API keys that bill per token: `run` asks before using the agent.
    billing_confirmation: bool,
    format: &'static str,
}

#[derive(Serialize)]
struct Credential {
    name: &'static str,
    set: bool,
}

pub fn run(args: Args, _global: &GlobalArgs) -> Result<Exit> {
    let workspace = Workspace::discover()?;
    let cfg = workspace.config();
    let mut listed = Vec::new();
    for agent in Agent::ALL {
        if !args.agents.is_empty() && !args.agents.iter().any(|a| a == agent.name()) {
            continue;
        }
        let adapter = agent.adapter();
        let settings = config::agent_settings(cfg, agent.name())?;
        let found = launch::program(agent, &settings);
        let keys = super::billing::billing_keys_set(&Executor::Agent(agent));
        listed.push(Listed {
            name: agent.name(),
            title: adapter.title(),
            installed: found.is_ok(),
            path: found.as_ref().ok().map(|p| p.display().to_string()),
            version: found.as_ref().ok().and_then(|p| launch::version(p)),
            missing: found.err(),
            flags: adapter.flags(),
            prompt: adapter.prompt_passing(),
            resumes: adapter.resumes(),
            credentials: adapter
                .credentials()
                .iter()
                .map(|name| Credential {
                    name,
                    set: std::env::var_os(name).is_some_and(|v| !v.is_empty()),
                })
                .collect(),
            billing: if keys.is_empty() {
                format!("uses {}", adapter.billing_note())
            } else {
                format!(
                    "{} set: bills your API account per token (run asks first; --yes or ultraplan.allowApiBilling)",
                    keys.join(", ")
                )
            },
            billing_confirmation: !keys.is_empty(),
            format: adapter.format_version(),
        });
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&listed)?)?;
        return Ok(Exit::Done);
    }
    for l in &listed {
        let state = match (&l.path, &l.version) {
            (Some(path), Some(version)) => format!("{path} ({version})"),
            (Some(path), None) => format!("{path} (no --version)"),
            (None, _) => "not installed".to_owned(),
        };
        writeln!(out, "{:<9} {}: {state}", l.name, l.title)?;
        if let Some(why) = &l.missing {
            writeln!(out, "          {why}")?;
        }
        writeln!(out, "          flags:       {}", l.flags)?;
        writeln!(out, "          prompt:      {}", l.prompt)?;
        let credentials: Vec<String> = l
            .credentials
            .iter()
            .map(|c| {
                if c.set {
                    format!("{} (set)", c.name)
                } else {
                    c.name.to_owned()
                }
            })
            .collect();
        writeln!(out, "          credentials: {}", credentials.join(", "))?;
        writeln!(out, "          billing:     {}", l.billing)?;
        writeln!(out, "          format:      {}", l.format)?;
    }
    writeln!(
        out,
        "\nAny other agent: --executor '<command line>' (the command protocol, git-ultraplan-run(1))."
    )?;
    Ok(Exit::Done)
}
