//! Readers for field values: Files, Verify (with `→ expected:`), On failure,
//! Checkpoint, Manifest, Test first, step lists, session references and scope
//! fences. Each takes a [`Field`] and reports what it cannot read.
//!
//! One file per field kind; the value words every field shares (`none`,
//! remarks in parentheses) are here.

mod checkpoint;
mod files;
mod lists;
mod manifest;
mod on_failure;
mod scope;
mod test_first;
mod verify;

use crate::ultraplan::plan::markdown::{plain, Field};

pub(crate) use checkpoint::checkpoint;
pub(crate) use files::files;
pub(crate) use lists::{session_refs, step_list};
pub(crate) use manifest::manifest;
pub(crate) use on_failure::on_failure;
pub(crate) use scope::{patterns, scope_fence};
pub(crate) use test_first::test_first;
pub(crate) use verify::{check_item, expectation, prose_verify, split_expected, verify};

/// A value meaning "nothing here": `none`, `n/a`, `-`, optionally with a remark.
pub(crate) fn is_none_value(text: &str) -> bool {
    // Every field of every step is asked: a value whose first letter or
    // digit is not an `n` is no such word, known without building its
    // plain text (markup takes out no letter or digit).
    let first_letter = text.chars().find(|c| c.is_alphanumeric() || *c == '/');
    if first_letter.is_some_and(|c| !matches!(c, 'n' | 'N')) {
        return false;
    }
    is_none_text(text)
}

/// [`is_none_value`] of a field's text, known from its value alone when
/// the value's first letter or digit is not an `n` (the text starts with
/// the value).
pub(crate) fn is_none_field(field: &Field<'_>) -> bool {
    let first_letter = field.value.chars().find(|c| c.is_alphanumeric() || *c == '/');
    !first_letter.is_some_and(|c| !matches!(c, 'n' | 'N')) && is_none_value(&field.text())
}

/// [`is_none_value`] read the long way: the value's plain text, lowercased.
fn is_none_text(text: &str) -> bool {
    let t = plain(text).to_lowercase();
    let first = t
        .split(|c: char| !c.is_alphanumeric() && c != '/')
        .find(|w| !w.is_empty())
        .unwrap_or("");
    t.is_empty() || t == "-" || t == "—" || first == "none" || first == "n/a" || first == "nothing"
}

/// Text without `( … )` remarks.
pub(crate) fn strip_parentheses(text: &str) -> String {
    let mut depth = 0usize;
    text.chars()
        .filter(|&c| match c {
            '(' => {
                depth += 1;
                false
            }
            ')' => {
                depth = depth.saturating_sub(1);
                false
            }
            _ => depth == 0,
        })
        .collect()
}

#[cfg(test)]
mod tests;
