//! The Markdown the plan formats are written in, read just far enough to find
//! structure: fenced code blocks (whose lines are never headings or fields),
//! headings and their sections, `- **Label:** value` field lists with their
//! nested lines, and inline code spans. Lenient about the writing (bold or
//! plain labels, `-`/`*`/`+` markers, dash kinds); never panics on any input.
//! Here the document: lines, fences and headings; [`fields`], [`code`]
//! blocks and [`inline`] text beside.

mod code;
mod fields;
mod inline;

pub use code::CodeBlock;
pub(crate) use code::{code_blocks, dedented};
pub(crate) use fields::{checkbox, parse_fields, strip_list_marker, Field};
pub(crate) use inline::{code_spans, plain};

/// One line of the document with its 1-based number.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'a> {
    pub no: usize,
    pub text: &'a str,
    /// Inside a fenced code block or one of its fence lines.
    pub fenced: bool,
}

impl Line<'_> {
    pub fn is_blank(&self) -> bool {
        self.text.chars().all(char::is_whitespace)
    }

    pub fn indent(&self) -> usize {
        indent_of(self.text)
    }
}

/// Columns of leading whitespace, a tab counting as four.
pub(crate) fn indent_of(text: &str) -> usize {
    let mut width = 0;
    for c in text.chars() {
        match c {
            ' ' => width += 1,
            '\t' => width += 4,
            _ => break,
        }
    }
    width
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Heading<'a> {
    pub level: usize,
    pub text: &'a str,
    /// Index of the heading line in [`Document::lines`].
    pub index: usize,
    pub no: usize,
}

/// A document split into lines with fences and headings found.
pub(crate) struct Document<'a> {
    /// The text the lines are split from.
    pub text: &'a str,
    pub lines: Vec<Line<'a>>,
    pub headings: Vec<Heading<'a>>,
    /// The line of a fence that is never closed, if any.
    pub unclosed_fence: Option<usize>,
}

impl<'a> Document<'a> {
    /// Splits `text` (already without front matter; `first_line` is the number of
    /// its first line in the file).
    pub fn new(text: &'a str, first_line: usize) -> Document<'a> {
        let mut lines = Vec::new();
        let mut fence: Option<(char, usize, usize)> = None; // (char, run length, opening line)
        for (i, raw) in text.split('\n').enumerate() {
            let text = raw.strip_suffix('\r').unwrap_or(raw);
            let no = first_line + i;
            let trimmed = text.trim_start();
            let fenced = match fence {
                Some((ch, len, _)) => {
                    let run = trimmed.chars().take_while(|&c| c == ch).count();
                    if run >= len && trimmed[run * ch.len_utf8()..].trim().is_empty() {
                        fence = None;
                    }
                    true
                }
                None => match fence_opening(trimmed) {
                    Some((ch, len)) => {
                        fence = Some((ch, len, no));
                        true
                    }
                    None => false,
                },
            };
            lines.push(Line { no, text, fenced });
        }
        let headings = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.fenced)
            .filter_map(|(index, l)| {
                let (level, text) = heading(l.text)?;
                Some(Heading {
                    level,
                    text,
                    index,
                    no: l.no,
                })
            })
            .collect();
        Document {
            text,
            lines,
            headings,
            unclosed_fence: fence.map(|(_, _, no)| no),
        }
    }

    /// The lines under `heading` up to the next heading of the same or a higher level.
    pub fn section(&self, heading: &Heading<'a>) -> &[Line<'a>] {
        let end = self
            .end_of(heading)
            .map_or(self.lines.len(), |h| self.headings[h].index);
        &self.lines[heading.index + 1..end]
    }

    /// The headings strictly inside `heading`'s section.
    pub fn subheadings(&self, heading: &Heading<'a>) -> impl Iterator<Item = &Heading<'a>> {
        let after = self.after(heading);
        let end = self.end_of(heading).unwrap_or(self.headings.len());
        self.headings[after..end].iter()
    }

    /// The position in `headings` of the first heading after `heading`'s
    /// line: the headings are in the order of their lines, so a binary
    /// search finds it and a plan of many steps is read in linear time.
    fn after(&self, heading: &Heading<'a>) -> usize {
        self.headings.partition_point(|h| h.index <= heading.index)
    }

    /// The position in `headings` of the heading that ends `heading`'s
    /// section (the next of the same or a higher level).
    fn end_of(&self, heading: &Heading<'a>) -> Option<usize> {
        let after = self.after(heading);
        self.headings[after..]
            .iter()
            .position(|h| h.level <= heading.level)
            .map(|p| after + p)
    }

    /// The first heading of `level` whose normalised text starts with `name`.
    pub fn find_section(&self, level: usize, name: &str) -> Option<&Heading<'a>> {
        self.headings
            .iter()
            .find(|h| h.level == level && normalize_heading(h.text).starts_with(name))
    }
}

/// A fence opener: three or more backticks or tildes (a backtick fence's info
/// string may not contain a backtick).
fn fence_opening(trimmed: &str) -> Option<(char, usize)> {
    let ch = trimmed.chars().next()?;
    if ch != '`' && ch != '~' {
        return None;
    }
    let len = trimmed.chars().take_while(|&c| c == ch).count();
    if len < 3 {
        return None;
    }
    if ch == '`' && trimmed[len..].contains('`') {
        return None;
    }
    Some((ch, len))
}

/// The info string of a fence line (` ```bash ` gives `bash`), as written.
pub(crate) fn fence_info(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    let (ch, len) = fence_opening(trimmed)?;
    Some(trimmed[len * ch.len_utf8()..].trim())
}

/// An ATX heading: 1–6 `#`, a space, the text (closing `#`s dropped).
fn heading(line: &str) -> Option<(usize, &str)> {
    if indent_of(line) > 3 {
        return None;
    }
    let trimmed = line.trim_start();
    let level = trimmed.chars().take_while(|&c| c == '#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &trimmed[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim_end();
    Some((level, text))
}

/// Heading text for matching: lowercase, emphasis, backticks and a leading
/// number (`3. `) removed, whitespace collapsed.
pub(crate) fn normalize_heading(text: &str) -> String {
    let cleaned: String = text.chars().filter(|c| !matches!(c, '*' | '_' | '`')).collect();
    let trimmed = cleaned.trim();
    let without_number = match trimmed.split_once(['.', ')']) {
        Some((num, rest)) if !num.is_empty() && num.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => trimmed,
    };
    without_number
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests;
