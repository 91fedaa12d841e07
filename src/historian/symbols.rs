//! Names a change defines and names it uses, read from its added and removed
//! lines with a few language-agnostic patterns (Rust, Python, JavaScript and
//! TypeScript, Go, C and C++, Java, shell). A hunk that defines a name
//! another hunk uses links the two (DESIGN §10.2): the definer goes first or
//! they go together. Heuristic on purpose: no parser, no language server,
//! the same answer every time.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// What one change item defines and mentions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Symbols {
    /// Names whose definition the item adds or removes.
    pub defined: BTreeSet<String>,
    /// Specific-looking names the item's lines mention (definitions included).
    pub used: BTreeSet<String>,
}

static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    let patterns = [
        // Rust
        r#"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|default|extern(?:\s+"[^"]*")?)\s+)*fn\s+([A-Za-z_]\w*)"#,
        r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait|union|type|mod)\s+([A-Za-z_]\w*)",
        r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+(?:mut\s+)?([A-Za-z_]\w*)\s*:",
        r"^\s*macro_rules!\s*([A-Za-z_]\w*)",
        // Python, Ruby
        r"^\s*(?:async\s+)?def\s+(?:self\.)?([A-Za-z_]\w*[?!]?)",
        r"^\s*(?:class|module)\s+([A-Za-z_]\w*)",
        // JavaScript, TypeScript
        r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)",
        r"^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=",
        r"^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:interface|enum)\s+([A-Za-z_$][\w$]*)",
        // Go
        r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)",
        r"^type\s+([A-Za-z_]\w*)",
        // C, C++
        r"^\s*#\s*define\s+([A-Za-z_]\w*)",
        // Java, C#, C++ methods with modifiers
        r"^\s*(?:(?:public|private|protected|internal|static|final|abstract|virtual|override|synchronized|inline)\s+)+[\w<>\[\],.?*&:\s]*?\b([A-Za-z_]\w*)\s*\(",
        // shell functions, top-level assignments (Python, shell, make)
        r"^([A-Za-z_][\w-]*)\s*\(\)\s*\{?",
        r"^([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]",
    ];
    Regex::new(&patterns.map(|p| format!("(?:{p})")).join("|")).expect("valid definition patterns")
});

static IDENTIFIER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("valid"));

/// Words too common to link anything: keywords and everyday names.
const COMMON: &[&str] = &[
    "abstract",
    "args",
    "assert",
    "async",
    "await",
    "bool",
    "boolean",
    "break",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "crate",
    "data",
    "default",
    "define",
    "delete",
    "dict",
    "double",
    "elif",
    "else",
    "endif",
    "enum",
    "error",
    "except",
    "export",
    "extends",
    "extern",
    "false",
    "False",
    "final",
    "finally",
    "float",
    "from",
    "func",
    "function",
    "global",
    "impl",
    "implements",
    "import",
    "include",
    "index",
    "init",
    "instanceof",
    "interface",
    "items",
    "keys",
    "lambda",
    "list",
    "long",
    "loop",
    "main",
    "match",
    "module",
    "mut",
    "name",
    "native",
    "none",
    "None",
    "null",
    "nullptr",
    "object",
    "package",
    "pass",
    "print",
    "println",
    "private",
    "protected",
    "public",
    "raise",
    "return",
    "self",
    "Self",
    "short",
    "signed",
    "sizeof",
    "static",
    "string",
    "String",
    "struct",
    "super",
    "switch",
    "test",
    "tests",
    "this",
    "throw",
    "throws",
    "true",
    "True",
    "type",
    "typedef",
    "typeof",
    "undefined",
    "union",
    "unsafe",
    "unsigned",
    "value",
    "values",
    "void",
    "where",
    "while",
    "with",
    "yield",
    "Option",
    "Some",
    "Result",
    "Vec",
    "Box",
    "usize",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "i32",
    "i64",
    "f64",
    "str",
    "Ok",
    "Err",
    "pub",
    "let",
    "use",
    "mod",
    "for",
    "new",
    "len",
    "get",
    "set",
    "map",
    "key",
    "trait",
    "fn",
    "def",
    "var",
    "int",
    "format",
    "clone",
    "unwrap",
    "expect",
    "into",
    "iter",
    "collect",
    "push",
    "insert",
    "remove",
    "contains",
    "length",
    "append",
    "console",
    "log",
    "describe",
    "it",
    "const",
    "then",
    "else",
    "when",
    "unless",
    "end",
    "begin",
    "rescue",
    "ensure",
    "require",
    "todo",
    "TODO",
    "FIXME",
    "http",
    "https",
    "www",
    "com",
    "org",
];

static COMMON_SET: LazyLock<BTreeSet<&'static str>> = LazyLock::new(|| COMMON.iter().copied().collect());

/// Whether `word` could name something specific enough to link changes.
pub fn is_specific(word: &str) -> bool {
    word.len() >= 4 && !COMMON_SET.contains(word) && !word.chars().all(|c| c.is_ascii_digit() || c == '_')
}

/// The definition on one line, if it has one.
pub fn definition(line: &str) -> Option<&str> {
    let caps = DEFINITION.captures(line)?;
    caps.iter().skip(1).flatten().next().map(|m| m.as_str())
}

/// What `added` and `removed` lines define and use. Lines inside comments
/// are read like code: a comment naming a function links as well as a call.
pub fn scan<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Symbols {
    let mut symbols = Symbols::default();
    for raw in lines {
        let line = String::from_utf8_lossy(raw);
        if line.len() > 1000 {
            // Minified or generated: nothing a person would link by.
            continue;
        }
        if let Some(name) = definition(&line) {
            if is_specific(name) {
                symbols.defined.insert(name.to_owned());
            }
        }
        for word in IDENTIFIER.find_iter(&line) {
            if is_specific(word.as_str()) {
                symbols.used.insert(word.as_str().to_owned());
            }
        }
    }
    symbols
}

/// The nearest definition above a place in a file (what git's hunk
/// header shows), looking back at most 200 lines.
pub fn enclosing(before: &[&[u8]]) -> Option<String> {
    for raw in before.iter().rev().take(200) {
        let line = String::from_utf8_lossy(raw);
        if let Some(name) = definition(&line) {
            return is_specific(name).then(|| name.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_in_several_languages() {
        for (line, name) in [
            ("pub fn parse_plan(text: &str) -> Plan {", "parse_plan"),
            ("    pub(crate) async fn fetch_all() {", "fetch_all"),
            ("pub struct ChangeSet {", "ChangeSet"),
            ("const MAX_FILES: usize = 15;", "MAX_FILES"),
            ("def load_config(path):", "load_config"),
            ("class Parser(object):", "Parser"),
            ("export function renderPage(props) {", "renderPage"),
            ("export const useStore = () => {", "useStore"),
            ("func (s *Server) HandleLogin(w http.ResponseWriter) {", "HandleLogin"),
            ("type Config struct {", "Config"),
            ("#define BUFFER_SIZE 4096", "BUFFER_SIZE"),
            ("    public static List<String> splitWords(String text) {", "splitWords"),
            ("build_all() {", "build_all"),
            ("DEFAULT_TIMEOUT = 30", "DEFAULT_TIMEOUT"),
        ] {
            assert_eq!(definition(line), Some(name), "{line}");
        }
        assert_eq!(definition("    x == y"), None);
        assert_eq!(definition("    parse_plan(text)"), None);
    }

    #[test]
    fn the_enclosing_definition_names_a_hunk() {
        let text = [&b"fn parse_plan() {\n"[..], b"    let x = 1;\n", b"    let y = 2;\n"];
        assert_eq!(enclosing(&text), Some("parse_plan".to_owned()));
        assert_eq!(enclosing(&text[1..]), None);
    }

    #[test]
    fn uses_skip_keywords_and_short_words() {
        let s = scan([&b"    let plan = parse_plan(text)?;\n"[..], b"    return None;\n"]);
        assert!(s.used.contains("parse_plan"));
        assert!(s.used.contains("plan"));
        assert!(!s.used.contains("None"));
        assert!(!s.used.contains("let"));
        assert!(s.defined.is_empty());
    }
}
