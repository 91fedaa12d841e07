//! The Markdown the plan formats are written in, read just far enough to find
//! structure: fenced code blocks (whose lines are never headings or fields),
//! headings and their sections, `- **Label:** value` field lists with their
//! nested lines, and inline code spans. Lenient about the writing (bold or
//! plain labels, `-`/`*`/`+` markers, dash kinds); never panics on any input.

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
        self.text.trim().is_empty()
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
            lines,
            headings,
            unclosed_fence: fence.map(|(_, _, no)| no),
        }
    }

    /// The lines under `heading` up to the next heading of the same or a higher level.
    pub fn section(&self, heading: &Heading<'a>) -> &[Line<'a>] {
        let end = self
            .headings
            .iter()
            .find(|h| h.index > heading.index && h.level <= heading.level)
            .map_or(self.lines.len(), |h| h.index);
        &self.lines[heading.index + 1..end]
    }

    /// The headings strictly inside `heading`'s section.
    pub fn subheadings(&self, heading: &Heading<'a>) -> impl Iterator<Item = &Heading<'a>> {
        let end = self
            .headings
            .iter()
            .find(|h| h.index > heading.index && h.level <= heading.level)
            .map_or(usize::MAX, |h| h.index);
        let start = heading.index;
        self.headings.iter().filter(move |h| h.index > start && h.index < end)
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

/// The info string of a fence line (` ```bash ` gives `bash`).
pub(crate) fn fence_info(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    let (ch, len) = fence_opening(trimmed)?;
    Some(trimmed[len * ch.len_utf8()..].trim().to_ascii_lowercase())
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

/// A `Label: value` item of a field list.
#[derive(Clone, Debug)]
pub(crate) struct Field<'a> {
    /// Lowercase, single-spaced, hyphens as spaces: `test first`.
    pub label: String,
    pub line: usize,
    /// The text after the label on the item's own line.
    pub value: String,
    /// The item's further lines: nested items, fenced blocks, continuations.
    pub body: Vec<Line<'a>>,
}

impl<'a> Field<'a> {
    /// The value line and then every body line, each with its number.
    pub fn lines(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        std::iter::once((self.line, self.value.as_str())).chain(self.body.iter().map(|l| (l.no, l.text)))
    }

    /// The body's fenced blocks: (info string, content, line of the opening fence).
    pub fn code_blocks(&self) -> Vec<CodeBlock> {
        code_blocks(&self.body)
    }

    /// Value and body as one dedented text.
    pub fn text(&self) -> String {
        let mut out = self.value.trim().to_owned();
        let body = dedent(&self.body);
        if !body.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&body);
        }
        out
    }

    /// The nested `Label: value` items of the body.
    pub fn subfields(&self) -> Vec<Field<'a>> {
        parse_fields(&self.body).fields
    }
}

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
            .unwrap_or_default()
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_owned();
        let indent = open.indent();
        let mut j = i + 1;
        let mut content = Vec::new();
        let mut closed = false;
        while j < lines.len() && lines[j].fenced {
            if fence_info(lines[j].text).is_some_and(|info| info.is_empty()) && is_closing(open.text, lines[j].text) {
                closed = true;
                j += 1;
                break;
            }
            content.push(strip_indent(lines[j].text, indent));
            j += 1;
        }
        let _ = closed;
        blocks.push(CodeBlock {
            lang,
            code: content.join("\n"),
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

/// Lines joined with their common indentation removed and blank edges trimmed.
pub(crate) fn dedent(lines: &[Line<'_>]) -> String {
    let min = lines
        .iter()
        .filter(|l| !l.is_blank())
        .map(|l| l.indent())
        .min()
        .unwrap_or(0);
    let texts: Vec<&str> = lines.iter().map(|l| strip_indent(l.text, min).trim_end()).collect();
    texts.join("\n").trim_matches('\n').to_owned()
}

pub(crate) struct FieldList<'a> {
    pub fields: Vec<Field<'a>>,
}

/// Reads a field list. A field starts at a line that looks like `- **Label:**`
/// at the list's own indentation; every deeper, fenced or blank line after it
/// (and lazy continuation lines) belongs to it. Text between fields that is
/// neither is left out.
pub(crate) fn parse_fields<'a>(lines: &[Line<'a>]) -> FieldList<'a> {
    let mut fields: Vec<Field<'a>> = Vec::new();
    let mut current: Option<Field<'a>> = None;
    let mut base: Option<usize> = None;
    let mut previous_blank = false;
    for line in lines {
        if line.fenced || line.is_blank() {
            if let Some(field) = current.as_mut() {
                field.body.push(*line);
            }
            previous_blank = line.is_blank();
            continue;
        }
        let indent = line.indent();
        let at_base = base.is_none_or(|b| indent <= b + 1);
        match field_label(line.text).filter(|_| at_base) {
            Some((label, value)) => {
                if base.is_none() {
                    base = Some(indent);
                }
                fields.extend(current.take().map(trim_body));
                current = Some(Field {
                    label,
                    line: line.no,
                    value,
                    body: Vec::new(),
                });
            }
            None => {
                let deeper = base.is_some_and(|b| indent > b);
                match current.as_mut() {
                    Some(field) if deeper || !previous_blank => field.body.push(*line),
                    _ => fields.extend(current.take().map(trim_body)),
                }
            }
        }
        previous_blank = false;
    }
    fields.extend(current.map(trim_body));
    FieldList { fields }
}

fn trim_body(mut field: Field<'_>) -> Field<'_> {
    while field.body.last().is_some_and(|l| l.is_blank()) {
        field.body.pop();
    }
    field
}

/// Recognises `- **Label:** value`, `- **Label**: value`, `* Label: value`,
/// `__Label:__ value` and `Label: value`; returns the normalised label and value.
pub(crate) fn field_label(line: &str) -> Option<(String, String)> {
    let item = strip_list_marker(line.trim_start());
    let (label, rest) = if let Some(delim) = ["**", "__", "*", "_"].into_iter().find(|d| item.starts_with(d)) {
        let inner = &item[delim.len()..];
        let close = inner.find(delim)?;
        let label = &inner[..close];
        let after = &inner[close + delim.len()..];
        if let Some(label) = label.strip_suffix(':') {
            (label, after)
        } else if let Some(after) = after.strip_prefix(':') {
            (label, after)
        } else {
            return None;
        }
    } else {
        let colon = item.find(':')?;
        (&item[..colon], &item[colon + 1..])
    };
    let label = label.trim();
    let looks_like_label = !label.is_empty()
        && label.len() <= 32
        && label.starts_with(|c: char| c.is_alphabetic())
        && label
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '/'))
        && label.split_whitespace().count() <= 4;
    if !looks_like_label {
        return None;
    }
    let normalized = label
        .replace(['-', '_'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    Some((normalized, rest.trim().to_owned()))
}

/// Drops a leading `- `, `* `, `+ ` or `1. ` list marker, and a task checkbox.
pub(crate) fn strip_list_marker(text: &str) -> &str {
    let text = text.trim_start();
    let rest = if let Some(rest) = text
        .strip_prefix(['-', '*', '+'])
        .filter(|r| r.starts_with([' ', '\t']))
    {
        rest.trim_start()
    } else {
        let digits = text.chars().take_while(|c| c.is_ascii_digit()).count();
        match text[digits..].strip_prefix(['.', ')']) {
            Some(rest) if digits > 0 && rest.starts_with([' ', '\t']) => rest.trim_start(),
            _ => text,
        }
    };
    rest
}

/// A `[ ]`/`[x]` checkbox at the start of an item: (checked, rest).
pub(crate) fn checkbox(item: &str) -> Option<(bool, &str)> {
    let item = item.trim_start();
    let rest = item.strip_prefix('[')?;
    let mut chars = rest.chars();
    let mark = chars.next()?;
    let rest = chars.as_str().strip_prefix(']')?;
    match mark {
        ' ' => Some((false, rest.trim_start())),
        'x' | 'X' => Some((true, rest.trim_start())),
        _ => None,
    }
}

/// An inline code span: its content and byte range in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CodeSpan {
    pub content: String,
    pub start: usize,
    pub end: usize,
}

/// Inline code spans (CommonMark rules: a run of n backticks closes at the next
/// run of exactly n; one space of padding on both sides is dropped).
pub(crate) fn code_spans(text: &str) -> Vec<CodeSpan> {
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
                    content: content.to_owned(),
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
    text.replace("**", "")
        .replace("__", "")
        .replace('`', "")
        .trim()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_hide_headings_and_fields() {
        let doc = Document::new("# Title\n```sh\n# not a heading\n- **Files:** no\n```\n## Real\n", 1);
        let texts: Vec<_> = doc.headings.iter().map(|h| (h.level, h.text)).collect();
        assert_eq!(texts, vec![(1, "Title"), (2, "Real")]);
        assert!(doc.lines[2].fenced);
        assert!(doc.unclosed_fence.is_none());
    }

    #[test]
    fn unclosed_fence_is_reported() {
        let doc = Document::new("a\n~~~\nb\n", 1);
        assert_eq!(doc.unclosed_fence, Some(2));
    }

    #[test]
    fn labels_in_every_spelling() {
        for line in [
            "- **Files:** `a`",
            "- **Files**: `a`",
            "* Files: `a`",
            "+ __Files:__ `a`",
            "Files: `a`",
            "- *Files:* `a`",
        ] {
            assert_eq!(field_label(line), Some(("files".into(), "`a`".into())), "{line}");
        }
        assert_eq!(field_label("- **Test-first:** x").unwrap().0, "test first");
        assert_eq!(
            field_label("- just a sentence, with: a colon that is long and wordy").map(|f| f.0),
            None
        );
        assert_eq!(field_label("- `code`: x"), None);
    }

    #[test]
    fn field_bodies_take_nested_and_fenced_lines() {
        let doc = Document::new(
            "- **Verify:**\n  ```bash\n  - **Files:** inside\n  ```\n  → expected: ok\n- **On failure:** skip\n\nTrailing prose.\n",
            1,
        );
        let fields = parse_fields(&doc.lines).fields;
        assert_eq!(fields.len(), 2);
        assert_eq!(fields[0].label, "verify");
        assert_eq!(fields[0].body.len(), 4);
        assert_eq!(fields[0].code_blocks()[0].code, "- **Files:** inside");
        assert_eq!(fields[1].value, "skip");
        assert!(fields[1].body.is_empty());
    }

    #[test]
    fn code_spans_follow_commonmark() {
        let spans: Vec<_> = code_spans("a `b` c ``d ` e`` `unclosed")
            .into_iter()
            .map(|s| s.content)
            .collect();
        assert_eq!(spans, vec!["b", "d ` e"]);
    }

    #[test]
    fn headings_normalise() {
        assert_eq!(normalize_heading("**3. Implementation  Plan**"), "implementation plan");
        assert_eq!(normalize_heading("Execution Strategy"), "execution strategy");
    }

    #[test]
    fn checkboxes() {
        assert_eq!(checkbox("[ ] Task 1: a"), Some((false, "Task 1: a")));
        assert_eq!(checkbox("[x] Task 1: a"), Some((true, "Task 1: a")));
        assert_eq!(checkbox("Task"), None);
    }
}
