//! The Files field: the paths a step may create or modify.

use super::{is_none_field, is_none_value};
use crate::ultraplan::plan::markdown::{code_spans, Field};
use crate::ultraplan::plan::{Diagnostics, FileRef};

/// Files: backticked paths (or plain comma-separated ones), `(new)` marking a
/// file the step creates; `none` for no files.
pub(crate) fn files(field: &Field<'_>, step: u32, diags: &mut Diagnostics) -> Vec<FileRef> {
    let mut out = Vec::new();
    if is_none_field(field) {
        return out;
    }
    for (line, text) in field.lines() {
        let spans = code_spans(text);
        if spans.is_empty() {
            for token in text.split(',') {
                let item = crate::ultraplan::plan::markdown::strip_list_marker(token.trim());
                let (path_part, remark) = match item.find('(') {
                    Some(i) => (&item[..i], &item[i..]),
                    None => (item, ""),
                };
                let path = path_part.trim().trim_matches(['*', '_']).trim();
                if path.is_empty() || is_none_value(path) {
                    continue;
                }
                if path.contains('`') {
                    diags.problem(
                        line,
                        format!("step {step}: Files item '{path}' has an unmatched backtick; a path cannot span lines"),
                    );
                    continue;
                }
                if path.contains(char::is_whitespace) {
                    diags.warning(
                        line,
                        format!("step {step}: cannot read '{path}' as a path in Files; put paths in backticks"),
                    );
                    continue;
                }
                out.push(FileRef {
                    path: path.to_owned(),
                    new: marks_new(remark),
                    line,
                });
            }
            continue;
        }
        for (i, span) in spans.iter().enumerate() {
            let remark_end = spans.get(i + 1).map_or(text.len(), |next| next.start);
            let remark = &text[span.end..remark_end];
            let remark = remark.split(',').next().unwrap_or("");
            let path = span.content.trim();
            if path.is_empty() {
                continue;
            }
            out.push(FileRef {
                path: path.to_owned(),
                new: marks_new(remark),
                line,
            });
        }
    }
    out
}

fn marks_new(remark: &str) -> bool {
    let r = remark.to_lowercase();
    r.contains("(new") || r.contains("new file") || r.contains("(create")
}
