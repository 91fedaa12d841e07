//! The languages the historian parses: which grammar reads a file, and
//! which of its nodes define something ([`Language::defines`]).

/// A language the historian parses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Rust,
    Python,
    Go,
    JavaScript,
    TypeScript,
    Tsx,
    C,
    Java,
    CSharp,
    Ruby,
    Bash,
}

impl Language {
    /// The language of a file by its name, or by its first line (`#!`).
    pub fn of(path: &str, first_line: &[u8]) -> Option<Language> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        let by_extension = match extension.as_deref() {
            Some("rs") => Some(Language::Rust),
            Some("py" | "pyi") => Some(Language::Python),
            Some("go") => Some(Language::Go),
            Some("js" | "mjs" | "cjs" | "jsx") => Some(Language::JavaScript),
            Some("ts" | "mts" | "cts") => Some(Language::TypeScript),
            Some("tsx") => Some(Language::Tsx),
            // C++ is read with C's grammar: its functions, macros, structs
            // and names come out right, its classes and templates as
            // names only (a grammar of its own would add 3.6 MB).
            Some("c" | "h" | "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" | "tpp") => {
                Some(Language::C)
            }
            Some("java") => Some(Language::Java),
            Some("cs") => Some(Language::CSharp),
            Some("rb" | "rake" | "gemspec" | "ru") => Some(Language::Ruby),
            Some("sh" | "bash" | "bats" | "ksh" | "zsh") => Some(Language::Bash),
            _ => None,
        };
        by_extension
            .or(match name {
                "Rakefile" | "Gemfile" => Some(Language::Ruby),
                _ => None,
            })
            .or_else(|| {
                let line = String::from_utf8_lossy(first_line);
                let shebang = line.strip_prefix("#!")?;
                let program = shebang
                    .split_whitespace()
                    .find(|w| !w.ends_with("/env") && !w.starts_with('-'))?;
                match program.rsplit('/').next()? {
                    "sh" | "bash" | "dash" | "ksh" | "zsh" | "bats" => Some(Language::Bash),
                    p if p.starts_with("python") => Some(Language::Python),
                    "ruby" => Some(Language::Ruby),
                    "node" => Some(Language::JavaScript),
                    _ => None,
                }
            })
    }

    pub(super) fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Language::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Language::Bash => tree_sitter_bash::LANGUAGE.into(),
        }
    }

    /// Whether a node of `kind` defines the name it carries. `top` says
    /// whether it stands at the top of the file (a variable counts only
    /// there: a local one is no definition others use).
    pub(super) fn defines(self, kind: &str, top: bool) -> bool {
        use Language::*;
        let everywhere: &[&str] = match self {
            Rust => &[
                "function_item",
                "function_signature_item",
                "struct_item",
                "enum_item",
                "union_item",
                "trait_item",
                "type_item",
                "mod_item",
                "const_item",
                "static_item",
                "macro_definition",
            ],
            Python => &["function_definition", "class_definition"],
            Go => &["function_declaration", "method_declaration", "type_spec", "type_alias"],
            JavaScript | TypeScript | Tsx => &[
                "function_declaration",
                "generator_function_declaration",
                "class_declaration",
                "abstract_class_declaration",
                "method_definition",
                "interface_declaration",
                "type_alias_declaration",
                "enum_declaration",
                "function_signature",
            ],
            C => &[
                "function_definition",
                "type_definition",
                "preproc_def",
                "preproc_function_def",
                "struct_specifier",
                "union_specifier",
                "enum_specifier",
            ],
            Java => &[
                "class_declaration",
                "interface_declaration",
                "enum_declaration",
                "record_declaration",
                "annotation_type_declaration",
                "method_declaration",
                "constructor_declaration",
                "field_declaration",
            ],
            CSharp => &[
                "class_declaration",
                "struct_declaration",
                "interface_declaration",
                "enum_declaration",
                "record_declaration",
                "method_declaration",
                "constructor_declaration",
                "property_declaration",
                "delegate_declaration",
                "field_declaration",
            ],
            Ruby => &["method", "singleton_method", "class", "module"],
            Bash => &["function_definition"],
        };
        let at_top: &[&str] = match self {
            Rust => &[],
            Python => &["assignment"],
            Go => &["const_spec", "var_spec"],
            JavaScript | TypeScript | Tsx => &["variable_declarator"],
            C => &["declaration"],
            Java | CSharp => &[],
            Ruby => &["assignment"],
            Bash => &["variable_assignment"],
        };
        everywhere.contains(&kind) || top && at_top.contains(&kind)
    }
}
