//! What a run writes down as it goes: its state (saved in git before each
//! act, DESIGN §6.1), the trees it keeps there (see [`super::secrets`]), and
//! what it tells its observer, every warning kept for the report. Every
//! stage of a step writes here; nothing here decides anything.

use super::{Event, Observer};
use crate::git::Repo;
use crate::ultraplan::state::RunState;

pub(crate) struct Ledger<'a> {
    pub repo: &'a Repo,
    pub state: RunState<'a>,
    /// Told how the run goes.
    pub observer: &'a mut dyn Observer,
    /// Every warning so far, for the report.
    pub warnings: Vec<String>,
}

impl<'a> Ledger<'a> {
    pub fn new(
        repo: &'a Repo,
        state: RunState<'a>,
        observer: &'a mut dyn Observer,
        warnings: Vec<String>,
    ) -> Ledger<'a> {
        Ledger {
            repo,
            state,
            observer,
            warnings,
        }
    }

    /// Tells the observer `message` and keeps it for the report.
    pub fn warn(&mut self, message: String) {
        self.observer.event(Event::Warning(message.clone()));
        self.warnings.push(message);
    }
}
