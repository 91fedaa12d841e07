//! YAML read with a bound on nesting (issue 9, item 12).
//!
//! The YAML parser takes time quadratic in the nesting depth: 200 KB of `[`
//! took 40 s, and the 16 MiB input caps would allow hours. Nothing ultraplan
//! reads (result files, executor output, Manifests, front matter) nests
//! deeper than a handful of levels, so a linear scan refuses anything deeper
//! than [`MAX_DEPTH`] before the parser sees it, with an error naming the limit.

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
    check_depth(text)?;
    serde_yaml::from_str::<Value>(text).map_err(|err| YamlError {
        line: err.location().map(|l| text_line(text, l.line())),
        message: err.to_string().lines().next().unwrap_or("").to_owned(),
    })
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
/// list markers counting one each) of the line they start on.
pub fn check_depth(text: &str) -> Result<(), YamlError> {
    let mut flow = 0usize;
    let mut indents: Vec<usize> = Vec::new();
    for (no, line) in text.lines().enumerate() {
        if flow == 0 {
            let content = line.trim_start_matches(' ');
            if !content.is_empty() && !content.starts_with('#') {
                let indent = line.len() - content.len();
                while indents.last().is_some_and(|&i| i >= indent) {
                    indents.pop();
                }
                indents.push(indent);
                let markers = content
                    .split(' ')
                    .take_while(|w| *w == "-" || w.is_empty())
                    .filter(|w| *w == "-")
                    .count();
                if indents.len() + markers > MAX_DEPTH {
                    return Err(too_deep(no + 1));
                }
            }
        }
        let block = indents.len();
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        for c in line.chars() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '#' if prev == ' ' || prev == '\t' => break,
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
    }
    Ok(())
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
        // Up to the limit is fine.
        let ok = "[".repeat(60) + &"]".repeat(60);
        assert!(parse(&ok).is_ok());
    }
}
