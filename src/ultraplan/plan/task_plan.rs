//! The task-plan format (DESIGN §4.3, seed 000): `<task type="…">` elements
//! with `<name>Task N: …</name>`, `<files>`, `<action>`, `<verify>` and
//! `<done>`, a `<success_criteria>` checklist, and optional YAML front matter.
//! Tags inside fenced code blocks are examples, not tasks.

use super::acceptance;
use super::front_matter::FrontMatter;
use super::gsd;
use super::markdown::{checkbox, code_spans, plain, strip_list_marker, Document};
use super::ultraplan::empty_plan;
use super::{task_number, Checkpoint, Criterion, Diagnostics, FailurePolicy, FileRef, OnFailure, Plan, PlanKind, Step};

/// Whether the document has a `<task>` element (or, in a TDD plan, a
/// `<feature>`) outside code blocks.
pub(crate) fn has_tasks(doc: &Document<'_>, front: &FrontMatter<'_>) -> bool {
    let tdd = gsd::is_tdd(front);
    doc.lines
        .iter()
        .filter(|l| !l.fenced)
        .any(|l| find_open_tag(l.text, "task", 0).is_some() || (tdd && find_open_tag(l.text, "feature", 0).is_some()))
}

/// Finds `<name` followed by whitespace, `>` or `/` from byte `from`.
pub(crate) fn find_open_tag(text: &str, name: &str, from: usize) -> Option<usize> {
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

pub(crate) struct Element {
    pub content: String,
    /// The line of the opening tag.
    pub line: usize,
    /// The line of the content's first character.
    pub content_line: usize,
}

/// Line numbers of byte offsets, found by binary search (a plan may hold
/// many thousands of elements: counting newlines from the top for each
/// would be quadratic).
pub(crate) struct LineIndex {
    first_line: usize,
    newlines: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str, first_line: usize) -> LineIndex {
        LineIndex {
            first_line,
            newlines: text.match_indices('\n').map(|(i, _)| i).collect(),
        }
    }

    /// The line of byte `offset`.
    pub fn line(&self, offset: usize) -> usize {
        self.first_line + self.newlines.partition_point(|&nl| nl < offset)
    }
}

/// The first `<name>…</name>` inside `scope` (byte offsets into `text`).
pub(crate) fn element(text: &str, name: &str, scope: (usize, usize), first_line: usize) -> Option<Element> {
    element_in(text, text, name, scope, &LineIndex::new(text, first_line))
}

/// Like [`element`], but found in `visible` (fences blanked) and read from
/// `raw` (the same text with its fences), which have the same offsets: the
/// content keeps its code blocks.
fn element_in(visible: &str, raw: &str, name: &str, scope: (usize, usize), lines: &LineIndex) -> Option<Element> {
    let (from, to) = scope;
    let open = find_open_tag(&visible[..to], name, from)?;
    let content_start = open + visible[open..to].find('>')? + 1;
    let close_tag = format!("</{name}>");
    let close = content_start + visible[content_start..to].find(&close_tag)?;
    let content = raw.get(content_start..close)?;
    let lead = content.len() - content.trim_start().len();
    Some(Element {
        content: decode_entities(content.trim()),
        line: lines.line(open),
        content_line: lines.line(content_start + lead),
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
pub(crate) fn attributes(tag: &str) -> Vec<(String, String)> {
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
    let page = Page {
        text: &text,
        raw: &raw,
        lines: LineIndex::new(&text, first_line),
    };
    let mut at = 0;
    let mut index = 0u32;
    let mut unnumbered_warned = false;
    let (artifacts, truths) = acceptance::must_haves(front.yaml());
    while let Some(open) = find_open_tag(&text, "task", at) {
        index += 1;
        let line = page.lines.line(open);
        let Some(tag_end) = text[open..].find('>').map(|i| open + i) else {
            diags.problem(line, "<task> tag is not closed with '>'");
            break;
        };
        let Some(close) = text[tag_end..].find("</task>").map(|i| tag_end + i) else {
            let hidden = raw[tag_end..].contains("</task>");
            diags.problem(
                line,
                if hidden {
                    "<task> has its </task> inside a code fence (nested or unclosed ``` fences hide it); close the fence before the tag".to_owned()
                } else {
                    "<task> has no matching </task>".to_owned()
                },
            );
            break;
        };
        let attrs = attributes(&text[open + "<task".len()..tag_end]);
        let scope = (tag_end + 1, close);
        let mut step = task(&page, scope, line, index, &attrs, diags, &mut unnumbered_warned);
        step.context = gsd::context_refs(&page.element("read_first", scope));
        let criteria = page
            .element("acceptance_criteria", scope)
            .map(|e| acceptance::criteria_lines(&e.content))
            .unwrap_or_default();
        acceptance::apply(&mut step, &criteria, &artifacts);
        if let Some(f) = &step.fails_when {
            step.unchecked.push(format!("fails when: {f}"));
        }
        plan.steps.push(step);
        at = close + "</task>".len();
    }
    if plan.steps.is_empty() && gsd::is_tdd(front) {
        plan.steps = gsd::tdd_steps(&page, diags);
    }
    if plan.steps.is_empty() {
        diags.problem(1, "no <task> elements found");
    }
    // The title is the first line of <objective>, never a heading inside
    // <context> or <output>.
    if let Some(title) = element(&text, "objective", (0, text.len()), first_line)
        .and_then(|e| e.content.lines().next().map(plain))
        .filter(|t| !t.is_empty())
    {
        plan.title = Some(title);
    }
    if let Some(last) = plan.steps.last_mut() {
        last.unchecked
            .extend(truths.into_iter().map(|t| format!("must be true: {t}")));
    }
    plan.context = gsd::context_refs(&element(&text, "context", (0, text.len()), first_line));
    plan.success_criteria = success_criteria(&text, first_line, &plan, diags);
    plan
}

/// The plan's text twice over: with fenced lines blanked (where tags are
/// looked for) and as written (what element contents are read from).
pub(crate) struct Page<'a> {
    pub text: &'a str,
    pub raw: &'a str,
    pub lines: LineIndex,
}

impl Page<'_> {
    pub fn element(&self, name: &str, scope: (usize, usize)) -> Option<Element> {
        element_in(self.text, self.text, name, scope, &self.lines)
    }

    /// An element whose content keeps its code blocks.
    pub fn element_raw(&self, name: &str, scope: (usize, usize)) -> Option<Element> {
        element_in(self.text, self.raw, name, scope, &self.lines)
    }

    /// Whether `<name` appears in `scope` only inside a code fence: the line
    /// of the fence that hides it.
    pub fn hidden(&self, name: &str, scope: (usize, usize)) -> Option<usize> {
        let (from, to) = scope;
        let at = find_open_tag(&self.raw[..to], name, from)?;
        if find_open_tag(&self.text[..to], name, from).is_some() {
            return None;
        }
        let fence = self.raw[..at].rmatch_indices("```").next().map_or(at, |(i, _)| i);
        Some(self.lines.line(fence))
    }
}

fn task(
    page: &Page<'_>,
    scope: (usize, usize),
    line: usize,
    index: u32,
    attrs: &[(String, String)],
    diags: &mut Diagnostics,
    unnumbered_warned: &mut bool,
) -> Step {
    let task_type = attrs.iter().find(|(k, _)| k == "type").map(|(_, v)| v.clone());
    let human = gsd::checkpoint_task(page, scope, task_type.as_deref());
    let is_checkpoint = human.is_some();
    let name = page.element(
        "name",
        if is_checkpoint {
            gsd::name_scope(page, scope)
        } else {
            scope
        },
    );
    let (number, title, full_name) = match &name {
        Some(e) => match task_number(&e.content) {
            Some(n) => {
                let title = e.content.split_once(':').map_or("", |(_, t)| t).trim().to_owned();
                (n, title, Some(e.content.clone()))
            }
            None => {
                if !*unnumbered_warned {
                    *unnumbered_warned = true;
                    diags.warning(
                        e.line,
                        format!(
                            "task {index}: name '{}' does not start with 'Task N:'; tasks are numbered by position (warned once per plan)",
                            e.content
                        ),
                    );
                }
                (index, e.content.clone(), None)
            }
        },
        None if is_checkpoint => (index, gsd::checkpoint_title(human.as_ref()), None),
        None => {
            diags.problem(line, "<task> has no <name>");
            (index, String::new(), None)
        }
    };
    let files = match page.element("files", scope) {
        Some(e) => task_files(&e),
        None => {
            if !is_checkpoint {
                diags.warning(line, format!("task {number} has no <files>"));
            }
            Vec::new()
        }
    };
    let verify_element = page
        .element_raw("verify", scope)
        .or_else(|| page.element_raw("verification", scope).filter(|_| is_checkpoint));
    // A checkpoint task waits for a person anyway: its prose check is shown
    // to them, not warned about.
    let mut quiet = Diagnostics::default();
    let read = gsd::read_verify(
        verify_element.as_ref(),
        number,
        if is_checkpoint { &mut quiet } else { diags },
    );
    if verify_element.is_none() {
        if let Some(fence) = page.hidden("verify", scope) {
            diags.problem(
                line,
                format!("task {number}: its <verify> is inside the code fence that starts at line {fence} (nested ``` fences hide it); close the fence before the tag"),
            );
        } else if !is_checkpoint {
            diags.warning(
                line,
                format!("task {number} has no <verify>; it can pass only with --allow-unverified"),
            );
        }
    }
    let action = page.element_raw("action", scope);
    if action.is_none() && !is_checkpoint {
        match page.hidden("action", scope) {
            Some(fence) => diags.problem(
                line,
                format!("task {number}: its <action> is inside the code fence that starts at line {fence} (nested ``` fences hide it); close the fence before the tag"),
            ),
            None => diags.warning(line, format!("task {number} has no <action>")),
        }
    }
    // Fenced blocks in <action> are what the shell executor runs, as in a
    // step's Changes.
    let code_blocks = action
        .as_ref()
        .map(|a| super::markdown::code_blocks(&super::markdown::Document::new(&a.content, a.content_line).lines))
        .unwrap_or_default();
    let test_first = attrs
        .iter()
        .any(|(k, v)| k == "tdd" && v == "true")
        .then(|| super::TestFirst {
            text: Some("tdd=\"true\": the Verify must fail before the change".into()),
            ..Default::default()
        });
    let human = match (human, read.human) {
        (Some(mut h), Some(then)) => {
            h.text.push_str(&format!("\nThen check: {}", then.text));
            Some(h)
        }
        (h, then) => h.or(then),
    };
    Step {
        number,
        title: title.clone(),
        files,
        changes: action.map(|a| a.content).unwrap_or_default(),
        code_blocks,
        reuses: None,
        test_first,
        verify: read.verify,
        on_failure: OnFailure {
            action: FailurePolicy::Retry,
            instructions: None,
        },
        checkpoint: Some(Checkpoint::Commit {
            message: full_name.clone().unwrap_or_else(|| format!("Task {number}: {title}")),
        }),
        manifest: None,
        done: page.element("done", scope).map(|e| e.content),
        task_type,
        name: full_name,
        human,
        context: Vec::new(),
        fails_when: read.fails_when,
        unchecked: Vec::new(),
        origin: None,
        line,
    }
}

/// `<files>`: comma- or line-separated paths, backticked or plain.
pub(crate) fn task_files(e: &Element) -> Vec<FileRef> {
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
        // Items that are not `Task N: …` are plain criteria.
        if let Some(n) = task.filter(|n| plan.step(*n).is_none()) {
            diags.warning(
                no,
                format!("success criterion names Task {n}, which the plan does not have"),
            );
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
