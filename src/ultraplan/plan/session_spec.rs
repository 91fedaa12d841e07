//! The session-spec format (DESIGN §4.2): one session of a master plan, with
//! `# Session N: <title>`, `## Dependencies` (Depends on, Blocks, Entry
//! condition), `## Scope Fence` (Touch, Never touch), `## Steps` and
//! `## Exit Condition` (a checklist of commands and prose).

use super::fields;
use super::markdown::{checkbox, normalize_heading, parse_fields, plain, strip_list_marker, Document};
use super::ultraplan::{empty_plan, numbered_heading, steps_in};
use super::{Condition, Diagnostics, Plan, PlanKind, Session, SessionSpec};

pub(crate) fn parse(doc: &Document<'_>, diags: &mut Diagnostics) -> Plan {
    let mut plan = empty_plan(PlanKind::SessionSpec, doc);
    let (number, title, line) = match doc
        .headings
        .iter()
        .find(|h| h.level == 1 && normalize_heading(h.text).starts_with("session"))
    {
        Some(h) => match numbered_heading(h.text, "session") {
            Ok((n, t)) => (n, t, h.no),
            Err(message) => {
                diags.problem(h.no, message);
                (0, String::new(), h.no)
            }
        },
        None => {
            diags.problem(1, "session spec has no '# Session N: <title>' heading");
            (0, String::new(), 1)
        }
    };
    plan.title = Some(title.clone()).filter(|t| !t.is_empty()).or(plan.title);

    let mut spec = SessionSpec {
        session: number,
        master_plan: master_plan(doc),
        blocks: Vec::new(),
        entry_condition: None,
        exit_conditions: Vec::new(),
    };
    let mut session = Session {
        number,
        title,
        steps: Vec::new(),
        wave: None,
        depends_on: Vec::new(),
        touch: Vec::new(),
        never_touch: Vec::new(),
        line,
        declared_wave: None,
    };

    match doc.find_section(2, "dependencies") {
        Some(heading) => {
            let mut entry_given = false;
            for field in parse_fields(doc.section(heading)).fields {
                let text = field.text();
                match field.label.as_str() {
                    "depends on" | "depends" => match fields::session_refs(&text) {
                        Ok(list) => session.depends_on = list,
                        Err(message) => diags.problem(field.line, format!("Depends on: {message}")),
                    },
                    "blocks" => match fields::session_refs(&text) {
                        Ok(list) => spec.blocks = list,
                        Err(message) => diags.problem(field.line, format!("Blocks: {message}")),
                    },
                    "entry condition" => {
                        entry_given = true;
                        spec.entry_condition = condition(&text, field.line);
                    }
                    _ => {}
                }
            }
            if !entry_given {
                diags.warning(heading.no, "'## Dependencies' has no Entry condition; none is assumed");
            }
        }
        None => diags.problem(1, "session spec has no '## Dependencies' section"),
    }

    match doc.find_section(2, "scope fence") {
        Some(heading) => {
            for field in parse_fields(doc.section(heading)).fields {
                let text = field.text();
                match field.label.as_str() {
                    "touch" => session.touch.extend(fields::patterns(&text, field.line, diags)),
                    "never touch" | "never" => session.never_touch.extend(fields::patterns(&text, field.line, diags)),
                    _ => {}
                }
            }
        }
        None => diags.problem(1, "session spec has no '## Scope Fence' section"),
    }

    match doc.find_section(2, "steps") {
        Some(heading) => {
            plan.steps = steps_in(doc, heading, diags);
            if plan.steps.is_empty() {
                diags.problem(heading.no, "no '### Step N: <title>' headings under '## Steps'");
            }
        }
        None => diags.problem(1, "session spec has no '## Steps' section"),
    }

    match doc.find_section(2, "exit condition") {
        Some(heading) => {
            for line in doc.section(heading).iter().filter(|l| !l.fenced && !l.is_blank()) {
                let trimmed = line.text.trim_start();
                if !trimmed.starts_with(['-', '*', '+']) {
                    continue;
                }
                let item = strip_list_marker(trimmed);
                let item = checkbox(item).map_or(item, |(_, rest)| rest);
                if let Some(c) = condition(item, line.no) {
                    spec.exit_conditions.push(c);
                }
            }
            if spec.exit_conditions.is_empty() {
                diags.warning(heading.no, "'## Exit Condition' lists no conditions");
            }
        }
        None => diags.problem(1, "session spec has no '## Exit Condition' section"),
    }

    if session.depends_on.contains(&number) || spec.blocks.contains(&number) {
        diags.problem(line, format!("session {number} depends on or blocks itself"));
    }
    session.steps = plan.steps.iter().map(|s| s.number).collect();
    plan.sessions = vec![session];
    plan.session_spec = Some(spec);
    plan
}

/// `> From master plan: <path>` in the header quote.
fn master_plan(doc: &Document<'_>) -> Option<String> {
    doc.lines.iter().filter(|l| !l.fenced).find_map(|l| {
        let text = l.text.trim_start().strip_prefix('>')?.trim();
        let lower = text.to_lowercase();
        let at = lower.find("master plan:")?;
        let value = plain(&text[at + "master plan:".len()..]);
        (!value.is_empty()).then_some(value)
    })
}

/// A condition: a leading backticked command (with an optional `→ expected:`)
/// or prose for a person; `none` is no condition.
pub(crate) fn condition(text: &str, line: usize) -> Option<Condition> {
    if fields::is_none_value(text) {
        return None;
    }
    Some(Condition {
        text: plain(text),
        check: fields::check_item(text.trim(), line),
        line,
    })
}
