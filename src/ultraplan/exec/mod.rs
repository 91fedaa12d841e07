//! Executors (DESIGN §5): what makes a step's changes. An executor never
//! commits, never verifies for ultraplan and never touches git state; what it
//! says about its work is recorded and cross-checked, never trusted.
//!
//! * `shell` (default) runs the Changes field's fenced `sh`/`bash`/`shell`
//!   blocks and applies its `diff`/`patch` blocks;
//! * an agent's name (`claude`, `codex`, `gemini`, `opencode`, `cursor`,
//!   `aider`, `goose`, `qwen`, `amp`) runs that coding-agent CLI headless
//!   through its adapter ([`crate::agents`]);
//! * `manual` prints what the step asks for and stops for a person;
//! * anything else is a command speaking the command protocol.

mod agent;
mod claims;
mod command;
mod manual;
mod prompt;
mod shell;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agents::{self, Agent};
use crate::process;
use crate::ultraplan::plan::{Plan, Step};

pub use crate::agents::{Settings as AgentSettings, Tokens};
use claims::apply_claims;
pub use claims::last_yaml_document;
pub use shell::NOTHING_TO_RUN;

/// Which executor runs the steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Executor {
    Shell,
    /// A coding-agent CLI with a built-in adapter.
    Agent(Agent),
    Manual,
    /// A command line run with `sh -c` in the worktree root.
    Command(String),
}

impl Executor {
    pub fn parse(name: &str) -> Executor {
        match name.trim() {
            "" | "shell" => Executor::Shell,
            "manual" => Executor::Manual,
            other => match Agent::named(other) {
                Some(agent) => Executor::Agent(agent),
                None => Executor::Command(other.to_owned()),
            },
        }
    }

    /// The name recorded as `executor_id`.
    pub fn id(&self) -> String {
        match self {
            Executor::Shell => "shell".into(),
            Executor::Agent(agent) => agent.name().into(),
            Executor::Manual => "manual".into(),
            Executor::Command(cmd) => format!("command: {cmd}"),
        }
    }

    /// The agent it runs, if it is an agent executor.
    pub fn agent(&self) -> Option<Agent> {
        match self {
            Executor::Agent(agent) => Some(*agent),
            _ => None,
        }
    }

    /// The program a command executor names that is nowhere to be found
    /// (`--executor claud`): not on `PATH`, nor a path from `workdir`, where
    /// the command runs. `None` for the built-in executors, for a program
    /// found, and for a command line it cannot read for sure (shell syntax,
    /// a builtin, a variable).
    pub fn missing_program(&self, workdir: &Path) -> Option<String> {
        let Executor::Command(line) = self else {
            return None;
        };
        // The first word after any `NAME=value` assignments.
        let word = line
            .split_whitespace()
            .find(|w| !w.contains('=') || w.starts_with('='))?;
        let plain = word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+'));
        if !plain || SHELL_BUILTINS.contains(&word) {
            return None;
        }
        let found = if word.contains('/') {
            workdir.join(word).exists()
        } else {
            which::which(word).is_ok()
        };
        (!found).then(|| word.to_owned())
    }

    /// Fatal, with a hint, when [`Executor::missing_program`] finds one, or
    /// an agent executor's CLI is not installed.
    pub fn ensure_found(&self, workdir: &Path, settings: &AgentSettings) -> anyhow::Result<()> {
        if let Executor::Agent(agent) = self {
            return match agents::launch::program(*agent, settings) {
                Ok(_) => Ok(()),
                Err(why) => Err(crate::error::FatalWithHint {
                    message: why,
                    hint: "see which agents are installed with 'git ultraplan agents'".into(),
                }
                .into()),
            };
        }
        match (self, self.missing_program(workdir)) {
            (Executor::Command(line), Some(program)) => Err(crate::error::FatalWithHint {
                message: format!("executor '{line}': no program '{program}' found"),
                hint: format!(
                    "the built-in executors are shell, manual and the agents {}; any other executor is a command line run with 'sh -c' in the worktree",
                    Agent::ALL.map(|a| a.name()).join(", ")
                ),
            }
            .into()),
            _ => Ok(()),
        }
    }
}

/// Words `sh` runs itself, found on no `PATH`.
const SHELL_BUILTINS: &[&str] = &[
    ".", "cd", "command", "eval", "exec", "exit", "export", "read", "set", "trap", "umask", "unset", "wait",
];

/// What the executor says it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    Success,
    Failure,
    Blocked,
    /// A person has to do the work (the manual executor).
    Waiting,
}

impl Claim {
    pub fn as_str(self) -> &'static str {
        match self {
            Claim::Success => "success",
            Claim::Failure => "failure",
            Claim::Blocked => "blocked",
            Claim::Waiting => "waiting",
        }
    }
}

/// What an agent executor reported about itself, besides cost and tokens.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentClaims {
    pub model: Option<String>,
    /// Its session, to continue on a retry.
    pub session_id: Option<String>,
    pub turns: Option<u32>,
    /// This attempt continued the previous attempt's session.
    pub resumed: bool,
}

/// What came back from an executor.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub claim: Claim,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub interrupted: bool,
    /// Everything it printed, capped (not yet redacted).
    pub transcript: String,
    pub duration: Duration,
    /// The result YAML it wrote or printed, if any.
    pub result_yaml: Option<String>,
    pub evidence: Option<String>,
    pub error: Option<String>,
    pub cost_usd: Option<f64>,
    pub tokens: Option<Tokens>,
    /// An agent executor's model, session and turns.
    pub agent: Option<AgentClaims>,
    /// What a person is asked to do (the manual executor).
    pub instructions: Option<String>,
}

impl Outcome {
    /// No executor ran: a person's work in the worktree is being verified.
    pub fn verified_in_place() -> Outcome {
        let mut outcome = Outcome::new(Claim::Success);
        outcome.evidence = Some("verified the worktree as a person left it".into());
        outcome
    }

    /// What one finished process says by itself: success or failure by its
    /// exit, with its exit code, time and how it ended.
    fn from_finished(finished: &process::Finished) -> Outcome {
        let mut outcome = Outcome::new(if finished.ending.success() {
            Claim::Success
        } else {
            Claim::Failure
        });
        outcome.exit_code = Some(finished.ending.code());
        outcome.timed_out = finished.ending == process::Ending::TimedOut;
        outcome.interrupted = finished.ending == process::Ending::Interrupted;
        outcome.duration = finished.duration;
        outcome
    }

    fn new(claim: Claim) -> Outcome {
        Outcome {
            claim,
            exit_code: None,
            timed_out: false,
            interrupted: false,
            transcript: String::new(),
            duration: Duration::ZERO,
            result_yaml: None,
            evidence: None,
            error: None,
            cost_usd: None,
            tokens: None,
            agent: None,
            instructions: None,
        }
    }
}

/// Everything an executor is told about the attempt.
pub struct Request<'a> {
    pub plan: &'a Plan,
    pub plan_path: &'a str,
    pub step: &'a Step,
    pub attempt: u32,
    pub max_attempts: u32,
    pub feedback: Option<String>,
    pub touch: Vec<String>,
    pub never_touch: Vec<String>,
    pub session: Option<u32>,
    /// The agent session of the previous attempt, to continue.
    pub resume: Option<String>,
}

/// Where and how long an executor may run.
pub struct Context<'a> {
    pub workdir: &'a Path,
    pub timeout: Duration,
    pub cap: usize,
    /// Where the executor may write its result YAML (outside the worktree).
    pub result_file: PathBuf,
    /// How to find and call the agent of an agent executor.
    pub agent: &'a AgentSettings,
}

impl Request<'_> {
    /// The JSON object on the executor's stdin (DESIGN §5.1).
    pub fn json(&self) -> serde_json::Value {
        let step = self.step;
        serde_json::json!({
            "plan": self.plan_path,
            "plan_id": self.plan.plan_id,
            "task_name": step.task_name(),
            "step": {
                "number": step.number,
                "title": step.title,
                "files": step.files.iter().map(|f| &f.path).collect::<Vec<_>>(),
                "changes": step.changes,
                "reuses": step.reuses,
                "test_first": step.test_first,
                "verify": step.verify.as_ref().map(|v| serde_json::json!({"command": v.command, "expected": v.expected})),
                "on_failure": {"action": step.on_failure.action, "instructions": step.on_failure.instructions},
                "checkpoint": step.checkpoint,
                "done": step.done,
                "context": step.context.iter().chain(&self.plan.context).collect::<Vec<_>>(),
                "fails_when": step.fails_when,
            },
            "attempt": self.attempt,
            "max_attempts": self.max_attempts,
            "feedback": self.feedback,
            "scope": {"touch": self.touch, "never_touch": self.never_touch},
            "session": self.session,
        })
    }

    /// The environment variables of the command protocol.
    pub fn env(&self, ctx: &Context<'_>) -> Vec<(String, String)> {
        vec![
            ("ULTRAPLAN_PLAN".into(), self.plan_path.into()),
            ("ULTRAPLAN_STEP".into(), self.step.number.to_string()),
            ("ULTRAPLAN_TASK_NAME".into(), self.step.task_name()),
            ("ULTRAPLAN_ATTEMPT".into(), self.attempt.to_string()),
            ("ULTRAPLAN_RESULT_FILE".into(), ctx.result_file.display().to_string()),
            ("ULTRAPLAN_WORKTREE".into(), ctx.workdir.display().to_string()),
        ]
    }
}

/// Runs one attempt of `request` with `executor`; an agent executor tells
/// `on_activity` what the agent does as it goes.
pub fn run(
    executor: &Executor,
    request: &Request<'_>,
    ctx: &Context<'_>,
    on_activity: &mut dyn FnMut(&str),
) -> anyhow::Result<Outcome> {
    let _ = std::fs::remove_file(&ctx.result_file);
    let mut outcome = match executor {
        Executor::Shell => shell::run(request, ctx)?,
        Executor::Agent(agent) => agent::run(*agent, request, ctx, on_activity)?,
        Executor::Manual => manual::run(request),
        Executor::Command(command) => command::run(command, request, ctx)?,
    };
    // What the adapter judged a failure (an error result, a cut stream, a
    // hang) stays one, whatever result the agent wrote.
    let judged = (executor.agent().is_some() && outcome.claim == Claim::Failure).then(|| outcome.error.clone());
    if outcome.result_yaml.is_none() {
        outcome.result_yaml = std::fs::read_to_string(&ctx.result_file)
            .ok()
            .filter(|t| !t.trim().is_empty());
    }
    if let Some(yaml) = &mut outcome.result_yaml {
        // A byte-order mark (Windows editors write one) is not part of the YAML.
        if let Some(rest) = yaml.strip_prefix('\u{feff}') {
            *yaml = rest.to_owned();
        }
    }
    if let Some(yaml) = outcome.result_yaml.clone() {
        apply_claims(&mut outcome, &yaml);
    }
    if let Some(error) = judged {
        outcome.claim = Claim::Failure;
        outcome.error = error;
    }
    let _ = std::fs::remove_file(&ctx.result_file);
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_from_stdout() {
        let fenced = "working...\n```yaml\nstatus: failure\n```\nmore\n```yaml\nstatus: success\nerror: null\n```\n";
        assert_eq!(last_yaml_document(fenced).unwrap(), "status: success\nerror: null");
        let docs = "log line\n---\nstatus: failure\n---\nstatus: success\nevidence: done\n";
        assert_eq!(last_yaml_document(docs).unwrap(), "status: success\nevidence: done");
        assert_eq!(last_yaml_document("no yaml here\n"), None);
        assert_eq!(last_yaml_document("---\njust: text\n"), None);
    }

    #[test]
    fn executor_names() {
        assert_eq!(Executor::parse("shell"), Executor::Shell);
        assert_eq!(Executor::parse("claude"), Executor::Agent(Agent::Claude));
        assert_eq!(Executor::parse("codex"), Executor::Agent(Agent::Codex));
        assert_eq!(Executor::parse("amp").id(), "amp");
        assert_eq!(
            Executor::parse("./agent.sh --fast"),
            Executor::Command("./agent.sh --fast".into())
        );
        assert_eq!(
            Executor::parse("aider --yes"),
            Executor::Command("aider --yes".into()),
            "an agent with arguments is a command line"
        );
    }
}
