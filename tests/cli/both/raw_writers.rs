//! Everything written to git passes the one redaction function (DESIGN §2):
//! outside `src/git/`, only the files named here call the git layer's raw
//! writes, each with why it may; every other file writes through a state
//! writer, which redacts.

use crate::harness::support::*;

/// The files that call the git layer's raw writes, each with why it may.
/// Anything else must write through a state writer, which redacts:
/// `RunState::put_text`/`save`, `state::write_note`, `state::write_text`,
/// the lock, `historian::session::save`.
const RAW_WRITERS: &[(&str, &str)] = &[
    (
        "src/ultraplan/state/run_state.rs",
        "the run-state writer: redacts by file kind",
    ),
    (
        "src/ultraplan/state/run_state/upgrade.rs",
        "the run-state writer's move from layout 1: step entries redacted by file kind",
    ),
    (
        "src/ultraplan/state/mod.rs",
        "notes and text blobs of the state: redacted",
    ),
    ("src/ultraplan/state/lock.rs", "the lock blob: redacted where written"),
    (
        "src/historian/session.rs",
        "the session writer: redacts every file and message",
    ),
    (
        "src/historian/execute/build.rs",
        "the clean branch: the user's own files; messages redacted",
    ),
    (
        "src/historian/execute/build_tests.rs",
        "unit tests: generated histories in a temporary fixture repository",
    ),
    (
        "src/historian/execute/mod.rs",
        "moves the clean branch; fixed reflog message",
    ),
    (
        "src/historian/execute/branch.rs",
        "moves the clean branch; fixed reflog message",
    ),
    (
        "src/ultraplan/engine/step/checkpoint.rs",
        "the checkpoint commit: the user's own files",
    ),
    (
        "src/ultraplan/engine/waves/preflight.rs",
        "commits the plan file to the user's branch",
    ),
    (
        "src/ultraplan/records/import.rs",
        "import: every file, note and message redacted before it is written",
    ),
    (
        "src/ultraplan/records/state_file.rs",
        "commits the user's STATE.md like a checkpoint: the user's own file",
    ),
    (
        "src/ultraplan/engine/secrets.rs",
        "a restore tree of the user's bytes, never in the state",
    ),
    (
        "src/ultraplan/sync/notes_merge.rs",
        "sync's notes merge: a stream of two notes, redacted; the merge commit's message is fixed",
    ),
    (
        "src/ultraplan/sync/states.rs",
        "sync's outcomes merge: files already stored on either side; fixed message",
    ),
    (
        "src/ultraplan/outcomes/store.rs",
        "the outcome store: every value passes store::redacted (redact on every string, keys too) before it is written; messages redacted",
    ),
    (
        "src/ultraplan/outcomes/tests.rs",
        "unit tests: move the outcomes ref to build two histories",
    ),
    (
        "src/ultraplan/distribute/work.rs",
        "published work: work.json, the plan's text and the message, each redacted before it is written",
    ),
    (
        "src/ultraplan/distribute/worker.rs",
        "claims, each rendered and redacted before it is written",
    ),
    (
        "src/ultraplan/distribute/publish.rs",
        "the closed claim, rendered and redacted before it is written",
    ),
    (
        "src/ultraplan/distribute/orchestrator.rs",
        "copies of a session's branch and state fetched from the remote: objects written elsewhere",
    ),
];

#[test]
fn only_the_writers_call_the_raw_git_writes() {
    let mut stack = vec![repo_root().join("src")];
    let mut offenders = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path.strip_prefix(repo_root()).unwrap().to_string_lossy().into_owned();
            if relative.starts_with("src/git/") || !relative.ends_with(".rs") {
                continue;
            }
            let text = read(&path);
            let calls = [
                ".write_blob(",
                ".set_note(",
                ".write_commit(",
                ".write_commit_as(",
                ".update_ref(",
            ];
            let uses = calls.iter().any(|c| text.contains(c));
            if uses && !RAW_WRITERS.iter().any(|(file, _)| *file == relative) {
                offenders.push(relative);
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "these files write to git without a state writer (route the value through one, \
         or add the file to RAW_WRITERS with the reason): {offenders:?}"
    );
}
