//! Cursor's CLI (`cursor-agent`, installed as `agent` too), headless:
//! `cursor-agent -p --output-format stream-json <prompt>`, the prompt as
//! the last argument (so at most 128 KiB: Linux's limit on one argument),
//! `--resume <chat id>` to continue a session.
//!
//! Its stream is Claude Code's `stream-json` ([`super::stream_json`]) plus
//! `tool_call` events (`subtype` `started` / `completed`, the call keyed by
//! its kind: `readToolCall`, `writeToolCall`, `shellToolCall`, with `args`);
//! the final `result` has `is_error`, `result`, `session_id`, `duration_ms`
//! and `request_id`. It reports no cost; usage when a version adds it.
//!
//! In print mode without `--force` it edits files inside the workspace and
//! rejects what would need approval (commands not on its allowlist, writes
//! outside the workspace): that is the least permissive mode that works
//! headless, so no flag is passed; `--force` is never passed unless the
//! user's own arguments ask for it.
//!
//! Format read: cursor.com `docs/cli/reference/output-format` and
//! `docs/cli/headless` (print mode and `--force`), 2026.

use super::{prompt_argument, stream_json::StreamJson, Access, Adapter, Call, Invocation, StreamParser};

pub struct Cursor;

impl Adapter for Cursor {
    fn name(&self) -> &'static str {
        "cursor"
    }
    fn title(&self) -> &'static str {
        "Cursor Agent CLI"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["cursor-agent", "agent"]
    }
    fn format_version(&self) -> &'static str {
        "cursor.com docs/cli/reference/output-format, 2026 (stream-json)"
    }
    fn flags(&self) -> &'static str {
        "-p --output-format stream-json <prompt>; --resume <id>"
    }
    fn prompt_passing(&self) -> &'static str {
        "last argument (at most 128 KiB)"
    }
    fn credentials(&self) -> &'static [&'static str] {
        &["CURSOR_API_KEY"]
    }
    fn billing_variables(&self) -> &'static [&'static str] {
        &[]
    }
    fn billing_note(&self) -> &'static str {
        "your Cursor plan's usage (cursor-agent login or CURSOR_API_KEY)"
    }
    fn permission_flags(&self) -> &'static [&'static str] {
        &["--force", "-f", "--yolo"]
    }
    fn resumes(&self) -> bool {
        true
    }
    fn invocation(&self, call: &Call<'_>, _permission: bool) -> Result<Invocation, String> {
        let mut args: Vec<String> = ["-p", "--output-format", "stream-json"].map(String::from).to_vec();
        if call.access == Access::ReadOnly {
            args.extend(["--mode".into(), "ask".into()]);
        }
        if let Some(id) = call.resume {
            args.extend(["--resume".into(), id.to_owned()]);
        }
        Ok(Invocation {
            args,
            trailing: vec![prompt_argument("cursor", call.prompt)?],
            ..Invocation::default()
        })
    }
    fn parser(&self) -> Box<dyn StreamParser> {
        StreamJson::boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_too_long_for_one_argument_is_refused() {
        let long = "x".repeat(super::super::LONGEST_ARGUMENT + 1);
        let call = Call {
            prompt: &long,
            resume: None,
            session_name: "s",
            workdir: std::path::Path::new("."),
            scratch: std::env::temp_dir(),
            access: Access::Edit,
        };
        let why = Cursor.invocation(&call, true).unwrap_err();
        assert!(why.contains("which Linux limits to 128 KiB"), "{why}");
        let ok = Call {
            prompt: "short",
            ..call
        };
        assert_eq!(Cursor.invocation(&ok, true).unwrap().trailing, ["short"]);
    }
}
