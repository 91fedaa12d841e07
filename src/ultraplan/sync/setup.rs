//! `sync --setup`: configure plain git so that it carries and keeps results.
//!
//! * `remote.<r>.fetch` gains the notes (into `refs/notes/remotes/<r>/ultraplan`,
//!   by a one-match glob so a remote without notes does not fail the fetch),
//!   so a plain `git fetch` brings them. Never a push refspec: that would
//!   change what a bare `git push` pushes.
//! * `notes.rewriteRef` with `notes.rewrite.amend`/`rebase`, so a result follows
//!   its checkpoint through `git commit --amend` and `git rebase`.
//! * `notes.displayRef` for ours and every remote's copy, so `git log` shows them.
//!
//! Every write is idempotent; `--unset` removes exactly the values added here
//! (the rewrite switches are git's defaults and stay).

use anyhow::Result;

use super::names::tracking_notes;
use crate::git::Repo;
use crate::ultraplan::state::NOTES_REF;

const REMOTE_NOTES_GLOB: &str = "refs/notes/remotes/*/ultraplan";

/// Ours for `notes.displayRef`, as a one-match glob: with an exact name
/// that does not exist yet (a reviewer's fresh clone, before any run),
/// every `git log` beside the remotes' glob warns "notes ref … is
/// invalid"; a glob matching nothing is quiet.
const LOCAL_NOTES_GLOB: &str = "refs/notes/ultraplan*";

/// A glob, though it names one reference: git refuses a whole fetch when an
/// exact source is missing on the remote (no results shared yet), while a
/// glob that matches nothing is fine. (`*` also matches the empty string.)
fn fetch_refspec(remote: &str) -> String {
    format!("+{NOTES_REF}*:{}*", tracking_notes(remote))
}

/// Configures `remote` and the repository; returns each `key = value`
/// written (empty when everything was in place already).
pub fn setup(repo: &Repo, remote: &str) -> Result<Vec<String>> {
    let mut changed = Vec::new();
    let mut note = |done: bool, key: &str, value: &str| {
        if done {
            changed.push(format!("{key} = {value}"));
        }
    };
    let fetch_key = format!("remote.{remote}.fetch");
    let refspec = fetch_refspec(remote);
    note(repo.config_add_once(&fetch_key, &refspec)?, &fetch_key, &refspec);
    note(
        repo.config_add_once("notes.rewriteRef", NOTES_REF)?,
        "notes.rewriteRef",
        NOTES_REF,
    );
    note(
        repo.config_set("notes.rewrite.amend", "true")?,
        "notes.rewrite.amend",
        "true",
    );
    note(
        repo.config_set("notes.rewrite.rebase", "true")?,
        "notes.rewrite.rebase",
        "true",
    );
    note(
        repo.config_add_once("notes.displayRef", LOCAL_NOTES_GLOB)?,
        "notes.displayRef",
        LOCAL_NOTES_GLOB,
    );
    // The exact name earlier versions wrote is what made git warn.
    note(
        repo.config_remove_value("notes.displayRef", NOTES_REF)?,
        "notes.displayRef",
        &format!("{LOCAL_NOTES_GLOB} (was {NOTES_REF})"),
    );
    note(
        repo.config_add_once("notes.displayRef", REMOTE_NOTES_GLOB)?,
        "notes.displayRef",
        REMOTE_NOTES_GLOB,
    );
    Ok(changed)
}

/// Undoes [`setup`] for `remote`; the repository-wide values go when no
/// remote is set up any more. Returns each `key = value` removed.
pub fn unset(repo: &Repo, remote: &str) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    let fetch_key = format!("remote.{remote}.fetch");
    let refspec = fetch_refspec(remote);
    if repo.config_remove_value(&fetch_key, &refspec)? {
        removed.push(format!("{fetch_key} = {refspec}"));
    }
    let others = repo
        .local_config_values("notes.rewriteRef")?
        .iter()
        .any(|v| v == NOTES_REF)
        && any_remote_set_up(repo)?;
    if !others {
        for (key, value) in [
            ("notes.rewriteRef", NOTES_REF),
            ("notes.displayRef", LOCAL_NOTES_GLOB),
            ("notes.displayRef", NOTES_REF),
            ("notes.displayRef", REMOTE_NOTES_GLOB),
        ] {
            if repo.config_remove_value(key, value)? {
                removed.push(format!("{key} = {value}"));
            }
        }
    }
    Ok(removed)
}

fn any_remote_set_up(repo: &Repo) -> Result<bool> {
    let out = repo.local_config_regexp("^remote\\..*\\.fetch$")?;
    Ok(out.iter().any(|(key, value)| {
        key.strip_prefix("remote.")
            .and_then(|k| k.strip_suffix(".fetch"))
            .is_some_and(|r| *value == fetch_refspec(r))
    }))
}
