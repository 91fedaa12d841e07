//! The Claude Code `stream-json` format, which several agents share: one JSON
//! object per line — a `system` event (subtype `init`, or `session_start`
//! for Qwen Code) with the session id and model, `assistant` and `user`
//! messages whose content blocks hold text and `tool_use` calls, and a final
//! `result` event: `subtype` (`success`, `error_max_turns`,
//! `error_max_budget_usd`, `error_during_execution`), `is_error`, `result`
//! (the final text, or the error's), `num_turns`, `session_id`,
//! `total_cost_usd` and `usage` (`input_tokens`,
//! `cache_creation_input_tokens`, `cache_read_input_tokens`,
//! `output_tokens`). Cursor's CLI adds `tool_call` events (`started`,
//! `completed`) whose call is keyed by its kind (`writeToolCall`, …).
//!
//! Read from: Claude Code 2.1.x (CHANGELOG through 2.1.114, the Agent SDK's
//! `SDKResultMessage`), Qwen Code `packages/cli/src/nonInteractive/types.ts`
//! (commit 139fb33), Cursor's `docs/cli/reference/output-format`, Amp's SDK
//! (`--stream-json`).

use super::{json_line, number, text, tool_target, Activity, Limit, Report, StreamParser, Tokens};

/// A reader of the shared format.
#[derive(Default)]
pub struct StreamJson {
    report: Report,
    turns: u32,
    last_message: Option<String>,
    /// The last text an assistant message held (the answer when the
    /// result event carries none).
    last_text: Option<String>,
}

impl StreamJson {
    pub fn boxed() -> Box<dyn StreamParser> {
        Box::new(StreamJson::default())
    }

    fn activity(&self, tool: Option<String>, target: Option<String>) -> Activity {
        Activity {
            tool,
            target,
            turns: self.turns,
            cost_usd: self.report.cost_usd,
        }
    }

    fn assistant(&mut self, event: &serde_json::Value) -> Option<Activity> {
        let message = event.get("message")?;
        if let Some(model) = text(message, &["model"]) {
            self.report.model.get_or_insert(model);
        }
        // Claude repeats a message once per content block: a turn is a new id.
        let id = text(message, &["id"]);
        if id.is_none() || id != self.last_message {
            self.turns += 1;
            self.last_message = id;
        }
        let mut activity = None;
        for block in message.get("content").and_then(|c| c.as_array()).into_iter().flatten() {
            match block.get("type").and_then(|t| t.as_str()) {
                Some("text") => {
                    if let Some(t) = text(block, &["text"]).filter(|t| !t.trim().is_empty()) {
                        self.last_text = Some(t);
                    }
                }
                Some("tool_use") => {
                    let target = block.get("input").and_then(tool_target);
                    activity = Some(self.activity(text(block, &["name"]), target));
                }
                _ => {}
            }
        }
        activity.or_else(|| Some(self.activity(None, None)))
    }

    /// Cursor's `tool_call` event: `{"tool_call": {"writeToolCall": {"args": {...}}}}`.
    fn tool_call(&mut self, event: &serde_json::Value) -> Option<Activity> {
        if text(event, &["subtype"]).as_deref() != Some("started") {
            return None;
        }
        let call = event.get("tool_call")?.as_object()?;
        let (kind, body) = call.iter().next()?;
        let tool = kind.strip_suffix("ToolCall").unwrap_or(kind).to_owned();
        let target = body.get("args").and_then(tool_target);
        Some(self.activity(Some(tool), target))
    }

    fn result(&mut self, event: &serde_json::Value) {
        let r = &mut self.report;
        r.finished = true;
        if let Some(id) = text(event, &["session_id"]) {
            r.session_id = Some(id);
        }
        if let Some(n) = number(event, &["num_turns"]) {
            r.turns = Some(n as u32);
        }
        if let Some(cost) = event
            .get("total_cost_usd")
            .or_else(|| event.get("cost_usd"))
            .and_then(|v| v.as_f64())
        {
            r.cost_usd = None;
            r.add_cost(cost);
        }
        if let Some(usage) = event.get("usage").filter(|u| u.is_object()) {
            let n = |k: &str| number(usage, &[k]).unwrap_or(0);
            r.tokens = Some(Tokens {
                input: n("input_tokens") + n("cache_creation_input_tokens"),
                output: n("output_tokens"),
                cached: n("cache_read_input_tokens"),
                total: 0,
            });
        }
        let subtype = text(event, &["subtype"]).unwrap_or_default();
        r.limit = match subtype.as_str() {
            "error_max_turns" => Some(Limit::Turns),
            "error_max_budget_usd" => Some(Limit::Budget),
            _ => None,
        };
        let result_text = text(event, &["result"]);
        let is_error = event.get("is_error").and_then(|v| v.as_bool()).unwrap_or(false) || subtype.starts_with("error");
        if is_error {
            let mut said: Vec<String> = Vec::new();
            said.extend(result_text.clone().filter(|t| !t.trim().is_empty()));
            if let Some(errors) = event.get("errors").and_then(|e| e.as_array()) {
                said.extend(errors.iter().filter_map(|e| e.as_str().map(str::to_owned)));
            }
            match event.get("error") {
                Some(serde_json::Value::String(s)) => said.push(s.clone()),
                Some(e) => said.extend(text(e, &["message"])),
                None => {}
            }
            if said.is_empty() && r.limit.is_none() {
                said.push(format!("result '{subtype}'"));
            }
            for s in said {
                r.add_error(&s);
            }
        } else {
            r.final_text = result_text.or_else(|| self.last_text.clone());
        }
    }
}

impl StreamParser for StreamJson {
    fn line(&mut self, line: &str) -> Option<Activity> {
        let event = json_line(line)?;
        match text(&event, &["type"]).as_deref() {
            Some("system") => {
                if let Some(id) = text(&event, &["session_id"]) {
                    self.report.session_id.get_or_insert(id);
                }
                if let Some(model) = text(&event, &["model"]) {
                    self.report.model = Some(model);
                }
                None
            }
            Some("assistant") => self.assistant(&event),
            Some("tool_call") => self.tool_call(&event),
            Some("result") => {
                self.result(&event);
                None
            }
            _ => None,
        }
    }

    fn finish(mut self: Box<Self>, _stderr: &str) -> Report {
        if self.report.turns.is_none() && self.turns > 0 {
            self.report.turns = Some(self.turns);
        }
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> (Vec<Activity>, Report) {
        let mut p = StreamJson::boxed();
        let activity = lines.iter().filter_map(|l| p.line(l)).collect();
        (activity, p.finish(""))
    }

    #[test]
    fn a_claude_success() {
        let (activity, r) = read(&[
            r#"{"type":"system","subtype":"init","session_id":"s-1","model":"claude-sonnet-4-5","cwd":"/w","tools":["Edit"],"permissionMode":"acceptEdits"}"#,
            r#"{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/w/a.txt"}}]},"session_id":"s-1"}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"session_id":"s-1"}"#,
            r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"Done."}]},"session_id":"s-1"}"#,
            r#"{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"Done.","session_id":"s-1","total_cost_usd":0.0123,"usage":{"input_tokens":100,"cache_creation_input_tokens":10,"cache_read_input_tokens":20,"output_tokens":30}}"#,
        ]);
        assert_eq!(activity[0].describe(), "Edit /w/a.txt · turn 1");
        assert!(r.finished);
        assert_eq!(r.session_id.as_deref(), Some("s-1"));
        assert_eq!(r.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(r.turns, Some(2));
        assert_eq!(r.cost_usd, Some(0.0123));
        assert_eq!(
            r.tokens,
            Some(Tokens {
                input: 110,
                output: 30,
                cached: 20,
                total: 0
            })
        );
        assert_eq!(r.final_text.as_deref(), Some("Done."));
        assert_eq!(r.error, None);
    }

    #[test]
    fn errors_and_limits_are_named() {
        let (_, r) = read(&[
            r#"{"type":"result","subtype":"success","is_error":true,"result":"API Error: 401 invalid x-api-key","session_id":"s"}"#,
        ]);
        assert_eq!(r.error.as_deref(), Some("API Error: 401 invalid x-api-key"));
        let (_, r) = read(&[
            r#"{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":5,"session_id":"s","errors":[]}"#,
        ]);
        assert_eq!(r.limit, Some(Limit::Turns));
        assert_eq!(r.error, None, "the limit names itself");
        let (_, r) = read(&[r#"{"type":"system","subtype":"init","session_id":"s"}"#, "not json"]);
        assert!(!r.finished);
    }

    #[test]
    fn cursor_tool_calls_show() {
        let (activity, _) = read(&[
            r#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"writeToolCall":{"args":{"path":"src/a.rs"}}}}"#,
        ]);
        assert_eq!(activity[0].describe(), "write src/a.rs");
    }
}
