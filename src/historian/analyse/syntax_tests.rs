//! Tests of `syntax`: definitions, uses, enclosing definitions and module
//! imports in each language the historian parses.

use super::*;

fn read_all(path: &str, text: &str) -> Reading {
    let first = text.lines().next().unwrap_or("").as_bytes();
    let language = Language::of(path, first).expect("a known language");
    let parsed = parse(language, text.as_bytes()).expect("parsed");
    parsed.read(0..text.lines().count())
}

fn defined(path: &str, text: &str) -> Vec<String> {
    read_all(path, text).defined.into_iter().collect()
}

#[test]
fn definitions_in_every_language() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "a.rs",
            "pub fn parse_plan(text: &str) -> Plan { let local = 1; }\npub struct ChangeSet {}\nconst MAX_FILES: usize = 15;\nmacro_rules! bail_out { () => {} }\n",
            &["ChangeSet", "MAX_FILES", "bail_out", "parse_plan"],
        ),
        (
            "a.py",
            "DEFAULT_TIMEOUT = 30\n\ndef load_config(path):\n    local = 1\n\nclass Parser(object):\n    def feed(self):\n        pass\n",
            &["DEFAULT_TIMEOUT", "Parser", "feed", "load_config"],
        ),
        (
            "a.go",
            "package x\n\ntype Config struct{}\n\nfunc (s *Server) HandleLogin() {}\n\nfunc helper() { inner := 1 }\n\nconst Limit = 3\n",
            &["Config", "HandleLogin", "Limit", "helper"],
        ),
        (
            "a.js",
            "export function renderPage(props) { const local = 1; }\nexport const useStore = () => {};\nclass Widget { draw() {} }\n",
            &["Widget", "draw", "renderPage", "useStore"],
        ),
        (
            "a.ts",
            "export interface Options { retry: number }\nexport type Hook = () => void;\nfunction request(url: string): void {}\n",
            &["Hook", "Options", "request"],
        ),
        (
            "a.tsx",
            "export function Button(props: Props) { return <div>{props.label}</div>; }\n",
            &["Button"],
        ),
        (
            "a.c",
            "#define BUFFER_SIZE 4096\nstatic int counter;\nint parse_args(int argc, char **argv);\nstatic char *read_line(FILE *fp) { int local = 0; return 0; }\nstruct window { int sx; };\ntypedef unsigned int u_width;\n",
            &["BUFFER_SIZE", "counter", "parse_args", "read_line", "u_width", "window"],
        ),
        (
            "a.cpp",
            "int width(int x) { return x; }\n#define FMT_API 1\n",
            &["FMT_API", "width"],
        ),
        (
            "A.java",
            "class Splitter {\n  private int limit;\n  public static List<String> splitWords(String text) { int local = 0; return null; }\n}\n",
            &["Splitter", "limit", "splitWords"],
        ),
        (
            "A.cs",
            "namespace N { public class JsonReader { private int _depth; public string ReadString() { return null; } public int Depth { get; set; } } }\n",
            &["Depth", "JsonReader", "ReadString", "_depth"],
        ),
        (
            "a.rb",
            "module Rack\n  class Request\n    def params\n      @params\n    end\n    def self.build; end\n  end\nend\n",
            &["Rack", "Request", "build", "params"],
        ),
        (
            "a.sh",
            "#!/bin/sh\nNVM_DIR=/tmp\nnvm_install() {\n  local version=1\n}\n",
            &["NVM_DIR", "nvm_install"],
        ),
    ];
    for (path, text, names) in cases {
        assert_eq!(defined(path, text), *names, "{path}");
    }
}

#[test]
fn a_shebang_names_the_language() {
    assert_eq!(
        Language::of("bin/nvm-exec", b"#!/usr/bin/env bash"),
        Some(Language::Bash)
    );
    assert_eq!(Language::of("tool", b"#!/usr/bin/python3 -u"), Some(Language::Python));
    assert_eq!(Language::of("README", b"# Title"), None);
    assert_eq!(Language::of("x.md", b"#!/bin/sh"), Some(Language::Bash));
}

#[test]
fn lines_inside_a_definition_name_it_as_enclosing() {
    let text = "fn parse_plan() {\n    let x = 1;\n    let y = 2;\n}\n\nfn other() {}\n";
    let parsed = parse(Language::Rust, text.as_bytes()).unwrap();
    let inside = parsed.read(1..2);
    assert_eq!(inside.enclosing.iter().collect::<Vec<_>>(), ["parse_plan"]);
    assert!(inside.defined.is_empty());
    // A place between two lines inside it, as a deletion leaves.
    assert_eq!(parsed.read(2..2).enclosing.iter().collect::<Vec<_>>(), ["parse_plan"]);
    // The whole definition is what it defines, not what it falls inside.
    let whole = parsed.read(5..6);
    assert!(whole.enclosing.is_empty());
    assert_eq!(whole.defined.iter().collect::<Vec<_>>(), ["other"]);
    // The innermost only: a method, not its class.
    let text = "class Parser:\n    def feed(self):\n        self.buffer = 1\n";
    let parsed = parse(Language::Python, text.as_bytes()).unwrap();
    assert_eq!(parsed.read(2..3).enclosing.iter().collect::<Vec<_>>(), ["feed"]);
}

#[test]
fn uses_are_names_not_keywords_and_comments_mention_names() {
    let text = "fn run() {\n    let plan = parse_plan(text)?; // see render_all\n    return None;\n}\n";
    let parsed = parse(Language::Rust, text.as_bytes()).unwrap();
    let r = parsed.read(1..3);
    assert!(r.used.contains("parse_plan"));
    assert!(r.used.contains("plan"));
    assert!(r.used.contains("render_all"));
    assert!(!r.used.contains("let"));
    assert!(!r.used.contains("return"));
    // `None` is a name to the parser (a variant); the list of everyday
    // names that left it out cost nothing on the evaluation's held-out half.
    assert!(r.used.contains("None"));
    assert!(!r.used.contains("run"), "a line outside the run is not read");
}

#[test]
fn relative_imports_name_modules() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "lib.rs",
            "pub mod export;\nmod index;\nmod tests { }\n",
            &["export", "index"],
        ),
        (
            "a.py",
            "from .formats.export import to_tsv\nfrom . import parse, render\nimport os\n",
            &["export", "parse", "render"],
        ),
        (
            "a.js",
            "import { toTsv } from './export';\nconst x = require('./Export.js');\nconst fs = require('fs');\n",
            &["export"],
        ),
        ("a.ts", "export * from \"../lib/helpers/index.js\";\n", &["helpers"]),
        ("a.rb", "require_relative 'request'\nrequire 'json'\n", &["request"]),
        ("a.c", "#include \"window.h\"\n#include <stdio.h>\n", &["window"]),
    ];
    for (path, text, names) in cases {
        let r = read_all(path, text);
        assert_eq!(
            r.modules.iter().map(String::as_str).collect::<Vec<_>>(),
            *names,
            "{path}"
        );
    }
}

#[test]
fn texts_too_large_are_not_parsed() {
    let text = "x = 1\n".repeat(LARGEST_PARSED / 6 + 1);
    assert!(parse(Language::Python, text.as_bytes()).is_none());
}
