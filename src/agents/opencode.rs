//! opencode (`opencode`), headless: `opencode run --format json`, the prompt
//! on standard input (no size limit), `--session <id>` to continue a
//! session.
//!
//! Its stream (JSON Lines, `packages/opencode/src/cli/cmd/run.ts`): every
//! event is `{type, timestamp, sessionID, …}`: `step_start`, `text` (a
//! finished text `part`), `tool_use` (a `part` with `tool` and `state`:
//! `status`, `input`, `error`), `reasoning`, `step_finish` (a `part` with
//! `reason`, `cost` in USD and `tokens`: `input`, `output`, `reasoning`,
//! `cache.read`, `cache.write` — summed over steps), `error` (`error.name`,
//! `error.data.message`), and the final `done` (`reason: "idle"`,
//! `rejected`: the permissions it asked for and was refused, since a
//! headless run cannot ask). It exits 1 after a session error.
//!
//! opencode's own permissions decide what it may do (its default lets it
//! edit); it needs no flag, and `--auto` (approve everything) is never
//! passed unless the user's own arguments ask for it.
//!
//! Format read: anomalyco/opencode (formerly sst/opencode)
//! `packages/opencode/src/cli/cmd/run.ts` at commit 00f9806 and
//! `session/message-v2.ts` (`StepFinishPart`).

use super::{
    json_line, number, text, tool_target, Access, Activity, Adapter, Call, Invocation, Report, StreamParser, Tokens,
};

pub struct Opencode;

impl Adapter for Opencode {
    fn name(&self) -> &'static str {
        "opencode"
    }
    fn title(&self) -> &'static str {
        "opencode CLI"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["opencode"]
    }
    fn format_version(&self) -> &'static str {
        "opencode run.ts at 00f9806 (--format json)"
    }
    fn flags(&self) -> &'static str {
        "run --format json; --session <id>"
    }
    fn prompt_passing(&self) -> &'static str {
        "standard input"
    }
    fn credentials(&self) -> &'static [&'static str] {
        &[
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GEMINI_API_KEY",
            "OPENROUTER_API_KEY",
        ]
    }
    fn billing_variables(&self) -> &'static [&'static str] {
        &[
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GEMINI_API_KEY",
            "OPENROUTER_API_KEY",
        ]
    }
    fn billing_note(&self) -> &'static str {
        "the provider you signed in with (opencode auth login)"
    }
    fn permission_flags(&self) -> &'static [&'static str] {
        &["--auto", "--yolo", "--dangerously-skip-permissions"]
    }
    fn resumes(&self) -> bool {
        true
    }
    fn invocation(&self, call: &Call<'_>, _permission: bool) -> Result<Invocation, String> {
        let mut args: Vec<String> = vec!["run".into(), "--format".into(), "json".into()];
        if call.access == Access::ReadOnly {
            args.extend(["--agent".into(), "plan".into()]);
        }
        if let Some(id) = call.resume {
            args.extend(["--session".into(), id.to_owned()]);
        }
        Ok(Invocation {
            args,
            stdin: Some(call.prompt.to_owned()),
            ..Invocation::default()
        })
    }
    fn parser(&self) -> Box<dyn StreamParser> {
        Box::<OpencodeStream>::default()
    }
}

#[derive(Default)]
struct OpencodeStream {
    report: Report,
    turns: u32,
}

impl StreamParser for OpencodeStream {
    fn line(&mut self, line: &str) -> Option<Activity> {
        let event = json_line(line)?;
        if let Some(id) = text(&event, &["sessionID"]) {
            self.report.session_id.get_or_insert(id);
        }
        let part = event.get("part").cloned().unwrap_or_default();
        let activity = |s: &Self, tool: Option<String>, target: Option<String>| Activity {
            tool,
            target,
            turns: s.turns,
            cost_usd: s.report.cost_usd,
        };
        match text(&event, &["type"]).as_deref() {
            Some("step_start") => {
                self.turns += 1;
                self.report.finished = false;
                Some(activity(self, None, None))
            }
            Some("text") => {
                self.report.final_text = text(&part, &["text"]).filter(|t| !t.trim().is_empty());
                None
            }
            Some("tool_use") => {
                let target = part.get("state").and_then(|s| s.get("input")).and_then(tool_target);
                Some(activity(self, text(&part, &["tool"]), target))
            }
            Some("step_finish") => {
                if let Some(cost) = part.get("cost").and_then(|c| c.as_f64()) {
                    self.report.add_cost(cost);
                }
                if let Some(t) = part.get("tokens") {
                    let n = |k: &[&str]| number(t, k).unwrap_or(0);
                    self.report.add_tokens(Tokens {
                        input: n(&["input"]) + n(&["cache", "write"]),
                        output: n(&["output"]) + n(&["reasoning"]),
                        cached: n(&["cache", "read"]),
                        total: 0,
                    });
                }
                // Versions before the `done` event end on a step that
                // stops rather than calls tools.
                if text(&part, &["reason"]).is_some_and(|r| r != "tool-calls") {
                    self.report.finished = true;
                }
                Some(activity(self, None, None))
            }
            Some("error") => {
                let e = event.get("error").cloned().unwrap_or_default();
                let said = text(&e, &["data", "message"])
                    .or_else(|| text(&e, &["name"]))
                    .unwrap_or_else(|| "error".into());
                self.report.add_error(&said);
                None
            }
            Some("done") => {
                self.report.finished = true;
                let rejected: Vec<String> = event
                    .get("rejected")
                    .and_then(|r| r.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p.as_str().map(str::to_owned))
                    .collect();
                if !rejected.is_empty() {
                    self.report.add_error(&format!(
                        "it asked for permissions a headless run cannot give, and was refused: {} (allow them in opencode.json)",
                        rejected.join(", ")
                    ));
                }
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
    fn steps_are_summed() {
        let mut p = Opencode.parser();
        for l in [
            r#"{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"type":"step-start"}}"#,
            r#"{"type":"tool_use","timestamp":2,"sessionID":"ses_1","part":{"type":"tool","tool":"edit","state":{"status":"completed","input":{"filePath":"a.txt"}}}}"#,
            r#"{"type":"step_finish","timestamp":3,"sessionID":"ses_1","part":{"type":"step-finish","reason":"tool-calls","cost":0.01,"tokens":{"input":100,"output":10,"reasoning":5,"cache":{"read":40,"write":0}}}}"#,
            r#"{"type":"step_start","timestamp":4,"sessionID":"ses_1","part":{"type":"step-start"}}"#,
            r#"{"type":"text","timestamp":5,"sessionID":"ses_1","part":{"type":"text","text":"Done."}}"#,
            r#"{"type":"step_finish","timestamp":6,"sessionID":"ses_1","part":{"type":"step-finish","reason":"stop","cost":0.02,"tokens":{"input":50,"output":20,"reasoning":0,"cache":{"read":60,"write":10}}}}"#,
            r#"{"type":"done","timestamp":7,"sessionID":"ses_1","reason":"idle","rejected":[]}"#,
        ] {
            p.line(l);
        }
        let r = p.finish("");
        assert!(r.finished);
        assert_eq!(r.session_id.as_deref(), Some("ses_1"));
        assert_eq!(r.turns, Some(2));
        assert!((r.cost_usd.unwrap() - 0.03).abs() < 1e-9);
        assert_eq!(
            r.tokens,
            Some(Tokens {
                input: 160,
                output: 35,
                cached: 100,
                total: 0
            })
        );
        assert_eq!(r.final_text.as_deref(), Some("Done."));
    }
}
