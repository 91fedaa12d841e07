//! The one model every plan format is read into (DESIGN §4): a [`Plan`] of
//! [`Step`]s and [`Session`]s with their checks, policies and checkpoints.
//! This is ultraplan's plan — what a run executes — not the historian's
//! commit plan (`historian::plan`).

mod task_name;

pub use task_name::{task_number, TaskMatch};

use serde::Serialize;

use super::diagnostics::{Diagnostic, Severity};
use super::pattern;
use super::{CodeBlock, HumanCheck};

/// Which format a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanKind {
    /// An ultraplan: `## Implementation Plan` with `### Step N:` headings.
    Plan,
    /// One session of a master plan: `# Session N:`, `## Scope Fence`, `## Exit Condition`.
    SessionSpec,
    /// `<task>` elements in Markdown, as in the result capture protocol.
    TaskPlan,
    /// A GSD phase directory: its `*-PLAN.md` task plans as sessions.
    Phase,
    /// spec-kit's `specs/<NNN-feature>/tasks.md`: `- [ ] T001 [P] [US1] …`
    /// checklist lines in phases.
    #[serde(rename = "spec-kit")]
    SpecKit,
    /// Kiro's `.kiro/specs/<feature>/tasks.md`: numbered checkbox tasks
    /// with sub-tasks and `_Requirements:_`.
    Kiro,
    /// Taskmaster's `.taskmaster/tasks/tasks.json`, tagged or plain.
    Taskmaster,
    /// A BMAD story (`docs/stories/*.md`): Status, Acceptance Criteria,
    /// Tasks / Subtasks.
    #[serde(rename = "bmad-story")]
    BmadStory,
}

impl PlanKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PlanKind::Plan => "plan",
            PlanKind::SessionSpec => "session-spec",
            PlanKind::TaskPlan => "task-plan",
            PlanKind::Phase => "gsd-phase",
            PlanKind::SpecKit => "spec-kit",
            PlanKind::Kiro => "kiro",
            PlanKind::Taskmaster => "taskmaster",
            PlanKind::BmadStory => "bmad-story",
        }
    }
}

/// A parsed plan, whatever its format.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    #[serde(rename = "type")]
    pub kind: PlanKind,
    /// From front matter, a `NN-NN-PLAN.md` file name, or the file name's stem.
    pub plan_id: String,
    pub title: Option<String>,
    pub plan_version: Option<String>,
    /// Why the file was read as its format (what `check` says about it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format_reason: Option<String>,
    /// For formats without a Verify field: what checks the steps, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_note: Option<String>,
    pub steps: Vec<Step>,
    pub sessions: Vec<Session>,
    /// Session numbers per wave, in order (declared, or derived from dependencies).
    pub waves: Vec<Vec<u32>>,
    /// The plan's `## Verification` checks, run after everything merged.
    pub verification: Vec<Check>,
    /// Session-spec parts: dependencies, entry and exit conditions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_spec: Option<SessionSpec>,
    /// Files every step's executor should read first (a task plan's
    /// `<context>` `@file` lines).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<String>,
    /// Task-plan parts: the `<success_criteria>` checklist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success_criteria: Option<Vec<Criterion>>,
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
    /// `### Execution Order` as written, checked against the sessions' waves.
    #[serde(skip)]
    pub(crate) execution_order: Vec<super::ultraplan::WaveDecl>,
}

impl Plan {
    pub fn problems(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Problem)
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning)
    }

    pub fn step(&self, number: u32) -> Option<&Step> {
        // Most plans number their steps 1, 2, 3…: found at its place first,
        // so code asking for each step in turn stays linear.
        let at = (number as usize).wrapping_sub(1);
        match self.steps.get(at) {
            Some(s) if s.number == number => Some(s),
            _ => self.steps.iter().find(|s| s.number == number),
        }
    }

    pub fn session(&self, number: u32) -> Option<&Session> {
        let at = (number as usize).wrapping_sub(1);
        match self.sessions.get(at) {
            Some(s) if s.number == number => Some(s),
            _ => self.sessions.iter().find(|s| s.number == number),
        }
    }

    /// Whether `run` without a mode orchestrates sessions (an Execution
    /// Strategy with two or more sessions).
    pub fn is_multi_session(&self) -> bool {
        matches!(self.kind, PlanKind::Plan | PlanKind::Phase | PlanKind::SpecKit) && self.sessions.len() >= 2
    }

    pub(super) fn sorted_diagnostics(mut self) -> Self {
        self.diagnostics.sort_by_key(|d| (d.line, d.severity));
        self.diagnostics.dedup();
        self
    }
}

/// The languages of the Changes blocks the shell executor runs.
pub const SHELL_RUNNABLE: &[&str] = &["sh", "shell", "bash", "diff", "patch"];

/// One step (a task, for task plans).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Step {
    pub number: u32,
    pub title: String,
    #[serde(serialize_with = "serialize_paths")]
    pub files: Vec<FileRef>,
    /// What to do, as written (fenced blocks included).
    pub changes: String,
    /// The Changes field's fenced blocks, for the shell executor.
    #[serde(skip)]
    pub code_blocks: Vec<CodeBlock>,
    pub reuses: Option<String>,
    pub test_first: Option<TestFirst>,
    pub verify: Option<Verify>,
    pub on_failure: OnFailure,
    pub checkpoint: Option<Checkpoint>,
    pub manifest: Option<Manifest>,
    /// A task plan's `<done>` criteria.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub done: Option<String>,
    /// A task plan's `<task type="…">`; `checkpoint:*` types need a person.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// The exact `<name>` of a task; other steps are named `Task N: <title>`.
    #[serde(skip)]
    pub name: Option<String>,
    /// A check or decision for a person: a checkpoint task, or a Verify that
    /// is prose rather than a command.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub human: Option<HumanCheck>,
    /// Files the executor should read first (`<read_first>`, `<context>` `@file`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<String>,
    /// Criteria ultraplan cannot check itself (GSD `<acceptance_criteria>`
    /// that are not grep-verifiable, `must_haves.truths`): recorded in the
    /// result's evidence.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unchecked: Vec<String>,
    /// Where a phase directory's step comes from: its plan file's name and
    /// its own `Task N` number there (for the checkboxes, DESIGN §6.6).
    #[serde(skip)]
    pub origin: Option<(String, u32)>,
    /// What `<verify><fails_when>` says makes the step fail, recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fails_when: Option<String>,
    /// The task's own id in its format (`T012`, `2.1`, `3.2`, `Task 1`):
    /// how it is named in messages and found again in the file to tick it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_id: Option<String>,
    /// Why the step is skipped without running: done before the run
    /// (ticked, or `done` in Taskmaster), not wanted (`cancelled`,
    /// `deferred`), or optional under `--skip-optional`. Reported so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip: Option<String>,
    /// A Kiro `- [ ]*` task: run unless `--skip-optional`, which skips it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    /// Checked by a later step (a spec-kit phase's tests, a GSD phase's
    /// review by a person): without a Verify of its own the step passes on
    /// the executor's word, and the run cannot complete before step N passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified_by: Option<u32>,
    /// A step that only checks (a phase's tests, a person's review): no
    /// executor runs; its Verify, or the person, decides.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub check_only: bool,
    pub line: usize,
}

impl Step {
    /// `step N` in a message naming a line; for a step of a GSD phase also
    /// the plan file the line is in (`01-02-PLAN.md: step N`).
    pub fn label(&self) -> String {
        match &self.origin {
            Some((file, _)) => format!("{file}: step {}", self.number),
            None => format!("step {}", self.number),
        }
    }

    /// The Changes blocks the built-in shell executor runs (`sh`, `shell`,
    /// `bash`, `diff`, `patch`); others are examples.
    pub fn shell_blocks(&self) -> impl Iterator<Item = &CodeBlock> {
        self.code_blocks
            .iter()
            .filter(|b| SHELL_RUNNABLE.contains(&b.lang.as_str()))
    }

    /// Whether the shell executor has nothing to run for a step that asks
    /// for changes (it would stop `blocked`): Changes in prose only, not a
    /// step for a person.
    pub fn needs_more_than_shell(&self) -> bool {
        // A step skipped, or one that only checks, runs no executor.
        self.skip.is_none()
            && !self.check_only
            && !self.changes.trim().is_empty()
            && self.shell_blocks().next().is_none()
            && !self.human.as_ref().is_some_and(HumanCheck::replaces_executor)
    }

    /// The name a result's `task_name` must carry.
    pub fn task_name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("Task {}: {}", self.number, self.title))
    }
}

fn serialize_paths<S: serde::Serializer>(files: &[FileRef], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(files.iter().map(|f| &f.path))
}

/// A path a step may create or modify.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileRef {
    pub path: String,
    /// Marked as a file the step creates (`(new)`, or Changes says so).
    pub new: bool,
    pub line: usize,
}

/// The Test first field: one line, or nested `File:`/`Verifies:`/`Pattern:` items.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TestFirst {
    pub text: Option<String>,
    pub file: Option<String>,
    pub verifies: Option<String>,
    pub pattern: Option<String>,
}

/// A command ultraplan runs itself, and what its output must show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verify {
    pub command: String,
    pub expected: Option<String>,
    pub expected_kind: Option<ExpectedKind>,
}

/// How an `→ expected:` text is checked (DESIGN §6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExpectedKind {
    /// A backticked literal the output must contain.
    Literal,
    /// A backticked comparison such as `>= 1` applied to a numeric output.
    Comparison,
    /// Prose ("exit 0", "non-77 exit code"): the exit code decides.
    Prose,
}

/// A verification item of `## Verification` or an exit condition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Check {
    pub command: String,
    pub expected: Option<String>,
    pub expected_kind: Option<ExpectedKind>,
    pub line: usize,
}

/// What to do when a step fails (DESIGN §6.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FailurePolicy {
    Revert,
    Retry,
    Skip,
    #[default]
    Escalate,
}

impl FailurePolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            FailurePolicy::Revert => "revert",
            FailurePolicy::Retry => "retry",
            FailurePolicy::Skip => "skip",
            FailurePolicy::Escalate => "escalate",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OnFailure {
    pub action: FailurePolicy,
    pub instructions: Option<String>,
}

/// The step's Checkpoint: a commit ultraplan makes itself, or a command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Checkpoint {
    /// `git commit -m "<message>"`: ultraplan stages the allowed observed paths and commits.
    Commit { message: String },
    /// Anything else, run with `sh -c` as written.
    Command { command: String },
}

/// A step's optional Manifest audit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Manifest {
    pub expected_paths: Vec<String>,
    pub forbidden_paths: Vec<String>,
    pub must_contain: Vec<MustContain>,
    /// Patterns that must not match (a GSD criterion's "NOT 'b'").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub must_not_contain: Vec<MustContain>,
    pub min_file_count: Option<u64>,
    pub commit_message_pattern: Option<String>,
    pub bash_syntax_check: Vec<String>,
    /// GSD `must_haves.key_links`: connections between files that must exist.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub key_links: Vec<KeyLink>,
}

/// A GSD `key_links` entry: `from` must reach `to` — `pattern` (a regex)
/// found in `from` or `to`, else `to` named in `from`. `via` says how, for
/// the record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct KeyLink {
    pub from: String,
    pub to: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct MustContain {
    pub path: String,
    pub pattern: String,
}

/// A session of an Execution Strategy, or the one session a session spec is.
#[derive(Clone, Debug, Serialize)]
pub struct Session {
    pub number: u32,
    pub title: String,
    pub steps: Vec<u32>,
    /// The wave it runs in: declared, or derived from its dependencies.
    pub wave: Option<u32>,
    pub depends_on: Vec<u32>,
    #[serde(serialize_with = "serialize_patterns")]
    pub touch: Vec<pattern::PathPattern>,
    #[serde(serialize_with = "serialize_patterns")]
    pub never_touch: Vec<pattern::PathPattern>,
    pub line: usize,
    #[serde(skip)]
    pub declared_wave: Option<u32>,
}

fn serialize_patterns<S: serde::Serializer>(patterns: &[pattern::PathPattern], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(patterns.iter().map(|p| &p.text))
}

/// What a session spec adds to the steps.
#[derive(Clone, Debug, Serialize)]
pub struct SessionSpec {
    pub session: u32,
    pub master_plan: Option<String>,
    pub blocks: Vec<u32>,
    pub entry_condition: Option<Condition>,
    pub exit_conditions: Vec<Condition>,
}

/// An entry or exit condition: a command to run, or prose for a person.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Condition {
    pub text: String,
    pub check: Option<Check>,
    pub line: usize,
}

/// A `- [ ] Task N: …` line of a task plan's `<success_criteria>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Criterion {
    pub task: Option<u32>,
    pub text: String,
    pub checked: bool,
    pub line: usize,
}
