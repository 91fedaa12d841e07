//! Plans: the three formats (DESIGN §4) read into one model.
//!
//! [`parse`] recognises an ultraplan (§4.1), a session spec (§4.2) or a task plan
//! (§4.3), reads it leniently (bold or plain labels, list markers, dash kinds,
//! `->` for `→`) and validates its structure strictly (§4.4), recording every
//! problem and warning with its line. It never touches the filesystem and never
//! panics; [`check::check`] adds what needs the repository (file references,
//! symbolic links), and [`load`] reads a plan file or a GSD phase directory.
//!
//! The formats read into one [`model`]; what reading found wrong is kept as
//! [`diagnostics`]. This is ultraplan's plan — steps a run executes — not the
//! historian's commit plan (`historian::plan`).

mod acceptance;
pub mod check;
mod diagnostics;
mod elements;
mod fields;
pub mod front_matter;
mod gsd;
mod human;
pub mod load;
mod markdown;
mod model;
pub mod pattern;
pub mod phase;
mod runnable;
mod session_spec;
mod shell_words;
pub mod sync;
mod task_plan;
mod ultraplan;
mod validate;
pub mod verify_lint;
pub mod verify_text;

pub(crate) use diagnostics::Diagnostics;
pub use diagnostics::{Diagnostic, Severity};
pub use human::{HumanCheck, HumanKind, HumanOption, ANSWER_HINT};
pub use markdown::CodeBlock;
pub use model::{
    task_number, Check, Checkpoint, Condition, Criterion, ExpectedKind, FailurePolicy, FileRef, Manifest, MustContain,
    OnFailure, Plan, PlanKind, Session, SessionSpec, Step, TaskMatch, TestFirst, Verify,
};
pub use shell_words::shell_words;

/// The file is none of the three formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrecognised;

impl std::fmt::Display for Unrecognised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(EXPECTED_FORMATS)
    }
}

impl std::error::Error for Unrecognised {}

/// What [`parse`] looks for, for the message of an unrecognised file.
pub const EXPECTED_FORMATS: &str = "expected an ultraplan ('## Implementation Plan' with '### Step N:' headings), \
a session spec ('# Session N:' with '## Scope Fence' and '## Exit Condition') \
or a task plan ('<task>' elements with '<name>Task N: …</name>')";

/// Reads `text` (the contents of the file named `file_name`) as one of the three
/// formats and validates its structure.
pub fn parse(text: &str, file_name: &str) -> Result<Plan, Unrecognised> {
    // Editors on some systems start files with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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
    let kind = detect(&doc, &front).ok_or(Unrecognised)?;
    let mut plan = match kind {
        PlanKind::Plan => ultraplan::parse(&doc, &mut diags),
        PlanKind::SessionSpec => session_spec::parse(&doc, &mut diags),
        // `detect` finds the three file formats; a phase is a directory.
        PlanKind::TaskPlan | PlanKind::Phase => task_plan::parse(&doc, &front, &mut diags),
    };
    plan.plan_id = plan_id(&front, file_name);
    if kind == PlanKind::TaskPlan {
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
    validate::validate(&mut plan, &mut diags);
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

/// Decides the format (seed 004's rules, plus task plans): a session spec has
/// at least two of `## Dependencies`, `## Scope Fence` and `## Exit Condition`;
/// an ultraplan has `## Implementation Plan`; a task plan has `<task>` elements.
fn detect(doc: &markdown::Document<'_>, front: &front_matter::FrontMatter<'_>) -> Option<PlanKind> {
    let has = |name: &str| doc.find_section(2, name).is_some();
    let spec_sections = ["dependencies", "scope fence", "exit condition"]
        .iter()
        .filter(|n| has(n))
        .count();
    if spec_sections >= 2 {
        Some(PlanKind::SessionSpec)
    } else if has("implementation plan") {
        Some(PlanKind::Plan)
    } else if task_plan::has_tasks(doc, front) {
        Some(PlanKind::TaskPlan)
    } else {
        None
    }
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
