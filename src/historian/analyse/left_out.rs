//! Leaving one word list or constant out, without a rebuild: how the
//! evaluation (`benches/historian_eval`, `HISTORIAN_EVAL_LEAVE_OUT`)
//! measures what each earns. A word list or constant of the historian
//! stays only while leaving it out costs the evaluation's held-out half
//! (`plan::weights`); each one this can leave out is read through
//! [`list`] or [`number`] under its name.
//!
//! Nothing but the evaluation leaves anything out: `git historian` never
//! calls [`leave_out`], and then every reading is of the list or the
//! constant as written (one relaxed load, no lock).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::RwLock;

static ANY: AtomicBool = AtomicBool::new(false);
static LEFT_OUT: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Leaves out the word lists and constants `names` (as their `const`s are
/// named) until the next call; an empty list restores them all.
pub fn leave_out(names: &[&str]) {
    let mut left = LEFT_OUT.write().unwrap_or_else(|e| e.into_inner());
    *left = names.iter().map(|n| n.to_string()).collect();
    ANY.store(!left.is_empty(), Ordering::Relaxed);
}

/// Whether `name` is left out.
pub fn is_left_out(name: &str) -> bool {
    ANY.load(Ordering::Relaxed)
        && LEFT_OUT
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|n| n == name)
}

/// The word list `list`, named `name`: empty when left out.
pub fn list<T>(name: &str, list: &'static [T]) -> &'static [T] {
    if is_left_out(name) {
        &[]
    } else {
        list
    }
}

/// The constant `value`, named `name`: `neutral` (the value that does
/// nothing) when left out.
pub fn number<T>(name: &str, value: T, neutral: T) -> T {
    if is_left_out(name) {
        neutral
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::{leave_out, list, number};

    #[test]
    fn a_left_out_list_is_empty_and_a_constant_neutral_until_restored() {
        const WORDS: &[&str] = &["a", "b"];
        // Names no list has: the other tests run beside this one.
        assert_eq!(list("TEST_WORDS", WORDS), WORDS);
        leave_out(&["TEST_WORDS", "TEST_MOST"]);
        assert!(list("TEST_WORDS", WORDS).is_empty());
        assert_eq!(number("TEST_MOST", 4, usize::MAX), usize::MAX);
        assert_eq!(number("TEST_OTHER", 4, 0), 4);
        leave_out(&[]);
        assert_eq!(list("TEST_WORDS", WORDS), WORDS);
        assert_eq!(number("TEST_MOST", 4, usize::MAX), 4);
    }
}
