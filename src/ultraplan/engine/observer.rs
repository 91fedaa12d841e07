//! What a run tells while it goes: the engine never prints, it reports
//! [`Event`]s to the [`Observer`] the command gives it.

use crate::ultraplan::state::StepStatus;

/// What a run reports while it goes.
pub enum Event<'a> {
    Step {
        number: u32,
        title: &'a str,
        position: usize,
        total: usize,
    },
    Attempt {
        number: u32,
        attempt: u32,
        max: u32,
    },
    Verifying {
        number: u32,
    },
    /// What an agent executor is doing now (its tool, the file it edits,
    /// turns and cost so far), from its event stream.
    Activity {
        number: u32,
        text: &'a str,
    },
    StepDone {
        number: u32,
        status: StepStatus,
    },
    Warning(String),
    /// The current state of running sessions, for a live line.
    Progress(String),
}

pub trait Observer {
    fn event(&mut self, event: Event<'_>);
}
