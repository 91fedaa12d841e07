//! Exit statuses shared by both programs (DESIGN §3.3).

/// How a command ended. Outcomes such as a failed step or a QUESTION are
/// values with their own status, not errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The work is done (a plan is READY, a result VALID, a run completed).
    Done,
    /// The work failed: a step failed, a merge conflicted, a historian ERROR,
    /// a plan NEEDS ATTENTION, a result is INVALID.
    Failed,
    /// Stopped for a person: a QUESTION, an escalation, a manual step, or a
    /// confirmation refused in a run that cannot ask.
    Stopped,
    /// Fatal: not a repository, an unreadable or unrecognised file, bad state.
    Fatal,
    /// The command line was wrong.
    Usage,
    /// Interrupted by Ctrl-C (SIGINT), after recording where it stopped.
    Interrupted,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Done => 0,
            Exit::Failed => 1,
            Exit::Stopped => 3,
            Exit::Fatal => 128,
            Exit::Usage => 129,
            Exit::Interrupted => 130,
        }
    }

    /// What each status means, for man pages and `--help`.
    pub const DOCUMENTED: [(Exit, &'static str); 6] = [
        (Exit::Done, "the work is done: the plan is READY, the result VALID, the run completed"),
        (
            Exit::Failed,
            "the work failed: a step failed, a merge conflicted, a plan NEEDS ATTENTION, a result is INVALID",
        ),
        (
            Exit::Stopped,
            "stopped for a person: a QUESTION, an escalation, a manual step, or a confirmation refused in a non-interactive run",
        ),
        (
            Exit::Fatal,
            "fatal: not a git repository, an unreadable or unrecognised file, or bad state",
        ),
        (Exit::Usage, "the command line was wrong"),
        (Exit::Interrupted, "interrupted (Ctrl-C) after recording where it stopped"),
    ];
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit.code())
    }
}
