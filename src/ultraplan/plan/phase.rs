//! A GSD phase directory (`.planning/phases/01-foundation/`, its
//! `*-PLAN.md` files) read as one multi-session plan (issue 10, item 7):
//! each plan is a session, its tasks the session's steps (numbered on
//! through the phase), its front matter `wave`, `depends_on` and
//! `files_modified` the session's wave, dependencies and Touch list. The
//! usual validation applies (DESIGN §4.4): unknown dependencies, cycles,
//! waves inconsistent with dependencies, two plans of one wave sharing a file.
//!
//! `autonomous: false` plans (they have checkpoints) run alone in their wave:
//! a checkpoint stops its session for a person, and the plans beside it would
//! wait, unmerged, until that person answers.

use super::front_matter::front_matter;
use super::pattern::PathPattern;
use super::{parse, Diagnostic, Diagnostics, Plan, PlanKind, Session, Severity};

/// One `*-PLAN.md` file of the directory.
pub struct PhaseFile {
    pub name: String,
    pub text: String,
}

/// Whether a file name is a GSD plan (`01-02-PLAN.md`).
pub fn is_plan_file(name: &str) -> bool {
    name.ends_with("-PLAN.md")
}

/// The phase's plans as one plan, or why the directory is not a phase.
pub fn compose(dir_name: &str, files: &[PhaseFile]) -> Result<Plan, String> {
    if files.is_empty() {
        return Err("it holds no '*-PLAN.md' files (a GSD phase directory does)".into());
    }
    let mut diags = Diagnostics::default();
    let mut plans = Vec::new();
    for f in files {
        let plan = parse(&f.text, &f.name).map_err(|why| format!("'{}' is not a plan: {why}", f.name))?;
        let front = front_matter(f.text.strip_prefix('\u{feff}').unwrap_or(&f.text));
        let meta = (
            front.value("wave").and_then(|w| w.parse::<u32>().ok()),
            front.list("depends_on"),
            front.list("files_modified"),
            front.value("autonomous").is_none_or(|a| a != "false"),
        );
        plans.push((f, plan, meta));
    }
    let mut phase = Plan {
        kind: PlanKind::Phase,
        plan_id: dir_name.to_owned(),
        title: Some(format!("phase {dir_name}")),
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
        diagnostics: Vec::new(),
        execution_order: Vec::new(),
    };
    let ids: Vec<String> = plans.iter().map(|(_, p, _)| p.plan_id.clone()).collect();
    // GSD Core's end-of-phase review: every plan's human-checks, asked once
    // after the whole phase (its last session), not once per plan.
    let mut review_items = Vec::new();
    // Two plans with one id: `depends_on` could not tell them apart.
    let mut first_of: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for (file, plan, _) in &plans {
        match first_of.get(plan.plan_id.as_str()) {
            Some(first) => diags.problem(
                1,
                format!(
                    "{} and {first} are both plan '{}' (their front matter's phase and plan): give each its own 'plan:' so that depends_on names one",
                    file.name, plan.plan_id
                ),
            ),
            None => {
                first_of.insert(plan.plan_id.as_str(), file.name.as_str());
            }
        }
    }
    for (k, (file, plan, (wave, depends, touch, _))) in plans.iter().enumerate() {
        let number = k as u32 + 1;
        for d in &plan.diagnostics {
            let message = format!("{}: {}", file.name, d.message);
            match d.severity {
                Severity::Problem => diags.problem(d.line, message),
                Severity::Warning => diags.warning(d.line, message),
            }
        }
        let mut steps = Vec::new();
        let first_number = phase.steps.len() as u32 + 1;
        for step in &plan.steps {
            if let Some(h) = step.human.as_ref().filter(|h| h.kind == super::HumanKind::Review) {
                for item in &h.items {
                    let mut item = item.clone();
                    item.step += first_number - 1;
                    review_items.push(item);
                }
                continue;
            }
            let mut step = step.clone();
            step.verified_by = None;
            step.origin = Some((file.name.clone(), step.number));
            // The plan's own `<context>` files go with each of its steps.
            // (Both lists are bounded by gsd's MAX_CONTEXT.)
            for path in &plan.context {
                if !step.context.contains(path) {
                    step.context.push(path.clone());
                }
            }
            step.number = phase.steps.len() as u32 + 1;
            // The result's task name is numbered through the phase; the
            // checkpoint message keeps the plan's own id and task name.
            step.name = None;
            steps.push(step.number);
            phase.steps.push(step);
        }
        let mut depends_on = Vec::new();
        for dep in depends {
            // `01-01`, or `01` within this phase.
            let exact: Vec<usize> = (0..ids.len()).filter(|&i| ids[i] == *dep).collect();
            let found: Vec<usize> = if exact.is_empty() {
                (0..ids.len())
                    .filter(|&i| ids[i].rsplit('-').next() == Some(dep.as_str()))
                    .collect()
            } else {
                exact
            };
            match found.as_slice() {
                [i] => depends_on.push(*i as u32 + 1),
                [_, _, ..] => diags.problem(
                    1,
                    format!(
                        "{}: depends_on names '{dep}', which more than one plan of this phase is ({})",
                        file.name,
                        found
                            .iter()
                            .map(|&i| plans[i].0.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
                [] => diags.problem(
                    1,
                    format!(
                        "{}: depends_on names '{dep}', which is not a plan of this phase ({})",
                        file.name,
                        ids.join(", ")
                    ),
                ),
            }
        }
        phase.sessions.push(Session {
            number,
            title: format!("{} {}", plan.plan_id, plan.title.clone().unwrap_or_default())
                .trim()
                .to_owned(),
            steps,
            wave: None,
            depends_on,
            touch: touch
                .iter()
                .map(|t| PathPattern {
                    text: t.clone(),
                    line: 1,
                })
                .collect(),
            never_touch: Vec::new(),
            line: 1,
            declared_wave: *wave,
        });
    }
    if !review_items.is_empty() {
        let step = super::review::review_step(&mut phase.steps, review_items);
        let all_declared = phase.sessions.iter().all(|s| s.declared_wave.is_some());
        let last_wave = phase.sessions.iter().filter_map(|s| s.declared_wave).max().unwrap_or(0);
        let number = phase.sessions.len() as u32 + 1;
        phase.sessions.push(Session {
            number,
            title: "End-of-phase review".into(),
            steps: vec![step.number],
            wave: None,
            depends_on: (1..number).collect(),
            touch: Vec::new(),
            never_touch: Vec::new(),
            line: 1,
            declared_wave: all_declared.then_some(last_wave + 1),
        });
        phase.steps.push(step);
    }
    let mut autonomous: Vec<bool> = plans.iter().map(|(_, _, m)| m.3).collect();
    autonomous.resize(phase.sessions.len(), true);
    alone_in_their_wave(&mut phase, &autonomous, &mut diags);
    phase.format_reason = Some(format!(
        "a GSD phase directory: {} '*-PLAN.md' plan(s), each a session",
        files.len()
    ));
    super::structure::validate(&mut phase, &mut diags);
    phase.diagnostics = diags.into_vec();
    phase.diagnostics.sort_by_key(|d: &Diagnostic| (d.line, d.severity));
    Ok(phase)
}

/// Renumbers declared waves so each `autonomous: false` plan runs alone:
/// within a declared wave the autonomous plans come first, together, then
/// each other plan in a wave of its own.
fn alone_in_their_wave(phase: &mut Plan, autonomous: &[bool], diags: &mut Diagnostics) {
    let mut declared: Vec<u32> = phase.sessions.iter().filter_map(|s| s.declared_wave).collect();
    declared.sort_unstable();
    declared.dedup();
    let mut next = 0;
    for w in declared {
        let members: Vec<usize> = (0..phase.sessions.len())
            .filter(|&i| phase.sessions[i].declared_wave == Some(w))
            .collect();
        let (free, held): (Vec<usize>, Vec<usize>) = members.iter().partition(|&&i| autonomous[i]);
        if !free.is_empty() {
            next += 1;
            for &i in &free {
                phase.sessions[i].declared_wave = Some(next);
            }
        }
        for &i in &held {
            next += 1;
            if members.len() > 1 {
                diags.warning(
                    1,
                    format!(
                        "{} is 'autonomous: false' (it stops for a person), so it runs alone in wave {next}, not beside the other plans of its wave {w}",
                        phase.sessions[i].title
                    ),
                );
            }
            phase.sessions[i].declared_wave = Some(next);
        }
    }
}
