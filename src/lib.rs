//! git-ultraplan and git-historian as one library.
//!
//! The two binaries are one-line mains over [`ultraplan::main`] and
//! [`historian::main`]. Everything testable lives here:
//!
//! The rooms stand in floors (DESIGN §12); a room imports only from the
//! floors below it, never up and never in a circle (`tests/cli/project/floors.rs`
//! reads every `use crate::…` and holds this):
//!
//! 1. [`error`], [`yaml`], [`input`], [`html`] — shared leaves: the
//!    error-with-hint type, the one YAML reader (a bound on nesting), reading
//!    a file the user names (regular files only, a size limit), HTML escaping
//!    and the self-contained page; [`redact`] on them —
//!    redaction, which reads YAML documents to redact them string by string;
//! 2. [`process`] — running child processes: timeouts, process groups,
//!    capped output; [`git`] — the only code that touches gix or the `git`
//!    binary, knowing no domain;
//!    [`agents`] — the coding-agent CLIs driven headless, one adapter each,
//!    shared by both products;
//! 3. [`cli`] — exit statuses, git-style messages, color, progress,
//!    configuration keys; it knows no product;
//! 4. [`ultraplan`] and [`historian`] — the two products, side by side,
//!    neither importing the other; each has its `commands/` on top.
//!
//! Library code never prints: commands render what the library returns.

#![deny(unsafe_code)]

pub mod agents;
pub mod cli;
pub mod error;
pub mod git;
pub mod historian;
pub mod html;
pub mod input;
pub mod process;
pub mod redact;
pub mod ultraplan;
pub mod yaml;
