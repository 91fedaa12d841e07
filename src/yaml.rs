//! The one reader of YAML: every YAML text the program reads (result files,
//! executor output, Manifests, front matter, notes, run records, outcome
//! records, exports, historian plan files) is parsed here, with a bound on
//! nesting (issues 9, 36 and 42). `tests/cli/both/conventions.rs` holds that no
//! other file of `src/` calls the parser.
//!
//! The YAML parser takes time quadratic in the nesting depth: 200 KB of `[`
//! took 40 s, a note nested 100,000 levels deep 36 s, and the 16 MiB input
//! caps would allow hours. Nothing this program reads nests deeper than a
//! handful of levels, so a linear scan refuses anything deeper than
//! [`MAX_DEPTH`] before the parser sees it, with an error naming the limit
//! and the line.

use serde::de::DeserializeOwned;
use serde_yaml::Value;

/// The deepest nesting accepted: flow `[`/`{` levels plus block levels.
pub const MAX_DEPTH: usize = 64;

/// Why a text is not YAML ultraplan accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// The 1-based line, when known.
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for YamlError {}

/// Parses `text` as one YAML value, refusing nesting deeper than [`MAX_DEPTH`].
pub fn parse(text: &str) -> Result<Value, YamlError> {
    parse_as(text)
}

/// Parses `text` as one YAML document of type `T`, refusing nesting deeper
/// than [`MAX_DEPTH`]; an error names the line (counted as the text counts
/// it) and the field.
pub fn parse_as<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    check_depth(text)?;
    serde_yaml::from_str::<T>(text).map_err(|err| error(text, &err))
}

/// [`parse_as`] for bytes: what is not UTF-8 is refused before parsing.
pub fn parse_bytes_as<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, YamlError> {
    let text = std::str::from_utf8(bytes).map_err(|e| YamlError {
        line: None,
        message: format!("it is not UTF-8 text ({e})"),
    })?;
    parse_as(text)
}

/// Every document of a YAML stream (`---` between documents) as a `T`, in
/// order, the depth of the whole text checked once. An error says which
/// document (0-based) failed, and why.
pub fn documents_as<T: DeserializeOwned>(text: &str) -> Result<Vec<T>, (usize, YamlError)> {
    check_depth(text).map_err(|e| (0, e))?;
    let mut out = Vec::new();
    for (i, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
        out.push(T::deserialize(doc).map_err(|err| (i, error(text, &err)))?);
    }
    Ok(out)
}

fn error(text: &str, err: &serde_yaml::Error) -> YamlError {
    YamlError {
        line: err.location().map(|l| text_line(text, l.line())),
        message: err.to_string().lines().next().unwrap_or("").to_owned(),
    }
}

/// The 1-based line of `text`, counted by `\n` as everywhere else, on which
/// YAML's 1-based `yaml_line` starts: YAML also breaks lines at a lone `\r`
/// and at NEL, LS and PS, so its count runs ahead of ours in such a text.
fn text_line(text: &str, yaml_line: usize) -> usize {
    let (mut yaml, mut ours) = (1, 1);
    let mut chars = text.chars().peekable();
    while yaml < yaml_line {
        match chars.next() {
            None => break,
            Some('\n') => {
                yaml += 1;
                ours += 1;
            }
            Some('\r') if chars.peek() != Some(&'\n') => yaml += 1,
            Some('\u{85}' | '\u{2028}' | '\u{2029}') => yaml += 1,
            Some(_) => {}
        }
    }
    ours
}

/// Refuses nesting deeper than [`MAX_DEPTH`], in one pass: flow brackets
/// outside quotes and comments, plus the block levels (distinct indentations,
/// and the indicators `-`, `?` and `:` that open a node on the line, one
/// level each) of the line they start on. The lines of a block scalar (`|`,
/// `>`) are text, not structure, and are skipped; anything else in doubt
/// counts, so a text is refused rather than let through.
pub fn check_depth(text: &str) -> Result<(), YamlError> {
    let mut flow = 0usize;
    let mut indents: Vec<usize> = Vec::new();
    // The indentation of the line that opened a block scalar.
    let mut scalar_of: Option<usize> = None;
    for (no, line) in text.lines().enumerate() {
        let content = line.trim_start_matches(' ');
        let indent = line.len() - content.len();
        if let Some(parent) = scalar_of {
            if content.trim().is_empty() || indent > parent {
                continue;
            }
            scalar_of = None;
        }
        if flow == 0 && !content.is_empty() && !content.starts_with('#') {
            while indents.last().is_some_and(|&i| i >= indent) {
                indents.pop();
            }
            indents.push(indent);
            let markers = indicators(content.as_bytes());
            if indents.len() + markers > MAX_DEPTH {
                return Err(too_deep(no + 1));
            }
        }
        let block = indents.len();
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        let mut comment = false;
        for c in line.chars() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '#' if prev == ' ' || prev == '\t' => {
                        comment = true;
                        break;
                    }
                    '"' | '\'' if matches!(prev, ' ' | '\t' | '[' | '{' | ',' | ':') => quote = Some(c),
                    '[' | '{' => {
                        flow += 1;
                        if flow + block > MAX_DEPTH {
                            return Err(too_deep(no + 1));
                        }
                    }
                    ']' | '}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            prev = c;
        }
        if flow == 0 && quote.is_none() && opens_block_scalar(line, comment) {
            scalar_of = Some(indent);
        }
    }
    Ok(())
}

/// How many node indicators (`- `, `? `, `: `) open a line's content, each
/// a level of nesting (`- - - x`); reads only as far as they go.
fn indicators(content: &[u8]) -> usize {
    let mut count = 0;
    let mut i = 0;
    loop {
        while content.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
            i += 1;
        }
        let opens = matches!(content.get(i), Some(b'-' | b'?' | b':'))
            && matches!(content.get(i + 1), None | Some(b' ' | b'\t'));
        if !opens {
            return count;
        }
        count += 1;
        i += 1;
    }
}

/// Whether `line` ends with a block scalar's header (`key: |`, `- >-`,
/// `--- |2`), its comment (if `commented`) aside.
fn opens_block_scalar(line: &str, commented: bool) -> bool {
    let code = if commented {
        line.find(" #")
            .or_else(|| line.find("\t#"))
            .map_or(line, |at| &line[..at])
    } else {
        line
    };
    let code = code.trim_end();
    let Some(at) = code.rfind(['|', '>']) else {
        return false;
    };
    let header = &code[at + 1..];
    let indicators_only = header.len() <= 2 && header.chars().all(|c| matches!(c, '+' | '-' | '1'..='9'));
    let before = code[..at].trim_end();
    indicators_only
        && (before.is_empty() || before.ends_with(':') || before.ends_with(" -") || before == "-" || before == "---")
}

fn too_deep(line: usize) -> YamlError {
    YamlError {
        line: Some(line),
        message: format!("YAML nested more than {MAX_DEPTH} levels deep (the limit) at line {line}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_count_newlines_as_the_text_does() {
        // YAML reads three lines before the quote (`\r` and LS break too);
        // the text has two.
        let err = parse("a: 1\rb: 2\u{2028}c: 3\n: '").unwrap_err();
        assert_eq!(err.line, Some(2), "{err:?}");
        assert_eq!(text_line("x\ny", 9), 2);
    }

    #[test]
    fn ordinary_yaml_parses() {
        let v = parse("status: success\nlist:\n  - a\n  - b: [1, {c: 2}]\n# '[[[[\nquote: \"[[[[\"\n").unwrap();
        assert_eq!(v["status"], Value::String("success".into()));
    }

    #[test]
    fn block_scalars_are_text_whatever_brackets_they_hold() {
        // A result's evidence or a note's output: 100 lines, each opening a
        // bracket it never closes, are text in a block scalar.
        let lines: String = (0..100).map(|i| format!("    [{i} open\n")).collect();
        let doc = format!("evidence: |-\n{lines}status: success\nlist:\n- >\n{lines}- [1, [2]]\n");
        let v = parse(&doc).unwrap();
        assert_eq!(v["status"], Value::String("success".into()));
        // Out of the scalar, brackets count again.
        let deep = format!("evidence: |\n  text\nx: {}\n", "[".repeat(100));
        assert!(parse(&deep).unwrap_err().message.contains("line 3"));
        // `|` inside a plain value opens nothing.
        let plain = format!("a: x |\n{}", "[".repeat(100));
        assert!(parse(&plain).is_err());
    }

    #[test]
    fn streams_are_read_document_by_document() {
        let docs: Vec<Value> = documents_as("a: 1\n---\nb: 2\n").unwrap();
        assert_eq!(docs.len(), 2);
        let (i, err) = documents_as::<Value>("a: 1\n---\nb: [\n").unwrap_err();
        assert_eq!(i, 1, "{err}");
        let (_, err) = documents_as::<Value>(&format!("a: 1\n---\nb: {}\n", "[".repeat(70))).unwrap_err();
        assert!(err.message.contains("the limit"), "{err}");
    }

    #[test]
    fn deep_flow_and_block_nesting_are_refused_fast() {
        let started = std::time::Instant::now();
        let flow = "[".repeat(8 * 1024 * 1024);
        let err = parse(&flow).unwrap_err();
        assert!(err.message.contains("64 levels"), "{err}");
        let mut block = String::new();
        for i in 0..200 {
            block.push_str(&" ".repeat(i));
            block.push_str("a:\n");
        }
        assert!(parse(&block).unwrap_err().message.contains("the limit"));
        let dashes = "- ".repeat(100) + "x\n";
        assert!(parse(&dashes).is_err());
        assert!(started.elapsed().as_millis() < 1000, "{:?}", started.elapsed());
        // Tabs between the indicators, and mapping keys (`? `), nest too.
        assert!(parse(&("-\t".repeat(100) + "x\n")).is_err());
        assert!(parse(&("? ".repeat(100) + "x\n")).is_err());
        // Up to the limit is fine.
        let ok = "[".repeat(60) + &"]".repeat(60);
        assert!(parse(&ok).is_ok());
    }
}
