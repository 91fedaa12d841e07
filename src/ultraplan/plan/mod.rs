//! Plans: every format (DESIGN §4, §19) read into one model.
//!
//! [`parse`] recognises an ultraplan (§4.1), a session spec (§4.2), a task plan
//! (§4.3) — GSD's PLAN.md as it is now included —, a spec-kit or Kiro
//! `tasks.md`, a Taskmaster `tasks.json` or a BMAD story, says why it took the
//! format it did, reads it leniently (bold or plain labels, list markers, dash
//! kinds, `->` for `→`) and validates its structure strictly (§4.4), recording
//! every problem and warning with its line. It never touches the filesystem
//! and never panics; the files a format reads beside the plan (spec-kit's
//! `plan.md`, Kiro's `requirements.md`, …) come in a [`Context`] from
//! [`load`], which reads a plan file or a GSD phase directory;
//! [`check::check`] adds what needs the repository (file references, symbolic
//! links); [`writeback`] ticks a passed task in the plan's own file.
//!
//! The formats read into one [`model`]; what reading found wrong is kept as
//! [`diagnostics`]. This is ultraplan's plan — steps a run executes — not the
//! historian's commit plan (`historian::plan`).

mod acceptance;
mod bmad;
pub mod check;
mod checklist;
mod diagnostics;
mod elements;
mod fields;
pub mod front_matter;
mod gsd;
mod human;
mod kiro;
mod links;
pub mod load;
mod markdown;
mod model;
pub mod pattern;
pub mod phase;
pub mod review;
mod runnable;
mod session_spec;
mod speckit;
mod structure;
pub mod sync;
mod task_plan;
pub mod taskmaster;
mod ultraplan;
pub mod unverified;
pub mod verify_lint;
pub mod verify_text;
pub mod writeback;

pub use crate::cli::shell::shell_words;
pub(crate) use diagnostics::Diagnostics;
pub use diagnostics::{printable, Diagnostic, Severity};
pub use human::{HumanCheck, HumanKind, HumanOption, ReviewItem, ANSWER_HINT};
pub use markdown::CodeBlock;
pub use model::{
    task_number, Check, Checkpoint, Condition, Criterion, ExpectedKind, FailurePolicy, FileRef, KeyLink, Manifest,
    MustContain, OnFailure, Plan, PlanKind, Session, SessionSpec, Step, TaskMatch, TestFirst, Verify,
};

/// The file is none of the formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrecognised;

impl std::fmt::Display for Unrecognised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(EXPECTED_FORMATS)
    }
}

/// What a plan is read with besides its text: files beside it that its
/// format refers to, and choices made on the command line.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// Companion files by their name relative to the plan's directory (see
    /// [`COMPANIONS`]), as read by [`load`]; a missing one is absent.
    pub companions: std::collections::BTreeMap<String, String>,
    /// The name of the directory the plan is in (a spec-kit feature, a
    /// Kiro spec): the plan id of formats whose file name says nothing.
    pub dir_name: Option<String>,
    /// Taskmaster: the tag to run (`--tag`).
    pub tag: Option<String>,
    /// Kiro: skip optional `- [ ]*` tasks (`--skip-optional`).
    pub skip_optional: bool,
}

/// The files beside a plan that formats read: spec-kit's `plan.md` and
/// `quickstart.md` (a test command), Kiro's `requirements.md` (the
/// requirements tasks refer to), Taskmaster's `../state.json` (the current tag).
pub const COMPANIONS: [&str; 4] = ["plan.md", "quickstart.md", "requirements.md", "../state.json"];

impl std::error::Error for Unrecognised {}

/// What [`parse`] looks for, for the message of an unrecognised file.
pub const EXPECTED_FORMATS: &str = "expected an ultraplan ('## Implementation Plan' with '### Step N:' headings), \
a session spec ('# Session N:' with '## Scope Fence' and '## Exit Condition'), \
a task plan ('<task>' elements with '<name>Task N: …</name>'), \
a spec-kit tasks.md ('- [ ] T001 …' checklist lines), a Kiro tasks.md ('- [ ] 1. …' numbered tasks), \
a Taskmaster tasks.json ('tasks' with ids, statuses and dependencies) \
or a BMAD story ('Status', 'Acceptance Criteria' and 'Tasks / Subtasks')";

/// Reads `text` (the contents of the file named `file_name`) as one of the
/// formats and validates its structure.
pub fn parse(text: &str, file_name: &str) -> Result<Plan, Unrecognised> {
    parse_with(text, file_name, &Context::default())
}

/// [`parse`], with the companion files and choices of `ctx`.
pub fn parse_with(text: &str, file_name: &str, ctx: &Context) -> Result<Plan, Unrecognised> {
    // Editors on some systems start files with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if taskmaster::looks_like(text, file_name) {
        let mut plan = taskmaster::parse(text, file_name, ctx)?;
        let mut diags = Diagnostics::default();
        for d in std::mem::take(&mut plan.diagnostics) {
            match d.severity {
                Severity::Problem => diags.problem(d.line, d.message),
                Severity::Warning => diags.warning(d.line, d.message),
            }
        }
        structure::validate(&mut plan, &mut diags);
        plan.diagnostics = diags.into_vec();
        return Ok(plan.sorted_diagnostics());
    }
    let front = front_matter::front_matter(text);
    let doc = markdown::Document::new(front.body, front.body_first_line);
    let mut diags = Diagnostics::default();
    front.check(&mut diags);
    if let Some(line) = doc.unclosed_fence {
        // A fence left open swallows every step after it: `run` would not see them.
        let swallowed = doc.lines.iter().filter(|l| l.no > line).find(|l| swallows(l.text));
        match swallowed {
            Some(l) => diags.problem(
                line,
                format!(
                    "code fence is never closed; it swallows what follows (line {}: '{}'); close it",
                    l.no,
                    l.text.trim()
                ),
            ),
            None => diags.warning(line, "code fence is never closed; the rest of the file is read as code"),
        }
    }
    let (kind, reason) = detect(&doc, &front).ok_or(Unrecognised)?;
    let mut plan = match kind {
        PlanKind::Plan => ultraplan::parse(&doc, &mut diags),
        PlanKind::SessionSpec => session_spec::parse(&doc, &mut diags),
        PlanKind::SpecKit => speckit::parse(&doc, ctx, &mut diags),
        PlanKind::Kiro => kiro::parse(&doc, ctx, &mut diags),
        PlanKind::BmadStory => bmad::parse(&doc, &mut diags),
        // `detect` finds the file formats; a phase is a directory, and
        // Taskmaster's JSON was read above.
        PlanKind::TaskPlan | PlanKind::Phase | PlanKind::Taskmaster => task_plan::parse(&doc, &front, &mut diags),
    };
    plan.format_reason = Some(reason);
    plan.plan_id = match kind {
        PlanKind::SpecKit | PlanKind::Kiro => ctx
            .dir_name
            .clone()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| plan_id(&front, file_name)),
        PlanKind::BmadStory if !plan.plan_id.is_empty() => plan.plan_id.clone(),
        _ => plan_id(&front, file_name),
    };
    if matches!(
        kind,
        PlanKind::TaskPlan | PlanKind::SpecKit | PlanKind::Kiro | PlanKind::BmadStory
    ) {
        // A task's checkpoint commit is named after the plan and the task.
        for step in &mut plan.steps {
            if let Some(Checkpoint::Commit { message }) = &mut step.checkpoint {
                *message = format!("{} {message}", plan.plan_id);
            }
        }
    }
    plan.plan_version = front.value("plan_version").or_else(|| ultraplan::plan_version(&doc));
    if plan.title.is_none() {
        plan.title = front.value("title");
    }
    structure::validate(&mut plan, &mut diags);
    runnable::check(&plan, &mut diags);
    if let Some((line, c)) = runnable::hidden_character(front.body, front.body_first_line) {
        diags.problem(
            line,
            if c == '\0' {
                "holds a NUL byte, which no command, variable or commit message can carry".to_owned()
            } else {
                format!(
                    "holds the control character U+{:04X}, which a report would carry to the screen",
                    u32::from(c)
                )
            },
        );
    }
    plan.diagnostics = diags.into_vec();
    Ok(plan.sorted_diagnostics())
}

/// Decides the format, and says why (seed 004's rules, then the other
/// planners'): a session spec has at least two of `## Dependencies`, `##
/// Scope Fence` and `## Exit Condition`; an ultraplan has `## Implementation
/// Plan` with `### Step N:` headings; a task plan has `<task>` elements; a
/// BMAD story its `Tasks / Subtasks` with a Status and Acceptance Criteria;
/// a spec-kit tasks.md `- [ ] T001 …` lines; a Kiro tasks.md `- [ ] 1. …`
/// numbered checkbox tasks. (Kiro names its list `# Implementation Plan` too:
/// without `### Step N:` headings under it, it is not an ultraplan.)
fn detect(doc: &markdown::Document<'_>, front: &front_matter::FrontMatter<'_>) -> Option<(PlanKind, String)> {
    let has = |name: &str| doc.find_section(2, name).is_some();
    let spec_sections: Vec<&str> = ["dependencies", "scope fence", "exit condition"]
        .into_iter()
        .filter(|n| has(n))
        .collect();
    let step_headings = doc
        .headings
        .iter()
        .filter(|h| {
            h.level == 3
                && h.text
                    .trim_start()
                    .get(..5)
                    .is_some_and(|word| word.eq_ignore_ascii_case("step "))
        })
        .count();
    if spec_sections.len() >= 2 {
        Some((
            PlanKind::SessionSpec,
            format!(
                "a session spec: '# Session N:' with the sections {}",
                quoted(&spec_sections)
            ),
        ))
    } else if has("implementation plan") && (step_headings > 0 || !checklist::has_numbered_tasks(doc)) {
        Some((
            PlanKind::Plan,
            format!("an ultraplan: '## Implementation Plan' with {step_headings} '### Step N:' heading(s)"),
        ))
    } else if task_plan::has_tasks(doc, front) {
        Some((
            PlanKind::TaskPlan,
            "a task plan: '<task>' elements (GSD's PLAN.md)".into(),
        ))
    } else if let Some(why) = bmad::looks_like(doc) {
        Some((PlanKind::BmadStory, why))
    } else if let Some(why) = speckit::looks_like(doc) {
        Some((PlanKind::SpecKit, why))
    } else {
        kiro::looks_like(doc).map(|why| (PlanKind::Kiro, why))
    }
}

fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")
}

/// Front matter `plan_id`, or `phase`/`plan` (`03-executor` and `01` give `03-01`), else a
/// `NN-NN-PLAN.md` file name, else the file name without extension.
fn plan_id(front: &front_matter::FrontMatter<'_>, file_name: &str) -> String {
    let stem = std::path::Path::new(file_name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(id) = front.value("plan_id") {
        return id;
    }
    if let (Some(phase), Some(plan)) = (front.value("phase"), front.value("plan")) {
        // `12.5-blueprint` is phase 12.5 (a decimal phase inserted between 12
        // and 13), not 12.
        let phase_number: String = phase
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect::<String>()
            .trim_end_matches('.')
            .to_owned();
        let phase_id = if phase_number.is_empty() {
            phase.clone()
        } else {
            phase_number
        };
        let phase_id = pad2(&phase_id);
        // `plan: 22-06` under phase 22 already names its phase.
        if let Some(rest) = plan.strip_prefix(&format!("{phase_id}-")) {
            if !rest.is_empty() {
                return plan;
            }
        }
        return format!("{phase_id}-{}", pad2(&plan));
    }
    if let Some(id) = stem.strip_suffix("-PLAN").filter(|id| {
        let mut parts = id.split('-');
        matches!((parts.next(), parts.next(), parts.next()), (Some(a), Some(b), None)
            if !a.is_empty() && !b.is_empty() && a.chars().chain(b.chars()).all(|c| c.is_ascii_digit()))
    }) {
        return id.to_owned();
    }
    stem
}

fn pad2(s: &str) -> String {
    let digits = s.split('.').next().unwrap_or(s);
    if digits.len() == 1 && digits.chars().all(|c| c.is_ascii_digit()) {
        format!("0{s}")
    } else {
        s.to_owned()
    }
}

/// A line a fence left open would hide from the parser: a step heading, a
/// task, a field.
fn swallows(text: &str) -> bool {
    let t = text.trim_start();
    let lower = t.to_lowercase();
    lower.starts_with("### step")
        || lower.starts_with("## ")
        || t.starts_with("<task")
        || t.starts_with("</task>")
        || t.starts_with("</action>")
        || t.starts_with("- **")
}

#[cfg(test)]
mod tests;
