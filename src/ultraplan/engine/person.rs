//! Steps for a person (issue 10): a checkpoint task waits instead of the
//! executor, a prose Verify after it; `--resume --answer` answers them.

use super::Run;
use crate::ultraplan::plan::Step;

impl Run<'_> {
    /// The answer for a step that needs a person, `Ok(None)` when it needs
    /// none (yet), or `Err(prompt)` when it must wait: a checkpoint task waits
    /// instead of the executor for an answer (one naming an option, for a
    /// decision) — given on `--resume`, also to a session run again in a new
    /// worktree; a prose Verify takes the answer when verified in place.
    pub(super) fn person_answer(&mut self, step: &Step, in_place: bool) -> std::result::Result<Option<String>, String> {
        let Some(human) = &step.human else {
            return Ok(None);
        };
        if !human.replaces_executor() && (!in_place || step.verify.is_some()) {
            // A prose check is answered after the person saw the executor's work.
            return Ok(None);
        }
        match self.answer.take() {
            Some(given) => match human.accept(&given) {
                Some(answer) => Ok(Some(answer)),
                None => Err(format!(
                    "'{given}' is not one of the options; answer with an option id\n{}",
                    human.prompt()
                )),
            },
            // --allow-unverified takes the word for a prose check, as on the first run.
            None if !human.replaces_executor() && self.opts.allow_unverified => Ok(None),
            None => Err(human.prompt()),
        }
    }
}
