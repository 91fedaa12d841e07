//! The last large text redacted, and its redaction (see [`REMEMBERED_FROM`]),
//! for the whole process: a redaction started ahead on another thread
//! ([`super::redact_ahead`]) is waited for rather than done twice.

use std::borrow::Cow;
use std::sync::{Condvar, Mutex, MutexGuard};

/// From this size on, the last text redacted and its redaction are kept:
/// a run redacts its plan (megabytes, for thousands of steps) to compare
/// it with the record, to record it and to name its blob, and a text
/// already redacted redacts to itself, so each time after the first is a
/// comparison.
pub(super) const REMEMBERED_FROM: usize = 64 * 1024;

enum Last {
    None,
    /// This text is being redacted on another thread.
    Pending(String),
    /// A text and its redaction.
    Done(String, String),
}

static LAST: Mutex<Last> = Mutex::new(Last::None);
static SETTLED: Condvar = Condvar::new();

fn last() -> MutexGuard<'static, Last> {
    LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The redaction of `text` when it is the last large text redacted (or
/// being redacted: then it is waited for), or that text's redaction itself
/// (redacting it again changes nothing); borrowed when it is `text`
/// unchanged, as [`super::redact`] says (callers keep the raw bytes of what
/// redaction changed).
pub(super) fn remembered(text: &str) -> Option<Cow<'_, str>> {
    let mut last = last();
    while matches!(&*last, Last::Pending(input) if input == text) {
        last = SETTLED.wait(last).unwrap_or_else(|poisoned| poisoned.into_inner());
    }
    let Last::Done(input, output) = &*last else {
        return None;
    };
    match (input == text, output == text) {
        (_, true) => Some(Cow::Borrowed(text)),
        (true, false) => Some(Cow::Owned(output.clone())),
        (false, false) => None,
    }
}

pub(super) fn remember(text: &str, out: &str) {
    *last() = Last::Done(text.to_owned(), out.to_owned());
    SETTLED.notify_all();
}

/// Marks `text` as being redacted (by the caller, who then calls
/// [`remember`] or drops the guard); `None` when it is already known.
pub(super) fn begin(text: &str) -> Option<Pending> {
    let mut last = last();
    match &*last {
        Last::Pending(input) | Last::Done(input, _) if input == text => None,
        _ => {
            *last = Last::Pending(text.to_owned());
            Some(Pending)
        }
    }
}

/// A redaction in flight: dropped without [`remember`] (a panic), it lets
/// the waiters redact the text themselves.
pub(super) struct Pending;

impl Drop for Pending {
    fn drop(&mut self) {
        let mut last = last();
        if matches!(&*last, Last::Pending(_)) {
            *last = Last::None;
        }
        SETTLED.notify_all();
    }
}
