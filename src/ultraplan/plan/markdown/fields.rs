//! `- **Label:** value` field lists: a field's label, value and nested
//! lines, list markers and task checkboxes. The syntax only: what a
//! field's value means is read by `plan::fields`.

use super::{code_blocks, dedented, CodeBlock, Line};

/// A `Label: value` item of a field list, borrowing its text from the
/// document's lines.
#[derive(Clone, Debug)]
pub(crate) struct Field<'a> {
    /// Lowercase, single-spaced, hyphens as spaces: `test first`.
    pub label: String,
    pub line: usize,
    /// The text after the label on the item's own line.
    pub value: &'a str,
    /// The item's further lines: nested items, fenced blocks, continuations.
    pub body: &'a [Line<'a>],
}

impl<'a> Field<'a> {
    /// The value line and then every body line, each with its number.
    pub fn lines(&self) -> impl Iterator<Item = (usize, &'a str)> + '_ {
        std::iter::once((self.line, self.value)).chain(self.body.iter().map(|l| (l.no, l.text)))
    }

    /// The body's fenced blocks: (info string, content, line of the opening fence).
    pub fn code_blocks(&self) -> Vec<CodeBlock> {
        code_blocks(self.body)
    }

    /// Value and body as one dedented text.
    pub fn text(&self) -> String {
        let longest = self.value.len() + self.body.iter().map(|l| l.text.len() + 1).sum::<usize>();
        let mut out = String::with_capacity(longest);
        out.push_str(self.value.trim());
        for line in dedented(self.body) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(line);
        }
        out
    }

    /// The nested `Label: value` items of the body.
    pub fn subfields(&self) -> Vec<Field<'a>> {
        parse_fields(self.body).fields
    }
}

pub(crate) struct FieldList<'a> {
    pub fields: Vec<Field<'a>>,
}

/// Reads a field list. A field starts at a line that looks like `- **Label:**`
/// at the list's own indentation; every deeper, fenced or blank line after it
/// (and lazy continuation lines) belongs to it. Text between fields that is
/// neither is left out.
pub(crate) fn parse_fields<'a>(lines: &'a [Line<'a>]) -> FieldList<'a> {
    let mut fields: Vec<Field<'a>> = Vec::new();
    // The field being read, and where its body starts in `lines`: a body is
    // the lines after its field's up to the line that ends it.
    let mut current: Option<(Field<'a>, usize)> = None;
    let mut base: Option<usize> = None;
    let mut previous_blank = false;
    for (i, line) in lines.iter().enumerate() {
        if line.fenced || line.is_blank() {
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
                fields.extend(current.take().map(|(field, start)| with_body(field, &lines[start..i])));
                current = Some((
                    Field {
                        label,
                        line: line.no,
                        value,
                        body: &[],
                    },
                    i + 1,
                ));
            }
            None => {
                let deeper = base.is_some_and(|b| indent > b);
                let continues = current.is_some() && (deeper || !previous_blank);
                if !continues {
                    fields.extend(current.take().map(|(field, start)| with_body(field, &lines[start..i])));
                }
            }
        }
        previous_blank = false;
    }
    fields.extend(current.map(|(field, start)| with_body(field, &lines[start..])));
    FieldList { fields }
}

/// `field` with the lines of its body, blank lines at its end left out.
fn with_body<'a>(field: Field<'a>, body: &'a [Line<'a>]) -> Field<'a> {
    let end = body.iter().rposition(|l| !l.is_blank()).map_or(0, |last| last + 1);
    Field {
        body: &body[..end],
        ..field
    }
}

/// Recognises `- **Label:** value`, `- **Label**: value`, `* Label: value`,
/// `__Label:__ value` and `Label: value`; returns the normalised label and value.
pub(crate) fn field_label(line: &str) -> Option<(String, &str)> {
    let item = strip_list_marker(line.trim_start());
    let (label, rest) = if let Some(delim) = ["**", "__", "*", "_"].into_iter().find(|d| item.starts_with(d)) {
        let inner = &item[delim.len()..];
        // The delimiter is one character once or twice: found without a
        // searcher set up for each line.
        let mark = delim.as_bytes()[0];
        let close = inner
            .as_bytes()
            .windows(delim.len())
            .position(|w| w.iter().all(|&b| b == mark))?;
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
    let mut normalized = String::with_capacity(label.len());
    for word in label.split(|c: char| c.is_whitespace() || matches!(c, '-' | '_')) {
        if !word.is_empty() {
            if !normalized.is_empty() {
                normalized.push(' ');
            }
            normalized.push_str(word);
        }
    }
    if normalized.is_ascii() {
        normalized.make_ascii_lowercase();
    } else {
        normalized = normalized.to_lowercase();
    }
    Some((normalized, rest.trim()))
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
