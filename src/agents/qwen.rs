//! Qwen Code (`qwen`), headless: `qwen -p <instruction> --output-format
//! stream-json --approval-mode auto-edit`, the task on standard input (the
//! `-p` text is appended to it, so the task has no size limit), `--resume
//! <session id>` to continue a project session. Its stream is the Claude
//! Code-compatible `stream-json` ([`super::stream_json`]): `system`
//! (`session_start`) with the session id and model, `assistant` messages,
//! and a `result` with `is_error`, `num_turns`, `usage` and, for errors,
//! `error.message`; `error_max_turns` is `--max-session-turns`. It reports
//! no cost. A fork of Gemini CLI, it keeps its exit codes (41 auth, 42
//! input, 52 config, 53 turn limit, 55 untrusted folder).
//!
//! `auto-edit` approves edit tools only; `yolo` is never passed unless the
//! user's own arguments ask for it.
//!
//! Format read: QwenLM/qwen-code `packages/cli/src/nonInteractive/types.ts`
//! (commit 139fb33) and `docs/users/features/headless.md` (commit 03ff065).

use super::{
    gemini_exit_meaning, stream_json::StreamJson, Access, Adapter, Call, Invocation, StreamParser, STDIN_INSTRUCTION,
};

pub struct Qwen;

impl Adapter for Qwen {
    fn name(&self) -> &'static str {
        "qwen"
    }
    fn title(&self) -> &'static str {
        "Qwen Code CLI"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["qwen"]
    }
    fn format_version(&self) -> &'static str {
        "qwen-code commit 139fb33 (stream-json)"
    }
    fn flags(&self) -> &'static str {
        "-p <instruction> --output-format stream-json --approval-mode auto-edit; --resume <id>"
    }
    fn prompt_passing(&self) -> &'static str {
        "standard input (-p appends a short instruction)"
    }
    fn credentials(&self) -> &'static [&'static str] {
        &["OPENAI_API_KEY", "OPENAI_BASE_URL", "DASHSCOPE_API_KEY"]
    }
    fn billing_variables(&self) -> &'static [&'static str] {
        &["OPENAI_API_KEY", "DASHSCOPE_API_KEY"]
    }
    fn billing_note(&self) -> &'static str {
        "Qwen OAuth (qwen login), free within its daily quota"
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
            Access::Edit if permission => args.extend(["--approval-mode".into(), "auto-edit".into()]),
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
        StreamJson::boxed()
    }
}
