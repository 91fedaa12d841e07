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
    /// Names whose definition the item only removes (its removed lines
    /// define them, its added lines do not), filled by the caller, which
    /// tells the two apart ([`definitions`]): a commit removing one comes
    /// after the commits that stop using it.
    pub undefined: BTreeSet<String>,
    /// Specific-looking names the item's lines mention (definitions included).
    pub used: BTreeSet<String>,
    /// Modules the item's lines declare or import by a relative name
    /// (`mod export;`, `from .export import x`, `require('./export')`,
    /// `#include "export.h"`), lowercased as file stems are.
    pub modules: BTreeSet<String>,
    /// Whether every changed line that is not blank declares a module: the
    /// item is nothing but the wiring of modules into place.
    pub only_modules: bool,
    /// Version numbers the item's added lines mention (`1.4.2`, `v2.0`):
    /// what a release's or a bump's subject names. Filled by the caller,
    /// which tells added lines from removed ones
    /// ([`super::versions::versions_added`]).
    pub versions: BTreeSet<String>,
    /// Numbers the item's added lines hold that could name an issue
    /// (`r1173`, `issues/1173`), filled by the caller
    /// ([`super::issues::numbers_added`]).
    pub issues: BTreeSet<String>,
    /// Names the item's lines substitute for others (`u_int#_t>uint#_t`),
    /// filled by the caller ([`super::shapes::substitutions`]).
    pub substitutions: BTreeSet<String>,
    /// How the item only tidies (white space, a word's spelling), filled
    /// by the caller ([`super::shapes::shapes`]).
    pub shapes: BTreeSet<super::shapes::Shape>,
    /// The words of the heading a document's item falls under
    /// ([`super::sections`]), filled by the caller: what it answers to a
    /// subject by, though it links no two items.
    pub heading: BTreeSet<String>,
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

/// A line declaring or importing a module by a name relative to the file
/// (never a package of the ecosystem: `import os`, `require('fs')`).
static MODULE: LazyLock<Regex> = LazyLock::new(|| {
    let patterns = [
        // Rust: `mod x;` (not `mod x { … }`)
        r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(?P<a>[A-Za-z_]\w*)\s*;",
        // Python: `from .x import y`, `from .a.x import y`, `from . import x, y`
        r"^\s*from\s+\.+(?P<b>[\w.]+)\s+import\b",
        r"^\s*from\s+\.+\s+import\s+\(?\s*(?P<c>[\w\s,]+?)\s*\)?\s*$",
        // JavaScript, TypeScript: `import … from './x'`, `export … from './x'`,
        // `import './x'`, `require('./x')`, `import('./x')`
        r#"^\s*(?:import|export)\b[^'"]*?['"](?P<d>\.{1,2}/[^'"]+)['"]"#,
        r#"\b(?:require|import)\s*\(\s*['"](?P<e>\.{1,2}/[^'"]+)['"]\s*\)"#,
        // Ruby: `require_relative 'x'`
        r#"^\s*require_relative\s*\(?\s*['"](?P<f>[^'"]+)['"]"#,
        // C, C++: `#include "x.h"`
        r#"^\s*#\s*include\s*"(?P<g>[^"]+)""#,
    ];
    Regex::new(&patterns.join("|")).expect("valid module patterns")
});

/// The stem a module path names a file by: its last component without
/// extensions (`./export/index.js` → `export`, `a.b.export` → `export`).
fn module_stem(path: &str, dotted: bool) -> Option<String> {
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
        // A path's `index` (`./export/index`) is its directory's module;
        // a dotted name's last part is the module (`mod index;`, `from
        // .index import x` declare `index`).
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

/// The modules one line declares, if it declares any.
pub fn modules(line: &str) -> Vec<String> {
    let Some(caps) = MODULE.captures(line) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (group, dotted) in [
        ("a", true),
        ("b", true),
        ("d", false),
        ("e", false),
        ("f", false),
        ("g", false),
    ] {
        if let Some(m) = caps.name(group) {
            out.extend(module_stem(m.as_str(), dotted));
        }
    }
    if let Some(m) = caps.name("c") {
        out.extend(
            m.as_str()
                .split(',')
                .map(|n| n.split_whitespace().next().unwrap_or(""))
                .filter(|n| !n.is_empty())
                .map(|n| n.to_ascii_lowercase()),
        );
    }
    out
}

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
    // Everyday names of three letters.
    "abs",
    "arg",
    "buf",
    "err",
    "idx",
    "max",
    "min",
    "num",
    "obj",
    "pop",
    "ptr",
    "put",
    "ret",
    "sum",
    "tmp",
    "val",
];

static COMMON_SET: LazyLock<BTreeSet<&'static str>> = LazyLock::new(|| COMMON.iter().copied().collect());

/// The shortest name that can be specific: `nan` in jq's `has(nan)`, `gid`,
/// `tty`. The everyday names that short are in [`COMMON`] (`len`, `max`,
/// `err`, `buf`). On the evaluation (`benches/historian_eval.rs`, tuning
/// half / held out), three letters instead of four lifted the mean from
/// 0.8780 to 0.8804 / 0.8488 to 0.8504 and the line-weighted score from
/// 0.8776 to 0.8798 / 0.8408 to 0.8452, with 42 to 39 / 74 to 74 cases
/// worse than one commit (without the sixteen everyday names, 0.8803 and
/// 40 worse on the tuning half). On the tuning half two letters gave
/// 0.8799 (line-weighted 0.8772), five 0.8726, and 31 English words of
/// three letters (`the`, `and`, `not`, …) made common too 0.8801
/// (line-weighted 0.8784, 39 worse).
const SHORTEST_NAME: usize = 3;

/// Whether `word` could name something specific enough to link changes.
pub fn is_specific(word: &str) -> bool {
    word.len() >= SHORTEST_NAME && !COMMON_SET.contains(word) && !word.chars().all(|c| c.is_ascii_digit() || c == '_')
}

/// The specific-looking names in `text` (a heading, a package's name), as
/// [`scan`] reads them from a line.
pub fn specific_names(text: &str) -> impl Iterator<Item = &str> {
    IDENTIFIER
        .find_iter(text)
        .map(|m| m.as_str())
        .filter(|w| is_specific(w))
}

/// The definition on one line, if it has one.
pub fn definition(line: &str) -> Option<&str> {
    let caps = DEFINITION.captures(line)?;
    caps.iter().skip(1).flatten().next().map(|m| m.as_str())
}

/// The specific names `lines` define.
pub fn definitions<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> BTreeSet<String> {
    lines
        .into_iter()
        .filter_map(|raw| {
            let line = String::from_utf8_lossy(raw);
            definition(&line).filter(|name| is_specific(name)).map(str::to_owned)
        })
        .collect()
}

/// What `added` and `removed` lines define and use. Lines inside comments
/// are read like code: a comment naming a function links as well as a call.
pub fn scan<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Symbols {
    let mut symbols = Symbols::default();
    let mut other_lines = false;
    for raw in lines {
        let line = String::from_utf8_lossy(raw);
        if line.len() > 1000 {
            // Minified or generated: nothing a person would link by.
            other_lines = true;
            continue;
        }
        if !line.trim().is_empty() {
            let declared = modules(&line);
            other_lines |= declared.is_empty();
            symbols.modules.extend(declared);
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
    symbols.only_modules = !symbols.modules.is_empty() && !other_lines;
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
#[path = "symbols_tests.rs"]
mod tests;
