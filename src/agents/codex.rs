//! Codex CLI (`codex`), headless: `codex exec --json --sandbox
//! workspace-write -`, the prompt on standard input (`-`; no size limit),
//! `codex exec … resume <session id> -` to continue a session.
//!
//! Its stream (JSON Lines, `exec_events.rs`): `thread.started`
//! (`thread_id`: the session to resume), `turn.started`, `item.started` /
//! `item.updated` / `item.completed` with an `item` of a `type`
//! (`agent_message` with `text`, `command_execution` with `command`,
//! `file_change` with `changes[].path`, `mcp_tool_call`, `error`, …),
//! `turn.completed` (`usage`: `input_tokens` (cached included),
//! `cached_input_tokens`, `output_tokens`), `turn.failed` (`error.message`)
//! and `error` (`message`, unrecoverable). It reports no cost and no model.
//!
//! `--sandbox workspace-write` lets it write inside the worktree and
//! nowhere else (`codex exec` never asks for approval); the old
//! `--full-auto` is gone, and `--dangerously-bypass-approvals-and-sandbox`
//! is never passed unless the user's own arguments ask for it.
//!
//! Format read: openai/codex `codex-rs/exec/src/exec_events.rs` (commit
//! 08a1f30) and `codex-rs/exec/src/cli.rs` (commit 0280533).

use super::{json_line, number, text, Access, Activity, Adapter, Call, Invocation, Report, StreamParser, Tokens};

pub struct Codex;

impl Adapter for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }
    fn title(&self) -> &'static str {
        "Codex CLI"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["codex"]
    }
    fn format_version(&self) -> &'static str {
        "codex exec_events.rs at 08a1f30 (JSON Lines)"
    }
    fn flags(&self) -> &'static str {
        "exec --json --sandbox workspace-write -; exec … resume <id> -"
    }
    fn prompt_passing(&self) -> &'static str {
        "standard input (-)"
    }
    fn credentials(&self) -> &'static [&'static str] {
        &["OPENAI_API_KEY", "CODEX_API_KEY"]
    }
    fn billing_variables(&self) -> &'static [&'static str] {
        &["OPENAI_API_KEY", "CODEX_API_KEY"]
    }
    fn billing_note(&self) -> &'static str {
        "your ChatGPT plan (codex login)"
    }
    fn permission_flags(&self) -> &'static [&'static str] {
        &[
            "--sandbox",
            "-s",
            "--full-auto",
            "--dangerously-bypass-approvals-and-sandbox",
            "--yolo",
        ]
    }
    fn resumes(&self) -> bool {
        true
    }
    fn invocation(&self, call: &Call<'_>, permission: bool) -> Result<Invocation, String> {
        let mut args: Vec<String> = vec!["exec".into(), "--json".into()];
        match call.access {
            Access::Edit if permission => args.extend(["--sandbox".into(), "workspace-write".into()]),
            Access::Edit => {}
            // The historian asks from a scratch directory, not a repository.
            Access::ReadOnly => args.extend(["--sandbox".into(), "read-only".into(), "--skip-git-repo-check".into()]),
        }
        let mut trailing = Vec::new();
        if let Some(id) = call.resume {
            trailing.extend(["resume".into(), id.to_owned()]);
        }
        trailing.push("-".into());
        Ok(Invocation {
            args,
            trailing,
            stdin: Some(call.prompt.to_owned()),
            ..Invocation::default()
        })
    }
    fn parser(&self) -> Box<dyn StreamParser> {
        Box::<CodexStream>::default()
    }
}

#[derive(Default)]
struct CodexStream {
    report: Report,
    turns: u32,
}

impl CodexStream {
    fn activity(&self, tool: &str, target: Option<String>) -> Activity {
        Activity {
            tool: Some(tool.to_owned()),
            target,
            turns: self.turns,
            cost_usd: None,
        }
    }

    fn item(&mut self, item: &serde_json::Value, completed: bool) -> Option<Activity> {
        match text(item, &["type"]).as_deref() {
            Some("agent_message") if completed => {
                self.report.final_text = text(item, &["text"]).filter(|t| !t.trim().is_empty());
                None
            }
            Some("command_execution") if !completed => Some(self.activity("shell", text(item, &["command"]))),
            Some("file_change") => {
                let paths: Vec<String> = item
                    .get("changes")
                    .and_then(|c| c.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|c| text(c, &["path"]))
                    .collect();
                Some(self.activity("edit", (!paths.is_empty()).then(|| paths.join(" "))))
            }
            Some("mcp_tool_call") if !completed => Some(self.activity(
                &text(item, &["tool"]).unwrap_or_else(|| "mcp".into()),
                text(item, &["server"]),
            )),
            Some("web_search") if !completed => Some(self.activity("search", text(item, &["query"]))),
            _ => None,
        }
    }
}

impl StreamParser for CodexStream {
    fn line(&mut self, line: &str) -> Option<Activity> {
        let event = json_line(line)?;
        match text(&event, &["type"]).as_deref() {
            Some("thread.started") => {
                self.report.session_id = text(&event, &["thread_id"]);
                None
            }
            Some("turn.started") => {
                self.turns += 1;
                self.report.finished = false;
                Some(self.activity("thinking", None))
            }
            Some("item.started") | Some("item.updated") => self.item(event.get("item")?, false),
            Some("item.completed") => self.item(event.get("item")?, true),
            Some("turn.completed") => {
                let usage = event.get("usage");
                let n = |k: &str| usage.and_then(|u| number(u, &[k])).unwrap_or(0);
                let cached = n("cached_input_tokens");
                self.report.add_tokens(Tokens {
                    input: n("input_tokens").saturating_sub(cached),
                    output: n("output_tokens"),
                    cached,
                    total: 0,
                });
                self.report.finished = true;
                None
            }
            Some("turn.failed") => {
                let said = text(&event, &["error", "message"]).unwrap_or_else(|| "turn failed".into());
                self.report.add_error(&said);
                self.report.finished = true;
                None
            }
            Some("error") => {
                self.report
                    .add_error(&text(&event, &["message"]).unwrap_or_else(|| "error".into()));
                None
            }
            _ => None,
        }
    }

    fn finish(mut self: Box<Self>, _stderr: &str) -> Report {
        if self.turns > 0 {
            self.report.turns = Some(self.turns);
        }
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_and_its_usage() {
        let mut p = Codex.parser();
        let lines = [
            r#"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}"#,
            r#"{"type":"turn.started"}"#,
            r#"{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"a.txt","kind":"add"}],"status":"completed"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Done."}}"#,
            r#"{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}"#,
        ];
        let shown: Vec<String> = lines.iter().filter_map(|l| p.line(l)).map(|a| a.describe()).collect();
        assert_eq!(
            shown,
            ["thinking · turn 1", "shell bash -lc ls · turn 1", "edit a.txt · turn 1"]
        );
        let r = p.finish("");
        assert!(r.finished);
        assert_eq!(r.session_id.as_deref(), Some("0199a213-81c0-7800-8aa1-bbab2a035a53"));
        assert_eq!(
            r.tokens,
            Some(Tokens {
                input: 315,
                output: 122,
                cached: 24448,
                total: 0
            })
        );
        assert_eq!(r.final_text.as_deref(), Some("Done."));
    }

    #[test]
    fn a_failed_turn_is_an_error() {
        let mut p = Codex.parser();
        p.line(r#"{"type":"turn.started"}"#);
        p.line(r#"{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}"#);
        let r = p.finish("");
        assert_eq!(r.error.as_deref(), Some("stream disconnected before completion"));
    }
}
