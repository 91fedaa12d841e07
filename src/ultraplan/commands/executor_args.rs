//! The options of every command that runs steps: which executor, how many
//! attempts, whether an unverified step may pass, and billing consent.

/// How steps are carried out.
#[derive(Debug, clap::Args)]
pub struct ExecutorArgs {
    /// The executor: shell, claude, manual, or a command line (default: ultraplan.executor, else shell).
    #[arg(long, value_name = "NAME|COMMAND")]
    pub executor: Option<String>,

    /// Attempts per step (default: ultraplan.maxAttempts, else 3).
    #[arg(long, value_name = "N")]
    pub max_attempts: Option<u32>,

    /// Let a step without a Verify command (or with a prose one) pass on the executor's word.
    #[arg(long)]
    pub allow_unverified: bool,

    /// Do not ask: accept API billing when ANTHROPIC_API_KEY is set.
    #[arg(short = 'y', long)]
    pub yes: bool,
}
