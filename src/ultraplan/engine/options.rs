//! What a run is asked to do: its mode, its options and the plan it runs.

use std::time::Duration;

use crate::ultraplan::exec::{AgentSettings, Executor};
use crate::ultraplan::plan::Plan;

/// Which steps a run takes (the seed's modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every step, in order (`--fg`, or a plan without an Execution Strategy).
    Execute,
    /// Continue the recorded run at its first step not passed or skipped.
    Resume,
    /// Only step N.
    Step(u32),
    /// Only session N's steps, inside its scope fence.
    Session(u32),
    /// Continue session N's recorded run (`--resume --session N`).
    ResumeSession(u32),
}

impl Mode {
    pub fn name(self) -> String {
        match self {
            Mode::Execute => "execute".into(),
            Mode::Resume => "resume".into(),
            Mode::Step(n) => format!("step {n}"),
            Mode::Session(n) => format!("session {n}"),
            Mode::ResumeSession(n) => format!("resume session {n}"),
        }
    }

    /// The session this mode runs, if any.
    pub fn session(self) -> Option<u32> {
        match self {
            Mode::Session(n) | Mode::ResumeSession(n) => Some(n),
            _ => None,
        }
    }
}

/// Everything a run needs to know besides the plan.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub mode: Mode,
    pub executor: Executor,
    pub max_attempts: u32,
    pub executor_timeout: Duration,
    pub verify_timeout: Duration,
    pub transcript_cap: usize,
    /// How much of the ignored files a step's snapshot keeps.
    pub ignored_bound: crate::git::IgnoredBound,
    pub allow_unverified: bool,
    /// A person's answers to the check, decision or review the run waits
    /// at (`--resume --answer`, repeatable: `N=TEXT` answers check N of an
    /// end-of-phase review).
    pub answers: Vec<String>,
    pub lock_timeout: Duration,
    /// How to find and call the agent of an agent executor
    /// (`ultraplan.<agent>.path`, `ultraplan.<agent>.args`).
    pub agent: AgentSettings,
    /// The command line, for the lock.
    pub command_line: String,
    /// The worktree is known clean at this commit (`run --clean-at`, from
    /// the run that placed it): the first snapshot trusts it.
    pub clean_at: Option<crate::git::Oid>,
}

/// The plan being run.
pub struct PlanInput<'a> {
    pub plan: &'a Plan,
    pub text: &'a str,
    /// How the plan is named in state and messages: relative to the top of the
    /// worktree when inside it.
    pub path: String,
    /// Its path relative to the top of the worktree, if it is inside it.
    pub in_worktree: Option<String>,
    /// How it was read (`--tag`, `--skip-optional`, the files beside it):
    /// the same again to record a passed task in it.
    pub choices: crate::ultraplan::plan::Context,
}

/// The plan of a run, decided from the command line and the configuration
/// before anything runs: the run's options, and where its steps are
/// carried out.
pub struct Launch {
    pub options: RunOptions,
    pub carried: Carried,
}

/// Where a run's steps are carried out.
pub enum Carried {
    /// Step by step in this worktree ([`super::run`]).
    Here,
    /// As parallel sessions in worktrees of their own, wave by wave
    /// ([`super::waves::run_waves`]).
    Waves(super::waves::WaveOptions),
    /// As sessions published on `remote` for workers in other clones (`git
    /// ultraplan work`), `jobs` of them also run here, the remote polled
    /// every `poll`; merged here wave by wave.
    Distributed {
        remote: String,
        waves: super::waves::WaveOptions,
        jobs: usize,
        poll: Duration,
    },
}
