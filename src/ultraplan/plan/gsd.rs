//! What GSD ("get-shit-done") adds to the task-plan format: `<verify>` with
//! `<automated>`, `<manual>` and `<fails_when>`; checkpoint tasks for a
//! person (`checkpoint:human-verify`, `checkpoint:decision`,
//! `checkpoint:human-action`); TDD plans of `<feature>` elements; and the
//! `<read_first>`/`<context>` files an executor should read.

mod tdd;

pub(crate) use tdd::{is_tdd, tdd_steps};

use super::elements::{attributes, find_open_tag, Element, Page};
use super::fields;
use super::human::ReviewItem;
use super::markdown::{code_blocks, Document};
use super::verify_text::{read, Reading};
use super::{Diagnostics, ExpectedKind, HumanCheck, HumanKind, HumanOption, Verify};

/// What a `<verify>` element says.
#[derive(Default)]
pub(crate) struct VerifyRead {
    pub verify: Option<Verify>,
    /// Prose (or `<manual>`) with no command: a check for a person.
    pub human: Option<HumanCheck>,
    pub fails_when: Option<String>,
    /// A `<human-check>` beside the command (or instead of it): checked by a
    /// person at the end of the phase, with the phase's other such checks.
    pub review: Option<ReviewItem>,
}

/// The first `<name>…</name>` inside `text`, or `None`.
fn inner(text: &str, name: &str) -> Option<String> {
    let open = find_open_tag(text, name, 0)?;
    let start = open + text[open..].find('>')? + 1;
    let close = start + text[start..].find(&format!("</{name}>"))?;
    Some(text[start..close].trim().to_owned())
}

/// Reads a `<verify>`: the `<automated>` text (or a fenced block, or the
/// whole text) is the command when it reads as one (see `verify_text`);
/// prose becomes a check for a person; `<manual>`/`<human-check>` with no
/// command too; `<fails_when>` is recorded.
pub(crate) fn read_verify(e: Option<&Element>, number: u32, diags: &mut Diagnostics) -> VerifyRead {
    let Some(e) = e else {
        return VerifyRead::default();
    };
    let content = &e.content;
    let mut out = VerifyRead {
        fails_when: inner(content, "fails_when"),
        ..Default::default()
    };
    out.review = inner(content, "human-check").map(|h| review_item(&h, number));
    let manual = inner(content, "manual");
    let mut automated = inner(content, "automated");
    // GSD Core's planner writes `<automated>MISSING — Wave 0 must create
    // tests/x.test.ts first</automated>` where no test exists yet: a note,
    // never a command.
    if let Some(missing) = automated.as_deref().and_then(missing_command) {
        diags.warning(
            e.content_line,
            format!(
                "task {number}: <automated> is MISSING ('{}'): the step has no Verify yet{}",
                one_line(&missing),
                if out.review.is_some() {
                    "; the end-of-phase review by a person checks it"
                } else {
                    "; it passes only with --allow-unverified"
                }
            ),
        );
        automated = None;
        if manual.is_none() && out.review.is_none() && out.fails_when.is_none() {
            return out;
        }
    }
    let has_parts = automated.is_some() || manual.is_some() || out.review.is_some() || out.fails_when.is_some();
    let source = match (&automated, has_parts) {
        (Some(a), _) => Some(a.clone()),
        (None, true) => None,
        (None, false) => Some(content.clone()),
    };
    if let Some(source) = source.filter(|s| !s.trim().is_empty()) {
        let blocks = code_blocks(&Document::new(&source, e.content_line).lines);
        // `` `cmd` → expected: `text` ``, as the Markdown format writes it:
        // the expectation is checked, never run as a command of its own.
        let (command_text, expected) = match fields::split_expected(&source) {
            (before, Some(after)) if !before.trim().is_empty() => (before.to_owned(), Some(fields::expectation(after))),
            _ => (source.clone(), None),
        };
        let reading = match blocks.into_iter().find(|b| !b.code.trim().is_empty()) {
            Some(block) => Reading::Command(block.code.trim().to_owned()),
            None => read(&command_text),
        };
        match reading {
            Reading::Command(command) => {
                out.verify = Some(Verify {
                    command,
                    expected: expected.as_ref().map(|(text, _)| text.clone()),
                    expected_kind: expected.map(|(_, kind)| kind),
                })
            }
            Reading::Prose { text, commands } if !commands.is_empty() => {
                out.verify = Some(Verify {
                    command: commands.join(" && "),
                    expected: Some(text),
                    expected_kind: Some(ExpectedKind::Prose),
                })
            }
            Reading::Prose { text, .. } => {
                diags.warning(
                    e.content_line,
                    format!(
                        "task {number}: <verify> is prose, not a command ('{}'); run stops there for a person to check it (or takes the executor's word with --allow-unverified)",
                        one_line(&text)
                    ),
                );
                out.human = Some(HumanCheck::new(HumanKind::Check, text));
            }
        }
    } else if automated.is_some() {
        diags.problem(e.line, format!("task {number}: <automated> is empty"));
    } else if manual.is_none() && !has_parts && !content.contains("MISSING") {
        diags.problem(e.line, format!("task {number}: <verify> is empty"));
    }
    if let (None, Some(m)) = (&out.human, manual) {
        out.human = Some(HumanCheck::new(HumanKind::Check, m));
    }
    out
}

/// The note of an `<automated>MISSING …</automated>`, or `None` when it
/// holds a command.
fn missing_command(text: &str) -> Option<String> {
    let rest = text.trim().strip_prefix("MISSING")?;
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        return None; // `MISSING_TESTS=1 npm test` is a command
    }
    let note = rest.trim_start_matches([' ', '—', '–', '-', ':']).trim();
    Some(if note.is_empty() {
        "no test yet".to_owned()
    } else {
        note.to_owned()
    })
}

/// A `<human-check>`'s `<test>`, `<expected>` and `<why_human>` (its whole
/// text is the test when it has no parts).
fn review_item(text: &str, step: u32) -> ReviewItem {
    let test = inner(text, "test").unwrap_or_else(|| text.trim().to_owned());
    ReviewItem {
        test: super::markdown::plain(&test),
        expected: inner(text, "expected").map(|t| super::markdown::plain(&t)),
        why_human: inner(text, "why_human").map(|t| super::markdown::plain(&t)),
        step,
    }
}

fn one_line(text: &str) -> String {
    let first = text.lines().next().unwrap_or("").trim();
    if first.chars().count() > 80 {
        format!("{}…", first.chars().take(80).collect::<String>())
    } else {
        first.to_owned()
    }
}

/// A `checkpoint:*` task: what the person checks, does or decides.
pub(crate) fn checkpoint_task(page: &Page<'_>, scope: (usize, usize), task_type: Option<&str>) -> Option<HumanCheck> {
    let kind = match task_type?.strip_prefix("checkpoint:")? {
        "decision" => HumanKind::Decision,
        "human-action" => HumanKind::Action,
        _ => HumanKind::Verify,
    };
    // What a person reads keeps its code blocks: the commands to run
    // (`npm run dev`, `curl …`) are often the whole of how to verify.
    let text_of = |name: &str| page.element_raw(name, scope).map(|e| dedent_after_first(&e.content));
    let parts: Vec<String> = match kind {
        HumanKind::Decision => vec![text_of("decision"), text_of("context")],
        HumanKind::Action => vec![text_of("action"), text_of("instructions")],
        _ => vec![text_of("what-built"), text_of("how-to-verify")],
    }
    .into_iter()
    .flatten()
    .filter(|t| !t.is_empty())
    .collect();
    let options = page
        .element("options", scope)
        .map(|e| options(&e.content))
        .unwrap_or_default();
    Some(HumanCheck {
        options,
        resume_signal: text_of("resume-signal"),
        ..HumanCheck::new(kind, parts.join("\n"))
    })
}

/// An element's text with the indentation its lines after the first share
/// taken off (the first lost its own when the content was trimmed), so a
/// code block inside reads as written.
fn dedent_after_first(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = first.to_owned();
    for line in rest {
        out.push('\n');
        out.push_str(line.get(indent..).unwrap_or(line.trim_start()));
    }
    out
}

/// `<option id="a"><name>…</name>…</option>` items.
fn options(text: &str) -> Vec<HumanOption> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = find_open_tag(text, "option", at) {
        let Some(tag_end) = text[open..].find('>').map(|i| open + i) else {
            break;
        };
        let end = text[tag_end..].find("</option>").map_or(text.len(), |i| tag_end + i);
        let attrs = attributes(&text[open + "<option".len()..tag_end]);
        let body = &text[tag_end + 1..end];
        let id = attrs
            .iter()
            .find(|(k, _)| k == "id")
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| (out.len() + 1).to_string());
        let name = inner(body, "name").unwrap_or_else(|| body.trim().to_owned());
        out.push(HumanOption { id, name });
        at = end;
    }
    out
}

/// A checkpoint task without `<name>` is titled by what it asks.
pub(crate) fn checkpoint_title(human: Option<&HumanCheck>) -> String {
    let Some(h) = human else {
        return String::new();
    };
    let first = one_line(&h.text);
    let what = match h.kind {
        HumanKind::Decision => "Decide",
        HumanKind::Action => "Do by hand",
        _ => "Check by hand",
    };
    if first.is_empty() {
        what.to_owned()
    } else {
        format!("{what}: {first}")
    }
}

/// Where a checkpoint task's own `<name>` may be: before its `<options>`
/// (each option has a `<name>` too).
pub(crate) fn name_scope(page: &Page<'_>, scope: (usize, usize)) -> (usize, usize) {
    match find_open_tag(&page.text[..scope.1], "options", scope.0) {
        Some(at) => (scope.0, at),
        None => scope,
    }
}

/// At most this many context files per element are passed on (real plans
/// name a handful; a hostile one could name millions, copied to every step).
const MAX_CONTEXT: usize = 256;

/// Files named in `<read_first>` (paths) or `<context>` (`@path` lines),
/// relative to the repository; GSD's own `@~/…` files are left out. The
/// first [`MAX_CONTEXT`] are kept.
pub(crate) fn context_refs(e: &Option<Element>) -> Vec<String> {
    let Some(e) = e else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    if e.content.contains('@') {
        for word in e.content.split_whitespace() {
            if let Some(path) = word.strip_prefix('@') {
                let path = path.trim_end_matches([',', ';', ')', '.']);
                if !path.is_empty() && !path.starts_with('~') && !path.starts_with('/') && seen.insert(path.to_owned())
                {
                    out.push(path.to_owned());
                }
            }
        }
    } else {
        for path in read_first_paths(&e.content) {
            if seen.insert(path.clone()) {
                out.push(path);
            }
        }
    }
    out.truncate(MAX_CONTEXT);
    out
}

/// The paths of `<read_first>` lines, each without what a plan writes
/// after it: `src/page.tsx — read the full file`, `a.ts - the layout`,
/// `b.ts: its exports`, `c.ts (for the types)` all name the path alone. A
/// code span is the path as written; an item that still holds a space is
/// its first word when that looks like a path, else prose and left out.
fn read_first_paths(content: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in content.lines() {
        let line = super::markdown::strip_list_marker(raw.trim());
        let spans = super::markdown::code_spans(line);
        if !spans.is_empty() {
            out.extend(spans.into_iter().map(|s| s.content.trim().to_owned()));
            continue;
        }
        let cut = [" — ", " – ", " -- ", " - ", ": "]
            .iter()
            .filter_map(|sep| line.find(sep))
            .min()
            .unwrap_or(line.len());
        for item in line[..cut].split(',') {
            let item = fields::strip_parentheses(item).trim().to_owned();
            let path = match item.split_once(char::is_whitespace) {
                None => item,
                Some((first, _)) if first.contains(['/', '.']) => first.to_owned(),
                Some(_) => continue,
            };
            if !path.is_empty() && !fields::is_none_value(&path) {
                out.push(path);
            }
        }
    }
    out
}

#[cfg(test)]
mod read_first_tests {
    #[test]
    fn annotations_after_a_path_are_not_part_of_it() {
        let content = "- src/app/page.tsx — read the full file\n- src/lib/a.ts - the layout, and b\n\
                       src/c.ts: its exports\nsrc/d.ts (for the types), src/e.ts\n`src/f name.ts` — spaced\n\
                       the tests next to it\n";
        assert_eq!(
            super::read_first_paths(content),
            vec![
                "src/app/page.tsx",
                "src/lib/a.ts",
                "src/c.ts",
                "src/d.ts",
                "src/e.ts",
                "src/f name.ts"
            ]
        );
    }
}
