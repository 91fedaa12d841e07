//! Every configuration key the programs read, in one place, with its default
//! and the text the man pages print under CONFIGURATION. Keys are named
//! `section.camelCase` as git's own guidelines ask; a command-line option
//! always beats the key.

/// Which program reads a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    Ultraplan,
    Historian,
    Both,
}

/// A configuration key as documented.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub name: &'static str,
    /// The subcommands that read it (`[]` means every command of the program).
    pub commands: &'static [&'static str],
    pub default: &'static str,
    pub doc: &'static str,
    pub program: Program,
}

pub const COLOR_UI: Key = Key {
    name: "color.ui",
    commands: &[],
    default: "auto",
    doc: "Git's color switch: always, never, auto (true means auto). Used when no program-specific key is set.",
    program: Program::Both,
};

pub const COLOR_ULTRAPLAN: Key = Key {
    name: "color.ultraplan",
    commands: &[],
    default: "(color.ui)",
    doc: "Color for git-ultraplan's output: always, never or auto. Beats color.ui; --color beats both.",
    program: Program::Ultraplan,
};

pub const COLOR_HISTORIAN: Key = Key {
    name: "color.historian",
    commands: &[],
    default: "(color.ui)",
    doc: "Color for git-historian's output: always, never or auto. Beats color.ui; --color beats both.",
    program: Program::Historian,
};

macro_rules! ultraplan_key {
    ($const:ident, $name:literal, [$($cmd:literal),*], $default:literal, $doc:literal) => {
        pub const $const: Key = Key {
            name: $name,
            commands: &[$($cmd),*],
            default: $default,
            doc: $doc,
            program: Program::Ultraplan,
        };
    };
}

ultraplan_key!(EXECUTOR, "ultraplan.executor", ["run", "check", "work"], "shell",
    "The executor that makes each step's changes: shell, manual, an agent (claude, codex, gemini, opencode, cursor, aider, goose, qwen, amp), or a command line speaking the command protocol. --executor beats it.");
ultraplan_key!(
    MAX_ATTEMPTS,
    "ultraplan.maxAttempts",
    ["run", "work"],
    "3",
    "Attempts per step before its failure policy gives up. --max-attempts beats it."
);
ultraplan_key!(
    EXECUTOR_TIMEOUT,
    "ultraplan.executorTimeout",
    ["run"],
    "30m",
    "How long one executor attempt may run (seconds, or with s, m or h); its whole process group is killed after that."
);
ultraplan_key!(
    VERIFY_TIMEOUT,
    "ultraplan.verifyTimeout",
    ["run"],
    "10m",
    "How long a Verify command (and a Checkpoint command or condition) may run."
);
ultraplan_key!(
    LOCK_TIMEOUT,
    "ultraplan.lockTimeout",
    ["run", "clean", "status", "sync", "hook", "work"],
    "10m",
    "A lock whose heartbeat is older than this is stale and is taken over; so is a worker's claim on a distributed session."
);
ultraplan_key!(
    TRANSCRIPT_CAP,
    "ultraplan.transcriptCap",
    ["run"],
    "1m",
    "Bytes of executor and verify output kept per stream (head and tail), with k, m or g suffixes."
);
ultraplan_key!(
    SNAPSHOT_IGNORED_MAX,
    "ultraplan.snapshotIgnoredMax",
    ["run"],
    "16m",
    "Bytes of ignored files (.env, local databases) a step's snapshot keeps so a restore can put them back, smallest first, at most 1000 files; k, m or g suffixes; 0 keeps none. Directories ignored as a whole (node_modules/, target/) are never looked into. A change to an ignored file that was not kept is named in a warning."
);
ultraplan_key!(
    STATE_FILE,
    "ultraplan.stateFile",
    ["run"],
    "(unset)",
    "A STATE.md to keep current: at the end of a run that is not a session, its ## Performance Metrics section is rewritten from the recorded runs and committed alone as 'chore: update <path> metrics'."
);
ultraplan_key!(ALLOW_API_BILLING, "ultraplan.allowApiBilling", ["run", "work"], "false",
    "Run an agent executor without asking when an API key that bills per token is set for it (ANTHROPIC_API_KEY for claude, OPENAI_API_KEY for codex, …; git ultraplan agents lists them).");
ultraplan_key!(
    AGENT_PATH,
    "ultraplan.<agent>.path",
    ["run", "work", "agents"],
    "(the agent's program on PATH)",
    "The program of an agent executor (ultraplan.codex.path, ultraplan.cursor.path, …), used by git historian clean --agent too. For claude, ultraplan.claudePath still works; ultraplan.claude.path beats it."
);
ultraplan_key!(
    AGENT_ARGS,
    "ultraplan.<agent>.args",
    ["run", "work"],
    "(none)",
    "Extra arguments for an agent executor, after the adapter's own (shell quoting; no operators). A permission flag given here (--permission-mode, --sandbox, --approval-mode, --force, …) replaces the adapter's least permissive one. For claude, ultraplan.claudeArgs still works; ultraplan.claude.args beats it."
);
ultraplan_key!(
    CLAUDE_PATH,
    "ultraplan.claudePath",
    ["run", "work"],
    "(claude on PATH)",
    "The Claude Code CLI used by the claude executor (ultraplan.claude.path beats it)."
);
ultraplan_key!(
    CLAUDE_ARGS,
    "ultraplan.claudeArgs",
    ["run", "work"],
    "(none)",
    "Extra arguments for the claude executor (ultraplan.claude.args beats it)."
);

ultraplan_key!(
    JOBS,
    "ultraplan.jobs",
    ["run"],
    "(all sessions of a wave)",
    "How many sessions of a wave run at once. --jobs beats it."
);
ultraplan_key!(
    WORKTREE_DIR,
    "ultraplan.worktreeDir",
    ["run", "clean"],
    "<git-common-dir>/ultraplan/worktrees",
    "Where session worktrees are created (relative to the top of the worktree, or absolute)."
);
ultraplan_key!(
    WORKTREE_INCLUDE,
    "ultraplan.worktreeInclude",
    ["run"],
    "(none)",
    "Files to copy into each session worktree, such as .env (patterns; repeat the key or separate with spaces)."
);
ultraplan_key!(
    WORKTREE_SETUP,
    "ultraplan.worktreeSetup",
    ["run"],
    "(none)",
    "A command run with sh -c in each new session worktree before its session starts (npm ci, …)."
);
ultraplan_key!(
    PRE_PUSH,
    "ultraplan.prePush",
    ["hook"],
    "strict",
    "What the pre-push gate does with a checkpoint whose result is invalid, unreadable or not a success: strict refuses the push (exit 1), warn only says so, off looks at nothing."
);

macro_rules! historian_key {
    ($const:ident, $name:literal, [$($cmd:literal),*], $default:literal, $doc:literal) => {
        pub const $const: Key = Key {
            name: $name,
            commands: &[$($cmd),*],
            default: $default,
            doc: $doc,
            program: Program::Historian,
        };
    };
}

historian_key!(
    HISTORIAN_BASE,
    "historian.base",
    ["clean", "plan"],
    "(merge base with origin/HEAD, origin/main, origin/master, main or master)",
    "The revision the clean branch starts from (its merge base with the branch). --base beats it."
);
historian_key!(
    HISTORIAN_MAX_FILES,
    "historian.maxFiles",
    ["clean", "plan"],
    "15",
    "A planned commit with more files stops with a QUESTION offering splits. --max-files beats it."
);
historian_key!(HISTORIAN_MAX_LINES, "historian.maxLines", ["clean", "plan"], "500",
    "A planned commit with more changed lines (added plus removed) stops with a QUESTION offering splits. --max-lines beats it.");
historian_key!(HISTORIAN_COMMIT_WRITER, "historian.commitWriter", ["clean", "resume"], "(none: historian writes the messages)",
    "A command (run with sh -c) that writes each commit's message, speaking the RESULT protocol: JSON about the commit on stdin, RESULT: SUCCESS with a Message: field, ERROR or QUESTION on stdout.");
historian_key!(
    HISTORIAN_COMMIT_WRITER_TIMEOUT,
    "historian.commitWriterTimeout",
    ["clean", "resume"],
    "10m",
    "How long the commit writer may run for one commit (seconds, or with s, m or h)."
);
historian_key!(
    HISTORIAN_AGENT_TIMEOUT,
    "historian.agentTimeout",
    ["clean"],
    "10m",
    "How long the agent of clean --agent may take to propose a grouping; its whole process group is killed after that and the deterministic plan is built."
);
historian_key!(
    HISTORIAN_VERIFY_TIMEOUT,
    "historian.verifyTimeout",
    ["clean", "resume"],
    "10m",
    "How long the --verify-each command may run on one commit."
);

ultraplan_key!(
    OUTCOMES,
    "ultraplan.outcomes",
    ["run"],
    "runs",
    "Which outcomes a finished run records in refs/ultraplan-outcomes: runs (the run and each session), steps (also each step), or off."
);
ultraplan_key!(
    OUTCOMES_AUTO_EXTRACT,
    "ultraplan.outcomes.autoExtract",
    ["run", "outcome"],
    "true",
    "Extract a plan from each successful outcome when it is recorded. outcome log --no-extract beats it."
);
ultraplan_key!(
    OUTCOMES_EXTRACTOR,
    "ultraplan.outcomes.extractor",
    ["run", "outcome"],
    "(the rules)",
    "A command that extracts plans: the outcome as JSON on stdin, a JSON plan on stdout. Its plan must draw its tools from the execution path; on any failure the rules decide, with a warning."
);
ultraplan_key!(
    OUTCOMES_EXTRACTOR_TIMEOUT,
    "ultraplan.outcomes.extractorTimeout",
    ["run", "outcome"],
    "1m",
    "How long the extractor command may run before its process group is killed and the rules decide."
);

ultraplan_key!(
    HEARTBEAT,
    "ultraplan.heartbeat",
    ["work"],
    "30s",
    "How often a worker refreshes its claim on the session it runs (keep it well under ultraplan.lockTimeout)."
);
ultraplan_key!(
    POLL_INTERVAL,
    "ultraplan.pollInterval",
    ["run", "work"],
    "5s",
    "The longest pause between two looks at the remote while a distributed run waits for results, or a worker for a session (the first is 200ms, doubling)."
);

/// Every key, in the order the man pages list them.
pub const ALL: &[Key] = &[
    COLOR_UI,
    COLOR_ULTRAPLAN,
    COLOR_HISTORIAN,
    EXECUTOR,
    MAX_ATTEMPTS,
    EXECUTOR_TIMEOUT,
    VERIFY_TIMEOUT,
    LOCK_TIMEOUT,
    TRANSCRIPT_CAP,
    SNAPSHOT_IGNORED_MAX,
    STATE_FILE,
    ALLOW_API_BILLING,
    AGENT_PATH,
    AGENT_ARGS,
    CLAUDE_PATH,
    CLAUDE_ARGS,
    JOBS,
    WORKTREE_DIR,
    WORKTREE_INCLUDE,
    WORKTREE_SETUP,
    HEARTBEAT,
    POLL_INTERVAL,
    PRE_PUSH,
    HISTORIAN_BASE,
    HISTORIAN_MAX_FILES,
    HISTORIAN_MAX_LINES,
    HISTORIAN_COMMIT_WRITER,
    HISTORIAN_COMMIT_WRITER_TIMEOUT,
    HISTORIAN_AGENT_TIMEOUT,
    HISTORIAN_VERIFY_TIMEOUT,
    OUTCOMES,
    OUTCOMES_AUTO_EXTRACT,
    OUTCOMES_EXTRACTOR,
    OUTCOMES_EXTRACTOR_TIMEOUT,
];

/// Reads a duration: seconds, or a number with `s`, `m` or `h`.
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    let t = text.trim();
    let (number, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit() && *c != '.') {
        Some((i, _)) => (&t[..i], t[i..].trim()),
        None => (t, "s"),
    };
    let value: f64 = number.parse().ok()?;
    let seconds = match unit {
        "s" | "sec" | "secs" => value,
        "m" | "min" | "mins" => value * 60.0,
        "h" | "hour" | "hours" => value * 3600.0,
        "ms" => value / 1000.0,
        _ => return None,
    };
    (seconds.is_finite() && seconds >= 0.0).then(|| std::time::Duration::from_secs_f64(seconds))
}

/// A key read as a duration, or its default; a bad value is an error naming the key.
pub fn duration(config: &crate::git::GitConfig, key: &Key) -> anyhow::Result<std::time::Duration> {
    let text = config.string(key.name).unwrap_or_else(|| key.default.to_owned());
    parse_duration(&text).ok_or_else(|| anyhow::anyhow!("bad duration config value '{text}' for '{}'", key.name))
}

/// A key read as a git integer (`k`, `m`, `g` suffixes), or its default
/// from this table; a bad value is an error naming the key.
pub fn integer(config: &crate::git::GitConfig, key: &Key) -> anyhow::Result<i64> {
    match config.integer(key.name)? {
        Some(n) => Ok(n),
        None => default_integer(key),
    }
}

/// A key's default read as a duration (`600`, `10m`).
pub fn default_duration(key: &Key) -> anyhow::Result<std::time::Duration> {
    parse_duration(key.default).ok_or_else(|| anyhow::anyhow!("the default of '{}' is not a duration", key.name))
}

/// A key's default read as git reads an integer (`1m` is 1048576).
pub fn default_integer(key: &Key) -> anyhow::Result<i64> {
    parse_integer(key.default).ok_or_else(|| anyhow::anyhow!("the default of '{}' is not a number", key.name))
}

fn parse_integer(text: &str) -> Option<i64> {
    let t = text.trim();
    let (number, scale) = match t.char_indices().last()? {
        (i, 'k' | 'K') => (&t[..i], 1 << 10),
        (i, 'm' | 'M') => (&t[..i], 1 << 20),
        (i, 'g' | 'G') => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    number.parse::<i64>().ok()?.checked_mul(scale)
}

/// A key read as a git boolean, or its default from this table.
pub fn boolean(config: &crate::git::GitConfig, key: &Key) -> anyhow::Result<bool> {
    match config.boolean(key.name)? {
        Some(b) => Ok(b),
        None => match key.default {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(anyhow::anyhow!(
                "the default '{other}' of '{}' is not a boolean",
                key.name
            )),
        },
    }
}

/// A key read as text, or its default from this table (for keys whose
/// default is a value, not a description such as `(none)`).
pub fn string(config: &crate::git::GitConfig, key: &Key) -> String {
    config.string(key.name).unwrap_or_else(|| key.default.to_owned())
}

/// How to find and call `agent` (`ultraplan.<agent>.path`,
/// `ultraplan.<agent>.args`; for claude also the older
/// `ultraplan.claudePath` and `ultraplan.claudeArgs`), the arguments split
/// as `sh` splits a simple command (quoting, no operators). A value that
/// cannot be split is an error naming the key.
pub fn agent_settings(config: &crate::git::GitConfig, agent: &str) -> anyhow::Result<crate::agents::Settings> {
    let split = super::shell::shell_words;
    let legacy = |key: &Key| (agent == "claude").then(|| config.string(key.name)).flatten();
    let path_key = format!("ultraplan.{agent}.path");
    let args_key = format!("ultraplan.{agent}.args");
    let path = config.string(&path_key).or_else(|| legacy(&CLAUDE_PATH));
    let (args_name, args_text) = match config.string(&args_key) {
        Some(text) => (args_key, Some(text)),
        None => (CLAUDE_ARGS.name.to_owned(), legacy(&CLAUDE_ARGS)),
    };
    let args = match args_text {
        Some(text) => {
            split(&text).ok_or_else(|| anyhow::anyhow!("cannot split {args_name} '{text}' into arguments"))?
        }
        None => Vec::new(),
    };
    Ok(crate::agents::Settings {
        path: path.filter(|p| !p.trim().is_empty()),
        args,
    })
}

/// The keys `program` reads; with `command`, only those that command reads.
pub fn keys_for(program: Program, command: Option<&str>) -> impl Iterator<Item = &'static Key> + '_ {
    ALL.iter()
        .filter(move |k| k.program == program || k.program == Program::Both)
        .filter(move |k| match command {
            None => true,
            Some(c) => k.commands.is_empty() || k.commands.contains(&c),
        })
}

#[cfg(test)]
mod tests;
