//! Stand-ins for the coding-agent CLIs, one per agent, each named as the
//! real program and put first on PATH. Each reads its prompt where the real
//! one does (standard input, the last argument, a `--message-file`),
//! writes the word the step asks for into the files the prompt names (as an
//! agent edits), and prints exactly the output shapes its adapter's module
//! documents, by `STUB_MODE`:
//!
//! * `success` (default): the whole stream of a run that edits and ends;
//! * `retry`: the first call writes the wrong word, later calls the right
//!   one (a retry that continues the session passes);
//! * `error`: the agent's error result (or error event) with exit 0;
//! * `turns`: the agent's turn limit, as it reports it;
//! * `hang`: the first event, then a child that never ends.
//!
//! Each call leaves `<agent>.args.<n>` (one argument a line) and
//! `<agent>.prompt.<n>` beside the stub, `STUB_SAY` is added to its final
//! text (a secret, for the redaction test), `STUB_ANSWER` replaces that
//! text (already escaped for a JSON string: the historian's question) and
//! `STUB_EXIT` is its exit code.

use std::path::{Path, PathBuf};

use crate::harness::support::{write, TestEnv};

/// The agents with a stub, as executor names.
pub const AGENTS: [&str; 9] = [
    "claude", "codex", "gemini", "opencode", "cursor", "aider", "goose", "qwen", "amp",
];

/// The program name a stub is installed as.
pub fn program(agent: &str) -> &'static str {
    match agent {
        "claude" => "claude",
        "codex" => "codex",
        "gemini" => "gemini",
        "opencode" => "opencode",
        "cursor" => "cursor-agent",
        "aider" => "aider",
        "goose" => "goose",
        "qwen" => "qwen",
        "amp" => "amp",
        other => panic!("no stub for {other}"),
    }
}

/// Installs `agent`'s stub in `<test dir>/stub-bin` and puts that
/// directory first on PATH (after the build directory); returns it.
pub fn install(env: &mut TestEnv, agent: &str) -> PathBuf {
    let bin = env.root().join("stub-bin");
    let path = bin.join(program(agent));
    write(&path, &script(agent));
    std::process::Command::new("chmod")
        .args(["+x", path.to_str().unwrap()])
        .status()
        .unwrap();
    let rest = std::env::var("PATH").unwrap_or_default();
    env.set(
        "PATH",
        format!(
            "{}:{}:{rest}",
            crate::harness::support::bin_dir().display(),
            bin.display()
        ),
    );
    bin
}

/// The arguments of the stub's `n`th call, one a line.
pub fn args(bin: &Path, agent: &str, n: u32) -> String {
    std::fs::read_to_string(bin.join(format!("{agent}.args.{n}"))).unwrap_or_default()
}

/// The prompt of the stub's `n`th call.
pub fn prompt(bin: &Path, agent: &str, n: u32) -> String {
    std::fs::read_to_string(bin.join(format!("{agent}.prompt.{n}"))).unwrap_or_default()
}

/// How many times the stub ran.
pub fn calls(bin: &Path, agent: &str) -> u32 {
    std::fs::read_to_string(bin.join(format!("{agent}.count")))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

fn script(agent: &str) -> String {
    let read_prompt = match agent {
        "cursor" => "for a in \"$@\"; do prompt=$a; done\n",
        "aider" => {
            "prev=; for a in \"$@\"; do [ \"$prev\" = --message-file ] && msgfile=$a; prev=$a; done\nprompt=$(cat \"$msgfile\")\n"
        }
        _ => "prompt=$(cat)\n",
    };
    // The session the agent names itself (goose and aider get theirs from
    // the caller's --name / chat history file).
    let session = match agent {
        "goose" => "prev=; for a in \"$@\"; do [ \"$prev\" = --name ] && sid=$a; prev=$a; done\n".to_owned(),
        "aider" => "sid=aider\n".to_owned(),
        other => format!("sid={}\n", session_id(other)),
    };
    format!(
        r#"#!/bin/sh
# A stand-in for the {agent} CLI (see tests/cli/harness/agent_stubs.rs).
[ "$1" = --version ] && {{ echo '{version}'; exit 0; }}
d=$(dirname "$0")
n=$(( $(cat "$d/{agent}.count" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$d/{agent}.count"
printf '%s\n' "$@" > "$d/{agent}.args.$n"
{read_prompt}printf '%s\n' "$prompt" > "$d/{agent}.prompt.$n"
files=$(printf '%s\n' "$prompt" | sed -n 's/^Files you may create or modify: //p' | tr -d ',')
if [ -n "$files" ]; then echo "$files" > "$d/{agent}.files"; else files=$(cat "$d/{agent}.files" 2>/dev/null); fi
f=$(echo $files | cut -d' ' -f1)
{session}mode=${{STUB_MODE:-success}}
word=done
if [ "$mode" = retry ]; then mode=success; [ "$n" = 1 ] && word=wrong; fi
say="Done: wrote $f.${{STUB_SAY:+ $STUB_SAY}}"
[ -n "$STUB_ANSWER" ] && say=$STUB_ANSWER
if [ "$mode" = success ]; then for x in $files; do printf '%s\n' "$word" > "$x"; done; fi
{body}exit ${{STUB_EXIT:-0}}
"#,
        body = body(agent),
        version = version(agent),
    )
}

/// What the stub's `--version` prints.
fn version(agent: &str) -> &'static str {
    match agent {
        "claude" => "2.1.114 (Claude Code)",
        "codex" => "codex-cli 0.46.0",
        "gemini" => "0.56.0-nightly.20260822",
        "opencode" => "1.0.150",
        "cursor" => "2026.01.09-6a1b2c3",
        "aider" => "aider 0.86.2",
        "goose" => "1.16.0",
        "qwen" => "0.1.4",
        _ => "0.0.1760000000-g1a2b3c",
    }
}

fn session_id(agent: &str) -> &'static str {
    match agent {
        "claude" => "5f1c2a9e-0d4b-4c1e-9a7b-3e2f1d0c9b8a",
        "codex" => "0199a213-81c0-7800-8aa1-bbab2a035a53",
        "gemini" => "c3f0e9a2-5b7d-4e1a-8c6f-2d9b0a1e4f7c",
        "opencode" => "ses_6a1b2c3d4e5fAbCdEfGhIjKlMn",
        "cursor" => "2d7e9f10-3a4b-4c5d-8e6f-7a8b9c0d1e2f",
        "qwen" => "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
        "amp" => "T-4b3c2d1e-0f9a-4b8c-9d7e-6f5a4b3c2d1e",
        _ => "none",
    }
}

/// What the agent prints, by mode: its documented output shapes.
fn body(agent: &str) -> String {
    let hang = |first: &str| {
        format!(
            "if [ \"$mode\" = hang ]; then\n{first}\nsleep 300 &\necho $! > \"$d/{agent}.hang.pid\"\nwait\nexit 0\nfi\n"
        )
    };
    match agent {
        "claude" => format!(
            "{}{}",
            hang(
                r#"echo "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"$PWD\",\"session_id\":\"$sid\",\"tools\":[\"Read\",\"Edit\",\"Write\",\"Bash\"],\"model\":\"claude-sonnet-4-5-20250929\",\"permissionMode\":\"acceptEdits\",\"apiKeySource\":\"none\"}""#
            ),
            r#"cat <<EOF
{"type":"system","subtype":"init","cwd":"$PWD","session_id":"$sid","tools":["Read","Edit","Write","Bash"],"model":"claude-sonnet-4-5-20250929","permissionMode":"acceptEdits","apiKeySource":"none"}
{"type":"assistant","message":{"id":"msg_01A","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_01","name":"Write","input":{"file_path":"$PWD/$f","content":"$word\n"}}],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":8}},"parent_tool_use_id":null,"session_id":"$sid"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"File created successfully at: $PWD/$f"}]},"parent_tool_use_id":null,"session_id":"$sid"}
EOF
case "$mode" in
success) cat <<EOF
{"type":"assistant","message":{"id":"msg_01B","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"$say"}],"stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":12}},"parent_tool_use_id":null,"session_id":"$sid"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":2100,"duration_api_ms":1900,"num_turns":3,"result":"$say","session_id":"$sid","total_cost_usd":0.0123,"usage":{"input_tokens":100,"cache_creation_input_tokens":10,"cache_read_input_tokens":20,"output_tokens":30},"permission_denials":[]}
EOF
;;
error) cat <<EOF
{"type":"result","subtype":"success","is_error":true,"duration_ms":410,"duration_api_ms":0,"num_turns":1,"result":"Invalid API key · Fix external API key","session_id":"$sid","total_cost_usd":0,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0},"permission_denials":[]}
EOF
;;
turns) cat <<EOF
{"type":"result","subtype":"error_max_turns","is_error":true,"duration_ms":9000,"duration_api_ms":8000,"num_turns":5,"session_id":"$sid","total_cost_usd":0.05,"usage":{"input_tokens":500,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":90},"permission_denials":[],"errors":[]}
EOF
;;
esac
"#
        ),
        "codex" => format!(
            "{}{}",
            hang(r#"echo "{\"type\":\"thread.started\",\"thread_id\":\"$sid\"}""#),
            r#"cat <<EOF
{"type":"thread.started","thread_id":"$sid"}
{"type":"turn.started"}
EOF
case "$mode" in
success) cat <<EOF
{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Writing the file**"}}
{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'printf $word > $f'","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'printf $word > $f'","aggregated_output":"","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"$PWD/$f","kind":"add"}],"status":"completed"}}
{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"$say"}}
{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}
EOF
;;
error) cat <<EOF
{"type":"error","message":"unexpected status 401 Unauthorized: Incorrect API key provided"}
{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Incorrect API key provided"}}
EOF
;;
esac
"#
        ),
        "gemini" => format!(
            "{}{}",
            hang(
                r#"echo "{\"type\":\"init\",\"timestamp\":\"2026-01-02T03:04:05.000Z\",\"session_id\":\"$sid\",\"model\":\"gemini-2.5-pro\"}""#
            ),
            r#"cat <<EOF
{"type":"init","timestamp":"2026-01-02T03:04:05.000Z","session_id":"$sid","model":"gemini-2.5-pro"}
{"type":"message","timestamp":"2026-01-02T03:04:05.100Z","role":"user","content":"Carry out the task given above on standard input."}
EOF
case "$mode" in
success) cat <<EOF
{"type":"tool_use","timestamp":"2026-01-02T03:04:06.000Z","tool_name":"write_file","tool_id":"write_file-1","parameters":{"file_path":"$f","content":"$word"}}
{"type":"tool_result","timestamp":"2026-01-02T03:04:06.200Z","tool_id":"write_file-1","status":"success"}
{"type":"message","timestamp":"2026-01-02T03:04:07.000Z","role":"assistant","content":"$say","delta":true}
{"type":"result","timestamp":"2026-01-02T03:04:07.100Z","status":"success","stats":{"total_tokens":180,"input_tokens":150,"output_tokens":30,"cached":50,"input":100,"duration_ms":2100,"tool_calls":1,"models":{"gemini-2.5-pro":{"total_tokens":180,"input_tokens":150,"output_tokens":30,"cached":50,"input":100}}}}
EOF
;;
error) cat <<EOF
{"type":"error","timestamp":"2026-01-02T03:04:06.000Z","severity":"error","message":"[API Error: Quota exceeded for quota metric 'Generate Content API requests per minute']"}
{"type":"result","timestamp":"2026-01-02T03:04:06.100Z","status":"error","error":{"type":"Error","message":"[API Error: Quota exceeded for quota metric 'Generate Content API requests per minute']"},"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":100,"tool_calls":0,"models":{}}}
EOF
;;
turns) cat <<EOF
{"type":"error","timestamp":"2026-01-02T03:04:06.000Z","severity":"error","message":"Maximum session turns exceeded"}
{"type":"result","timestamp":"2026-01-02T03:04:06.100Z","status":"success","stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":100,"tool_calls":0,"models":{}}}
EOF
;;
esac
"#
        ),
        "opencode" => format!(
            "{}{}",
            hang(
                r#"echo "{\"type\":\"step_start\",\"timestamp\":1767323045000,\"sessionID\":\"$sid\",\"part\":{\"id\":\"prt_1\",\"sessionID\":\"$sid\",\"messageID\":\"msg_1\",\"type\":\"step-start\"}}""#
            ),
            r#"cat <<EOF
{"type":"step_start","timestamp":1767323045000,"sessionID":"$sid","part":{"id":"prt_1","sessionID":"$sid","messageID":"msg_1","type":"step-start"}}
EOF
case "$mode" in
success) cat <<EOF
{"type":"tool_use","timestamp":1767323046000,"sessionID":"$sid","part":{"id":"prt_2","sessionID":"$sid","messageID":"msg_1","type":"tool","callID":"call_1","tool":"write","state":{"status":"completed","input":{"filePath":"$PWD/$f","content":"$word"},"output":"","title":"$f","metadata":{},"time":{"start":1767323045500,"end":1767323046000}}}}
{"type":"step_finish","timestamp":1767323046100,"sessionID":"$sid","part":{"id":"prt_3","sessionID":"$sid","messageID":"msg_1","type":"step-finish","reason":"tool-calls","cost":0.004,"tokens":{"input":100,"output":10,"reasoning":0,"cache":{"read":40,"write":0}}}}
{"type":"step_start","timestamp":1767323046200,"sessionID":"$sid","part":{"id":"prt_4","sessionID":"$sid","messageID":"msg_2","type":"step-start"}}
{"type":"text","timestamp":1767323047000,"sessionID":"$sid","part":{"id":"prt_5","sessionID":"$sid","messageID":"msg_2","type":"text","text":"$say","time":{"start":1767323046500,"end":1767323047000}}}
{"type":"step_finish","timestamp":1767323047100,"sessionID":"$sid","part":{"id":"prt_6","sessionID":"$sid","messageID":"msg_2","type":"step-finish","reason":"stop","cost":0.006,"tokens":{"input":50,"output":20,"reasoning":0,"cache":{"read":60,"write":0}}}}
{"type":"done","timestamp":1767323047200,"sessionID":"$sid","reason":"idle","rejected":[]}
EOF
;;
error) cat <<EOF
{"type":"error","timestamp":1767323046000,"sessionID":"$sid","error":{"name":"APIError","data":{"message":"Incorrect API key provided","statusCode":401,"isRetryable":false}}}
{"type":"done","timestamp":1767323046100,"sessionID":"$sid","reason":"idle","rejected":[]}
EOF
;;
esac
"#
        ),
        "cursor" => format!(
            "{}{}",
            hang(
                r#"echo "{\"type\":\"system\",\"subtype\":\"init\",\"apiKeySource\":\"login\",\"cwd\":\"$PWD\",\"session_id\":\"$sid\",\"model\":\"Claude 4 Sonnet\",\"permissionMode\":\"default\"}""#
            ),
            r#"cat <<EOF
{"type":"system","subtype":"init","apiKeySource":"login","cwd":"$PWD","session_id":"$sid","model":"Claude 4 Sonnet","permissionMode":"default"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"(the prompt)"}]},"session_id":"$sid"}
EOF
case "$mode" in
success) cat <<EOF
{"type":"tool_call","subtype":"started","call_id":"toolu_1","tool_call":{"writeToolCall":{"args":{"path":"$f","fileText":"$word\n"}}},"session_id":"$sid"}
{"type":"tool_call","subtype":"completed","call_id":"toolu_1","tool_call":{"writeToolCall":{"args":{"path":"$f","fileText":"$word\n"},"result":{"success":{"path":"$f","linesCreated":1,"fileSize":5}}}},"session_id":"$sid"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"$say"}]},"session_id":"$sid"}
{"type":"result","subtype":"success","duration_ms":2100,"duration_api_ms":2100,"is_error":false,"result":"$say","session_id":"$sid","request_id":"req-7f3e"}
EOF
;;
error) cat <<EOF
{"type":"result","subtype":"success","duration_ms":300,"duration_api_ms":300,"is_error":true,"result":"You've hit your usage limit for this model.","session_id":"$sid","request_id":"req-7f3e"}
EOF
;;
esac
"#
        ),
        "aider" => format!(
            "{}{}",
            hang("echo 'Aider v0.86.2'"),
            r#"echo 'Aider v0.86.2'
echo 'Main model: anthropic/claude-sonnet-4-5-20250929 with diff edit format, prompt cache, infinite output'
echo 'Weak model: anthropic/claude-3-5-haiku-20241022'
echo 'Git repo: .git with 3 files'
echo 'Repo-map: using 4096 tokens, auto refresh'
echo
case "$mode" in
success) cat <<EOF
$f
\`\`\`
<<<<<<< SEARCH
=======
$word
>>>>>>> REPLACE
\`\`\`

Applied edit to $f
Tokens: 2.1k sent, 345 received. Cost: \$0.0042 message, \$0.0042 session.
$say
EOF
;;
error) cat <<EOF
litellm.AuthenticationError: AnthropicException - {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}
The API provider is not able to authenticate you. Check your API key.
EOF
;;
esac
"#
        ),
        "goose" => format!(
            "{}{}",
            hang(r#"echo "{\"type\":\"model_change\",\"model\":\"claude-sonnet-4-5\",\"mode\":\"auto\"}""#),
            r#"echo '{"type":"model_change","model":"claude-sonnet-4-5","mode":"auto"}'
case "$mode" in
success) cat <<EOF
{"type":"message","message":{"id":null,"role":"assistant","created":1767323046,"content":[{"type":"toolRequest","id":"toolu_1","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"write","path":"$PWD/$f","file_text":"$word"}}}}],"metadata":{"userVisible":true,"agentVisible":true}}}
{"type":"message","message":{"id":null,"role":"user","created":1767323046,"content":[{"type":"toolResponse","id":"toolu_1","toolResult":{"status":"success","value":[{"type":"text","text":"Successfully wrote to $PWD/$f"}]}}],"metadata":{"userVisible":true,"agentVisible":true}}}
{"type":"message","message":{"id":"msg_1","role":"assistant","created":1767323047,"content":[{"type":"text","text":"$say"}],"metadata":{"userVisible":true,"agentVisible":true}}}
{"type":"complete","total_tokens":2345}
EOF
;;
error) cat <<EOF
{"type":"error","error":"Request failed: Authentication failed. Status: 401 Unauthorized"}
{"type":"complete","total_tokens":null}
EOF
;;
turns) cat <<EOF
{"type":"message","message":{"id":"msg_9","role":"assistant","created":1767323049,"content":[{"type":"text","text":"I've reached the maximum number of actions I can do without user input. Would you like me to continue?"}],"metadata":{"userVisible":true,"agentVisible":true}}}
{"type":"complete","total_tokens":9876}
EOF
;;
esac
"#
        ),
        "qwen" => format!(
            "{}{}",
            hang(
                r#"echo "{\"type\":\"system\",\"subtype\":\"init\",\"uuid\":\"u-0\",\"session_id\":\"$sid\",\"cwd\":\"$PWD\",\"model\":\"qwen3-coder-plus\",\"permission_mode\":\"auto-edit\",\"qwen_code_version\":\"0.1.4\"}""#
            ),
            r#"cat <<EOF
{"type":"system","subtype":"init","uuid":"u-0","session_id":"$sid","cwd":"$PWD","tools":["read_file","write_file","edit","run_shell_command"],"model":"qwen3-coder-plus","permission_mode":"auto-edit","qwen_code_version":"0.1.4"}
EOF
case "$mode" in
success) cat <<EOF
{"type":"assistant","uuid":"u-1","session_id":"$sid","message":{"id":"m-1","type":"message","role":"assistant","model":"qwen3-coder-plus","content":[{"type":"tool_use","id":"call_1","name":"write_file","input":{"file_path":"$PWD/$f","content":"$word"}}],"usage":{"input_tokens":80,"output_tokens":20}},"parent_tool_use_id":null}
{"type":"user","uuid":"u-2","session_id":"$sid","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"Successfully created and wrote to new file"}]},"parent_tool_use_id":null}
{"type":"assistant","uuid":"u-3","session_id":"$sid","message":{"id":"m-2","type":"message","role":"assistant","model":"qwen3-coder-plus","content":[{"type":"text","text":"$say"}],"usage":{"input_tokens":70,"output_tokens":10}},"parent_tool_use_id":null}
{"type":"result","subtype":"success","uuid":"u-4","session_id":"$sid","is_error":false,"duration_ms":2100,"duration_api_ms":1900,"num_turns":2,"result":"$say","usage":{"input_tokens":150,"output_tokens":30,"cache_read_input_tokens":50,"total_tokens":230},"permission_denials":[]}
EOF
;;
error) cat <<EOF
{"type":"result","subtype":"error_during_execution","uuid":"u-4","session_id":"$sid","is_error":true,"duration_ms":300,"duration_api_ms":200,"num_turns":1,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"error":{"type":"Error","message":"401 Incorrect API key provided."}}
EOF
;;
turns) cat <<EOF
{"type":"result","subtype":"error_max_turns","uuid":"u-4","session_id":"$sid","is_error":true,"duration_ms":9000,"duration_api_ms":8000,"num_turns":10,"usage":{"input_tokens":900,"output_tokens":100},"permission_denials":[],"error":{"message":"Reached max session turns for this session."}}
EOF
;;
esac
"#
        ),
        "amp" => format!(
            "{}{}",
            hang(
                r#"echo "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"$PWD\",\"session_id\":\"$sid\",\"tools\":[\"Read\",\"edit_file\",\"create_file\",\"Bash\"],\"mcp_servers\":[]}""#
            ),
            r#"cat <<EOF
{"type":"system","subtype":"init","cwd":"$PWD","session_id":"$sid","tools":["Read","edit_file","create_file","Bash"],"mcp_servers":[]}
EOF
case "$mode" in
success) cat <<EOF
{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"create_file","input":{"path":"$PWD/$f","content":"$word"}}],"stop_reason":"tool_use","usage":{"input_tokens":90,"output_tokens":15,"cache_read_input_tokens":30}},"parent_tool_use_id":null,"session_id":"$sid"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Created $f"}]},"parent_tool_use_id":null,"session_id":"$sid"}
{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"$say"}],"stop_reason":"end_turn","usage":{"input_tokens":40,"output_tokens":10}},"parent_tool_use_id":null,"session_id":"$sid"}
{"type":"result","subtype":"success","duration_ms":2100,"is_error":false,"num_turns":2,"result":"$say","session_id":"$sid"}
EOF
;;
error) cat <<EOF
{"type":"result","subtype":"error_during_execution","duration_ms":300,"is_error":true,"num_turns":0,"error":"Insufficient credits: add credits at ampcode.com/settings","session_id":"$sid"}
EOF
;;
esac
"#
        ),
        other => panic!("no stub for {other}"),
    }
}
