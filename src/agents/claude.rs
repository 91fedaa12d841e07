//! Claude Code (`claude`), headless: `claude -p --output-format stream-json
//! --verbose --permission-mode acceptEdits`, the prompt on standard input
//! (no size limit), `--resume <session id>` to continue a session. Its
//! stream is the shared `stream-json` format ([`super::stream_json`]): the
//! `result` event gives the final text, session id, turns, usage and
//! `total_cost_usd`; `is_error: true` (with exit 0) is an error in its own
//! words, and the subtypes `error_max_turns` / `error_max_budget_usd` name
//! the limits of `--max-turns` / `--max-budget-usd`.
//!
//! `acceptEdits` lets it edit files without asking and nothing more (it
//! still may not run commands it was not allowed); `bypassPermissions` is
//! never passed unless the user's own arguments ask for it.
//!
//! Format read: Claude Code 2.1.x (CHANGELOG of anthropics/claude-code at
//! 2.1.114; headless docs; the Agent SDK's `SDKResultMessage`).

use super::{stream_json::StreamJson, Access, Adapter, Call, Invocation, StreamParser};

pub struct Claude;

impl Adapter for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }
    fn title(&self) -> &'static str {
        "Claude Code CLI"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["claude"]
    }
    fn format_version(&self) -> &'static str {
        "Claude Code 2.1.114 (stream-json)"
    }
    fn flags(&self) -> &'static str {
        "-p --output-format stream-json --verbose --permission-mode acceptEdits; --resume <id>"
    }
    fn prompt_passing(&self) -> &'static str {
        "standard input"
    }
    fn credentials(&self) -> &'static [&'static str] {
        &["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"]
    }
    fn billing_variables(&self) -> &'static [&'static str] {
        &["ANTHROPIC_API_KEY"]
    }
    fn billing_note(&self) -> &'static str {
        "your Claude subscription (claude login)"
    }
    fn permission_flags(&self) -> &'static [&'static str] {
        &["--permission-mode", "--dangerously-skip-permissions"]
    }
    fn resumes(&self) -> bool {
        true
    }
    fn invocation(&self, call: &Call<'_>, permission: bool) -> Result<Invocation, String> {
        let mut args: Vec<String> = ["-p", "--output-format", "stream-json", "--verbose"]
            .map(String::from)
            .to_vec();
        match call.access {
            Access::Edit if permission => args.extend(["--permission-mode".into(), "acceptEdits".into()]),
            Access::Edit => {}
            Access::ReadOnly => args.extend(["--permission-mode".into(), "plan".into()]),
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
    fn parser(&self) -> Box<dyn StreamParser> {
        StreamJson::boxed()
    }
}
