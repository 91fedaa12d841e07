//! The category of a path: dependencies and build, configuration and CI,
//! schema and migrations, core source, interfaces, tests, docs.

use serde::Serialize;

use crate::historian::analyse::left_out::list;

use super::{directories, extension, file_name};

/// Categories in the order commits are made (DESIGN §10.3): dependencies
/// first, then build and configuration, schema, core source, interfaces,
/// tests, docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Build,
    Config,
    Schema,
    Source,
    Interface,
    Test,
    Docs,
}

impl Category {
    /// The conventional-commit type for a commit of only this category.
    pub fn commit_type(self) -> &'static str {
        match self {
            Category::Build => "build",
            Category::Config => "chore",
            Category::Schema | Category::Source | Category::Interface => "feat",
            Category::Test => "test",
            Category::Docs => "docs",
        }
    }

    /// Source-like categories belong with their tests and each other; the
    /// others are kept apart (DESIGN §10.2).
    pub fn is_code(self) -> bool {
        matches!(
            self,
            Category::Schema | Category::Source | Category::Interface | Category::Test
        )
    }
}

const DEPENDENCY_FILES: &[&str] = &[
    "cargo.toml",
    "cargo.lock",
    "package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "bun.lockb",
    "go.mod",
    "go.sum",
    "go.work",
    "pipfile",
    "pipfile.lock",
    "pyproject.toml",
    "poetry.lock",
    "uv.lock",
    "setup.py",
    "setup.cfg",
    "gemfile",
    "gemfile.lock",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "composer.json",
    "composer.lock",
    "mix.exs",
    "mix.lock",
    "makefile",
    "gnumakefile",
    "cmakelists.txt",
    "meson.build",
    "build.rs",
    "build.zig",
    "build.sbt",
    "justfile",
    "configure.ac",
    "makefile.am",
    "vcpkg.json",
    "conanfile.txt",
    "conanfile.py",
    "flake.nix",
    "flake.lock",
    "default.nix",
    "shell.nix",
    "bazel",
    "workspace",
    "build.bazel",
    "module.bazel",
    "rust-toolchain",
    "rust-toolchain.toml",
];

const CONFIG_FILES: &[&str] = &[
    ".gitignore",
    ".gitattributes",
    ".gitmodules",
    ".editorconfig",
    ".dockerignore",
    ".npmignore",
    ".npmrc",
    ".nvmrc",
    ".python-version",
    ".ruby-version",
    ".tool-versions",
    ".travis.yml",
    ".gitlab-ci.yml",
    "azure-pipelines.yml",
    "jenkinsfile",
    "dockerfile",
    "docker-compose.yml",
    "docker-compose.yaml",
    "compose.yml",
    "compose.yaml",
    ".pre-commit-config.yaml",
    "rustfmt.toml",
    ".rustfmt.toml",
    "clippy.toml",
    "deny.toml",
    "tox.ini",
    "mypy.ini",
    "pytest.ini",
    ".flake8",
    ".pylintrc",
    "tsconfig.json",
    "jsconfig.json",
    ".babelrc",
    "babel.config.js",
    ".prettierrc",
    ".eslintrc",
    ".eslintrc.js",
    ".eslintrc.json",
    ".eslintrc.yml",
    "eslint.config.js",
    "eslint.config.mjs",
    "codecov.yml",
    ".codecov.yml",
    "renovate.json",
    ".env.example",
    "vite.config.js",
    "vite.config.ts",
    "webpack.config.js",
    "rollup.config.js",
    "jest.config.js",
    "vitest.config.ts",
];

const CONFIG_DIRECTORIES: &[&str] = &[
    ".github",
    ".gitlab",
    ".circleci",
    ".ci",
    "ci",
    ".buildkite",
    ".devcontainer",
    ".vscode",
    ".idea",
    ".husky",
    ".cargo",
    ".config",
];

const TEST_DIRECTORIES: &[&str] = &[
    "test",
    "tests",
    "regress",
    "testing",
    "spec",
    "specs",
    "__tests__",
    "testdata",
    "test-data",
    "test_data",
    "fixtures",
    "e2e",
    "integration-tests",
    "integration_tests",
    "benches",
    "bench",
    "benchmarks",
];

const DOC_DIRECTORIES: &[&str] = &[
    "doc",
    "docs",
    "documentation",
    "man",
    "guide",
    "guides",
    "book",
    "website",
];

const DOC_NAMES: &[&str] = &[
    "readme",
    "changelog",
    "changes",
    "history",
    "news",
    "license",
    "licence",
    "copying",
    "authors",
    "contributors",
    "contributing",
    "code_of_conduct",
    "security",
    "notice",
    "todo",
    "releasing",
    "maintainers",
    "support",
];

const DOC_EXTENSIONS: &[&str] = &[
    "md", "markdown", "rst", "adoc", "asciidoc", "txt", "org", "pod", "rdoc", "texi", "tex",
];

const SCHEMA_DIRECTORIES: &[&str] = &[
    "migrations",
    "migration",
    "migrate",
    "schema",
    "schemas",
    "alembic",
    "sql",
];

const SCHEMA_EXTENSIONS: &[&str] = &[
    "sql", "proto", "graphql", "gql", "avsc", "prisma", "thrift", "capnp", "fbs",
];

const INTERFACE_DIRECTORIES: &[&str] = &[
    "cli",
    "cmd",
    "commands",
    "command",
    "bin",
    "api",
    "routes",
    "handlers",
    "controllers",
    "views",
    "ui",
    "web",
    "pages",
    "components",
    "templates",
    "frontend",
    "public",
    "static",
    "assets",
];

const CONFIG_EXTENSIONS: &[&str] = &["yml", "yaml", "toml", "ini", "cfg", "conf", "properties", "env"];

/// The category of `path`.
pub fn category(path: &str) -> Category {
    let name = file_name(path);
    let lower = name.to_ascii_lowercase();
    let dirs: Vec<String> = directories(path).map(|d| d.to_ascii_lowercase()).collect();
    let ext = extension(&lower);
    let base = lower.split('.').next().unwrap_or("");
    if list("DEPENDENCY_FILES", DEPENDENCY_FILES).contains(&lower.as_str())
        || lower.starts_with("requirements") && ext == "txt"
        || ext == "gemspec"
        || ext == "csproj"
        || ext == "cabal"
        || ext == "cmake"
        || ext == "mk"
        || ext == "bzl"
    {
        return Category::Build;
    }
    if dirs
        .first()
        .is_some_and(|d| list("CONFIG_DIRECTORIES", CONFIG_DIRECTORIES).contains(&d.as_str()))
        || list("CONFIG_FILES", CONFIG_FILES).contains(&lower.as_str())
    {
        return Category::Config;
    }
    if is_test_path(path) {
        return Category::Test;
    }
    if dirs
        .iter()
        .any(|d| list("DOC_DIRECTORIES", DOC_DIRECTORIES).contains(&d.as_str()))
        && !is_code_extension(ext)
        || list("DOC_NAMES", DOC_NAMES).contains(&base)
            && (ext.is_empty() || list("DOC_EXTENSIONS", DOC_EXTENSIONS).contains(&ext))
        || matches!(ext, "md" | "markdown" | "rst" | "adoc" | "asciidoc")
        || ext.len() == 1 && ext.as_bytes()[0].is_ascii_digit() && dirs.iter().any(|d| d == "man")
    {
        return Category::Docs;
    }
    if dirs
        .iter()
        .any(|d| list("SCHEMA_DIRECTORIES", SCHEMA_DIRECTORIES).contains(&d.as_str()))
        || list("SCHEMA_EXTENSIONS", SCHEMA_EXTENSIONS).contains(&ext)
    {
        return Category::Schema;
    }
    if dirs.len() <= 1 && list("CONFIG_EXTENSIONS", CONFIG_EXTENSIONS).contains(&ext)
        || lower.starts_with(".env")
        || dirs.iter().any(|d| d == "config" || d == "conf") && !is_code_extension(ext)
    {
        return Category::Config;
    }
    if dirs
        .iter()
        .any(|d| list("INTERFACE_DIRECTORIES", INTERFACE_DIRECTORIES).contains(&d.as_str()))
        || matches!(base, "main" | "cli" | "app" | "server" | "routes" | "api") && is_code_extension(ext)
    {
        return Category::Interface;
    }
    Category::Source
}

fn is_code_extension(ext: &str) -> bool {
    matches!(
        ext,
        "rs" | "py"
            | "js"
            | "jsx"
            | "ts"
            | "tsx"
            | "mjs"
            | "cjs"
            | "go"
            | "c"
            | "h"
            | "cc"
            | "cpp"
            | "cxx"
            | "hpp"
            | "hh"
            | "java"
            | "kt"
            | "kts"
            | "scala"
            | "rb"
            | "php"
            | "cs"
            | "fs"
            | "swift"
            | "m"
            | "mm"
            | "ex"
            | "exs"
            | "erl"
            | "hs"
            | "ml"
            | "mli"
            | "clj"
            | "lua"
            | "pl"
            | "pm"
            | "sh"
            | "bash"
            | "zsh"
            | "fish"
            | "r"
            | "jl"
            | "dart"
            | "zig"
            | "nim"
            | "vue"
            | "svelte"
            | "elm"
            | "sql"
    )
}

/// Images, icons, fonts, audio and video: files a program ships or shows
/// but no one reads as code.
const ASSET_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "svg", "ico", "icns", "webp", "bmp", "tif", "tiff", "avif", "ttf", "otf", "woff",
    "woff2", "eot", "mp3", "wav", "ogg", "flac", "mp4", "webm", "mov",
];

/// Whether `path` is an asset (an image, a font, a sound, a video), by its
/// extension.
pub fn is_asset(path: &str) -> bool {
    list("ASSET_EXTENSIONS", ASSET_EXTENSIONS).contains(&extension(&file_name(path).to_ascii_lowercase()))
}

/// Whether `path` is a test, by its directory or its name.
pub fn is_test_path(path: &str) -> bool {
    let name = file_name(path).to_ascii_lowercase();
    if directories(path).any(|d| list("TEST_DIRECTORIES", TEST_DIRECTORIES).contains(&d.to_ascii_lowercase().as_str()))
    {
        return true;
    }
    let stem = name.split('.').next().unwrap_or("");
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.ends_with("-test")
        || stem.ends_with("_spec")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name == "conftest.py"
        || file_name(path).ends_with("Test.java")
        || file_name(path).ends_with("Tests.java")
        || file_name(path).ends_with("Test.kt")
        || file_name(path).ends_with("Tests.cs")
        || file_name(path).ends_with("Test.php")
        || name == "tests.rs"
        || name == "test.rs"
}

#[cfg(test)]
#[path = "category_tests.rs"]
mod tests;
