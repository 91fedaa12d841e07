//! Sessions run by other clones through the shared remote (DESIGN §18): no
//! server of our own, no database — git's atomic, per-reference updates on
//! the remote are the coordination.
//!
//! * [`work`] — what a distributed run publishes: the plan, the open wave,
//!   the commit its sessions start from.
//! * [`claim`] — who holds a session, their heartbeat, and how it ended.
//! * [`remote`] — reading all of that from the remote.
//! * [`worker`] — `git ultraplan work`: claim, run, publish; `place`, the
//!   worktree a worker runs a session in; `publish`, its results sent back.
//! * [`orchestrator`] — `run --distribute`: publish each wave, wait for its
//!   results, hand them to the waves engine to merge.

pub mod claim;
pub mod orchestrator;
mod place;
mod publish;
pub mod remote;
pub mod work;
pub mod worker;

pub use claim::Claim;
pub use orchestrator::{remembered_remote, Orchestrator};
pub use remote::View;
pub use work::Work;
pub use worker::{work, WorkOptions, Worked};

/// The published work of the plan `slug`.
pub fn work_ref(slug: &str) -> String {
    format!("refs/ultraplan/{slug}/work")
}

/// The claim on session `n` of the plan `slug`.
pub fn claim_ref(slug: &str, n: u32) -> String {
    format!("refs/ultraplan/{slug}/claims/session-{n}")
}
