//! Scope fences: Touch and Never touch pattern lists.

use super::{is_none_value, strip_parentheses};
use crate::ultraplan::plan::markdown::{code_spans, Field};
use crate::ultraplan::plan::pattern::PathPattern;
use crate::ultraplan::plan::Diagnostics;

/// A Touch or Never touch list: backticked patterns, or comma-separated
/// items. An unquoted item with spaces is kept when it reads as a path (it
/// has a `/` or a `.`), else warned about: never silently dropped.
pub(crate) fn patterns(text: &str, line: usize, diags: &mut Diagnostics) -> Vec<PathPattern> {
    if is_none_value(text) {
        return Vec::new();
    }
    let spans = code_spans(text);
    if !spans.is_empty() {
        return spans
            .into_iter()
            .map(|s| s.content.trim().to_owned())
            .filter(|s| !s.is_empty())
            .map(|text| PathPattern { text, line })
            .collect();
    }
    let mut out = Vec::new();
    for p in strip_parentheses(text).split(',') {
        let p = strip_emphasis(p.trim());
        if p.is_empty() {
            continue;
        }
        if p.contains(' ') && !(p.contains('/') || p.contains('.')) {
            diags.warning(
                line,
                format!("scope fence item '{p}' is not read as a path (it has spaces); put paths in backticks"),
            );
            continue;
        }
        out.push(PathPattern {
            text: p.to_owned(),
            line,
        });
    }
    out
}

/// `**x**` or `_x_` is emphasis around `x`; `src/**` and `**/*.rs` are globs.
fn strip_emphasis(text: &str) -> &str {
    for marker in ["**", "__", "*", "_"] {
        if let Some(inner) = text.strip_prefix(marker).and_then(|t| t.strip_suffix(marker)) {
            if !inner.is_empty() && !inner.starts_with('/') && !inner.ends_with('/') {
                return inner.trim();
            }
        }
    }
    text
}

/// A Scope fence value: `Touch: … — Never touch: …` on one line, and/or
/// nested `Touch:`/`Never touch:` items.
pub(crate) fn scope_fence(field: &Field<'_>, diags: &mut Diagnostics) -> (Vec<PathPattern>, Vec<PathPattern>) {
    let (mut touch, mut never) = split_fence(field.value, field.line, diags);
    for sub in field.subfields() {
        let text = sub.text();
        match sub.label.as_str() {
            "touch" => touch.extend(patterns(&text, sub.line, diags)),
            "never touch" | "never" => never.extend(patterns(&text, sub.line, diags)),
            _ => {}
        }
    }
    (touch, never)
}

fn split_fence(value: &str, line: usize, diags: &mut Diagnostics) -> (Vec<PathPattern>, Vec<PathPattern>) {
    let lower = value.to_lowercase();
    let (touch_part, never_part) = match lower.find("never touch") {
        Some(i) => (&value[..i], &value[i + "never touch".len()..]),
        None => (value, ""),
    };
    let touch_part = touch_part.trim().trim_end_matches(['—', '–', '-', ';', ',', ' ']);
    let touch_part = strip_label(touch_part, "touch");
    let never_part = never_part.trim_start_matches([':', '*', ' ']);
    (patterns(touch_part, line, diags), patterns(never_part, line, diags))
}

fn strip_label<'t>(text: &'t str, label: &str) -> &'t str {
    let t = text.trim().trim_start_matches(['*', '_']);
    if t.to_lowercase().starts_with(label) {
        t[label.len()..].trim_start_matches(['*', '_', ':', ' '])
    } else {
        t
    }
}
