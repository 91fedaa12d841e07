//! The syntax of a changed file, read with tree-sitter: for some of its
//! lines (a hunk's, on one side of the diff), the names whose definitions
//! they add, remove or rename, the names they use, the definitions they
//! fall inside, and the modules they import by a relative name. A hunk
//! using a name another defines must come with it or after it, and a test
//! calling the function another hunk changes is evidence that the two
//! belong together (DESIGN §10.2).
//!
//! One table per language says which nodes define something
//! (`Language::defines`, in `syntax/language.rs`); everything else is read the same way in every
//! language: a definition's name is its `name` field (or the name its
//! `declarator` chain ends in, as C writes it), a name used is a leaf node
//! whose kind is an identifier's, and words in comments and strings count as
//! mentions (a comment naming a function links as well as a call).
//!
//! Files in no language known here, or larger than [`LARGEST_PARSED`], are
//! read as words only ([`words`]). Parsing never fails a run: a text the
//! parser cannot read is read as words.

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use tree_sitter::{Node, Parser, Tree};

mod language;

pub use language::Language;

/// Texts larger than this are read as words: parsing them would cost more
/// than what their hunks say.
pub const LARGEST_PARSED: usize = 1 << 20;

/// What some lines of a parsed text hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// Names whose definitions start on these lines (added, removed or
    /// renamed there, as the side read says).
    pub defined: BTreeSet<String>,
    /// Names the lines use, and words their comments and strings mention.
    pub used: BTreeSet<String>,
    /// The innermost definitions the lines fall inside without holding
    /// all of them: what they change.
    pub enclosing: BTreeSet<String>,
    /// Modules the lines import by a name relative to the file
    /// (`mod export;`, `from .export import x`, `require('./export')`,
    /// `#include "export.h"`), lowercased as file stems are.
    pub modules: BTreeSet<String>,
    /// Lines that are part of a module's import.
    pub module_lines: BTreeSet<usize>,
}

/// A parsed text, read for several runs of its lines.
pub struct Parsed<'t> {
    language: Language,
    text: &'t [u8],
    tree: Tree,
}

thread_local! {
    static PARSER: std::cell::RefCell<Parser> = std::cell::RefCell::new(Parser::new());
}

/// Parses `text` as `language`; `None` when it is too large or the parser
/// gives up.
pub fn parse(language: Language, text: &[u8]) -> Option<Parsed<'_>> {
    if text.len() > LARGEST_PARSED {
        return None;
    }
    let tree = PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&language.grammar()).ok()?;
        parser.parse(text, None)
    })?;
    Some(Parsed { language, text, tree })
}

impl Parsed<'_> {
    /// What the lines in `lines` (0-based, end excluded) hold. An empty
    /// run names the place between two lines: nothing is defined or used
    /// there, but it falls inside definitions.
    pub fn read(&self, lines: Range<usize>) -> Reading {
        let mut reading = Reading::default();
        self.visit(self.tree.root_node(), &lines, true, &mut reading);
        reading
    }

    fn visit(&self, node: Node<'_>, lines: &Range<usize>, top: bool, out: &mut Reading) {
        let (start, end) = (node.start_position().row, node.end_position().row);
        let touches = if lines.is_empty() {
            start < lines.start && lines.start <= end
        } else {
            start < lines.end && lines.start <= end
        };
        if !touches {
            return;
        }
        let kind = node.kind();
        // A definition around the lines (holding them, not only them).
        let mut around = None;
        // A C struct named without its body (`struct window *w`) is a use.
        let declared = !kind.ends_with("_specifier") || node.child_by_field_name("body").is_some();
        if node.is_named() && declared && self.language.defines(kind, top) {
            if let Some((name, row)) = self.name_of(node) {
                if lines.contains(&row) {
                    out.defined.insert(name.clone());
                }
                let inside = if lines.is_empty() {
                    start < lines.start && lines.start <= end
                } else {
                    start <= lines.start && lines.end - 1 <= end
                };
                let holds_all = !lines.is_empty() && lines.start <= start && end < lines.end;
                if inside && !holds_all {
                    around = Some(name);
                }
            }
        }
        if node.child_count() == 0 {
            self.leaf(node, lines, out);
            return;
        }
        if let Some(module) = self.module_of(node) {
            out.modules.extend(module);
            out.module_lines.extend(start..=end);
        }
        if is_text(kind) {
            self.mentions(node, lines, out);
            return;
        }
        let before = out.enclosing.len();
        let mut cursor = node.walk();
        let child_top = top && is_container(kind);
        for child in node.children(&mut cursor) {
            self.visit(child, lines, child_top, out);
        }
        // The innermost definition around the lines is what they change.
        if let Some(name) = around.filter(|_| out.enclosing.len() == before) {
            out.enclosing.insert(name);
        }
    }

    /// A leaf on the lines: a name used, or words mentioned.
    fn leaf(&self, node: Node<'_>, lines: &Range<usize>, out: &mut Reading) {
        if !node.is_named() || !lines.contains(&node.start_position().row) {
            if is_text(node.kind()) {
                self.mentions(node, lines, out);
            }
            return;
        }
        let kind = node.kind();
        if is_name(kind) {
            if let Some(text) = self.text_of(node) {
                if is_specific(text) {
                    out.used.insert(text.to_owned());
                }
            }
        } else if is_text(kind) {
            self.mentions(node, lines, out);
        }
    }

    /// The words of a comment or a string, on the lines read.
    fn mentions(&self, node: Node<'_>, lines: &Range<usize>, out: &mut Reading) {
        let Some(text) = self.text_of(node) else { return };
        let first = node.start_position().row;
        for (n, line) in text.lines().enumerate() {
            if lines.contains(&(first + n)) {
                out.used.extend(specific_names(line).map(str::to_owned));
            }
        }
    }

    fn text_of(&self, node: Node<'_>) -> Option<&str> {
        std::str::from_utf8(self.text.get(node.byte_range())?).ok()
    }

    /// A definition's name and the line it is on: its `name` field, else
    /// the end of its `declarator` chain, else its first declarator found
    /// below it (a field, a C prototype), else its left-hand side.
    fn name_of(&self, node: Node<'_>) -> Option<(String, usize)> {
        let mut at = node;
        for _ in 0..8 {
            let next = at
                .child_by_field_name("name")
                .or_else(|| at.child_by_field_name("declarator"))
                .or_else(|| at.child_by_field_name("left"))
                .or_else(|| {
                    let mut cursor = at.walk();
                    let found = at
                        .named_children(&mut cursor)
                        .find(|c| c.kind().ends_with("declarator") || c.kind() == "variable_declaration");
                    found
                });
            let Some(next) = next else { break };
            if next.child_count() == 0
                || matches!(
                    next.kind(),
                    "scoped_identifier" | "qualified_identifier" | "scope_resolution"
                )
            {
                let leaf = last_name(next);
                let text = self.text_of(leaf)?;
                return is_specific(text).then(|| (text.to_owned(), leaf.start_position().row));
            }
            at = next;
        }
        None
    }

    /// The modules an import node names by a relative path.
    fn module_of(&self, node: Node<'_>) -> Option<Vec<String>> {
        use Language::*;
        let kind = node.kind();
        let text = |n: Node<'_>| self.text_of(n).unwrap_or("");
        match (self.language, kind) {
            (Rust, "mod_item") if node.child_by_field_name("body").is_none() => {
                let name = node.child_by_field_name("name")?;
                Some(vec![text(name).to_ascii_lowercase()])
            }
            (Python, "import_from_statement") => {
                let module = node.child_by_field_name("module_name")?;
                if module.kind() != "relative_import" {
                    return None;
                }
                let dotted = text(module).trim_start_matches('.');
                if dotted.is_empty() {
                    // `from . import a, b`: the names are the modules.
                    let mut cursor = node.walk();
                    let names = node
                        .children_by_field_name("name", &mut cursor)
                        .map(|n| text(last_name(n)).to_ascii_lowercase())
                        .collect();
                    return Some(names);
                }
                module_stem(dotted, true).map(|s| vec![s])
            }
            (JavaScript | TypeScript | Tsx, "import_statement" | "export_statement") => {
                let source = node.child_by_field_name("source")?;
                relative_path(text(source)).map(|s| vec![s])
            }
            (JavaScript | TypeScript | Tsx, "call_expression") => {
                let function = node.child_by_field_name("function")?;
                if !matches!(text(function), "require" | "import") {
                    return None;
                }
                let arguments = node.child_by_field_name("arguments")?;
                relative_path(text(arguments).trim_matches(|c| c == '(' || c == ')')).map(|s| vec![s])
            }
            (Ruby, "call") => {
                let method = node.child_by_field_name("method")?;
                if text(method) != "require_relative" {
                    return None;
                }
                let arguments = node.child_by_field_name("arguments")?;
                let path = text(arguments).trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace());
                module_stem(path.trim_matches(|c| c == '\'' || c == '"'), false).map(|s| vec![s])
            }
            (C, "preproc_include") => {
                let path = node.child_by_field_name("path")?;
                if path.kind() != "string_literal" {
                    return None;
                }
                module_stem(text(path).trim_matches('"'), false).map(|s| vec![s])
            }
            _ => None,
        }
    }
}

/// The last name of a scoped one (`a::b::c` → `c`, `A::B` → `B`).
fn last_name(node: Node<'_>) -> Node<'_> {
    let mut at = node;
    while at.child_count() > 0 {
        match at.child_by_field_name("name") {
            Some(name) => at = name,
            None => {
                let count = at.named_child_count();
                match count.checked_sub(1).and_then(|last| at.named_child(last)) {
                    Some(last) => at = last,
                    None => break,
                }
            }
        }
    }
    at
}

/// Whether a node of this kind holds definitions that stand at the top of
/// the file when it does (a module's statements, an export, a C
/// declaration list).
fn is_container(kind: &str) -> bool {
    matches!(
        kind,
        "source_file"
            | "program"
            | "module"
            | "translation_unit"
            | "expression_statement"
            | "export_statement"
            | "lexical_declaration"
            | "variable_declaration"
            | "const_declaration"
            | "var_declaration"
            | "declaration_list"
            | "linkage_specification"
            | "preproc_ifdef"
            | "preproc_if"
            | "preproc_else"
            | "preproc_elif"
            | "decorated_definition"
            | "export_clause"
    )
}

/// A leaf naming something.
fn is_name(kind: &str) -> bool {
    kind.ends_with("identifier") || matches!(kind, "constant" | "word" | "name" | "variable_name")
}

/// A comment, or a string's text: read as words.
fn is_text(kind: &str) -> bool {
    kind.contains("comment")
        || matches!(
            kind,
            "string_content" | "string_fragment" | "heredoc_body" | "raw_string" | "string" | "string_literal"
        )
}

/// A relative import's stem (`'./export/index.js'` → `export`); `None` for a
/// package (`'fs'`).
fn relative_path(quoted: &str) -> Option<String> {
    let path = quoted.trim().trim_matches(|c| c == '\'' || c == '"' || c == '`');
    if !(path.starts_with("./") || path.starts_with("../")) {
        return None;
    }
    module_stem(path, false)
}

/// The stem a module path names a file by: its last component without
/// extensions (`./export/index.js` → `export`, `a.b.export` → `export`).
pub fn module_stem(path: &str, dotted: bool) -> Option<String> {
    let parts: Vec<&str> = path
        .split(if dotted { '.' } else { '/' })
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect();
    let mut at = parts.len();
    while at > 0 {
        at -= 1;
        let name = if dotted {
            parts[at]
        } else {
            parts[at].split('.').next().unwrap_or("")
        };
        // A path's `index` (`./export/index`) is its directory's module.
        let of_directory = if dotted {
            matches!(name, "__init__" | "")
        } else {
            matches!(name, "index" | "mod" | "__init__" | "")
        };
        if !of_directory {
            return Some(name.to_ascii_lowercase());
        }
    }
    None
}

static IDENTIFIER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("valid"));

/// Whether `word` could name something specific enough to link changes.
pub fn is_specific(word: &str) -> bool {
    !word.chars().all(|c| c.is_ascii_digit() || c == '_')
        && word.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// The specific-looking names in `text` (a comment, a heading, a line of a
/// file in no language known here).
pub fn specific_names(text: &str) -> impl Iterator<Item = &str> {
    IDENTIFIER
        .find_iter(text)
        .map(|m| m.as_str())
        .filter(|w| is_specific(w))
}

/// What lines of a file in no language known here use: their words.
pub fn words<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for raw in lines {
        if raw.len() > 1000 {
            // Minified or generated: nothing a person would link by.
            continue;
        }
        out.extend(specific_names(&String::from_utf8_lossy(raw)).map(str::to_owned));
    }
    out
}

#[cfg(test)]
#[path = "syntax_tests.rs"]
mod tests;
