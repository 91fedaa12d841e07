//! Gemini CLI (`gemini`), headless: `gemini -p <instruction> --output-format
//! stream-json --approval-mode auto_edit`, the task on standard input (the
//! `-p` text is appended to it, so the task has no size limit), `--resume
//! <session id>` to continue a session.
//!
//! Its stream (JSON Lines): `init` (`session_id`, `model`), `message`
//! (`role`, `content`, `delta`), `tool_use` (`tool_name`, `parameters`),
//! `tool_result`, `error` (`severity`, `message`: a turn limit is
//! "Maximum session turns exceeded", and may still end with exit 0 and a
//! `success` result), and the final `result` (`status`, `error`, `stats`
//! with `input_tokens` (cached included), `output_tokens`, `cached`,
//! `input`, `tool_calls` and per-model figures). It reports no cost.
//!
//! Exit codes (`packages/core/src/utils/errors.ts`): 41 authentication, 42
//! input, 44 sandbox, 52 configuration, 53 turn limit, 54 tool execution,
//! 55 untrusted workspace, 130 cancelled.
//!
//! `auto_edit` approves edit tools only; `yolo` is never passed unless the
//! user's own arguments ask for it.
//!
//! Format read: google-gemini/gemini-cli v0.56.0-nightly.20260822 (commit
//! 5411f11: `packages/core/src/output/types.ts`, `docs/cli/headless.md`,
//! the `nonInteractiveCli` snapshots).

use super::{
    gemini_exit_meaning, json_line, number, text, tool_target, Access, Activity, Adapter, Call, Invocation, Limit,
    Report, StreamParser, Tokens, STDIN_INSTRUCTION,
};

pub struct Gemini;

impl Adapter for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }
    fn title(&self) -> &'static str {
        "Gemini CLI"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["gemini"]
    }
    fn format_version(&self) -> &'static str {
        "gemini-cli v0.56.0-nightly.20260822 (stream-json)"
    }
    fn flags(&self) -> &'static str {
        "-p <instruction> --output-format stream-json --approval-mode auto_edit; --resume <id>"
    }
    fn prompt_passing(&self) -> &'static str {
        "standard input (-p appends a short instruction)"
    }
    fn credentials(&self) -> &'static [&'static str] {
        &[
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "GOOGLE_CLOUD_PROJECT",
        ]
    }
    fn billing_variables(&self) -> &'static [&'static str] {
        &["GEMINI_API_KEY", "GOOGLE_API_KEY"]
    }
    fn billing_note(&self) -> &'static str {
        "your Google account login (free tier or Code Assist plan)"
    }
    fn permission_flags(&self) -> &'static [&'static str] {
        &["--approval-mode", "--yolo", "-y"]
    }
    fn resumes(&self) -> bool {
        true
    }
    fn invocation(&self, call: &Call<'_>, permission: bool) -> Result<Invocation, String> {
        let mut args: Vec<String> = vec![
            "-p".into(),
            STDIN_INSTRUCTION.into(),
            "--output-format".into(),
            "stream-json".into(),
        ];
        match call.access {
            Access::Edit if permission => args.extend(["--approval-mode".into(), "auto_edit".into()]),
            Access::Edit => {}
            Access::ReadOnly => args.extend(["--approval-mode".into(), "plan".into()]),
        }
        if let Some(id) = call.resume {
            args.extend(["--resume".into(), id.to_owned()]);
        }
        Ok(Invocation {
            args,
            stdin: Some(call.prompt.to_owned()),
            ..Invocation::default()
        })
    }
    fn exit_meaning(&self, code: i32) -> Option<&'static str> {
        gemini_exit_meaning(code)
    }
    fn parser(&self) -> Box<dyn StreamParser> {
        Box::<GeminiStream>::default()
    }
}

#[derive(Default)]
struct GeminiStream {
    report: Report,
    turns: u32,
    text: String,
    /// The last event came from the model (a new model event after a tool
    /// result or the prompt is a new turn).
    model_speaking: bool,
}

impl GeminiStream {
    fn model_event(&mut self) {
        if !self.model_speaking {
            self.turns += 1;
            self.model_speaking = true;
        }
    }

    fn activity(&self, tool: Option<String>, target: Option<String>) -> Activity {
        Activity {
            tool,
            target,
            turns: self.turns,
            cost_usd: None,
        }
    }
}

impl StreamParser for GeminiStream {
    fn line(&mut self, line: &str) -> Option<Activity> {
        let event = json_line(line)?;
        match text(&event, &["type"]).as_deref() {
            Some("init") => {
                self.report.session_id = text(&event, &["session_id"]);
                self.report.model = text(&event, &["model"]);
                None
            }
            Some("message") if text(&event, &["role"]).as_deref() == Some("assistant") => {
                self.model_event();
                let content = text(&event, &["content"]).unwrap_or_default();
                if event.get("delta").and_then(|d| d.as_bool()) == Some(true) {
                    self.text.push_str(&content);
                } else {
                    self.text = content;
                }
                None
            }
            Some("message") => {
                self.model_speaking = false;
                self.text.clear();
                None
            }
            Some("tool_result") => {
                self.model_speaking = false;
                None
            }
            Some("tool_use") => {
                self.model_event();
                self.text.clear();
                let target = event.get("parameters").and_then(tool_target);
                Some(self.activity(text(&event, &["tool_name"]), target))
            }
            Some("error") => {
                let message = text(&event, &["message"]).unwrap_or_default();
                if message.contains("Maximum session turns exceeded") {
                    self.report.limit = Some(Limit::Turns);
                }
                if text(&event, &["severity"]).as_deref() == Some("error") {
                    self.report.add_error(&message);
                }
                None
            }
            Some("result") => {
                let r = &mut self.report;
                r.finished = true;
                if text(&event, &["status"]).as_deref() == Some("error") {
                    let said = text(&event, &["error", "message"]).unwrap_or_else(|| "result 'error'".into());
                    r.add_error(&said);
                }
                if let Some(stats) = event.get("stats") {
                    let n = |k: &str| number(stats, &[k]).unwrap_or(0);
                    let cached = n("cached");
                    // `input` is the uncached part of `input_tokens`.
                    let input = match number(stats, &["input"]) {
                        Some(i) => i,
                        None => n("input_tokens").saturating_sub(cached),
                    };
                    r.tokens = Some(Tokens {
                        input,
                        output: n("output_tokens"),
                        cached,
                        total: 0,
                    });
                    if r.model.is_none() {
                        r.model = stats
                            .get("models")
                            .and_then(|m| m.as_object())
                            .and_then(|m| m.keys().next().cloned());
                    }
                }
                None
            }
            _ => None,
        }
    }

    fn finish(mut self: Box<Self>, _stderr: &str) -> Report {
        if self.report.finished && !self.text.trim().is_empty() {
            self.report.final_text = Some(self.text.trim().to_owned());
        }
        if self.turns > 0 {
            self.report.turns = Some(self.turns);
        }
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Report {
        let mut p = Gemini.parser();
        for l in lines {
            p.line(l);
        }
        p.finish("")
    }

    #[test]
    fn a_stream_as_the_cli_prints_it() {
        let r = read(&[
            r#"{"type":"init","timestamp":"2026-01-02T03:04:05Z","session_id":"g-1","model":"gemini-2.5-pro"}"#,
            r#"{"type":"message","timestamp":"t","role":"user","content":"do it"}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"Working","delta":true}"#,
            r#"{"type":"tool_use","timestamp":"t","tool_name":"write_file","tool_id":"x","parameters":{"file_path":"a.txt"}}"#,
            r#"{"type":"tool_result","timestamp":"t","tool_id":"x","status":"success"}"#,
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"Done.","delta":true}"#,
            r#"{"type":"result","timestamp":"t","status":"success","stats":{"total_tokens":180,"input_tokens":150,"output_tokens":30,"cached":50,"input":100,"duration_ms":9,"tool_calls":1,"models":{"gemini-2.5-pro":{}}}}"#,
        ]);
        assert!(r.finished);
        assert_eq!(r.session_id.as_deref(), Some("g-1"));
        assert_eq!(r.final_text.as_deref(), Some("Done."));
        assert_eq!(
            r.tokens,
            Some(Tokens {
                input: 100,
                output: 30,
                cached: 50,
                total: 0
            })
        );
        assert_eq!(r.turns, Some(2));
    }

    #[test]
    fn the_turn_limit_with_a_success_result_is_named() {
        let r = read(&[
            r#"{"type":"init","timestamp":"t","session_id":"g","model":"m"}"#,
            r#"{"type":"error","timestamp":"t","severity":"error","message":"Maximum session turns exceeded"}"#,
            r#"{"type":"result","timestamp":"t","status":"success","stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":1,"tool_calls":0,"models":{}}}"#,
        ]);
        assert_eq!(r.limit, Some(Limit::Turns));
        assert_eq!(r.error.as_deref(), Some("Maximum session turns exceeded"));
    }
}
