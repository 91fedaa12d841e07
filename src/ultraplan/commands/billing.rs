//! DESIGN §5.2 for every agent: asked once by every command that may start
//! an agent executor.

use std::io::{IsTerminal, Write};

use anyhow::Result;

use crate::cli::config;
use crate::cli::Ui;
use crate::ultraplan::exec::Executor;

/// The variables set in the environment among those that make `executor`'s
/// agent bill an API account per token (none for other executors).
pub fn billing_keys_set(executor: &Executor) -> Vec<&'static str> {
    let Some(agent) = executor.agent() else {
        return Vec::new();
    };
    agent
        .adapter()
        .billing_variables()
        .iter()
        .copied()
        .filter(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
        .collect()
}

/// With an API key that bills per token set for the agent (ANTHROPIC_API_KEY
/// for claude, OPENAI_API_KEY for codex, …), ask once on a terminal;
/// elsewhere stop unless told yes (`--yes`, `ultraplan.allowApiBilling`).
pub fn billing_confirmed(executor: &Executor, yes: bool, cfg: &crate::git::GitConfig, ui: &Ui) -> Result<bool> {
    let keys = billing_keys_set(executor);
    let Some(agent) = executor.agent().filter(|_| !keys.is_empty()) else {
        return Ok(true);
    };
    let name = agent.name();
    let set = format!(
        "{} {} set",
        keys.join(" and "),
        if keys.len() == 1 { "is" } else { "are" }
    );
    if yes || config::boolean(cfg, &config::ALLOW_API_BILLING)? {
        ui.warning(format!("{set}: the {name} executor bills your API account per token"));
        return Ok(true);
    }
    let instead = agent.adapter().billing_note();
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        eprint!(
            "{set}: the {name} executor will bill your API account (pay per token), not {instead}.\nContinue? [y/N] "
        );
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if matches!(answer.trim().to_lowercase().as_str(), "y" | "yes") {
            return Ok(true);
        }
        ui.error("stopped before running anything: API billing was not confirmed");
        return Ok(false);
    }
    ui.error(format!(
        "{set}: the {name} executor would bill your API account per token, not {instead}"
    ));
    ui.hint(format!(
        "unset {} to use {instead}, or confirm with --yes or 'git config ultraplan.allowApiBilling true'",
        keys.join(" and ")
    ));
    Ok(false)
}
