//! Which step a result's `task_name` means (seed 000's `Task N: …`
//! names), and how well the name agrees with the step's.

use super::{Plan, Step};

impl Plan {
    /// Finds the step a result's `task_name` means: by its `Task N:` number,
    /// noting whether the name also agrees (equal, or one a prefix of the other).
    pub fn match_task(&self, task_name: &str) -> TaskMatch<'_> {
        let Some(number) = task_number(task_name) else {
            return TaskMatch::NoTaskNumber;
        };
        match self.step(number) {
            None => TaskMatch::Unknown(number),
            Some(step) => {
                let wanted = step.task_name();
                let given = task_name.trim();
                if given == wanted {
                    TaskMatch::Exact(step)
                } else if wanted.starts_with(given)
                    || given.starts_with(&wanted)
                    || words_in_order(given, &wanted)
                    || words_in_order(&wanted, given)
                {
                    TaskMatch::Prefix(step)
                } else {
                    TaskMatch::NumberOnly(step)
                }
            }
        }
    }
}

/// Whether every word of `short` appears in `long`, in order (case
/// ignored): seed 000's "Task 1: Create file" naming "Task 1: Create
/// configuration file".
fn words_in_order(short: &str, long: &str) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let long = words(long);
    let mut rest = long.iter();
    words(short).iter().all(|w| rest.any(|l| l == w))
}

/// How a result's task name matched the plan.
#[derive(Debug)]
pub enum TaskMatch<'a> {
    Exact(&'a Step),
    /// Same `Task N:`, and one name is a prefix of the other, or its words
    /// appear in the other in order.
    Prefix(&'a Step),
    /// Same `Task N:` but another name: it names no task of the plan.
    NumberOnly(&'a Step),
    /// `Task N:` names no step of the plan.
    Unknown(u32),
    /// The name lacks the required `Task N:` prefix.
    NoTaskNumber,
}

/// The `N` of a `Task N: …` name.
pub fn task_number(name: &str) -> Option<u32> {
    let rest = name.trim_start().strip_prefix("Task")?;
    let rest = rest.trim_start();
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let after = rest[digits.len()..].trim_start();
    if digits.is_empty() || !after.starts_with(':') {
        return None;
    }
    digits.parse().ok()
}
