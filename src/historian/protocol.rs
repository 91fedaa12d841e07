//! RESULT blocks (DESIGN §9.3, seed 001): the three forms every historian
//! answer takes — SUCCESS, ERROR and QUESTION — rendered in the seed's exact
//! text and parsed back, including a QUESTION nested in a Resume State (a
//! commit writer's question wrapped in historian's own).
//!
//! Layout rules the renderer keeps and the parser relies on: `Key: value`
//! lines at column 0; a value's further lines indented by two spaces; Resume
//! State entries as `  - Key: value` with their further lines indented by four;
//! a nested block under an entry with an empty value, indented by four.
//!
//! A line is a `Key: value` only where its first colon is followed by a
//! space or ends the line: `https://user:pw@host` or `curl -u admin:pw` is
//! text, kept as written (with no key), so that what a writer said reads
//! back the same — and redaction, which knows `https://…@`, still sees it.

use std::fmt::Write as _;

use serde::Serialize;

/// One of the three results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "result", rename_all = "UPPERCASE")]
pub enum ResultBlock {
    Success(Success),
    Error(ErrorResult),
    Question(Question),
}

/// `RESULT: SUCCESS` followed by what was accomplished, as `Key: value` lines.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Success {
    pub fields: Vec<(String, String)>,
}

/// `RESULT: ERROR`: where it happened (`Step: 2 (Prepare Materials)`), a
/// description and details.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ErrorResult {
    pub context: Vec<(String, String)>,
    pub description: String,
    pub details: Option<String>,
}

/// `RESULT: QUESTION`: where we are, everything needed to resume, the
/// question, its options and the closing prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Question {
    pub context: String,
    pub resume_state: Vec<ResumeEntry>,
    pub question: String,
    pub options: Vec<String>,
    /// The closing line, "What should I do?" for historian's own questions.
    pub prompt: String,
}

/// The closing line of historian's questions.
pub const DEFAULT_PROMPT: &str = "What should I do?";

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResumeEntry {
    pub key: String,
    pub value: ResumeValue,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ResumeValue {
    Text(String),
    /// A result of an agent below (seed 001: questions bubble up).
    Nested(Box<ResultBlock>),
}

impl ResultBlock {
    /// The word after `RESULT:`.
    pub fn kind(&self) -> &'static str {
        match self {
            ResultBlock::Success(_) => "SUCCESS",
            ResultBlock::Error(_) => "ERROR",
            ResultBlock::Question(_) => "QUESTION",
        }
    }

    /// The block's text, ending with a newline.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "RESULT: {}", self.kind());
        match self {
            ResultBlock::Success(s) => {
                for (key, value) in &s.fields {
                    push_field(&mut out, key, value);
                }
            }
            ResultBlock::Error(e) => {
                for (key, value) in &e.context {
                    push_field(&mut out, key, value);
                }
                push_field(&mut out, "Description", &e.description);
                if let Some(details) = &e.details {
                    push_field(&mut out, "Details", details);
                }
            }
            ResultBlock::Question(q) => {
                push_field(&mut out, "Context", &q.context);
                out.push_str("Resume State:\n");
                for entry in &q.resume_state {
                    match &entry.value {
                        ResumeValue::Text(text) if entry.key.is_empty() => {
                            let mut lines = text.lines();
                            let _ = writeln!(out, "  - {}", lines.next().unwrap_or(""));
                            for line in lines {
                                let _ = writeln!(out, "    {line}");
                            }
                        }
                        ResumeValue::Text(text) => {
                            let mut lines = text.lines();
                            let _ = writeln!(out, "  - {}: {}", entry.key, lines.next().unwrap_or(""));
                            for line in lines {
                                let _ = writeln!(out, "    {line}");
                            }
                        }
                        ResumeValue::Nested(block) => {
                            let _ = writeln!(out, "  - {}:", entry.key);
                            for line in block.render().lines() {
                                if line.is_empty() {
                                    out.push('\n');
                                } else {
                                    let _ = writeln!(out, "    {line}");
                                }
                            }
                        }
                    }
                }
                out.push('\n');
                let _ = writeln!(out, "{}", q.question.trim_end());
                out.push('\n');
                for (i, option) in q.options.iter().enumerate() {
                    push_field(&mut out, &format!("Option {}", i + 1), option);
                }
                out.push('\n');
                let _ = writeln!(out, "{}", q.prompt);
            }
        }
        out
    }
}

impl std::fmt::Display for ResultBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render())
    }
}

fn push_field(out: &mut String, key: &str, value: &str) {
    if key.is_empty() {
        // A line that was not `Key: value`: as it was written.
        for line in value.lines() {
            let _ = writeln!(out, "{line}");
        }
        return;
    }
    let mut lines = value.lines();
    match lines.next().unwrap_or("") {
        "" => {
            let _ = writeln!(out, "{key}:");
        }
        first => {
            let _ = writeln!(out, "{key}: {first}");
        }
    }
    for line in lines {
        let _ = writeln!(out, "  {line}");
    }
}

/// Why a text is not a RESULT block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// The text of the first RESULT block in `text` as it was written: from its
/// `RESULT:` line to the end (all of `text` when it has none).
pub fn block_text(text: &str) -> &str {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("RESULT:") {
            return &text[at..];
        }
        at += line.len();
    }
    text
}

/// Reads the first RESULT block in `text` (anything before `RESULT:` is
/// chatter and ignored).
pub fn parse(text: &str) -> Result<ResultBlock, ParseError> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with("RESULT:"))
        .ok_or_else(|| ParseError {
            line: 1,
            message: "no 'RESULT:' line".into(),
        })?;
    let indent = lines[start].len() - lines[start].trim_start().len();
    let block: Vec<&str> = lines[start..].iter().map(|l| strip_columns(l, indent)).collect();
    parse_block(&block, start + 1)
}

fn strip_columns(line: &str, n: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(n)..]
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn parse_block(lines: &[&str], first_line: usize) -> Result<ResultBlock, ParseError> {
    let kind = lines[0].trim().trim_start_matches("RESULT:").trim();
    let body = &lines[1..];
    let err = |offset: usize, message: &str| ParseError {
        line: first_line + offset,
        message: message.to_owned(),
    };
    match kind {
        "SUCCESS" => Ok(ResultBlock::Success(Success {
            fields: key_values(body),
        })),
        "ERROR" => {
            let mut e = ErrorResult::default();
            let mut description = None;
            for (key, value) in key_values(body) {
                match key.as_str() {
                    "Description" => description = Some(value),
                    "Details" => e.details = Some(value),
                    _ => e.context.push((key, value)),
                }
            }
            e.description = description.ok_or_else(|| err(0, "ERROR has no 'Description:' line"))?;
            Ok(ResultBlock::Error(e))
        }
        "QUESTION" => parse_question(body, first_line + 1).map(ResultBlock::Question),
        other => Err(err(
            0,
            &format!("unknown result '{other}' (expected SUCCESS, ERROR or QUESTION)"),
        )),
    }
}

/// `Key: value` lines at column 0 with two-space continuation lines; blank
/// lines end nothing and are dropped.
fn key_values(lines: &[&str]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.trim().is_empty() {
            continue;
        }
        if indent(line) >= 2 {
            if let Some((_, value)) = out.last_mut() {
                value.push('\n');
                value.push_str(strip_columns(line, 2));
                continue;
            }
        }
        match split_key(line) {
            Some((key, value)) => out.push((key.trim().to_owned(), value.trim_start().to_owned())),
            None => out.push((String::new(), line.trim().to_owned())),
        }
    }
    out
}

/// `Key: value` split at the first colon that a space follows or that ends
/// the line; `None` for text such as a URL (`https://…`).
fn split_key(line: &str) -> Option<(&str, &str)> {
    let at = line.find(':')?;
    let rest = &line[at + 1..];
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then(|| (&line[..at], rest))
}

fn parse_question(lines: &[&str], first_line: usize) -> Result<Question, ParseError> {
    let err = |offset: usize, message: &str| ParseError {
        line: first_line + offset,
        message: message.to_owned(),
    };
    let mut i = 0;
    let mut context: Option<String> = None;
    // Context (with continuation lines) until "Resume State:".
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("Resume State:") {
            break;
        }
        if let Some(value) = line.strip_prefix("Context:") {
            context = Some(value.trim_start().to_owned());
        } else if indent(line) >= 2 && !line.trim().is_empty() {
            if let Some(c) = context.as_mut() {
                c.push('\n');
                c.push_str(strip_columns(line, 2));
            }
        }
        i += 1;
    }
    let context = context.ok_or_else(|| err(0, "QUESTION has no 'Context:' line"))?;
    if i >= lines.len() {
        return Err(err(i, "QUESTION has no 'Resume State:' line"));
    }
    i += 1;
    // The Resume State: indented lines (and blank lines followed by more of them).
    let state_start = i;
    let mut state_end = i;
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        if indent(line) < 2 {
            break;
        }
        i += 1;
        state_end = i;
    }
    let resume_state = resume_entries(&lines[state_start..state_end], first_line + state_start)?;
    // The question, the options and the prompt.
    let rest = &lines[state_end..];
    let option_at = |l: &str| {
        l.strip_prefix("Option ")
            .and_then(|r| r.split_once(':'))
            .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            .map(|(_, text)| text.trim_start().to_owned())
    };
    let first_option = rest.iter().position(|l| option_at(l).is_some());
    let question_lines = &rest[..first_option.unwrap_or(rest.len())];
    let question = question_lines.join("\n").trim().to_owned();
    let mut options: Vec<String> = Vec::new();
    let mut prompt = String::new();
    if let Some(start) = first_option {
        for line in &rest[start..] {
            if let Some(text) = option_at(line) {
                options.push(text);
            } else if indent(line) >= 2 && !line.trim().is_empty() && prompt.is_empty() {
                if let Some(last) = options.last_mut() {
                    last.push('\n');
                    last.push_str(strip_columns(line, 2));
                }
            } else if !line.trim().is_empty() {
                prompt = line.trim().to_owned();
                break;
            }
        }
    }
    if options.is_empty() {
        return Err(err(state_end, "QUESTION has no 'Option N:' lines"));
    }
    if prompt.is_empty() {
        prompt = DEFAULT_PROMPT.to_owned();
    }
    Ok(Question {
        context,
        resume_state,
        question,
        options,
        prompt,
    })
}

fn resume_entries(lines: &[&str], first_line: usize) -> Result<Vec<ResumeEntry>, ParseError> {
    let mut entries = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        let Some(item) = line
            .trim_start()
            .strip_prefix("- ")
            .or_else(|| line.trim_start().strip_prefix('-'))
        else {
            return Err(ParseError {
                line: first_line + i,
                message: "Resume State entries must be '  - Key: value' lines".into(),
            });
        };
        let (key, value) = split_key(item).map_or(("", item.trim()), |(k, v)| (k.trim(), v.trim_start()));
        let entry_indent = indent(line);
        // Further lines of this entry: deeper than the entry's dash.
        let mut j = i + 1;
        let mut end = j;
        while j < lines.len() {
            if lines[j].trim().is_empty() {
                j += 1;
                continue;
            }
            if indent(lines[j]) <= entry_indent {
                break;
            }
            j += 1;
            end = j;
        }
        let further: Vec<&str> = lines[i + 1..end].to_vec();
        let nested_start = further.iter().position(|l| !l.trim().is_empty());
        let value = match nested_start {
            Some(k) if value.is_empty() && further[k].trim_start().starts_with("RESULT:") => {
                let depth = indent(further[k]);
                let block: Vec<&str> = further[k..].iter().map(|l| strip_columns(l, depth)).collect();
                ResumeValue::Nested(Box::new(parse_block(&block, first_line + i + 1 + k)?))
            }
            _ => {
                let mut text = value.to_owned();
                for l in further {
                    text.push('\n');
                    text.push_str(strip_columns(l, entry_indent + 2));
                }
                ResumeValue::Text(text.trim_end().to_owned())
            }
        };
        entries.push(ResumeEntry {
            key: key.to_owned(),
            value,
        });
        i = end.max(i + 1);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests;
