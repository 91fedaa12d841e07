//! Where a path belongs: its component (directory prefix), the scope a
//! commit message names for it, and the stems that pair a test with the
//! code it tests.

use crate::historian::analyse::left_out::list;

use super::{directories, file_name};

/// Directory names that hold code without naming what it is.
const GENERIC: &[&str] = &[
    "src",
    "lib",
    "libs",
    "app",
    "apps",
    "pkg",
    "pkgs",
    "internal",
    "crates",
    "packages",
    "modules",
    "source",
    "sources",
    "include",
    "main",
    "java",
    "kotlin",
    "python",
    "scripts",
    "js",
    "ts",
    "test",
    "tests",
    "spec",
    "specs",
    "__tests__",
    "com",
    "org",
    "net",
    "io",
    "core",
];

/// The component `path` belongs to: its directory, cut to two levels
/// (`src/historian/commands/clean.rs` → `src/historian`); top-level files
/// belong to the root component `""`.
pub fn component(path: &str) -> String {
    let dirs: Vec<&str> = directories(path).collect();
    dirs[..dirs.len().min(2)].join("/")
}

/// The name a commit message's scope takes for `path`: the last
/// non-generic directory of its component, else `assets` for an asset (a
/// logo's stem names nothing a reader looks for), else the file's stem.
pub fn scope(path: &str) -> String {
    let dirs: Vec<&str> = directories(path).collect();
    let meaningful = dirs[..dirs.len().min(2)]
        .iter()
        .rev()
        .find(|d| !list("GENERIC", GENERIC).contains(&d.to_ascii_lowercase().as_str()) && !d.starts_with('.'));
    match meaningful {
        Some(d) => d.to_string(),
        None if super::is_asset(path) => "assets".to_owned(),
        None => stem(path),
    }
}

/// The file name without extensions, lowercased (`Parser.test.ts` → `parser`).
pub fn stem(path: &str) -> String {
    let name = file_name(path);
    let stem = name.trim_start_matches('.').split('.').next().unwrap_or(name);
    // A directory's own module file is named for the directory: Rust's
    // `mod.rs`, Python's `__init__.py`, a script's `index.js`; Rust's
    // `index.rs` is the module `index`.
    let of_directory = match stem {
        "mod" | "__init__" => true,
        "index" => !name.ends_with(".rs"),
        _ => false,
    };
    let stem = if of_directory {
        directories(path).last().unwrap_or(stem)
    } else {
        stem
    };
    stem.to_ascii_lowercase()
}

/// The stem a test file names the code it tests by (`test_parser.py`,
/// `parser_test.go`, `ParserTest.java`, `parser.spec.ts` → `parser`).
pub fn tested_stem(path: &str) -> String {
    let name = file_name(path);
    let mut s = name.split('.').next().unwrap_or(name).to_string();
    for suffix in ["Tests", "Test", "Spec"] {
        if let Some(stripped) = s.strip_suffix(suffix) {
            if !stripped.is_empty() {
                s = stripped.to_string();
                break;
            }
        }
    }
    let mut s = s.to_ascii_lowercase();
    for prefix in ["test_", "tests_", "spec_"] {
        if let Some(stripped) = s.strip_prefix(prefix) {
            s = stripped.to_string();
        }
    }
    for suffix in ["_tests", "_test", "-test", "_spec", "-spec"] {
        if let Some(stripped) = s.strip_suffix(suffix) {
            s = stripped.to_string();
        }
    }
    if matches!(
        s.as_str(),
        "mod" | "index" | "__init__" | "tests" | "test" | "main" | "lib"
    ) {
        if let Some(d) = directories(path).last() {
            return d.to_ascii_lowercase();
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_and_scopes() {
        assert_eq!(component("src/historian/commands/clean.rs"), "src/historian");
        assert_eq!(component("README.md"), "");
        assert_eq!(scope("src/historian/commands/clean.rs"), "historian");
        assert_eq!(scope("src/lib.rs"), "lib");
        assert_eq!(scope("src/parser.rs"), "parser");
        assert_eq!(scope("crates/gix-diff/src/lib.rs"), "gix-diff");
        assert_eq!(scope("README.md"), "readme");
        assert_eq!(scope("logo.png"), "assets");
        assert_eq!(scope("web/icons/logo.png"), "icons");
    }

    #[test]
    fn tests_name_what_they_test() {
        assert_eq!(tested_stem("tests/test_parser.py"), "parser");
        assert_eq!(tested_stem("pkg/lexer_test.go"), "lexer");
        assert_eq!(tested_stem("src/ParserTest.java"), "parser");
        assert_eq!(tested_stem("src/button.spec.ts"), "button");
        assert_eq!(tested_stem("tests/cli/historian.rs"), "historian");
        assert_eq!(tested_stem("src/git/tests.rs"), "git");
        assert_eq!(stem("src/git/mod.rs"), "git");
        assert_eq!(stem("src/Parser.ts"), "parser");
        // A directory's own module file is the directory's; Rust's
        // `index.rs` is the module `index`.
        assert_eq!(stem("src/export/index.js"), "export");
        assert_eq!(stem("pkg/formats/__init__.py"), "formats");
        assert_eq!(stem("src/index.rs"), "index");
    }
}
