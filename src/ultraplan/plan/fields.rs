//! Readers for field values: Files, Verify (with `→ expected:`), On failure,
//! Checkpoint, Manifest, Test first, step lists, session references and scope
//! fences. Each takes a [`Field`] and reports what it cannot read.

use super::markdown::{code_spans, plain, Field};
use super::pattern::PathPattern;
use super::{
    Check, Checkpoint, Diagnostics, ExpectedKind, FailurePolicy, FileRef, Manifest, OnFailure, TestFirst, Verify,
};

/// A value meaning "nothing here": `none`, `n/a`, `-`, optionally with a remark.
pub(crate) fn is_none_value(text: &str) -> bool {
    let t = plain(text).to_lowercase();
    let first = t
        .split(|c: char| !c.is_alphanumeric() && c != '/')
        .find(|w| !w.is_empty())
        .unwrap_or("");
    t.is_empty() || t == "-" || t == "—" || first == "none" || first == "n/a" || first == "nothing"
}

/// Files: backticked paths (or plain comma-separated ones), `(new)` marking a
/// file the step creates; `none` for no files.
pub(crate) fn files(field: &Field<'_>, step: u32, diags: &mut Diagnostics) -> Vec<FileRef> {
    let mut out = Vec::new();
    if is_none_value(&field.text()) {
        return out;
    }
    for (line, text) in field.lines() {
        let spans = code_spans(text);
        if spans.is_empty() {
            for token in text.split(',') {
                let item = super::markdown::strip_list_marker(token.trim());
                let (path_part, remark) = match item.find('(') {
                    Some(i) => (&item[..i], &item[i..]),
                    None => (item, ""),
                };
                let path = path_part.trim().trim_matches(['*', '_']).trim();
                if path.is_empty() || is_none_value(path) {
                    continue;
                }
                if path.contains('`') {
                    diags.problem(
                        line,
                        format!("step {step}: Files item '{path}' has an unmatched backtick; a path cannot span lines"),
                    );
                    continue;
                }
                if path.contains(char::is_whitespace) {
                    diags.warning(
                        line,
                        format!("step {step}: cannot read '{path}' as a path in Files; put paths in backticks"),
                    );
                    continue;
                }
                out.push(FileRef {
                    path: path.to_owned(),
                    new: marks_new(remark),
                    line,
                });
            }
            continue;
        }
        for (i, span) in spans.iter().enumerate() {
            let remark_end = spans.get(i + 1).map_or(text.len(), |next| next.start);
            let remark = &text[span.end..remark_end];
            let remark = remark.split(',').next().unwrap_or("");
            let path = span.content.trim();
            if path.is_empty() {
                continue;
            }
            out.push(FileRef {
                path: path.to_owned(),
                new: marks_new(remark),
                line,
            });
        }
    }
    out
}

fn marks_new(remark: &str) -> bool {
    let r = remark.to_lowercase();
    r.contains("(new") || r.contains("new file") || r.contains("(create")
}

/// Splits `text` at an `→ expected:` marker outside code spans: the text
/// before (arrows and dashes trimmed) and the expectation after.
pub(crate) fn split_expected(text: &str) -> (&str, Option<&str>) {
    let lower = text.to_lowercase();
    let spans = code_spans(text);
    let mut from = 0;
    while let Some(found) = lower[from..].find("expected") {
        let at = from + found;
        from = at + "expected".len();
        if spans.iter().any(|s| s.start <= at && at < s.end) {
            continue;
        }
        let after = text[at + "expected".len()..].trim_start();
        let Some(after) = after.strip_prefix(':') else {
            continue;
        };
        let before = text[..at]
            .trim_end()
            .trim_end_matches(['→', '-', '>', '=', '—', '–', ',', ';', '|'])
            .trim_end();
        return (before, Some(after.trim()));
    }
    (text, None)
}

/// Classifies an expectation: a comparison (`>= 1`, backticked or not), a
/// backticked literal, or prose.
pub(crate) fn expectation(text: &str) -> (String, ExpectedKind) {
    let trimmed = text.trim();
    let spans = code_spans(trimmed);
    match spans.first() {
        Some(span) if span.start == 0 => {
            let literal = span.content.clone();
            let kind = if is_comparison(&literal) {
                ExpectedKind::Comparison
            } else {
                ExpectedKind::Literal
            };
            (literal, kind)
        }
        _ if is_comparison(trimmed) => (trimmed.to_owned(), ExpectedKind::Comparison),
        _ => (plain(trimmed), ExpectedKind::Prose),
    }
}

/// `>= 1`, `< 5`, `== 0`, `!= 2`: an operator and a number.
pub(crate) fn is_comparison(text: &str) -> bool {
    let t = text.trim();
    let op_len = ["<=", ">=", "==", "!=", "<", ">", "="]
        .iter()
        .find(|op| t.starts_with(*op))
        .map_or(0, |op| op.len());
    op_len > 0 && t[op_len..].trim().parse::<f64>().is_ok_and(f64::is_finite)
}

/// `>= NaN`, `< inf`, `== many`: an operator with no finite number after it,
/// which no output can satisfy.
pub(crate) fn is_broken_comparison(text: &str) -> bool {
    let t = text.trim().trim_matches('`').trim();
    let op_len = ["<=", ">=", "==", "!=", "<", ">"]
        .iter()
        .find(|op| t.starts_with(*op))
        .map_or(0, |op| op.len());
    op_len > 0 && !is_comparison(t)
}

/// A `` `command` → expected: `text` `` item (Verification, Exit Condition).
pub(crate) fn check_item(text: &str, line: usize) -> Option<Check> {
    let (before, expected) = split_expected(text);
    let spans = code_spans(before);
    let first = spans.first()?;
    // The command must lead the item; a backticked word inside prose is not a check.
    if !before[..first.start].trim().is_empty() {
        return None;
    }
    let (expected, expected_kind) = match expected {
        Some(e) if !e.is_empty() => {
            let (text, kind) = expectation(e);
            (Some(text), Some(kind))
        }
        _ => (None, None),
    };
    Some(Check {
        command: first.content.trim().to_owned(),
        expected,
        expected_kind,
        line,
    })
}

/// The text of a Verify written as prose (no code span, no fenced block,
/// not a command by `verify_text`'s rule): a check for a person.
pub(crate) fn prose_verify(field: &Field<'_>) -> Option<String> {
    let (before, _) = split_expected(&field.value);
    let text = plain(before);
    let prose = code_spans(before).is_empty()
        && !text.is_empty()
        && !is_none_value(&text)
        && field.code_blocks().is_empty()
        && matches!(super::verify_text::read(&text), super::verify_text::Reading::Prose { commands, .. } if commands.is_empty());
    prose.then_some(text)
}

/// Verify: a backticked command on the line, or a fenced block on the next
/// lines, then optionally `→ expected: …` on the same or a later line.
pub(crate) fn verify(field: &Field<'_>, step: u32, diags: &mut Diagnostics) -> Option<Verify> {
    let (before, mut expected) = split_expected(&field.value);
    let mut command = None;
    let spans = code_spans(before);
    if let Some(first) = spans.first() {
        if spans.len() > 1 {
            diags.warning(
                field.line,
                format!(
                    "step {step}: Verify has {} backticked commands; only the first is run",
                    spans.len()
                ),
            );
        }
        command = Some(first.content.trim().to_owned());
    } else if !before.trim().is_empty() {
        let text = plain(before);
        if is_none_value(&text) || super::verify_text::is_command(&text) {
            command = Some(text);
        } else if let super::verify_text::Reading::Prose { commands, .. } = super::verify_text::read(&text) {
            match commands.is_empty() {
                // "npm test passes": the command, the rest recorded.
                false => {
                    command = Some(commands.join(" && "));
                    expected = expected.or(Some(before.trim()));
                }
                true => {
                    diags.warning(
                        field.line,
                        format!("step {step}: Verify is prose, not a command ('{text}'); run stops there for a person to check it (or takes the executor's word with --allow-unverified)"),
                    );
                    return None;
                }
            }
        }
    }
    if command.is_none() {
        command = field
            .code_blocks()
            .into_iter()
            .next()
            .map(|block| block.code.trim().to_owned());
    }
    if expected.is_none() {
        expected = field
            .body
            .iter()
            .filter(|l| !l.fenced)
            .find_map(|l| split_expected(l.text.trim()).1);
    }
    let Some(command) = command.filter(|c| !c.is_empty()) else {
        diags.problem(
            field.line,
            format!("step {step}: Verify is empty; give a command, or 'none' to pass only with --allow-unverified"),
        );
        return None;
    };
    if is_none_value(&command) {
        diags.warning(
            field.line,
            format!("step {step}: Verify is '{command}'; the step can pass only with --allow-unverified"),
        );
        return None;
    }
    if let Some(e) = expected.filter(|e| is_broken_comparison(e)) {
        diags.problem(
            field.line,
            format!(
                "step {step}: expected '{e}' compares with something that is not a finite number; no output can pass"
            ),
        );
    }
    let (expected, expected_kind) = match expected.filter(|e| !e.is_empty()) {
        Some(e) => {
            let (text, kind) = expectation(e);
            (Some(text), Some(kind))
        }
        None => (None, None),
    };
    Some(Verify {
        command,
        expected,
        expected_kind,
    })
}

/// On failure: a policy keyword (optionally backticked or bold), then a dash
/// and free text for the executor.
pub(crate) fn on_failure(field: &Field<'_>, step: u32, diags: &mut Diagnostics) -> Option<OnFailure> {
    let text = field.text().replace('\n', " ");
    let trimmed = text.trim_start_matches(['`', '*', '_', ' ']);
    let word: String = trimmed.chars().take_while(|c| c.is_alphabetic()).collect();
    let action = match word.to_lowercase().as_str() {
        "revert" => FailurePolicy::Revert,
        "retry" => FailurePolicy::Retry,
        "skip" => FailurePolicy::Skip,
        "escalate" => FailurePolicy::Escalate,
        _ => {
            diags.problem(
                field.line,
                format!(
                    "step {step}: unknown On failure action '{}' (expected revert, retry, skip or escalate)",
                    trimmed.split_whitespace().next().unwrap_or("")
                ),
            );
            return None;
        }
    };
    let rest = trimmed[word.len()..]
        .trim_start_matches(['`', '*', '_'])
        .trim_start()
        .trim_start_matches(['—', '–', '-', ':', ',', ';', '.'])
        .trim();
    Some(OnFailure {
        action,
        instructions: (!rest.is_empty()).then(|| rest.to_owned()),
    })
}

/// Checkpoint: `git commit -m "<message>"` becomes a commit ultraplan makes;
/// `none` means no commit; anything else is a command run as written.
pub(crate) fn checkpoint(field: &Field<'_>, step: u32, diags: &mut Diagnostics) -> Option<Checkpoint> {
    let text = field.text();
    if is_none_value(&text) {
        return None;
    }
    let spans = code_spans(&text);
    let command = match spans.first() {
        Some(span) => span.content.trim().to_owned(),
        None => text.trim().to_owned(),
    };
    if command.is_empty() {
        return None;
    }
    if let Some(words) = shell_words(&command) {
        if let Some(message) = commit_message(&words) {
            if message.trim().is_empty() {
                diags.problem(field.line, format!("step {step}: Checkpoint commit message is empty"));
                return None;
            }
            return Some(Checkpoint::Commit { message });
        }
        if stages_everything(&words) {
            diags.warning(
                field.line,
                format!(
                    "step {step}: Checkpoint '{command}' stages everything in the worktree; it is run as written, \
                     but only a plain git commit -m \"…\" lets ultraplan stage just the step's files"
                ),
            );
        }
    }
    Some(Checkpoint::Command { command })
}

/// The message of `git commit -m <msg> [-m <msg>…]` (paragraphs joined as git
/// does), or `None` when the command is anything else.
fn commit_message(words: &[String]) -> Option<String> {
    if words.len() < 3 || words[0] != "git" || words[1] != "commit" {
        return None;
    }
    let mut paragraphs = Vec::new();
    let mut i = 2;
    while i < words.len() {
        let w = &words[i];
        if w == "-m" || w == "--message" {
            paragraphs.push(words.get(i + 1)?.clone());
            i += 2;
        } else if let Some(m) = w.strip_prefix("--message=") {
            paragraphs.push(m.to_owned());
            i += 1;
        } else if let Some(m) = w.strip_prefix("-m").filter(|m| !m.is_empty()) {
            paragraphs.push(m.to_owned());
            i += 1;
        } else {
            return None;
        }
    }
    (!paragraphs.is_empty()).then(|| paragraphs.join("\n\n"))
}

fn stages_everything(words: &[String]) -> bool {
    words.windows(2).any(|w| {
        (w[0] == "add" && matches!(w[1].as_str(), "-A" | "--all" | "." | ":/" | "-u" | "--update"))
            || (w[0] == "commit" && (w[1] == "-a" || w[1] == "--all" || w[1] == "-am"))
    }) || (words.iter().any(|w| w == "commit") && words.iter().any(|w| w == "-a" || w == "--all" || w == "-am"))
}

/// Splits a command into words the way `sh` would for simple commands:
/// quotes and backslashes; `None` for anything with shell operators,
/// substitutions or unbalanced quotes.
pub fn shell_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        x => word.push(x),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            x @ ('"' | '\\' | '$' | '`') => word.push(x),
                            '\n' => {}
                            x => {
                                word.push('\\');
                                word.push(x);
                            }
                        },
                        '$' | '`' => return None,
                        x => word.push(x),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            ';' | '&' | '|' | '<' | '>' | '$' | '`' | '(' | ')' | '\n' => return None,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// Manifest: a YAML block (usually fenced), with or without a `manifest:` key.
pub(crate) fn manifest(field: &Field<'_>, step: u32, diags: &mut Diagnostics) -> Option<Manifest> {
    let (yaml, line) = match field.code_blocks().into_iter().next() {
        Some(block) => (block.code, block.line + 1),
        None => (field.text(), field.line),
    };
    let value: serde_yaml::Value = match crate::yaml::parse(&yaml) {
        Ok(v) => v,
        Err(err) => {
            let at = err.line.map_or(line, |l| line + l.saturating_sub(1));
            diags.problem(at, format!("step {step}: Manifest is not valid YAML: {}", err.message));
            return None;
        }
    };
    let inner = match &value {
        serde_yaml::Value::Mapping(m) if m.len() == 1 && m.contains_key("manifest") => m["manifest"].clone(),
        _ => value,
    };
    if let serde_yaml::Value::Mapping(m) = &inner {
        const KNOWN: [&str; 7] = [
            "expected_paths",
            "forbidden_paths",
            "must_contain",
            "must_not_contain",
            "min_file_count",
            "commit_message_pattern",
            "bash_syntax_check",
        ];
        for key in m.keys().filter_map(|k| k.as_str()) {
            if !KNOWN.contains(&key) {
                diags.warning(line, format!("step {step}: unknown Manifest key '{key}' is ignored"));
            }
        }
    }
    match serde_yaml::from_value::<Manifest>(inner) {
        Ok(m) => Some(m),
        Err(err) => {
            diags.problem(
                line,
                format!(
                    "step {step}: cannot read the Manifest: {}",
                    first_line(&err.to_string())
                ),
            );
            None
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// Test first: one line, or nested `File:`/`Verifies:`/`Pattern:` items.
pub(crate) fn test_first(field: &Field<'_>) -> TestFirst {
    let mut test = TestFirst::default();
    let value = field.value.trim();
    if !value.is_empty() {
        test.text = Some(value.to_owned());
        test.file = code_spans(value)
            .into_iter()
            .map(|s| s.content)
            .find(|c| c.contains('/') || c.contains('.'));
    }
    for sub in field.subfields() {
        let text = sub.text();
        match sub.label.as_str() {
            "file" | "files" => {
                test.file = code_spans(&text)
                    .into_iter()
                    .next()
                    .map(|s| s.content)
                    .or_else(|| Some(plain(&text)))
            }
            "verifies" | "verify" => test.verifies = Some(plain(&text)),
            "pattern" => test.pattern = Some(text.trim().to_owned()),
            _ => {}
        }
    }
    test
}

/// A list of step numbers: `1, 2`, `1-3`, `1–3`, `3 and 4`.
pub(crate) fn step_list(text: &str) -> Result<Vec<u32>, String> {
    let cleaned = strip_parentheses(&plain(text)).replace(['–', '—'], "-");
    let cleaned = cleaned.replace(" and ", ",").replace(" to ", "-");
    let mut out = Vec::new();
    for part in cleaned.split([',', ';']) {
        let part = part.trim();
        let part = part
            .strip_prefix("Steps")
            .or_else(|| part.strip_prefix("steps"))
            .or_else(|| part.strip_prefix("Step"))
            .or_else(|| part.strip_prefix("step"))
            .unwrap_or(part)
            .trim();
        if part.is_empty() {
            continue;
        }
        if let Some((a, b)) = part.split_once('-') {
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                return Err(format!("range '{part}' runs backwards"));
            }
            if b - a > 10_000 {
                return Err(format!("range '{part}' is too large"));
            }
            out.extend(a..=b);
        } else {
            out.push(number(part)?);
        }
    }
    Ok(out)
}

fn number(text: &str) -> Result<u32, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("'{}' is not a step number", text.trim()))
}

/// Text without `( … )` remarks.
pub(crate) fn strip_parentheses(text: &str) -> String {
    let mut depth = 0usize;
    text.chars()
        .filter(|&c| match c {
            '(' => {
                depth += 1;
                false
            }
            ')' => {
                depth = depth.saturating_sub(1);
                false
            }
            _ => depth == 0,
        })
        .collect()
}

/// Session references: `none`, `Session 1`, `Sessions 1, 2`, `S1, S2`;
/// remarks after a dash or in parentheses are ignored.
pub(crate) fn session_refs(text: &str) -> Result<Vec<u32>, String> {
    let cleaned = strip_parentheses(&plain(text));
    let head = cleaned.split([' ', '\t']).collect::<Vec<_>>().join(" ");
    let head = ["—", "–", " - ", ":"]
        .iter()
        .fold(head.as_str(), |acc, sep| acc.split(sep).next().unwrap_or(acc))
        .trim()
        .to_owned();
    if is_none_value(&head) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for part in head.split([',', '&', ';', '+']).flat_map(|p| p.split(" and ")) {
        let p = part.trim().to_lowercase();
        let p = p
            .strip_prefix("sessions")
            .or_else(|| p.strip_prefix("session"))
            .or_else(|| p.strip_prefix('s'))
            .unwrap_or(&p)
            .trim();
        if p.is_empty() {
            continue;
        }
        match p.parse::<u32>() {
            Ok(n) => out.push(n),
            Err(_) => return Err(format!("cannot read '{}' as a session", part.trim())),
        }
    }
    Ok(out)
}

/// A Touch or Never touch list: backticked patterns, or comma-separated
/// items. An unquoted item with spaces is kept when it reads as a path (it
/// has a `/` or a `.`), else warned about: never silently dropped.
pub(crate) fn patterns(text: &str, line: usize, diags: &mut Diagnostics) -> Vec<PathPattern> {
    if is_none_value(text) {
        return Vec::new();
    }
    let spans = code_spans(text);
    if !spans.is_empty() {
        return spans
            .into_iter()
            .map(|s| s.content.trim().to_owned())
            .filter(|s| !s.is_empty())
            .map(|text| PathPattern { text, line })
            .collect();
    }
    let mut out = Vec::new();
    for p in strip_parentheses(text).split(',') {
        let p = strip_emphasis(p.trim());
        if p.is_empty() {
            continue;
        }
        if p.contains(' ') && !(p.contains('/') || p.contains('.')) {
            diags.warning(
                line,
                format!("scope fence item '{p}' is not read as a path (it has spaces); put paths in backticks"),
            );
            continue;
        }
        out.push(PathPattern {
            text: p.to_owned(),
            line,
        });
    }
    out
}

/// `**x**` or `_x_` is emphasis around `x`; `src/**` and `**/*.rs` are globs.
fn strip_emphasis(text: &str) -> &str {
    for marker in ["**", "__", "*", "_"] {
        if let Some(inner) = text.strip_prefix(marker).and_then(|t| t.strip_suffix(marker)) {
            if !inner.is_empty() && !inner.starts_with('/') && !inner.ends_with('/') {
                return inner.trim();
            }
        }
    }
    text
}

/// A Scope fence value: `Touch: … — Never touch: …` on one line, and/or
/// nested `Touch:`/`Never touch:` items.
pub(crate) fn scope_fence(field: &Field<'_>, diags: &mut Diagnostics) -> (Vec<PathPattern>, Vec<PathPattern>) {
    let (mut touch, mut never) = split_fence(&field.value, field.line, diags);
    for sub in field.subfields() {
        let text = sub.text();
        match sub.label.as_str() {
            "touch" => touch.extend(patterns(&text, sub.line, diags)),
            "never touch" | "never" => never.extend(patterns(&text, sub.line, diags)),
            _ => {}
        }
    }
    (touch, never)
}

fn split_fence(value: &str, line: usize, diags: &mut Diagnostics) -> (Vec<PathPattern>, Vec<PathPattern>) {
    let lower = value.to_lowercase();
    let (touch_part, never_part) = match lower.find("never touch") {
        Some(i) => (&value[..i], &value[i + "never touch".len()..]),
        None => (value, ""),
    };
    let touch_part = touch_part.trim().trim_end_matches(['—', '–', '-', ';', ',', ' ']);
    let touch_part = strip_label(touch_part, "touch");
    let never_part = never_part.trim_start_matches([':', '*', ' ']);
    (patterns(touch_part, line, diags), patterns(never_part, line, diags))
}

fn strip_label<'t>(text: &'t str, label: &str) -> &'t str {
    let t = text.trim().trim_start_matches(['*', '_']);
    if t.to_lowercase().starts_with(label) {
        t[label.len()..].trim_start_matches(['*', '_', ':', ' '])
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ultraplan::plan::markdown::{parse_fields, Document};

    fn field(text: &str) -> (Field<'_>, Diagnostics) {
        let doc = Box::leak(Box::new(Document::new(text, 1)));
        (parse_fields(&doc.lines).fields.remove(0), Diagnostics::default())
    }

    #[test]
    fn files_with_markers_and_none() {
        let (f, mut d) = field("- **Files:** `src/a.rs` (new), `src/b.rs` (existing)");
        let got: Vec<_> = files(&f, 1, &mut d).into_iter().map(|f| (f.path, f.new)).collect();
        assert_eq!(got, vec![("src/a.rs".into(), true), ("src/b.rs".into(), false)]);
        let (f, mut d) = field("- **Files:** none (read-only test)");
        assert!(files(&f, 1, &mut d).is_empty());
        let (f, mut d) = field("- Files: src/a.rs, src/b.rs (new)");
        let got: Vec<_> = files(&f, 1, &mut d).into_iter().map(|f| (f.path, f.new)).collect();
        assert_eq!(got, vec![("src/a.rs".into(), false), ("src/b.rs".into(), true)]);
    }

    #[test]
    fn verify_one_line_and_fenced() {
        let (f, mut d) = field("- **Verify:** `cargo test x` → expected: `test result: ok`");
        let v = verify(&f, 1, &mut d).unwrap();
        assert_eq!(v.command, "cargo test x");
        assert_eq!(v.expected.as_deref(), Some("test result: ok"));
        assert_eq!(v.expected_kind, Some(ExpectedKind::Literal));

        let (f, mut d) = field("- **Verify:**\n  ```bash\n  a | b\n  ```\n  -> expected: non-77 exit code\n");
        let v = verify(&f, 1, &mut d).unwrap();
        assert_eq!(v.command, "a | b");
        assert_eq!(v.expected.as_deref(), Some("non-77 exit code"));
        assert_eq!(v.expected_kind, Some(ExpectedKind::Prose));

        let (f, mut d) = field("- Verify: `wc -l` → expected: `>= 1`");
        assert_eq!(
            verify(&f, 1, &mut d).unwrap().expected_kind,
            Some(ExpectedKind::Comparison)
        );
    }

    #[test]
    fn expected_inside_a_code_span_is_part_of_the_command() {
        let (before, after) = split_expected("`grep 'expected: x' f` → expected: `x`");
        assert_eq!(before, "`grep 'expected: x' f`");
        assert_eq!(after, Some("`x`"));
    }

    #[test]
    fn on_failure_forms() {
        for (text, action, instr) in [
            (
                "- **On failure:** revert — restore `a`",
                FailurePolicy::Revert,
                Some("restore `a`"),
            ),
            (
                "- **On failure:** `escalate` — the API changed",
                FailurePolicy::Escalate,
                Some("the API changed"),
            ),
            (
                "- On failure: retry - once, then escalate",
                FailurePolicy::Retry,
                Some("once, then escalate"),
            ),
            ("- On failure: **skip**", FailurePolicy::Skip, None),
        ] {
            let (f, mut d) = field(text);
            let got = on_failure(&f, 1, &mut d).unwrap();
            assert_eq!((got.action, got.instructions.as_deref()), (action, instr), "{text}");
        }
        let (f, mut d) = field("- On failure: panic");
        assert!(on_failure(&f, 1, &mut d).is_none());
        assert_eq!(d.into_vec().len(), 1);
    }

    #[test]
    fn checkpoints() {
        let (f, mut d) = field("- **Checkpoint:** `git commit -m \"feat(x): y\"`");
        assert_eq!(
            checkpoint(&f, 1, &mut d),
            Some(Checkpoint::Commit {
                message: "feat(x): y".into()
            })
        );
        let (f, mut d) = field("- Checkpoint: none");
        assert_eq!(checkpoint(&f, 1, &mut d), None);
        let (f, mut d) = field("- Checkpoint: `git commit -m 'a' -m 'b'`");
        assert_eq!(
            checkpoint(&f, 1, &mut d),
            Some(Checkpoint::Commit {
                message: "a\n\nb".into()
            })
        );
        let (f, mut d) = field("- Checkpoint: `git add -A && git commit -m x`");
        assert!(matches!(checkpoint(&f, 1, &mut d), Some(Checkpoint::Command { .. })));
        let (f, mut d) = field("- Checkpoint: `git commit -am x`");
        assert!(matches!(checkpoint(&f, 1, &mut d), Some(Checkpoint::Command { .. })));
        assert_eq!(d.into_vec().len(), 1, "warns about staging everything");
    }

    #[test]
    fn step_lists_and_session_refs() {
        assert_eq!(step_list("1, 2"), Ok(vec![1, 2]));
        assert_eq!(step_list("3–4"), Ok(vec![3, 4]));
        assert_eq!(step_list("1-3 (all config)"), Ok(vec![1, 2, 3]));
        assert!(step_list("one").is_err());
        assert!(step_list("5-2").is_err());
        assert_eq!(session_refs("none — can run in parallel"), Ok(vec![]));
        assert_eq!(session_refs("Session 1, Session 2"), Ok(vec![1, 2]));
        assert_eq!(session_refs("Sessions 1, 2"), Ok(vec![1, 2]));
        assert_eq!(session_refs("S1 and S3 (schema)"), Ok(vec![1, 3]));
        assert!(session_refs("the first one").is_err());
    }

    #[test]
    fn scope_fence_one_line_and_nested() {
        let (f, _) = field("- **Scope fence:** Touch: `src/a.rs`, `src/b/**` — Never touch: `src/c.rs`");
        let (t, n) = scope_fence(&f, &mut Diagnostics::default());
        assert_eq!(
            t.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(),
            vec!["src/a.rs", "src/b/**"]
        );
        assert_eq!(n.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(), vec!["src/c.rs"]);
        let (f, _) = field("- **Scope fence:**\n  - Touch: `a`\n  - Never touch: `b`, `c`\n");
        let (t, n) = scope_fence(&f, &mut Diagnostics::default());
        assert_eq!((t.len(), n.len()), (1, 2));
    }

    #[test]
    fn shell_words_refuse_operators() {
        assert_eq!(
            shell_words(r#"git commit -m "a \"b\"" -m 'c'"#),
            Some(vec![
                "git".into(),
                "commit".into(),
                "-m".into(),
                "a \"b\"".into(),
                "-m".into(),
                "c".into()
            ])
        );
        assert_eq!(shell_words("a && b"), None);
        assert_eq!(shell_words("echo 'unbalanced"), None);
    }
}
