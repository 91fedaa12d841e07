//! Fenced code blocks: their language, content and line, with the
//! indentation of a block nested in a list removed.

use super::{fence_info, Line};

/// A fenced code block.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CodeBlock {
    /// The info string's first word (`bash`, `diff`, `yaml`), lowercase.
    pub lang: String,
    pub code: String,
    pub line: usize,
}

pub(crate) fn code_blocks(lines: &[Line<'_>]) -> Vec<CodeBlock> {
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].fenced {
            i += 1;
            continue;
        }
        let open = lines[i];
        let lang = fence_info(open.text)
            .and_then(|info| info.split_whitespace().next())
            .unwrap_or("")
            .to_ascii_lowercase();
        let indent = open.indent();
        let mut j = i + 1;
        let mut code = String::new();
        while j < lines.len() && lines[j].fenced {
            if fence_info(lines[j].text).is_some_and(str::is_empty) && is_closing(open.text, lines[j].text) {
                j += 1;
                break;
            }
            if j > i + 1 {
                code.push('\n');
            }
            code.push_str(strip_indent(lines[j].text, indent));
            j += 1;
        }
        blocks.push(CodeBlock {
            lang,
            code,
            line: open.no,
        });
        i = j;
    }
    blocks
}

fn is_closing(open: &str, candidate: &str) -> bool {
    let o = open.trim_start();
    let c = candidate.trim_start();
    let ch = o.chars().next().unwrap_or('`');
    let open_len = o.chars().take_while(|&x| x == ch).count();
    let close_len = c.chars().take_while(|&x| x == ch).count();
    close_len >= open_len && c[close_len * ch.len_utf8()..].trim().is_empty()
}

/// Removes up to `width` columns of leading spaces.
fn strip_indent(text: &str, width: usize) -> &str {
    let mut cut = 0;
    for (i, c) in text.char_indices() {
        if i >= width || c != ' ' {
            break;
        }
        cut = i + 1;
    }
    &text[cut..]
}

/// The lines from the first to the last that is not blank, their common
/// indentation removed and their ends trimmed.
pub(crate) fn dedented<'s, 't>(lines: &'s [Line<'t>]) -> impl Iterator<Item = &'t str> + 's {
    let min = lines
        .iter()
        .filter(|l| !l.is_blank())
        .map(|l| l.indent())
        .min()
        .unwrap_or(0);
    let first = lines.iter().position(|l| !l.is_blank()).unwrap_or(lines.len());
    let end = lines.iter().rposition(|l| !l.is_blank()).map_or(first, |last| last + 1);
    lines[first..end]
        .iter()
        .map(move |l| strip_indent(l.text, min).trim_end())
}
