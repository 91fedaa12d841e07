//! Run state in git (DESIGN §8): the state commit chain under
//! `refs/ultraplan/<slug>/run` (or `…/session-<N>`), one note per checkpoint
//! commit under `refs/notes/ultraplan`, and the lock ref.
//!
//! Every change is one compare-and-swap ref update, so a process killed at any
//! instant leaves either the old state or the new one. Everything written here
//! passes through [`crate::redact::redact`] first.

pub mod cache;
pub mod catalog;
mod lock;
mod names;
mod note_plain;
pub mod note_stream;
mod progress;
mod run_state;

pub use lock::{hostname, process_alive, Lock, LockInfo, LockStatus};
pub use names::{slug, Refs, NOTES_REF};
pub use progress::{now, Progress, RunStatus, StepProgress, StepStatus, Summary};
pub use run_state::RunState;

/// Writes the note for a checkpoint commit (a YAML record), redacted like
/// everything else.
pub fn write_note(repo: &crate::git::Repo, commit: crate::git::Oid, text: &str) -> anyhow::Result<()> {
    repo.set_note(NOTES_REF, commit, &crate::redact::redact_yaml(text))
}

/// Writes `text` as a blob the state names by id (the plan's blob),
/// redacted like everything else.
pub fn write_text(repo: &crate::git::Repo, text: &str) -> anyhow::Result<crate::git::Oid> {
    repo.write_blob(crate::redact::redact(text).as_bytes())
}
