//! The task-plan format (DESIGN §4.3, seed 000): `<task type="…">` elements
//! with `<name>Task N: …</name>`, `<files>`, `<action>`, `<verify>` and
//! `<done>`, a `<success_criteria>` checklist, and optional YAML front matter.
//! Tags inside fenced code blocks are examples, not tasks.

use super::acceptance;
use super::elements::{attributes, element, find_open_tag, task_files, visible_text, Element, LineIndex, Page};
use super::front_matter::FrontMatter;
use super::gsd;
use super::human::ReviewItem;
use super::markdown::{checkbox, plain, strip_list_marker, Document};
use super::ultraplan::empty_plan;
use super::{
    task_number, Checkpoint, Criterion, Diagnostics, FailurePolicy, HumanCheck, OnFailure, Plan, PlanKind, Step,
};

/// Whether the document has a `<task>` element (or, in a TDD plan, a
/// `<feature>`) outside code blocks.
pub(crate) fn has_tasks(doc: &Document<'_>, front: &FrontMatter<'_>) -> bool {
    let tdd = gsd::is_tdd(front);
    doc.lines
        .iter()
        .filter(|l| !l.fenced)
        .any(|l| find_open_tag(l.text, "task", 0).is_some() || (tdd && find_open_tag(l.text, "feature", 0).is_some()))
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
    // Where the tasks are: a checkpoint task's own `<context>` (what a
    // decision is about) is not the plan's `<context>` of files to read.
    let mut task_spans: Vec<(usize, usize)> = Vec::new();
    let mut index = 0u32;
    let mut unnumbered_warned = false;
    let (artifacts, truths) = acceptance::must_haves(front.yaml());
    let links = acceptance::key_links(front.yaml());
    let mut reviews: Vec<ReviewItem> = Vec::new();
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
        let (mut step, review) = task(&page, scope, line, index, &attrs, diags, &mut unnumbered_warned);
        if let Some(item) = review {
            reviews.push(ReviewItem {
                step: step.number,
                ..item
            });
        }
        step.context = gsd::context_refs(&page.element("read_first", scope));
        let criteria = page
            .element("acceptance_criteria", scope)
            .map(|e| acceptance::criteria_lines(&e.content))
            .unwrap_or_default();
        acceptance::apply(&mut step, &criteria, &artifacts);
        acceptance::apply_links(&mut step, &links);
        if let Some(f) = &step.fails_when {
            step.unchecked.push(format!("fails when: {f}"));
        }
        plan.steps.push(step);
        task_spans.push((open, close));
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
    acceptance::unclaimed_links(&mut plan.steps, &links);
    if let Some(last) = plan.steps.last_mut() {
        last.unchecked
            .extend(truths.into_iter().map(|t| format!("must be true: {t}")));
    }
    if !reviews.is_empty() {
        let step = super::review::review_step(&mut plan.steps, reviews);
        plan.steps.push(step);
    }
    let mut from = 0;
    let plan_context = loop {
        let Some(found) = element(&text, "context", (from, text.len()), first_line) else {
            break None;
        };
        let open = find_open_tag(&text, "context", from).unwrap_or(text.len());
        match task_spans.iter().find(|(a, b)| (*a..*b).contains(&open)) {
            Some(&(_, close)) => from = close,
            None => break Some(found),
        }
    };
    plan.context = gsd::context_refs(&plan_context);
    plan.success_criteria = success_criteria(&text, first_line, &plan, diags);
    plan
}

fn task(
    page: &Page<'_>,
    scope: (usize, usize),
    line: usize,
    index: u32,
    attrs: &[(String, String)],
    diags: &mut Diagnostics,
    unnumbered_warned: &mut bool,
) -> (Step, Option<ReviewItem>) {
    let task_type = attrs.iter().find(|(k, _)| k == "type").map(|(_, v)| v.clone());
    let mut human = gsd::checkpoint_task(page, scope, task_type.as_deref());
    // GSD Core: a `blocking-human` gate is never approved by any automation.
    let blocking = attrs.iter().any(|(k, v)| k == "gate" && v == "blocking-human");
    if let Some(h) = &mut human {
        h.blocking = blocking;
    }
    let is_checkpoint = human.is_some();
    let (number, title, full_name) = name_of(page, scope, line, index, human.as_ref(), diags, unnumbered_warned);
    let files = match page.element("files", scope) {
        Some(e) => task_files(&e),
        None => {
            if !is_checkpoint {
                diags.warning(line, format!("task {number} has no <files>"));
            }
            Vec::new()
        }
    };
    let read = verify_of(page, scope, line, number, is_checkpoint, diags);
    let action = action_of(page, scope, line, number, is_checkpoint, diags);
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
    let step = Step {
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
        ..Default::default()
    };
    (step, read.review)
}

/// The task's number, title and full name from its `<name>` (a checkpoint
/// task's may be missing: its title is then its kind).
fn name_of(
    page: &Page<'_>,
    scope: (usize, usize),
    line: usize,
    index: u32,
    human: Option<&HumanCheck>,
    diags: &mut Diagnostics,
    unnumbered_warned: &mut bool,
) -> (u32, String, Option<String>) {
    let is_checkpoint = human.is_some();
    let name = page.element(
        "name",
        if is_checkpoint {
            gsd::name_scope(page, scope)
        } else {
            scope
        },
    );
    match &name {
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
        None if is_checkpoint => (index, gsd::checkpoint_title(human), None),
        None => {
            diags.problem(line, "<task> has no <name>");
            (index, String::new(), None)
        }
    }
}

/// The task's `<verify>` (a checkpoint task's `<verification>` too), read;
/// a missing one is warned about, one hidden in a code fence is a problem.
fn verify_of(
    page: &Page<'_>,
    scope: (usize, usize),
    line: usize,
    number: u32,
    is_checkpoint: bool,
    diags: &mut Diagnostics,
) -> gsd::VerifyRead {
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
        }
        // A task without a <verify> is named by `check` with the other
        // steps that pass only on the executor's word (`unverified`).
    }
    read
}

/// The task's `<action>`, with its content's code blocks as written.
fn action_of(
    page: &Page<'_>,
    scope: (usize, usize),
    line: usize,
    number: u32,
    is_checkpoint: bool,
    diags: &mut Diagnostics,
) -> Option<Element> {
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
    action
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
