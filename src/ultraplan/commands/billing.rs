//! DESIGN §5.2, asked once by every command that may start a billed agent.

use std::io::{IsTerminal, Write};

use anyhow::Result;

use crate::cli::config;
use crate::cli::Ui;

/// DESIGN §5.2: with ANTHROPIC_API_KEY set, the claude CLI bills the API
/// account. Ask once on a terminal; elsewhere stop unless told yes.
pub fn billing_confirmed(yes: bool, cfg: &crate::git::GitConfig, ui: &Ui) -> Result<bool> {
    if std::env::var_os("ANTHROPIC_API_KEY").is_none_or(|v| v.is_empty()) {
        return Ok(true);
    }
    if yes || config::boolean(cfg, &config::ALLOW_API_BILLING)? {
        ui.warning("ANTHROPIC_API_KEY is set: the claude executor bills your API account");
        return Ok(true);
    }
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        eprint!(
            "ANTHROPIC_API_KEY is set: the claude executor will bill your API account (pay per token), not your Claude subscription.\nContinue? [y/N] "
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
    ui.error("ANTHROPIC_API_KEY is set: the claude executor would bill your API account, not your subscription");
    ui.hint("unset ANTHROPIC_API_KEY to use your subscription, or confirm with --yes or 'git config ultraplan.allowApiBilling true'");
    Ok(false)
}
