//! goose (`goose`), headless: `goose run --output-format stream-json -i -
//! --name <session>`, the prompt on standard input (`-i -`; no size
//! limit). goose's stream does not carry its session id, so the launch
//! names the session itself and continues it with `--resume --name
//! <session>`.
//!
//! Its stream (JSON Lines, `StreamEvent` in `crates/goose-cli/src/session`):
//! `message` (a goose `Message`: `id`, `role`, `content` blocks of `type`
//! `text` and `toolRequest` with `toolCall.value.name` and `.arguments`),
//! `notification`, `model_change` (`model`, `mode`), `error` (`error`), and
//! the final `complete` (`total_tokens`: goose reports only a total, and no
//! cost). When it reaches `--max-turns` it says so in a message ("I've
//! reached the maximum number of actions I can do without user input") and
//! exits 0: that is named as its turn limit.
//!
//! What goose may do is its own `GOOSE_MODE` (default `auto`); no flag is
//! passed. The historian's question runs it with `GOOSE_MODE=chat` (no
//! tools).
//!
//! Format read: block/goose `crates/goose-cli/src/session/mod.rs` (commit
//! 5152a34) and `crates/goose-cli/src/cli.rs` (commit 4c39a77).

use super::{
    json_line, number, text, tool_target, Access, Activity, Adapter, Call, Invocation, Limit, Report, StreamParser,
    Tokens,
};

pub struct Goose;

/// What goose says when it stops at `--max-turns`.
const TURN_LIMIT: &str = "reached the maximum number of actions I can do without user input";

impl Adapter for Goose {
    fn name(&self) -> &'static str {
        "goose"
    }
    fn title(&self) -> &'static str {
        "goose CLI"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["goose"]
    }
    fn format_version(&self) -> &'static str {
        "goose-cli session/mod.rs at 5152a34 (stream-json)"
    }
    fn flags(&self) -> &'static str {
        "run --output-format stream-json -i - --name <session>; --resume --name <session>"
    }
    fn prompt_passing(&self) -> &'static str {
        "standard input (-i -)"
    }
    fn credentials(&self) -> &'static [&'static str] {
        &[
            "GOOSE_PROVIDER",
            "GOOSE_MODEL",
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GOOGLE_API_KEY",
            "OPENROUTER_API_KEY",
        ]
    }
    fn billing_variables(&self) -> &'static [&'static str] {
        &[
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GOOGLE_API_KEY",
            "OPENROUTER_API_KEY",
        ]
    }
    fn billing_note(&self) -> &'static str {
        "the provider set up with goose configure"
    }
    fn permission_flags(&self) -> &'static [&'static str] {
        &[]
    }
    fn resumes(&self) -> bool {
        true
    }
    fn invocation(&self, call: &Call<'_>, _permission: bool) -> Result<Invocation, String> {
        let session = call.resume.unwrap_or(call.session_name).to_owned();
        let mut args: Vec<String> = vec![
            "run".into(),
            "--output-format".into(),
            "stream-json".into(),
            "-i".into(),
            "-".into(),
        ];
        if call.resume.is_some() {
            args.push("--resume".into());
        }
        args.extend(["--name".into(), session.clone()]);
        let env = match call.access {
            Access::ReadOnly => vec![("GOOSE_MODE".to_owned(), "chat".to_owned())],
            Access::Edit => Vec::new(),
        };
        Ok(Invocation {
            args,
            stdin: Some(call.prompt.to_owned()),
            env,
            session: Some(session),
            ..Invocation::default()
        })
    }
    fn parser(&self) -> Box<dyn StreamParser> {
        Box::<GooseStream>::default()
    }
}

#[derive(Default)]
struct GooseStream {
    report: Report,
    turns: u32,
    /// The assistant message being streamed (chunks share its id).
    message: Option<String>,
    text: String,
}

impl StreamParser for GooseStream {
    fn line(&mut self, line: &str) -> Option<Activity> {
        let event = json_line(line)?;
        match text(&event, &["type"]).as_deref() {
            Some("message") => {
                let message = event.get("message")?;
                if text(message, &["role"]).as_deref() != Some("assistant") {
                    return None;
                }
                let id = text(message, &["id"]);
                if id.is_none() || id != self.message {
                    self.turns += 1;
                    self.message = id;
                    self.text.clear();
                }
                let mut activity = None;
                for block in message.get("content").and_then(|c| c.as_array()).into_iter().flatten() {
                    match text(block, &["type"]).as_deref() {
                        Some("text") => self.text.push_str(&text(block, &["text"]).unwrap_or_default()),
                        Some("toolRequest") => {
                            let call = block.get("toolCall").and_then(|c| c.get("value"));
                            activity = Some(Activity {
                                tool: call.and_then(|c| text(c, &["name"])),
                                target: call.and_then(|c| c.get("arguments")).and_then(tool_target),
                                turns: self.turns,
                                cost_usd: None,
                            });
                        }
                        _ => {}
                    }
                }
                if self.text.contains(TURN_LIMIT) {
                    self.report.limit = Some(Limit::Turns);
                }
                activity
            }
            Some("model_change") => {
                self.report.model = text(&event, &["model"]);
                None
            }
            Some("error") => {
                self.report
                    .add_error(&text(&event, &["error"]).unwrap_or_else(|| "error".into()));
                None
            }
            Some("complete") => {
                self.report.finished = true;
                if let Some(total) = number(&event, &["total_tokens"]) {
                    self.report.tokens = Some(Tokens {
                        total,
                        ..Tokens::default()
                    });
                }
                None
            }
            _ => None,
        }
    }

    fn finish(mut self: Box<Self>, _stderr: &str) -> Report {
        if !self.text.trim().is_empty() {
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

    #[test]
    fn a_run_with_its_total() {
        let mut p = Goose.parser();
        for l in [
            r#"{"type":"model_change","model":"claude-sonnet-4","mode":"auto"}"#,
            r#"{"type":"message","message":{"id":"m1","role":"assistant","created":1,"content":[{"type":"toolRequest","id":"t1","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"write","path":"a.txt"}}}}],"metadata":{}}}"#,
            r#"{"type":"message","message":{"id":"m2","role":"assistant","created":2,"content":[{"type":"text","text":"Done"}],"metadata":{}}}"#,
            r#"{"type":"message","message":{"id":"m2","role":"assistant","created":2,"content":[{"type":"text","text":"."}],"metadata":{}}}"#,
            r#"{"type":"complete","total_tokens":1234}"#,
        ] {
            p.line(l);
        }
        let r = p.finish("");
        assert!(r.finished);
        assert_eq!(r.final_text.as_deref(), Some("Done."));
        assert_eq!(r.turns, Some(2));
        assert_eq!(r.tokens.unwrap().total, 1234);
        assert_eq!(r.model.as_deref(), Some("claude-sonnet-4"));
    }
}
