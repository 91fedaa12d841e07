//! The options of every command that runs steps: which executor, how many
//! attempts, whether an unverified step may pass, and billing consent.

use anyhow::{anyhow, Result};

use crate::cli::config;

/// How steps are carried out.
#[derive(Debug, clap::Args)]
pub struct ExecutorArgs {
    /// The executor: shell, manual, an agent (claude, codex, gemini, opencode,
    /// cursor, aider, goose, qwen, amp) or a command line (default:
    /// ultraplan.executor, else shell).
    #[arg(long, value_name = "NAME|COMMAND")]
    pub executor: Option<String>,

    /// Attempts per step (default: ultraplan.maxAttempts, else 3).
    #[arg(long, value_name = "N", value_parser = crate::cli::at_least_one::<u32>)]
    pub max_attempts: Option<u32>,

    /// Let a step without a Verify command (or with a prose one) pass on the executor's word.
    #[arg(long)]
    pub allow_unverified: bool,

    /// Do not ask: accept API billing when an API key that bills per token
    /// is set for the agent (ANTHROPIC_API_KEY, OPENAI_API_KEY, …).
    #[arg(short = 'y', long)]
    pub yes: bool,
}

impl ExecutorArgs {
    /// Attempts per step: `--max-attempts` (clap refuses 0), else
    /// `ultraplan.maxAttempts`, which must be at least 1 too: a step that
    /// may not be attempted cannot pass, so 0 is a mistake, not a request.
    pub fn max_attempts(&self, cfg: &crate::git::GitConfig) -> Result<u32> {
        if let Some(n) = self.max_attempts {
            return Ok(n);
        }
        let n = config::integer(cfg, &config::MAX_ATTEMPTS)?;
        u32::try_from(n)
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| anyhow!("bad ultraplan.maxAttempts '{n}': a step needs at least one attempt"))
    }
}
