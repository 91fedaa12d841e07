//! Amp (`amp`), headless: `amp --execute --stream-json`, the prompt on
//! standard input (execute mode reads it when piped; no size limit), `amp
//! threads continue <thread id> --execute --stream-json` to continue a
//! thread.
//!
//! Its stream is Claude Code-compatible `stream-json`
//! ([`super::stream_json`]): a `system` `init` with the thread id as
//! `session_id`, `assistant` / `user` messages, and a `result` with
//! `is_error`, `result` (or `error`), `num_turns`, `duration_ms` and
//! `usage` where given. It reports no cost.
//!
//! In execute mode Amp edits files and rejects commands that are not on its
//! allowlist: no flag is needed, and `--dangerously-allow-all` is never
//! passed unless the user's own arguments ask for it. It has no read-only
//! mode: the historian's question runs it in an empty scratch directory.
//!
//! Format read: Amp's TypeScript SDK (`@sourcegraph/amp-sdk`, the
//! `--stream-json` messages) and its CLI reference (`-x, --execute`), 2026.

use super::{stream_json::StreamJson, Adapter, Call, Invocation, StreamParser};

pub struct Amp;

impl Adapter for Amp {
    fn name(&self) -> &'static str {
        "amp"
    }
    fn title(&self) -> &'static str {
        "Amp CLI"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["amp"]
    }
    fn format_version(&self) -> &'static str {
        "@sourcegraph/amp-sdk stream-json, 2026"
    }
    fn flags(&self) -> &'static str {
        "--execute --stream-json; threads continue <id> --execute --stream-json"
    }
    fn prompt_passing(&self) -> &'static str {
        "standard input"
    }
    fn credentials(&self) -> &'static [&'static str] {
        &["AMP_API_KEY"]
    }
    fn billing_variables(&self) -> &'static [&'static str] {
        &["AMP_API_KEY"]
    }
    fn billing_note(&self) -> &'static str {
        "your Amp account (amp login)"
    }
    fn permission_flags(&self) -> &'static [&'static str] {
        &["--dangerously-allow-all"]
    }
    fn resumes(&self) -> bool {
        true
    }
    fn invocation(&self, call: &Call<'_>, _permission: bool) -> Result<Invocation, String> {
        let mut args: Vec<String> = Vec::new();
        if let Some(id) = call.resume {
            args.extend(["threads".into(), "continue".into(), id.to_owned()]);
        }
        args.extend(["--execute".into(), "--stream-json".into()]);
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
