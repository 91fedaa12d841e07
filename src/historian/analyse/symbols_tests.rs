//! Tests of `symbols`: definitions, enclosing names and module
//! declarations in the languages the historian reads.

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
fn module_declarations_name_files() {
    for (line, names) in [
        ("pub mod export;", &["export"][..]),
        // A dotted name's last part is the module, `index` too; a path's
        // `index` is its directory's.
        ("mod index;", &["index"]),
        ("from .index import build", &["index"]),
        ("mod csv_export;", &["csv_export"]),
        ("from .export import to_tsv", &["export"]),
        ("from .formats.export import to_tsv", &["export"]),
        ("from . import export, parse", &["export", "parse"]),
        ("import { toTsv } from './export';", &["export"]),
        ("export * from \"../lib/export/index.js\";", &["export"]),
        ("const { toTsv } = require('./Export.js');", &["export"]),
        ("require_relative 'export'", &["export"]),
        ("#include \"export.h\"", &["export"]),
    ] {
        assert_eq!(modules(line), names, "{line}");
    }
    for line in [
        "mod tests {",
        "import os",
        "const fs = require('fs');",
        "#include <stdio.h>",
        "from x import y",
    ] {
        assert!(modules(line).is_empty(), "{line}");
    }
    let wiring = scan([&b"pub mod export;\n"[..], b"\n"]);
    assert!(wiring.only_modules);
    assert_eq!(wiring.modules.iter().collect::<Vec<_>>(), ["export"]);
    assert!(!scan([&b"pub mod export;\n"[..], b"pub fn run() {}\n"]).only_modules);
    assert!(!scan([&b"fn run() {}\n"[..]]).only_modules);
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
