//! The section a hunk of a file that defines nothing falls in: the heading
//! of a Markdown or reStructuredText document, the package of a lock file
//! (`Cargo.lock`, `package-lock.json`, `yarn.lock`, `poetry.lock`), the
//! `[table]` of a TOML or INI file. What git's hunk header shows for code
//! ([`super::symbols::Symbols::enclosing`]), for the files git's header says nothing
//! useful of: a lock file's hunk changes `version = "0.3.5"` and
//! `checksum = …` lines, and only the package it sits in says it is
//! `tempfile`'s, the name its subject (`deps: drop tempfile`) and its
//! manifest's line use.
//!
//! A package is a name two hunks share (`items` reads it as a name the
//! hunk's lines use); a heading only says what its hunk is about
//! (`Symbols::heading`), since unrelated work often sits under one.
//!
//! One pass over the file's lines finds every section start (a fenced code
//! block's `# comment` is no heading), then each hunk looks up the last one
//! before it: linear in the file, whatever the number of hunks.

/// What kind of sections a path's file has, when it has any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `# Heading`, `Heading` over `===`/`---` (and reStructuredText's other
    /// underlines).
    Document,
    /// `[[package]]` then `name = "x"`: Cargo, Poetry and uv lock files.
    TomlLock,
    /// `"node_modules/x": {` or, in old lock files, `"x": {`, four spaces in.
    NpmLock,
    /// `x@^1.0.0, x@^1.1.0:` at the start of a line.
    YarnLock,
    /// `[table]`, `[[array.of.tables]]`.
    Tables,
}

fn kind(path: &str) -> Option<Kind> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name {
        "Cargo.lock" | "poetry.lock" | "uv.lock" => return Some(Kind::TomlLock),
        "package-lock.json" | "npm-shrinkwrap.json" => return Some(Kind::NpmLock),
        "yarn.lock" => return Some(Kind::YarnLock),
        _ => {}
    }
    let (stem, extension) = name
        .rsplit_once('.')
        .map(|(s, e)| (s.to_ascii_lowercase(), e.to_ascii_lowercase()))?;
    if ["changelog", "changes", "history", "news", "release-notes", "releases"].contains(&stem.as_str()) {
        // A changelog's headings are its releases: every entry of the next
        // one sits under `Unreleased`, whatever work it records.
        return None;
    }
    match extension.as_str() {
        "md" | "markdown" | "mdx" | "rst" => Some(Kind::Document),
        "toml" | "ini" | "cfg" => Some(Kind::Tables),
        _ => None,
    }
}

/// Where sections start in one file: (line index, section name), in order.
#[derive(Debug)]
pub struct Sections {
    starts: Vec<(usize, String)>,
    kind: Kind,
}

impl Sections {
    /// The sections of `lines`, the lines of the file at `path`, when its
    /// kind has any (its hunks are then read by section rather than by the
    /// definitions above them).
    pub fn of(path: &str, lines: &[&[u8]]) -> Option<Sections> {
        let kind = kind(path)?;
        let starts = match kind {
            Kind::Document => headings(lines),
            Kind::TomlLock => toml_packages(lines),
            Kind::Tables => each_line(lines, table),
            Kind::NpmLock => each_line(lines, npm_package),
            Kind::YarnLock => each_line(lines, yarn_package),
        };
        Some(Sections { starts, kind })
    }

    /// Whether the sections are a document's headings.
    pub fn is_document(&self) -> bool {
        self.kind == Kind::Document
    }

    /// The section the line at `index` falls in: the last that starts
    /// before it.
    pub fn at(&self, index: usize) -> Option<&str> {
        let before = self.starts.partition_point(|(start, _)| *start < index);
        before.checked_sub(1).map(|k| self.starts[k].1.as_str())
    }
}

fn text(line: &[u8]) -> String {
    String::from_utf8_lossy(line).trim_end_matches(['\r', '\n']).to_owned()
}

fn each_line(lines: &[&[u8]], read: fn(&str) -> Option<String>) -> Vec<(usize, String)> {
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, raw)| read(&text(raw)).map(|name| (i, name)))
        .collect()
}

/// Markdown's and reStructuredText's headings, outside fenced code.
fn headings(lines: &[&[u8]]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<char> = None;
    let mut previous = String::new();
    for (i, raw) in lines.iter().enumerate() {
        let line = text(raw);
        let trimmed = line.trim_start();
        let marker = ['`', '~']
            .into_iter()
            .find(|&c| trimmed.starts_with(&c.to_string().repeat(3)));
        match (fence, marker) {
            (None, Some(c)) => fence = Some(c),
            (Some(open), Some(c)) if open == c => fence = None,
            _ => {}
        }
        if fence.is_some() || marker.is_some() {
            previous.clear();
            continue;
        }
        if let Some(rest) = line.strip_prefix('#') {
            let title = rest.trim_start_matches('#');
            if title.starts_with(' ') && line.len() - title.len() <= 6 {
                out.push((i, title.trim().trim_end_matches('#').trim().to_owned()));
            }
        } else if is_underline(&line) && !previous.trim().is_empty() && !is_underline(&previous) {
            out.push((i - 1, previous.trim().to_owned()));
        }
        previous = line;
    }
    out
}

/// A setext or reStructuredText underline: three or more of one
/// punctuation character and nothing else.
fn is_underline(line: &str) -> bool {
    let line = line.trim_end();
    let mut chars = line.chars();
    match chars.next() {
        Some(c) if "=-~^\"'*+#".contains(c) => line.len() >= 3 && chars.all(|x| x == c),
        _ => false,
    }
}

/// `[[package]]` blocks named by their `name = "x"` line.
fn toml_packages(lines: &[&[u8]]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut block: Option<usize> = None;
    for (i, raw) in lines.iter().enumerate() {
        let line = text(raw);
        if line.starts_with('[') {
            block = (line.trim() == "[[package]]").then_some(i);
        } else if let (Some(start), Some(name)) = (block, quoted_value(&line, "name")) {
            out.push((start, name));
            block = None;
        }
    }
    out
}

/// The quoted value of `key = "value"`.
fn quoted_value(line: &str, key: &str) -> Option<String> {
    let rest = line.strip_prefix(key)?.trim_start().strip_prefix('=')?.trim();
    let value = rest.strip_prefix('"')?.strip_suffix('"')?;
    (!value.is_empty()).then(|| value.to_owned())
}

/// A TOML or INI table's name: `[dependencies]`, `[tool.ruff]`.
fn table(line: &str) -> Option<String> {
    let inner = line.trim_end().strip_prefix('[')?.strip_suffix(']')?;
    let inner = inner.trim_start_matches('[').trim_end_matches(']').trim();
    (!inner.is_empty() && !inner.contains(['[', ']', '"', '='])).then(|| inner.to_owned())
}

/// `    "node_modules/x": {` (or `    "x": {`): the package `x`.
fn npm_package(line: &str) -> Option<String> {
    let key = line.strip_prefix("    \"")?.strip_suffix("\": {")?;
    let name = key.rsplit("node_modules/").next().unwrap_or(key);
    (!name.is_empty() && !key.contains('"')).then(|| name.to_owned())
}

/// `x@^1.0.0, x@^1.1.0:` or `"@scope/x@^1.0.0":`: the package `x`.
fn yarn_package(line: &str) -> Option<String> {
    if line.starts_with([' ', '#']) || !line.ends_with(':') {
        return None;
    }
    let first = line.trim_end_matches(':').split(", ").next()?.trim_matches('"');
    // The version's `@` is the last one; a scope's is the first character.
    let at = first.rfind('@').filter(|&k| k > 0)?;
    Some(first[..at].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sections(path: &str, text: &str) -> Vec<(usize, String)> {
        let lines: Vec<&[u8]> = text.lines().map(str::as_bytes).collect();
        Sections::of(path, &lines).map(|s| s.starts).unwrap_or_default()
    }

    #[test]
    fn markdown_headings_skip_fenced_code() {
        let text = "# Title\nintro\n\n## Install\n```sh\n# not a heading\n```\nUsage\n-----\ntext\n";
        assert_eq!(
            sections("README.md", text),
            [(0, "Title".into()), (3, "Install".into()), (7, "Usage".into())]
        );
        let lines: Vec<&[u8]> = text.lines().map(str::as_bytes).collect();
        let s = Sections::of("README.md", &lines).unwrap();
        assert!(s.is_document());
        assert_eq!(s.at(0), None);
        assert_eq!(s.at(1), Some("Title"));
        assert_eq!(s.at(6), Some("Install"));
        assert_eq!(s.at(9), Some("Usage"));
    }

    #[test]
    fn lock_files_name_their_packages() {
        let cargo = "version = 3\n\n[[package]]\nname = \"regex\"\nversion = \"1.5.2\"\n\n[[package]]\nname = \"tempfile\"\nversion = \"3.1.0\"\n";
        assert_eq!(
            sections("Cargo.lock", cargo),
            [(2, "regex".into()), (6, "tempfile".into())]
        );
        let npm = "{\n  \"packages\": {\n    \"node_modules/@babel/core\": {\n      \"version\": \"7.0.0\"\n    },\n    \"node_modules/a/node_modules/ms\": {\n";
        assert_eq!(
            sections("package-lock.json", npm),
            [(2, "@babel/core".into()), (5, "ms".into())]
        );
        let yarn = "# yarn lockfile v1\n\n\"@babel/code-frame@^7.0.0\", \"@babel/code-frame@^7.10.4\":\n  version \"7.12.13\"\n\nms@2.1.2:\n  version \"2.1.2\"\n";
        assert_eq!(
            sections("yarn.lock", yarn),
            [(2, "@babel/code-frame".into()), (5, "ms".into())]
        );
    }

    #[test]
    fn tables_and_unknown_files() {
        let toml = "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\n[[bin]]\n";
        assert_eq!(
            sections("Cargo.toml", toml),
            [(0, "package".into()), (3, "dependencies".into()), (5, "bin".into())]
        );
        assert!(sections("src/main.rs", "# not a heading\n").is_empty());
        assert!(Sections::of("src/main.rs", &[]).is_none());
        assert!(Sections::of("CHANGELOG.md", &[]).is_none());
        assert!(Sections::of("docs/guide.md", &[]).is_some_and(|s| s.is_document()));
        assert!(Sections::of("Cargo.lock", &[]).is_some_and(|s| !s.is_document()));
    }
}
