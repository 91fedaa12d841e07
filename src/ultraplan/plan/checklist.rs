//! Markdown task checklists as spec-kit, Kiro and BMAD write them: `- [ ]`
//! items (`[x]`/`[X]` done, Kiro's `[-]` in progress and `[~]` queued, Kiro's
//! `- [ ]*` optional), their indentation, and the file paths a task's text
//! names. Shared by the three readers and by [`super::writeback`].

use super::markdown::{code_spans, Document, Line};

/// One checklist item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item<'a> {
    pub line: usize,
    pub indent: usize,
    /// The character between the brackets.
    pub mark: char,
    /// Kiro's `- [ ]*`.
    pub optional: bool,
    /// The text after the checkbox (and the `*`), trimmed.
    pub text: &'a str,
    /// Byte offset of the mark in the line.
    pub mark_at: usize,
}

impl Item<'_> {
    pub fn done(&self) -> bool {
        matches!(self.mark, 'x' | 'X')
    }
}

/// The checklist item on `line`, if it is one (outside code fences).
pub(crate) fn item<'a>(line: &Line<'a>) -> Option<Item<'a>> {
    if line.fenced {
        return None;
    }
    parse_item(line.text).map(|(indent, mark, optional, text, mark_at)| Item {
        line: line.no,
        indent,
        mark,
        optional,
        text,
        mark_at,
    })
}

/// (indent, mark, optional, text, mark offset) of `- [m] text`.
pub(crate) fn parse_item(text: &str) -> Option<(usize, char, bool, &str, usize)> {
    let indent = super::markdown::indent_of(text);
    let start = text.len() - text.trim_start().len();
    let rest = &text[start..];
    let after_marker = rest.strip_prefix(['-', '*', '+'])?;
    let spaces = after_marker.len() - after_marker.trim_start_matches([' ', '\t']).len();
    if spaces == 0 {
        return None;
    }
    let boxed = &after_marker[spaces..];
    let inside = boxed.strip_prefix('[')?;
    let mark = inside.chars().next()?;
    if !matches!(mark, ' ' | 'x' | 'X' | '-' | '~') {
        return None;
    }
    let after = inside[mark.len_utf8()..].strip_prefix(']')?;
    let (optional, after) = match after.strip_prefix('*') {
        Some(a) => (true, a),
        None => (false, after),
    };
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let mark_at = start + 1 + spaces + 1;
    Some((indent, mark, optional, after.trim(), mark_at))
}

/// Kiro-like numbered checkbox tasks (`- [ ] 1. …`) outside code fences.
pub(crate) fn has_numbered_tasks(doc: &Document<'_>) -> bool {
    doc.lines.iter().filter_map(item).any(|i| numbered_id(i.text).is_some())
}

/// The `1`, `2.1` or `7.9` a task's text starts with (`1. Title`, `2.1
/// Title`, `7.9* Title`): its id and the rest.
pub(crate) fn numbered_id(text: &str) -> Option<(String, &str)> {
    let digits_end = text
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map_or(text.len(), |(i, _)| i);
    let id = &text[..digits_end];
    if id.is_empty() || !id.starts_with(|c: char| c.is_ascii_digit()) || id.contains("..") {
        return None;
    }
    let rest = &text[digits_end..];
    let rest = rest.strip_prefix('*').unwrap_or(rest);
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let id = id.trim_end_matches('.');
    // `1.` alone or `2.1`: a number, never a bare `.`.
    if id.is_empty() {
        return None;
    }
    Some((id.to_owned(), rest.trim()))
}

/// Whether a word reads as a file path: a `/` or a file extension, no
/// spaces, not a URL, not a version (`v1.2`), not a bare number.
pub(crate) fn is_path_like(word: &str) -> bool {
    let w = word;
    if w.is_empty() || w.len() > 300 || w.contains(char::is_whitespace) || w.contains("://") || w.starts_with('@') {
        return false;
    }
    if w.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return false;
    }
    if w.contains([
        '(', ')', '{', '}', '<', '>', '"', '\'', '`', '=', ',', ';', '*', '?', '|', '$', '#',
    ]) && !w.contains("**")
    {
        return false;
    }
    let last = w.rsplit('/').next().unwrap_or(w);
    let has_ext = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        !ext.is_empty()
            && ext.len() <= 6
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_lowercase())
            && (!stem.is_empty() || last.starts_with('.'))
    });
    let dir = w.contains('/') && !w.starts_with('/') && w.split('/').all(|p| !p.is_empty() || w.ends_with('/'));
    (has_ext || dir) && !w.starts_with("e.g") && !w.starts_with("i.e")
}

/// The file paths a task's text names: backticked spans that read as
/// paths, and bare words that do (trailing punctuation dropped), each once.
pub(crate) fn paths_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |p: &str| {
        let p = p
            .trim_end_matches(['.', ',', ':', ';', ')'])
            .trim_start_matches(['(', '[']);
        let p = p.strip_prefix("./").unwrap_or(p);
        if is_path_like(p) && !out.iter().any(|o| o == p) {
            out.push(p.to_owned());
        }
    };
    let spans = code_spans(text);
    for s in &spans {
        push(s.content.trim());
    }
    let mut at = 0;
    let mut bare = String::new();
    for s in &spans {
        bare.push_str(&text[at..s.start]);
        bare.push(' ');
        at = s.end;
    }
    bare.push_str(&text[at..]);
    for word in bare.split_whitespace() {
        // `src/a.py:12` and `path/x.ts (modify)`: the path part.
        let word = word.split(':').next().unwrap_or(word);
        push(word);
    }
    out
}

/// Whether a task's text says it makes its files ("Create …", "Add …",
/// "Write …", "Set up …"): their paths are new, not "not found".
pub(crate) fn creates(text: &str) -> bool {
    let lower = text.trim_start().to_lowercase();
    [
        "create",
        "add ",
        "write",
        "initialize",
        "initialise",
        "set up",
        "setup",
        "scaffold",
        "implement",
    ]
    .iter()
    .any(|w| lower.starts_with(w))
}

/// Whether a task's text says it changes files that exist ("Update …",
/// "Wire … into …", "Fix …").
pub(crate) fn modifies(text: &str) -> bool {
    let lower = text.trim_start().to_lowercase();
    [
        "update",
        "modify",
        "fix",
        "refactor",
        "extend",
        "wire",
        "integrate",
        "change",
        "edit",
        "rename",
        "remove",
        "delete",
        "move",
    ]
    .iter()
    .any(|w| lower.starts_with(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items() {
        assert_eq!(parse_item("- [ ] T001 Do"), Some((0, ' ', false, "T001 Do", 3)));
        assert_eq!(parse_item("  - [x]* 2.2 Test"), Some((2, 'x', true, "2.2 Test", 5)));
        assert_eq!(parse_item("* [-] 3. Go").map(|i| i.1), Some('-'));
        assert_eq!(parse_item("- [] x"), None);
        assert_eq!(parse_item("-[ ] x"), None);
        assert_eq!(parse_item("- [ ]x"), None);
        assert_eq!(parse_item("- [ ]"), Some((0, ' ', false, "", 3)));
    }

    #[test]
    fn numbered() {
        assert_eq!(numbered_id("1. Set up"), Some(("1".into(), "Set up")));
        assert_eq!(numbered_id("2.1 Create"), Some(("2.1".into(), "Create")));
        assert_eq!(numbered_id("7.9* Opt"), Some(("7.9".into(), "Opt")));
        assert_eq!(numbered_id("T001 x"), None);
        assert_eq!(numbered_id("1x"), None);
    }

    #[test]
    fn paths() {
        assert_eq!(
            paths_in("Create User model in src/models/user.py (depends on T012)"),
            ["src/models/user.py"]
        );
        assert_eq!(
            paths_in("Write `data_models.ts` and docs/ index"),
            ["data_models.ts", "docs/"]
        );
        assert!(paths_in("Use v1.2 and e.g. https://x.io/a.b, 3.14").is_empty());
        assert_eq!(paths_in("File: tests/a.test.ts (modify)"), ["tests/a.test.ts"]);
    }
}
