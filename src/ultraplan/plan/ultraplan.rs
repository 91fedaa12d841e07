//! The ultraplan format (DESIGN §4.1): `## Implementation Plan` with
//! `### Step N: <title>` steps, an optional `## Execution Strategy` with
//! sessions and an execution order, and an optional `## Verification` list.
//! Step reading is shared with session specs.

use super::fields;
use super::markdown::{code_spans, normalize_heading, parse_fields, plain, strip_list_marker, Document, Heading};
use super::{Diagnostics, FailurePolicy, HumanCheck, HumanKind, OnFailure, Plan, PlanKind, Session, Step};

/// A `- Wave N: Session 1, Session 2` line of `### Execution Order`.
#[derive(Clone, Debug)]
pub(crate) struct WaveDecl {
    pub number: u32,
    pub sessions: Vec<u32>,
    pub line: usize,
}

pub(crate) fn parse(doc: &Document<'_>, diags: &mut Diagnostics) -> Plan {
    let mut plan = empty_plan(PlanKind::Plan, doc);
    if let Some(heading) = doc.find_section(2, "implementation plan") {
        plan.steps = steps_in(doc, heading, diags);
        if plan.steps.is_empty() {
            // Point at a step heading in the wrong place, if there is one.
            match doc.headings.iter().find(|h| is_step_heading(h.text)) {
                Some(h) => diags.problem(
                    h.no,
                    format!(
                        "step heading '{}' must be '### Step N: <title>' under '## Implementation Plan'",
                        plain(h.text)
                    ),
                ),
                None => diags.problem(
                    heading.no,
                    "no '### Step N: <title>' headings under '## Implementation Plan'",
                ),
            }
        }
    }
    if let Some(heading) = doc.find_section(2, "execution strategy") {
        let (sessions, order) = strategy(doc, heading, diags);
        plan.sessions = sessions;
        plan.execution_order = order;
    }
    if let Some(heading) = doc
        .headings
        .iter()
        .find(|h| h.level == 2 && normalize_heading(h.text) == "verification")
    {
        plan.verification = verification(doc, heading, diags);
    }
    plan
}

pub(crate) fn empty_plan(kind: PlanKind, doc: &Document<'_>) -> Plan {
    Plan {
        kind,
        plan_id: String::new(),
        title: doc
            .headings
            .iter()
            .find(|h| h.level == 1)
            .map(|h| plain(h.text))
            .filter(|t| !t.is_empty()),
        plan_version: None,
        format_reason: None,
        verify_note: None,
        steps: Vec::new(),
        sessions: Vec::new(),
        waves: Vec::new(),
        verification: Vec::new(),
        session_spec: None,
        success_criteria: None,
        context: Vec::new(),
        execution_order: Vec::new(),
        diagnostics: Vec::new(),
    }
}

/// `plan_version: X` anywhere outside code blocks (usually in the header quote).
pub(crate) fn plan_version(doc: &Document<'_>) -> Option<String> {
    // One search of the whole text spares most plans a search of every line.
    if !doc.text.contains("plan_version") {
        return None;
    }
    doc.lines.iter().filter(|l| !l.fenced).find_map(|l| {
        let at = l.text.find("plan_version")?;
        let rest = l.text[at + "plan_version".len()..].trim_start().strip_prefix(':')?;
        let value: String = rest
            .trim_start()
            .trim_start_matches(['"', '\''])
            .chars()
            .take_while(|c| !c.is_whitespace() && !matches!(c, '`' | '"' | '\'' | ',' | ')' | '*'))
            .collect();
        (!value.is_empty()).then_some(value)
    })
}

/// A heading that names a step (`Step 3: …`), whatever its level.
fn is_step_heading(text: &str) -> bool {
    let t = plain(text);
    t.get(..4).is_some_and(|word| word.eq_ignore_ascii_case("step"))
        && t[4..].starts_with(|c: char| c.is_whitespace() || c.is_ascii_digit())
}

/// Reads `Step N: title` (also `Step N — title`, `Step N. title`), or
/// `Session N: title` with `word = "session"`.
pub(crate) fn numbered_heading(text: &str, word: &str) -> Result<(u32, String), String> {
    let t = plain(text);
    let rest = t[word.len().min(t.len())..].trim_start();
    let digits = &rest[..rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len())];
    if digits.is_empty() {
        return Err(format!("cannot read a number in heading '{t}'"));
    }
    let number = digits
        .parse::<u32>()
        .map_err(|_| format!("number in heading '{t}' is too large"))?;
    let title = rest[digits.len()..]
        .trim_start()
        .trim_start_matches([':', '.', ')', '—', '–', '-'])
        .trim()
        .to_owned();
    Ok((number, title))
}

/// Every step under `parent`: `### Step N:` headings (a step heading at another
/// level is a problem, but is still read).
pub(crate) fn steps_in(doc: &Document<'_>, parent: &Heading<'_>, diags: &mut Diagnostics) -> Vec<Step> {
    let mut steps = Vec::new();
    for heading in doc.subheadings(parent).filter(|h| is_step_heading(h.text)) {
        if heading.level != 3 {
            diags.problem(
                heading.no,
                format!(
                    "step heading must be '### Step N: <title>', found level {} '{}'",
                    heading.level,
                    plain(heading.text)
                ),
            );
        }
        match numbered_heading(heading.text, "step") {
            Ok((number, title)) => {
                if title.is_empty() {
                    diags.problem(heading.no, format!("step {number} has no title"));
                }
                steps.push(step(doc, heading, number, title, diags));
            }
            Err(message) => diags.problem(heading.no, message),
        }
    }
    steps
}

fn step(doc: &Document<'_>, heading: &Heading<'_>, number: u32, title: String, diags: &mut Diagnostics) -> Step {
    let mut step = Step {
        number,
        title,
        files: Vec::new(),
        changes: String::new(),
        code_blocks: Vec::new(),
        reuses: None,
        test_first: None,
        verify: None,
        on_failure: OnFailure {
            action: FailurePolicy::Escalate,
            instructions: None,
        },
        checkpoint: None,
        manifest: None,
        done: None,
        task_type: None,
        name: None,
        human: None,
        context: Vec::new(),
        fails_when: None,
        unchecked: Vec::new(),
        origin: None,
        line: heading.no,
        ..Default::default()
    };
    let list = parse_fields(doc.section(heading));
    if list.fields.is_empty() {
        diags.problem(heading.no, format!("step {number} has no '- **Label:** value' fields"));
        return step;
    }
    let mut seen: Vec<&'static str> = Vec::new();
    let mut on_failure_given = false;
    let mut checkpoint_given = false;
    for field in &list.fields {
        let canonical = match field.label.as_str() {
            "files" | "file" => "Files",
            "changes" | "change" => "Changes",
            "reuses" | "reuse" => "Reuses",
            "test first" | "tests first" => "Test first",
            "verify" | "verification" => "Verify",
            "on failure" | "on fail" | "if it fails" => "On failure",
            "checkpoint" | "commit" => "Checkpoint",
            "manifest" => "Manifest",
            other => {
                diags.warning(field.line, format!("step {number}: unknown field '{other}' is ignored"));
                continue;
            }
        };
        if seen.contains(&canonical) {
            diags.problem(field.line, format!("step {number}: field '{canonical}' appears twice"));
            continue;
        }
        seen.push(canonical);
        match canonical {
            "Files" => step.files = fields::files(field, number, diags),
            "Changes" => {
                let text = field.text();
                if !fields::is_none_value(&text) {
                    step.changes = text;
                    step.code_blocks = field.code_blocks();
                }
            }
            "Reuses" => step.reuses = Some(field.text()).filter(|t| !t.is_empty()),
            "Test first" => step.test_first = Some(fields::test_first(field)),
            "Verify" => {
                step.verify = fields::verify(field, number, diags);
                step.human = fields::prose_verify(field).map(|text| HumanCheck::new(HumanKind::Check, text));
            }
            "On failure" => {
                on_failure_given = true;
                if let Some(policy) = fields::on_failure(field, number, diags) {
                    step.on_failure = policy;
                }
            }
            "Checkpoint" => {
                checkpoint_given = true;
                step.checkpoint = fields::checkpoint(field, number, diags);
            }
            _ => step.manifest = fields::manifest(field, number, diags),
        }
    }
    // A step without a Verify is named by `check` with the other steps
    // that pass only on the executor's word (`unverified`), not here.
    if !on_failure_given {
        diags.warning(
            heading.no,
            format!("step {number} has no On failure; escalate is assumed"),
        );
    }
    if !checkpoint_given {
        diags.warning(
            heading.no,
            format!("step {number} has no Checkpoint; its changes stay uncommitted"),
        );
    }
    if !seen.contains(&"Files") {
        diags.warning(heading.no, format!("step {number} has no Files"));
    }
    step
}

fn strategy(doc: &Document<'_>, parent: &Heading<'_>, diags: &mut Diagnostics) -> (Vec<Session>, Vec<WaveDecl>) {
    let mut sessions = Vec::new();
    let mut order = Vec::new();
    for heading in doc.subheadings(parent).filter(|h| h.level == 3) {
        let name = normalize_heading(heading.text);
        if name.starts_with("session") {
            match numbered_heading(heading.text, "session") {
                Ok((number, title)) => sessions.push(session(doc, heading, number, title, diags)),
                Err(message) => diags.problem(heading.no, message),
            }
        } else if name.starts_with("execution order") {
            order = execution_order(doc, heading, diags);
        }
    }
    if sessions.is_empty() {
        diags.problem(
            parent.no,
            "'## Execution Strategy' has no '### Session N: <title>' sections",
        );
    }
    (sessions, order)
}

fn session(doc: &Document<'_>, heading: &Heading<'_>, number: u32, title: String, diags: &mut Diagnostics) -> Session {
    let mut session = Session {
        number,
        title,
        steps: Vec::new(),
        wave: None,
        depends_on: Vec::new(),
        touch: Vec::new(),
        never_touch: Vec::new(),
        line: heading.no,
        declared_wave: None,
    };
    let mut has_steps = false;
    for field in parse_fields(doc.section(heading)).fields {
        let text = field.text();
        match field.label.as_str() {
            "steps" | "step" => {
                has_steps = true;
                match fields::step_list(&text) {
                    Ok(list) => session.steps = list,
                    Err(message) => diags.problem(field.line, format!("session {number}: Steps: {message}")),
                }
            }
            "wave" => match plain(&text)
                .split_whitespace()
                .next()
                .and_then(|w| w.parse::<u32>().ok())
            {
                Some(w) if w >= 1 => session.declared_wave = Some(w),
                _ => diags.problem(
                    field.line,
                    format!("session {number}: cannot read Wave '{}'", plain(&text)),
                ),
            },
            "depends on" | "dependencies" | "depends" => match fields::session_refs(&text) {
                Ok(list) => session.depends_on = list,
                Err(message) => diags.problem(field.line, format!("session {number}: Depends on: {message}")),
            },
            "scope fence" | "scope" => {
                let (touch, never) = fields::scope_fence(&field, diags);
                session.touch.extend(touch);
                session.never_touch.extend(never);
            }
            "touch" => session.touch.extend(fields::patterns(&text, field.line, diags)),
            "never touch" => session.never_touch.extend(fields::patterns(&text, field.line, diags)),
            _ => {}
        }
    }
    if !has_steps {
        diags.problem(heading.no, format!("session {number} has no Steps"));
    }
    session
}

fn execution_order(doc: &Document<'_>, heading: &Heading<'_>, diags: &mut Diagnostics) -> Vec<WaveDecl> {
    let mut waves = Vec::new();
    for line in doc.section(heading).iter().filter(|l| !l.fenced && !l.is_blank()) {
        let item = plain(strip_list_marker(line.text));
        let lower = item.to_lowercase();
        let Some(rest) = lower.strip_prefix("wave") else {
            continue;
        };
        let digits: String = rest.trim_start().chars().take_while(|c| c.is_ascii_digit()).collect();
        let Ok(number) = digits.parse::<u32>() else {
            diags.problem(line.no, format!("cannot read the wave number in '{item}'"));
            continue;
        };
        let sessions_text = item.split_once(':').map_or("", |(_, s)| s);
        match fields::session_refs(sessions_text) {
            Ok(sessions) => waves.push(WaveDecl {
                number,
                sessions,
                line: line.no,
            }),
            Err(message) => diags.problem(line.no, format!("execution order: {message}")),
        }
    }
    waves
}

fn verification(doc: &Document<'_>, heading: &Heading<'_>, diags: &mut Diagnostics) -> Vec<super::Check> {
    let section = doc.section(heading);
    let mut checks = Vec::new();
    for line in section.iter().filter(|l| !l.fenced && !l.is_blank()) {
        let trimmed = line.text.trim_start();
        if !(trimmed.starts_with(['-', '*', '+']) || trimmed.starts_with(|c: char| c.is_ascii_digit())) {
            continue;
        }
        let item = strip_list_marker(trimmed);
        let item = super::markdown::checkbox(item).map_or(item, |(_, rest)| rest);
        match fields::check_item(item, line.no) {
            Some(check) => checks.push(check),
            None if !code_spans(item).is_empty() || !item.is_empty() => diags.warning(
                line.no,
                "verification item is not a '`command` → expected: …' item and is not run",
            ),
            None => {}
        }
    }
    for block in super::markdown::code_blocks(section) {
        if !block.code.trim().is_empty() {
            checks.push(super::Check {
                command: block.code.trim().to_owned(),
                expected: None,
                expected_kind: None,
                line: block.line,
            });
        }
    }
    checks.sort_by_key(|c| c.line);
    checks
}
