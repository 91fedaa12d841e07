//! Inline text: code spans (CommonMark's backtick rules) and prose with
//! its emphasis markers removed.

/// An inline code span: its content and byte range in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CodeSpan<'a> {
    pub content: &'a str,
    pub start: usize,
    pub end: usize,
}

/// Inline code spans (CommonMark rules: a run of n backticks closes at the next
/// run of exactly n; one space of padding on both sides is dropped).
pub(crate) fn code_spans(text: &str) -> Vec<CodeSpan<'_>> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let content_start = i + run;
        let mut j = content_start;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let r = bytes[j..].iter().take_while(|&&b| b == b'`').count();
                if r == run {
                    close = Some(j);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                let raw = &text[content_start..j];
                let content = if raw.len() >= 2 && raw.starts_with(' ') && raw.ends_with(' ') && !raw.trim().is_empty()
                {
                    &raw[1..raw.len() - 1]
                } else {
                    raw
                };
                spans.push(CodeSpan {
                    content,
                    start: i,
                    end: j + run,
                });
                i = j + run;
            }
            None => i = content_start,
        }
    }
    spans
}

/// Text with emphasis markers and code-span backticks removed, for prose.
pub(crate) fn plain(text: &str) -> String {
    // Most text has none: one copy of it rather than four.
    if !text.contains(['*', '_', '`']) {
        return text.trim().to_owned();
    }
    text.replace("**", "")
        .replace("__", "")
        .replace('`', "")
        .trim()
        .to_owned()
}
