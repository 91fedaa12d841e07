//! Run state in git (DESIGN §8): the state commit chain under
//! `refs/ultraplan/<slug>/run` (or `…/session-<N>`), one note per checkpoint
//! commit under `refs/notes/ultraplan`, and the lock ref.
//!
//! Every change is one compare-and-swap ref update, so a process killed at any
//! instant leaves either the old state or the new one. Everything written here
//! passes through [`crate::redact::redact`] first.

mod ahead;
pub mod cache;
pub mod catalog;
mod guards;
pub mod index;
pub mod layout;
mod lock;
mod names;
mod note_plain;
pub mod note_stream;
mod progress;
mod run_state;
mod usage;

pub use ahead::{read_ahead, scan_taken_ahead};
pub use guards::{guarded_refs, in_guarded, lock_file_warnings};
pub use layout::{Layout, StepPaths};
pub use lock::{hostname, Lock, LockInfo, LockStatus};
pub use names::{slug, Refs, NOTES_REF};
pub use progress::{now, AttemptSummary, Progress, RunStatus, StepProgress, StepStatus, Summary};
pub use run_state::{name_holds_secret, RunState};
pub use usage::{Tokens, Usage};

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

/// Where the raw bytes of a run's redacted files are kept, in this
/// repository only (never in the object database, never pushed):
/// `<git-common-dir>/ultraplan/secrets/<run-id>/`.
pub fn secrets_dir(repo: &crate::git::Repo, run_id: &str) -> std::path::PathBuf {
    repo.common_dir().join("ultraplan").join("secrets").join(run_id)
}

/// The file in [`secrets_dir`] that holds the raw files of the kept tree at
/// `state_path`.
pub fn secrets_file(state_path: &str) -> String {
    state_path.replace('/', "%")
}

/// Renames the raw files kept for the trees a layout upgrade moved (`from`
/// → `to` state paths). Best effort: a file that cannot be renamed (none
/// was kept, or the directory is not writable) leaves that tree without its
/// raw files, so a restore of it puts back the redacted text.
fn moved_kept_files(repo: &crate::git::Repo, run_id: &str, moved: &[(String, String)]) {
    let dir = secrets_dir(repo, run_id);
    for (from, to) in moved {
        let _ = std::fs::rename(dir.join(secrets_file(from)), dir.join(secrets_file(to)));
    }
}
