//! Elements in Markdown: the `<name>…</name>` tags that task plans and GSD
//! plans share (DESIGN §4.3), found outside code fences, with the lines
//! they start on. Both formats read their pages through this; neither
//! reaches into the other for it.

use super::fields::{is_none_value, strip_parentheses};
use super::markdown::{code_spans, strip_list_marker, Document};
use super::FileRef;

/// Finds `<name` followed by whitespace, `>` or `/` from byte `from`.
pub(crate) fn find_open_tag(text: &str, name: &str, from: usize) -> Option<usize> {
    let pattern = format!("<{name}");
    let mut at = from;
    while let Some(i) = text.get(at..)?.find(&pattern) {
        let start = at + i;
        let after = text[start + pattern.len()..].chars().next();
        if matches!(after, Some(c) if c.is_whitespace() || c == '>') {
            return Some(start);
        }
        at = start + pattern.len();
    }
    None
}

/// The text with fenced lines blanked (same length and line numbers), so tags
/// in code examples are not found.
pub(crate) fn visible_text(doc: &Document<'_>) -> String {
    doc.lines
        .iter()
        .map(|l| {
            if l.fenced {
                " ".repeat(l.text.len())
            } else {
                l.text.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) struct Element {
    pub content: String,
    /// The line of the opening tag.
    pub line: usize,
    /// The line of the content's first character.
    pub content_line: usize,
}

/// Line numbers of byte offsets, found by binary search (a plan may hold
/// many thousands of elements: counting newlines from the top for each
/// would be quadratic).
pub(crate) struct LineIndex {
    first_line: usize,
    newlines: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str, first_line: usize) -> LineIndex {
        LineIndex {
            first_line,
            newlines: text.match_indices('\n').map(|(i, _)| i).collect(),
        }
    }

    /// The line of byte `offset`.
    pub fn line(&self, offset: usize) -> usize {
        self.first_line + self.newlines.partition_point(|&nl| nl < offset)
    }
}

/// The first `<name>…</name>` inside `scope` (byte offsets into `text`).
pub(crate) fn element(text: &str, name: &str, scope: (usize, usize), first_line: usize) -> Option<Element> {
    element_in(text, text, name, scope, &LineIndex::new(text, first_line))
}

/// Like [`element`], but found in `visible` (fences blanked) and read from
/// `raw` (the same text with its fences), which have the same offsets: the
/// content keeps its code blocks.
fn element_in(visible: &str, raw: &str, name: &str, scope: (usize, usize), lines: &LineIndex) -> Option<Element> {
    let (from, to) = scope;
    let open = find_open_tag(&visible[..to], name, from)?;
    let content_start = open + visible[open..to].find('>')? + 1;
    let close_tag = format!("</{name}>");
    let close = content_start + visible[content_start..to].find(&close_tag)?;
    let content = raw.get(content_start..close)?;
    let lead = content.len() - content.trim_start().len();
    Some(Element {
        content: decode_entities(content.trim()),
        line: lines.line(open),
        content_line: lines.line(content_start + lead),
    })
}

fn decode_entities(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// `key="value"` attributes of an opening tag.
pub(crate) fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = tag;
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].split_whitespace().last().unwrap_or("").to_owned();
        let after = rest[eq + 1..].trim_start();
        let Some(quote) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            break;
        };
        let Some(end) = after[1..].find(quote) else {
            break;
        };
        out.push((key, after[1..1 + end].to_owned()));
        rest = &after[end + 2..];
    }
    out
}

/// The plan's text twice over: with fenced lines blanked (where tags are
/// looked for) and as written (what element contents are read from).
pub(crate) struct Page<'a> {
    pub text: &'a str,
    pub raw: &'a str,
    pub lines: LineIndex,
}

impl Page<'_> {
    pub fn element(&self, name: &str, scope: (usize, usize)) -> Option<Element> {
        element_in(self.text, self.text, name, scope, &self.lines)
    }

    /// An element whose content keeps its code blocks.
    pub fn element_raw(&self, name: &str, scope: (usize, usize)) -> Option<Element> {
        element_in(self.text, self.raw, name, scope, &self.lines)
    }

    /// Whether `<name` appears in `scope` only inside a code fence: the line
    /// of the fence that hides it.
    pub fn hidden(&self, name: &str, scope: (usize, usize)) -> Option<usize> {
        let (from, to) = scope;
        let at = find_open_tag(&self.raw[..to], name, from)?;
        if find_open_tag(&self.text[..to], name, from).is_some() {
            return None;
        }
        let fence = self.raw[..at].rmatch_indices("```").next().map_or(at, |(i, _)| i);
        Some(self.lines.line(fence))
    }
}

/// `<files>`: comma- or line-separated paths, backticked or plain.
pub(crate) fn task_files(e: &Element) -> Vec<FileRef> {
    let mut out = Vec::new();
    for (i, raw_line) in e.content.lines().enumerate() {
        let spans = code_spans(raw_line);
        let items: Vec<String> = if spans.is_empty() {
            raw_line
                .split(',')
                .map(|p| strip_parentheses(strip_list_marker(p.trim())).trim().to_owned())
                .collect()
        } else {
            spans.into_iter().map(|s| s.content.to_owned()).collect()
        };
        for path in items.into_iter().filter(|p| !p.is_empty() && !is_none_value(p)) {
            out.push(FileRef {
                new: false,
                path,
                line: e.content_line + i,
            });
        }
    }
    out
}
