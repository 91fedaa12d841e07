//! The built-in `shell` executor: runs the Changes field's fenced blocks in
//! order — `sh`/`shell` with `sh -e`, `bash` with `bash -e`, `diff`/`patch`
//! applied to the worktree with `git apply` — stopping at the first failure.
//! Blocks in other languages are examples and are not run; a step without a
//! runnable block is `blocked`.

use super::{Claim, Context, Outcome, Request};

/// Why a step in prose is blocked for the shell executor; the report
/// recognises it to say what would run it instead.
pub const NOTHING_TO_RUN: &str =
    "no runnable changes for the shell executor (its Changes has no fenced sh, bash or diff block)";
use crate::process;

pub(super) fn run(request: &Request<'_>, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let blocks: Vec<_> = request.step.shell_blocks().collect();
    if blocks.is_empty() {
        let mut outcome = Outcome::new(Claim::Blocked);
        outcome.error = Some(NOTHING_TO_RUN.into());
        return Ok(outcome);
    }
    let env = request.env(ctx);
    let mut outcome = Outcome::new(Claim::Success);
    let mut transcript = String::new();
    for (i, block) in blocks.iter().enumerate() {
        transcript.push_str(&format!("$ [{} block {} at line {}]\n", block.lang, i + 1, block.line));
        let timeout = ctx.timeout.saturating_sub(outcome.duration);
        let finished = match block.lang.as_str() {
            "diff" | "patch" => crate::git::apply_patch(ctx.workdir, &block.code, env.clone(), timeout, ctx.cap)?,
            lang => process::run(process::Spec {
                program: if lang == "bash" { "bash" } else { "sh" },
                args: vec!["-e".into(), "-c".into(), block.code.clone()],
                cwd: ctx.workdir,
                env: env.clone(),
                stdin: None,
                timeout,
                cap: ctx.cap,
            })?,
        };
        outcome.duration += finished.duration;
        transcript.push_str(&finished.output());
        outcome.exit_code = Some(finished.ending.code());
        match finished.ending {
            e if e.success() => {}
            process::Ending::TimedOut => {
                outcome.timed_out = true;
                outcome.claim = Claim::Failure;
                outcome.error = Some(format!("{} block at line {} timed out", block.lang, block.line));
                break;
            }
            process::Ending::Interrupted => {
                outcome.interrupted = true;
                outcome.claim = Claim::Failure;
                outcome.error = Some("interrupted".into());
                break;
            }
            e => {
                outcome.claim = Claim::Failure;
                outcome.error = Some(format!(
                    "{} block at line {} failed ({})",
                    block.lang,
                    block.line,
                    e.describe()
                ));
                break;
            }
        }
    }
    if outcome.claim == Claim::Success {
        outcome.evidence = Some(format!(
            "the shell executor ran {} block(s) of the Changes field",
            blocks.len()
        ));
    }
    outcome.transcript = transcript;
    Ok(outcome)
}
