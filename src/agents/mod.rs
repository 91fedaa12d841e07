//! The coding-agent CLIs people run, driven headless: one adapter per agent
//! behind one trait ([`Adapter`]), and one way to run any of them
//! ([`launch::run`]). Both products use it: git-ultraplan's agent executors
//! make a step's changes with it, git-historian's `clean --agent` asks an
//! agent for a grouping. (A shared room, not a part of `ultraplan::exec`:
//! the two products may not import each other.)
//!
//! An adapter knows its agent's headless invocation — how the prompt is
//! passed, the least permissive flag that lets it edit a worktree without
//! asking, how a session is resumed — and reads its machine output into a
//! [`Report`]: final text, session id, model, turns, tokens, cost, its own
//! error text, a turn or budget limit, and whether the final event came.
//! What the agent reports is recorded, never trusted: [`launch`] judges the
//! run from the report *and* the process (an exit 0 with an error result,
//! no result at all, or a stream cut short all fail).
//!
//! Each adapter's module doc names the version of the format it reads.
//! What this room must never do: touch git, print, or decide anything for
//! the products (whether a step passed is ultraplan's Verify's to say).

mod agent_report;
mod aider;
mod amp;
mod claude;
mod codex;
mod cursor;
mod gemini;
mod goose;
pub mod launch;
mod opencode;
mod qwen;
mod stream_json;

use std::path::PathBuf;

pub use agent_report::{Activity, Limit, Report, Tokens};
pub use launch::{run, Launched, Settings};

/// The agents with a built-in adapter, in the order they are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
    Opencode,
    Cursor,
    Aider,
    Goose,
    Qwen,
    Amp,
}

impl Agent {
    pub const ALL: [Agent; 9] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Opencode,
        Agent::Cursor,
        Agent::Aider,
        Agent::Goose,
        Agent::Qwen,
        Agent::Amp,
    ];

    /// The agent named `name` (`codex`), if it has an adapter.
    pub fn named(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Its name as an executor and in configuration keys.
    pub fn name(self) -> &'static str {
        self.adapter().name()
    }

    pub fn adapter(self) -> &'static dyn Adapter {
        match self {
            Agent::Claude => &claude::Claude,
            Agent::Codex => &codex::Codex,
            Agent::Gemini => &gemini::Gemini,
            Agent::Opencode => &opencode::Opencode,
            Agent::Cursor => &cursor::Cursor,
            Agent::Aider => &aider::Aider,
            Agent::Goose => &goose::Goose,
            Agent::Qwen => &qwen::Qwen,
            Agent::Amp => &amp::Amp,
        }
    }
}

/// What one launch of an agent is asked to do.
pub struct Call<'a> {
    /// The whole task (or, when resuming, what to do next).
    pub prompt: &'a str,
    /// The agent's session to continue, when it can.
    pub resume: Option<&'a str>,
    /// A name this launch may give a new session (agents whose sessions
    /// are named by the caller: goose, aider).
    pub session_name: &'a str,
    /// Where the agent works.
    pub workdir: &'a std::path::Path,
    /// A directory outside the worktree for files the launch needs (a
    /// prompt file, a chat history); it exists.
    pub scratch: PathBuf,
    /// Edit files (an executor), or only answer (the historian's question).
    pub access: Access,
}

/// What the agent may do in its directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Edit files without asking: the least permissive mode that lets it
    /// work headless.
    Edit,
    /// Read and answer; change nothing.
    ReadOnly,
}

/// The command line of one launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Invocation {
    /// Arguments after the program, before the user's own.
    pub args: Vec<String>,
    /// Arguments after the user's own (a prompt given as the last word).
    pub trailing: Vec<String>,
    /// What goes to its standard input (the prompt, for most).
    pub stdin: Option<String>,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// The session this launch creates or continues, when the caller names
    /// it (goose, aider) rather than the agent reporting one.
    pub session: Option<String>,
}

/// One agent CLI. Adapters are small: the invocation, the flags, the
/// documented exit codes, and a [`StreamParser`] for the machine output.
pub trait Adapter: Sync {
    /// The executor name (`codex`).
    fn name(&self) -> &'static str;
    /// What people call it (`Codex CLI`).
    fn title(&self) -> &'static str;
    /// Program names tried on PATH, in order.
    fn programs(&self) -> &'static [&'static str];
    /// The version of the machine output this adapter reads (a release
    /// tag, or the source commit it was read from).
    fn format_version(&self) -> &'static str;
    /// The flags this adapter passes on its own (for `agents`).
    fn flags(&self) -> &'static str;
    /// How the prompt reaches the agent (for `agents` and messages).
    fn prompt_passing(&self) -> &'static str;
    /// Environment variables holding credentials it reads (names only).
    fn credentials(&self) -> &'static [&'static str];
    /// The subset whose presence means pay-per-token API billing.
    fn billing_variables(&self) -> &'static [&'static str];
    /// What billing applies when none of those is set.
    fn billing_note(&self) -> &'static str;
    /// Flags the user's own arguments may give that replace this adapter's
    /// permission flag (a user choosing another mode).
    fn permission_flags(&self) -> &'static [&'static str];
    /// Whether a session can be continued (`--resume <id>` and the like).
    fn resumes(&self) -> bool;
    /// The command line for `call`. `Err` names why it cannot be made (a
    /// prompt too long for an argument).
    fn invocation(&self, call: &Call<'_>, permission: bool) -> Result<Invocation, String>;
    /// What a documented exit code means, with what to do.
    fn exit_meaning(&self, _code: i32) -> Option<&'static str> {
        None
    }
    /// A fresh reader of its machine output.
    fn parser(&self) -> Box<dyn StreamParser>;
}

/// Reads an agent's stdout line by line as it arrives.
pub trait StreamParser: Send {
    /// One line; what the agent is doing now, when the line says.
    fn line(&mut self, line: &str) -> Option<Activity>;
    /// Everything read; `stderr` for agents that report on it.
    fn finish(self: Box<Self>, stderr: &str) -> Report;
}

/// The `-p` text of Gemini CLI and Qwen Code: the task itself comes on
/// standard input, and `-p` is appended to it.
const STDIN_INSTRUCTION: &str = "Carry out the task given above on standard input. Follow its rules exactly.";

/// Gemini CLI's exit codes (kept by its fork, Qwen Code).
fn gemini_exit_meaning(code: i32) -> Option<&'static str> {
    Some(match code {
        41 => "not signed in (run the agent once on a terminal to sign in, or set its API key)",
        42 => "it refused its input (the prompt or the arguments in ultraplan.<agent>.args)",
        44 => "its sandbox could not start",
        52 => "its configuration is invalid (check its settings.json)",
        53 => "it reached its session turn limit (maxSessionTurns in its settings)",
        54 => "a tool failed fatally",
        55 => {
            "it does not trust this folder (trust it once on a terminal, or add --skip-trust to ultraplan.<agent>.args)"
        }
        130 => "it was cancelled",
        _ => return None,
    })
}

/// Linux's limit on one argument (`MAX_ARG_STRLEN`, 128 KiB): a prompt
/// passed as an argument must be shorter.
pub const LONGEST_ARGUMENT: usize = 128 * 1024 - 1;

/// The prompt as one argument, or why it cannot be.
fn prompt_argument(agent: &str, prompt: &str) -> Result<String, String> {
    if prompt.len() > LONGEST_ARGUMENT {
        return Err(format!(
            "the prompt is {} bytes; {agent} takes it as one command-line argument, which Linux limits to 128 KiB",
            prompt.len()
        ));
    }
    Ok(prompt.to_owned())
}

/// The text of a JSON value at `keys`, if it is a string.
fn text(value: &serde_json::Value, keys: &[&str]) -> Option<String> {
    let mut v = value;
    for k in keys {
        v = v.get(*k)?;
    }
    v.as_str().map(str::to_owned)
}

/// The number at `keys`, if any.
fn number(value: &serde_json::Value, keys: &[&str]) -> Option<u64> {
    let mut v = value;
    for k in keys {
        v = v.get(*k)?;
    }
    v.as_u64()
        .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
}

/// A JSON object on one line, or nothing.
fn json_line(line: &str) -> Option<serde_json::Value> {
    let t = line.trim();
    if !t.starts_with('{') {
        return None;
    }
    serde_json::from_str::<serde_json::Value>(t)
        .ok()
        .filter(|v| v.is_object())
}

/// The file or command a tool call's input names, for the live line.
fn tool_target(input: &serde_json::Value) -> Option<String> {
    [
        "file_path",
        "filePath",
        "absolute_path",
        "path",
        "command",
        "cmd",
        "pattern",
        "url",
    ]
    .iter()
    .find_map(|k| match input.get(*k) {
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(serde_json::Value::Array(a)) => Some(a.iter().filter_map(|x| x.as_str()).collect::<Vec<_>>().join(" ")),
        _ => None,
    })
    .filter(|s| !s.is_empty())
}
