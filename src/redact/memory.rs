//! The last large text redacted, and its redaction (see [`REMEMBERED_FROM`]).

use std::borrow::Cow;

/// From this size on, the last text redacted and its redaction are kept:
/// a run redacts its plan (megabytes, for thousands of steps) to compare
/// it with the record, to record it and to name its blob, and a text
/// already redacted redacts to itself, so each time after the first is a
/// comparison.
pub(super) const REMEMBERED_FROM: usize = 64 * 1024;

type Remembered = Option<(String, String)>;

thread_local! {
    static LAST: std::cell::RefCell<Remembered> = const { std::cell::RefCell::new(None) };
}

/// The redaction of `text` when it is the last large text redacted, or
/// that text's redaction itself (redacting it again changes nothing);
/// borrowed when it is `text` unchanged, as [`super::redact`] says (callers keep
/// the raw bytes of what redaction changed).
pub(super) fn remembered(text: &str) -> Option<Cow<'_, str>> {
    LAST.with_borrow(|last| {
        let (input, output) = last.as_ref()?;
        match (input == text, output == text) {
            (_, true) => Some(Cow::Borrowed(text)),
            (true, false) => Some(Cow::Owned(output.clone())),
            (false, false) => None,
        }
    })
}

pub(super) fn remember(text: &str, out: &str) {
    LAST.with_borrow_mut(|last| *last = Some((text.to_owned(), out.to_owned())));
}
