//! git-ultraplan and git-historian as one library.
//!
//! The two binaries are one-line mains over [`ultraplan::main`] and
//! [`historian::main`]. Everything testable lives here:
//!
//! * [`cli`] — exit statuses, git-style messages, color, configuration keys,
//!   man pages and completions;
//! * [`git`] — the only code that touches gix or the `git` binary;
//! * [`ultraplan`] — plan formats, result validation and the commands;
//! * [`historian`] — the RESULT protocol and, later, the branch rewrite;
//! * [`yaml`] — YAML read with a bound on nesting.
//!
//! Library code never prints: commands render what the library returns.

pub mod cli;
pub mod git;
pub mod historian;
pub mod redact;
pub mod ultraplan;
pub mod yaml;
