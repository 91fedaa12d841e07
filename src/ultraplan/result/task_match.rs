//! Which task of the plan a result's `task_name` names: exactly, as a
//! prefix, or (a violation) by its number alone.

use super::checker::Checker;
use super::validation::MatchedTask;
use crate::ultraplan::plan::{task_number, TaskMatch};

pub(super) fn match_task(c: &mut Checker<'_>, name: &str) -> Option<MatchedTask> {
    if task_number(name).is_none() {
        c.violation(
            "task_name",
            format!("task_name '{name}' does not start with 'Task N:', so it matches no task"),
        );
        return None;
    }
    let plan = c.ctx.plan?;
    let (step, how) = match plan.match_task(name) {
        TaskMatch::Exact(step) => (step, "exact"),
        TaskMatch::Prefix(step) => (step, "prefix"),
        TaskMatch::NumberOnly(step) => {
            // Seed 000: a name matching no task is a critical violation.
            c.violation(
                "task_name",
                format!(
                    "task_name '{name}' matches no task of the plan (task {} is '{}')",
                    step.number,
                    step.task_name()
                ),
            );
            return None;
        }
        TaskMatch::Unknown(n) => {
            c.violation(
                "task_name",
                format!("task_name '{name}' matches no task of the plan (it has no task {n})"),
            );
            return None;
        }
        TaskMatch::NoTaskNumber => return None,
    };
    Some(MatchedTask {
        number: step.number,
        name: step.task_name(),
        how,
    })
}
