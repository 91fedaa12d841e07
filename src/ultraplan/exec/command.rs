//! The command protocol (DESIGN §5.1): any executor that is not built in is a
//! command line run with `sh -c` in the worktree root, given the request as
//! JSON on stdin and the `ULTRAPLAN_*` variables. Its result is the YAML it
//! writes to `ULTRAPLAN_RESULT_FILE`, or the last YAML document on stdout; with
//! neither, one is made from its exit code.

use super::{last_yaml_document, Context, Outcome, Request};
use crate::process;

pub(super) fn run(command: &str, request: &Request<'_>, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let stdin = serde_json::to_vec(&request.json())?;
    let finished = process::run(process::Spec {
        program: "sh",
        args: vec!["-c".into(), command.to_owned()],
        cwd: ctx.workdir,
        env: request.env(ctx),
        stdin: Some(stdin),
        timeout: ctx.timeout,
        cap: ctx.cap,
    })?;
    let mut outcome = Outcome::from_finished(&finished);
    outcome.result_yaml = std::fs::read_to_string(&ctx.result_file)
        .ok()
        .filter(|t| !t.trim().is_empty())
        .or_else(|| last_yaml_document(&finished.stdout));
    if !finished.ending.success() {
        outcome.error = Some(format!(
            "the executor command ended with {}",
            finished.ending.describe()
        ));
    }
    outcome.transcript = transcript(&finished);
    Ok(outcome)
}

pub(super) fn transcript(finished: &process::Finished) -> String {
    let mut t = String::new();
    if !finished.stdout.is_empty() {
        t.push_str("--- stdout\n");
        t.push_str(&finished.stdout);
        if !t.ends_with('\n') {
            t.push('\n');
        }
    }
    if !finished.stderr.is_empty() {
        t.push_str("--- stderr\n");
        t.push_str(&finished.stderr);
    }
    t
}
