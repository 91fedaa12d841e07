//! The `claude` executor: the Claude Code CLI run headless
//! (`claude -p <prompt> --output-format json`), found with `which` or
//! `ultraplan.claudePath`. The prompt states the step, the scope fence, that it
//! must not commit, and where to write its result YAML; the JSON it prints
//! gives the cost and token usage recorded in the result's metadata.
//!
//! Billing safety (an `ANTHROPIC_API_KEY` in the environment) is decided by
//! the command before any step runs.

use super::command::transcript;
use super::{last_yaml_document, Claim, Context, Outcome, Request, Tokens};
use crate::process;

/// How to find and call the CLI.
#[derive(Clone, Debug, Default)]
pub struct ClaudeSettings {
    /// `ultraplan.claudePath`; otherwise `claude` on PATH.
    pub path: Option<String>,
    /// `ultraplan.claudeArgs`: extra arguments (default `--permission-mode acceptEdits`).
    pub args: Vec<String>,
}

pub(super) fn run(request: &Request<'_>, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let binary = match &ctx.claude.path {
        Some(path) => std::path::PathBuf::from(path),
        None => match which::which("claude") {
            Ok(path) => path,
            Err(_) => {
                let mut outcome = Outcome::new(Claim::Blocked);
                outcome.error = Some("the claude executor needs the Claude Code CLI: 'claude' is not on PATH (or set ultraplan.claudePath)".into());
                return Ok(outcome);
            }
        },
    };
    let mut args = vec![
        "-p".to_owned(),
        prompt(request, ctx),
        "--output-format".into(),
        "json".into(),
    ];
    args.extend(ctx.claude.args.iter().cloned());
    let program = binary.display().to_string();
    let finished = process::run(process::Spec {
        program: &program,
        args,
        cwd: ctx.workdir,
        env: request.env(ctx),
        stdin: None,
        timeout: ctx.timeout,
        cap: ctx.cap,
    })?;
    let mut outcome = Outcome::from_finished(&finished);
    outcome.transcript = transcript(&finished);
    if let Some(report) = headless_report(&finished.stdout) {
        if report.get("is_error").and_then(|v| v.as_bool()) == Some(true) {
            outcome.claim = Claim::Failure;
            outcome.error = report
                .get("result")
                .and_then(|v| v.as_str())
                .map(|s| format!("claude reported an error: {s}"));
        }
        outcome.cost_usd = report
            .get("total_cost_usd")
            .or_else(|| report.get("cost_usd"))
            .and_then(|v| v.as_f64());
        if let Some(usage) = report.get("usage") {
            let n = |k: &str| usage.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
            outcome.tokens = Some(Tokens {
                input: n("input_tokens") + n("cache_creation_input_tokens") + n("cache_read_input_tokens"),
                output: n("output_tokens"),
            });
        }
        if let Some(text) = report.get("result").and_then(|v| v.as_str()) {
            outcome.result_yaml = last_yaml_document(text);
        }
    }
    if !finished.ending.success() && outcome.error.is_none() {
        outcome.error = Some(format!("claude ended with {}", finished.ending.describe()));
    }
    Ok(outcome)
}

/// The headless JSON report: the last line of stdout that is a JSON object
/// with `"type": "result"` (or any JSON object, for older versions).
fn headless_report(stdout: &str) -> Option<serde_json::Value> {
    let parsed: Vec<serde_json::Value> = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with('{'))
        .filter_map(|l| serde_json::from_str(l.trim()).ok())
        .collect();
    parsed
        .iter()
        .rev()
        .find(|v| v.get("type").and_then(|t| t.as_str()) == Some("result"))
        .or_else(|| parsed.last())
        .cloned()
        .or_else(|| serde_json::from_str(stdout.trim()).ok())
}

fn prompt(request: &Request<'_>, ctx: &Context<'_>) -> String {
    let step = request.step;
    let mut p = format!(
        "You are carrying out one step of an implementation plan in the git repository at {}.\n\n",
        ctx.workdir.display()
    );
    p.push_str(&format!("{}\n", step.task_name()));
    if !step.files.is_empty() {
        let files: Vec<&str> = step.files.iter().map(|f| f.path.as_str()).collect();
        p.push_str(&format!("Files you may create or modify: {}\n", files.join(", ")));
    }
    if !step.changes.is_empty() {
        p.push_str(&format!("Changes:\n{}\n", step.changes));
    }
    if let Some(reuses) = &step.reuses {
        p.push_str(&format!("Reuses: {reuses}\n"));
    }
    let context: Vec<&str> = step
        .context
        .iter()
        .chain(&request.plan.context)
        .map(String::as_str)
        .collect();
    if !context.is_empty() {
        p.push_str(&format!("Read these files first: {}\n", context.join(", ")));
    }
    if let Some(fails_when) = &step.fails_when {
        p.push_str(&format!("The step fails when: {fails_when}\n"));
    }
    if let Some(done) = &step.done {
        p.push_str(&format!("Done when: {done}\n"));
    }
    if let Some(verify) = &step.verify {
        p.push_str(&format!(
            "git-ultraplan verifies this step itself afterwards by running: {}{}\n",
            verify.command,
            verify
                .expected
                .as_ref()
                .map(|e| format!(" (expected: {e})"))
                .unwrap_or_default()
        ));
    }
    if !request.touch.is_empty() {
        p.push_str(&format!("Touch only: {}\n", request.touch.join(", ")));
    }
    if !request.never_touch.is_empty() {
        p.push_str(&format!("Never touch: {}\n", request.never_touch.join(", ")));
    }
    if let Some(feedback) = &request.feedback {
        p.push_str(&format!(
            "\nThis is attempt {} of {}. The previous attempt failed:\n{feedback}\n",
            request.attempt, request.max_attempts
        ));
    }
    p.push_str(&format!(
        "\nRules:\n- Do not commit, stage, stash, reset or otherwise change git state: git-ultraplan commits the step itself.\n\
         - Change only what the step asks for.\n\
         - When you are done, write your result as YAML to the file {} with the fields status (success, failure or blocked), \
         task_name: \"{}\", files_modified, verification (command, exit_code, output_summary), done_criteria_met, evidence and error.\n",
        ctx.result_file.display(),
        step.task_name()
    ));
    p
}
