//! The task-plan format (DESIGN §4.3, seed 000): `<task type="…">` elements
//! with `<name>Task N: …</name>`, `<files>`, `<action>`, `<verify>` and
//! `<done>`, a `<success_criteria>` checklist, and optional YAML front matter.
//! Tags inside fenced code blocks are examples, not tasks.

use super::markdown::{checkbox, code_spans, plain, strip_list_marker, Document};
use super::ultraplan::empty_plan;
use super::{
    task_number, Checkpoint, Criterion, Diagnostics, FailurePolicy, FileRef, OnFailure, Plan, PlanKind, Step, Verify,
};

/// YAML front matter between `---` lines at the top of the file.
pub(crate) struct FrontMatter<'a> {
    /// The file after the front matter.
    pub body: &'a str,
    pub body_first_line: usize,
    /// Top-level `key: value` pairs, values unquoted and kept as text
    /// (so `plan: 01` stays `01`).
    entries: Vec<(String, String)>,
    yaml: Option<&'a str>,
}

impl FrontMatter<'_> {
    pub fn value(&self, key: &str) -> Option<String> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    }

    /// Reports front matter that is not valid YAML.
    pub fn check(&self, diags: &mut Diagnostics) {
        if let Some(yaml) = self.yaml {
            if let Err(err) = serde_yaml::from_str::<serde_yaml::Value>(yaml) {
                let line = err.location().map_or(1, |l| l.line() + 1);
                let message = err.to_string();
                diags.problem(
                    line,
                    format!(
                        "front matter is not valid YAML: {}",
                        message.lines().next().unwrap_or("")
                    ),
                );
            }
        }
    }
}

pub(crate) fn front_matter(text: &str) -> FrontMatter<'_> {
    let none = FrontMatter {
        body: text,
        body_first_line: 1,
        entries: Vec::new(),
        yaml: None,
    };
    let first_end = text.find('\n').unwrap_or(text.len());
    if text[..first_end].trim_end() != "---" {
        return none;
    }
    let mut offset = first_end + 1;
    let mut line_no = 2;
    while offset <= text.len() {
        let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let line = text[offset..end].trim_end();
        if line == "---" || line == "..." {
            let yaml = &text[first_end + 1..offset];
            let entries = yaml
                .lines()
                .filter(|l| !l.starts_with([' ', '\t', '#', '-']))
                .filter_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    let v = v.trim();
                    let v = v.split(" #").next().unwrap_or(v).trim();
                    Some((k.trim().to_owned(), v.trim_matches(['"', '\'']).to_owned()))
                })
                .collect();
            let body_start = (end + 1).min(text.len());
            return FrontMatter {
                body: &text[body_start..],
                body_first_line: line_no + 1,
                entries,
                yaml: Some(yaml),
            };
        }
        if end == text.len() {
            break;
        }
        offset = end + 1;
        line_no += 1;
    }
    none
}

/// Whether the document has a `<task>` element outside code blocks.
pub(crate) fn has_tasks(doc: &Document<'_>) -> bool {
    doc.lines
        .iter()
        .filter(|l| !l.fenced)
        .any(|l| find_open_tag(l.text, "task", 0).is_some())
}

/// Finds `<name` followed by whitespace, `>` or `/` from byte `from`.
fn find_open_tag(text: &str, name: &str, from: usize) -> Option<usize> {
    let pattern = format!("<{name}");
    let mut at = from;
    while let Some(i) = text.get(at..)?.find(&pattern) {
        let start = at + i;
        let after = text[start + pattern.len()..].chars().next();
        if matches!(after, Some(c) if c.is_whitespace() || c == '>') {
            return Some(start);
        }
        at = start + pattern.len();
    }
    None
}

/// The text with fenced lines blanked (same length and line numbers), so tags
/// in code examples are not found.
fn visible_text(doc: &Document<'_>) -> String {
    doc.lines
        .iter()
        .map(|l| {
            if l.fenced {
                " ".repeat(l.text.len())
            } else {
                l.text.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

struct Element {
    content: String,
    /// The line of the opening tag.
    line: usize,
    /// The line of the content's first character.
    content_line: usize,
}

/// The first `<name>…</name>` inside `scope` (byte offsets into `text`).
fn element(text: &str, name: &str, scope: (usize, usize), first_line: usize) -> Option<Element> {
    element_in(text, text, name, scope, first_line)
}

/// Like [`element`], but found in `visible` (fences blanked) and read from
/// `raw` (the same text with its fences), which have the same offsets: the
/// content keeps its code blocks.
fn element_in(visible: &str, raw: &str, name: &str, scope: (usize, usize), first_line: usize) -> Option<Element> {
    let (from, to) = scope;
    let open = find_open_tag(&visible[..to], name, from)?;
    let content_start = open + visible[open..to].find('>')? + 1;
    let close_tag = format!("</{name}>");
    let close = content_start + visible[content_start..to].find(&close_tag)?;
    let content = raw.get(content_start..close)?;
    let lead = content.len() - content.trim_start().len();
    Some(Element {
        content: decode_entities(content.trim()),
        line: first_line + visible[..open].matches('\n').count(),
        content_line: first_line + visible[..content_start + lead].matches('\n').count(),
    })
}

fn decode_entities(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// `key="value"` attributes of an opening tag.
fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = tag;
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].split_whitespace().last().unwrap_or("").to_owned();
        let after = rest[eq + 1..].trim_start();
        let Some(quote) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            break;
        };
        let Some(end) = after[1..].find(quote) else {
            break;
        };
        out.push((key, after[1..1 + end].to_owned()));
        rest = &after[end + 2..];
    }
    out
}

pub(crate) fn parse(doc: &Document<'_>, front: &FrontMatter<'_>, diags: &mut Diagnostics) -> Plan {
    let mut plan = empty_plan(PlanKind::TaskPlan, doc);
    let text = visible_text(doc);
    let raw: String = doc.lines.iter().map(|l| l.text).collect::<Vec<_>>().join("\n");
    let first_line = front.body_first_line;
    let mut at = 0;
    let mut index = 0u32;
    while let Some(open) = find_open_tag(&text, "task", at) {
        index += 1;
        let line = first_line + text[..open].matches('\n').count();
        let Some(tag_end) = text[open..].find('>').map(|i| open + i) else {
            diags.problem(line, "<task> tag is not closed with '>'");
            break;
        };
        let Some(close) = text[tag_end..].find("</task>").map(|i| tag_end + i) else {
            diags.problem(line, "<task> has no matching </task>");
            break;
        };
        let attrs = attributes(&text[open + "<task".len()..tag_end]);
        let scope = (tag_end + 1, close);
        plan.steps
            .push(task((&text, &raw), scope, line, index, &attrs, first_line, diags));
        at = close + "</task>".len();
    }
    if plan.steps.is_empty() {
        diags.problem(1, "no <task> elements found");
    }
    if plan.title.is_none() {
        plan.title = element(&text, "objective", (0, text.len()), first_line)
            .and_then(|e| e.content.lines().next().map(plain))
            .filter(|t| !t.is_empty());
    }
    plan.success_criteria = success_criteria(&text, first_line, &plan, diags);
    plan
}

fn task(
    (text, raw): (&str, &str),
    scope: (usize, usize),
    line: usize,
    index: u32,
    attrs: &[(String, String)],
    first_line: usize,
    diags: &mut Diagnostics,
) -> Step {
    let name = element(text, "name", scope, first_line);
    let (number, title, full_name) = match &name {
        Some(e) => match task_number(&e.content) {
            Some(n) => {
                let title = e.content.split_once(':').map_or("", |(_, t)| t).trim().to_owned();
                (n, title, Some(e.content.clone()))
            }
            None => {
                diags.problem(
                    e.line,
                    format!("task name '{}' does not start with 'Task N:'", e.content),
                );
                (index, e.content.clone(), Some(e.content.clone()))
            }
        },
        None => {
            diags.problem(line, "<task> has no <name>");
            (index, String::new(), None)
        }
    };
    let files = match element(text, "files", scope, first_line) {
        Some(e) => task_files(&e),
        None => {
            diags.warning(line, format!("task {number} has no <files>"));
            Vec::new()
        }
    };
    let verify = match element(text, "verify", scope, first_line) {
        Some(e) if !e.content.is_empty() => {
            let spans = code_spans(&e.content);
            let command = match spans.first() {
                Some(span) => span.content.trim().to_owned(),
                None => e.content.clone(),
            };
            Some(Verify {
                command,
                expected: None,
                expected_kind: None,
            })
        }
        _ => {
            diags.warning(
                line,
                format!("task {number} has no <verify>; it can pass only with --allow-unverified"),
            );
            None
        }
    };
    let action = element_in(text, raw, "action", scope, first_line);
    if action.is_none() {
        diags.warning(line, format!("task {number} has no <action>"));
    }
    let task_type = attrs.iter().find(|(k, _)| k == "type").map(|(_, v)| v.clone());
    // Fenced blocks in <action> are what the shell executor runs, as in a
    // step's Changes.
    let code_blocks = action
        .as_ref()
        .map(|a| super::markdown::code_blocks(&super::markdown::Document::new(&a.content, a.content_line).lines))
        .unwrap_or_default();
    Step {
        number,
        title,
        files,
        changes: action.map(|a| a.content).unwrap_or_default(),
        code_blocks,
        reuses: None,
        test_first: None,
        verify,
        on_failure: OnFailure {
            action: FailurePolicy::Retry,
            instructions: None,
        },
        checkpoint: full_name.as_ref().map(|n| Checkpoint::Commit { message: n.clone() }),
        manifest: None,
        done: element(text, "done", scope, first_line).map(|e| e.content),
        task_type,
        name: full_name,
        line,
    }
}

/// `<files>`: comma- or line-separated paths, backticked or plain.
fn task_files(e: &Element) -> Vec<FileRef> {
    let mut out = Vec::new();
    for (i, raw_line) in e.content.lines().enumerate() {
        let spans = code_spans(raw_line);
        let items: Vec<String> = if spans.is_empty() {
            raw_line
                .split(',')
                .map(|p| {
                    super::fields::strip_parentheses(strip_list_marker(p.trim()))
                        .trim()
                        .to_owned()
                })
                .collect()
        } else {
            spans.into_iter().map(|s| s.content).collect()
        };
        for path in items
            .into_iter()
            .filter(|p| !p.is_empty() && !super::fields::is_none_value(p))
        {
            out.push(FileRef {
                new: false,
                path,
                line: e.content_line + i,
            });
        }
    }
    out
}

fn success_criteria(text: &str, first_line: usize, plan: &Plan, diags: &mut Diagnostics) -> Option<Vec<Criterion>> {
    let e = element(text, "success_criteria", (0, text.len()), first_line)?;
    let mut out = Vec::new();
    for (i, line) in e.content.lines().enumerate() {
        let no = e.content_line + i;
        let item = strip_list_marker(line.trim());
        let Some((checked, rest)) = checkbox(item) else {
            continue;
        };
        let task = task_number(rest);
        match task {
            Some(n) if plan.step(n).is_none() => diags.warning(
                no,
                format!("success criterion names Task {n}, which the plan does not have"),
            ),
            None => diags.warning(no, format!("success criterion '{rest}' does not start with 'Task N:'")),
            _ => {}
        }
        out.push(Criterion {
            task,
            text: rest.trim().to_owned(),
            checked,
            line: no,
        });
    }
    Some(out)
}
