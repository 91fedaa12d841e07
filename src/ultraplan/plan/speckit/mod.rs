//! spec-kit's `specs/<NNN-feature>/tasks.md` (read from github/spec-kit at
//! release 1.0.1, commit 27f50f7: `templates/tasks-template.md`,
//! `templates/commands/tasks.md` and `implement.md`).
//!
//! Tasks are checklist lines `- [ ] T012 [P] [US1] <what> in <path>` grouped
//! in `## Phase N: …` sections (Setup → Foundational → one per user story →
//! Polish) that end with a `**Checkpoint**:` line. What ultraplan makes of
//! them:
//!
//! * phases run in order, tasks in their order; "depends on T012" (or
//!   "after T012", "requires T012") in a task's text must name an earlier task;
//! * consecutive `[P]` tasks of a phase whose paths do not overlap run as
//!   parallel sessions, one task each, in worktrees fenced to the paths the
//!   task names (spec-kit: "tasks affecting the same files must run
//!   sequentially"); a `[P]` task that names no path, shares one with the
//!   batch or depends on a task in it runs after it. Everything else runs in
//!   sequential sessions between the parallel waves — or, when no two tasks
//!   can run side by side, the plan runs in the foreground;
//! * a task already ticked (`[x]`/`[X]`) is skipped; a passed task's box is
//!   ticked `[X]` (spec-kit's own mark) with its checkpoint — in a parallel
//!   run once the wave has merged, never inside a session's worktree;
//! * spec-kit has no Verify field. When the feature's `plan.md` names its
//!   test command (`**Testing**: pytest`, or a code span there) — else
//!   `quickstart.md` a command line that runs tests — each phase ends with a
//!   step that runs it, and the phase's tasks are checked by it: spec-kit
//!   verifies at phase checkpoints, and its test tasks are written to fail
//!   before the implementation, so a test run after each task would fail the
//!   tasks that write tests. Without a test command the tasks pass on the
//!   executor's word only with `--allow-unverified`. `check` says which.

use std::collections::{BTreeSet, HashMap};

use sessions::{sessions, Group};
use test_command::test_command;

mod sessions;
mod test_command;

use super::checklist::{item, paths_in};
use super::markdown::{plain, Document};
use super::ultraplan::empty_plan;
use super::{Checkpoint, Context, Diagnostics, FailurePolicy, FileRef, OnFailure, Plan, PlanKind, Step, Verify};

/// Why a document reads as a spec-kit tasks.md, or `None`.
pub(crate) fn looks_like(doc: &Document<'_>) -> Option<String> {
    let tasks = doc
        .lines
        .iter()
        .filter_map(item)
        .filter(|i| task_id(i.text).is_some())
        .count();
    if tasks == 0 {
        return None;
    }
    let phases = doc.headings.iter().filter(|h| phase_heading(h.text).is_some()).count();
    Some(format!(
        "a spec-kit tasks.md: {tasks} checklist task(s) '- [ ] T001 …' in {phases} '## Phase N:' section(s)"
    ))
}

/// `T012` at the start of a task's text, and the rest.
fn task_id(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix('T')?;
    let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let after = &rest[digits..];
    if !(after.is_empty() || after.starts_with([' ', '\t', ':'])) {
        return None;
    }
    Some((&text[..1 + digits], after.trim_start_matches(':').trim()))
}

/// `Phase 3: User Story 1 - Title (Priority: P1)` → its number and title.
fn phase_heading(text: &str) -> Option<(String, String)> {
    let t = plain(text);
    let rest = t.strip_prefix("Phase ")?;
    let (number, title) = rest.split_once(':').unwrap_or((rest, ""));
    let number = number.trim();
    (!number.is_empty() && number.len() <= 8).then(|| (number.to_owned(), title.trim().to_owned()))
}

struct Task {
    id: String,
    parallel: bool,
    story: Option<String>,
    text: String,
    paths: Vec<String>,
    depends: Vec<(String, usize)>,
    done: bool,
    phase: usize,
    line: usize,
}

struct Phase {
    title: String,
    checkpoint: Option<String>,
    line: usize,
}

pub(crate) fn parse(doc: &Document<'_>, ctx: &Context, diags: &mut Diagnostics) -> Plan {
    let mut plan = empty_plan(PlanKind::SpecKit, doc);
    if let Some(t) = &plan.title {
        plan.title = Some(t.strip_prefix("Tasks:").unwrap_or(t).trim().to_owned());
    }
    let (tasks, phases) = read_tasks(doc, diags);
    let test = test_command(ctx);
    plan.verify_note = Some(match &test {
        Some((command, from)) => format!(
            "`{command}` after each phase ({from}); the phase's tasks are checked by it"
        ),
        None => "none: plan.md names no test command ('**Testing**: …') and quickstart.md none that runs tests, so tasks pass on the executor's word only with --allow-unverified".into(),
    });
    // Steps: each phase's tasks, then its check.
    let mut group_of: Vec<Group> = Vec::new();
    let mut by_phase: Vec<Vec<&Task>> = vec![Vec::new(); phases.len()];
    for t in &tasks {
        by_phase[t.phase].push(t);
    }
    for (phase, members) in phases.iter().zip(by_phase) {
        if members.is_empty() {
            continue;
        }
        let check_number = test
            .as_ref()
            .map(|_| plan.steps.len() as u32 + members.len() as u32 + 1);
        for t in &members {
            let number = plan.steps.len() as u32 + 1;
            // spec-kit names the file a task writes ("Include exact file
            // paths"): new unless the task says it changes an existing one.
            let creates = !super::checklist::modifies(&t.text);
            plan.steps.push(Step {
                number,
                title: format!("{} {}", t.id, t.text),
                files: t
                    .paths
                    .iter()
                    .map(|p| FileRef {
                        path: p.clone(),
                        new: creates,
                        line: t.line,
                    })
                    .collect(),
                changes: describe(t, phase),
                on_failure: OnFailure {
                    action: FailurePolicy::Retry,
                    instructions: None,
                },
                checkpoint: Some(Checkpoint::Commit {
                    message: format!("{}: {}", t.id, t.text),
                }),
                source_id: Some(t.id.clone()),
                skip: t
                    .done
                    .then(|| format!("{} is ticked in tasks.md: done before this run", t.id)),
                verified_by: check_number,
                line: t.line,
                ..Default::default()
            });
            // Ticks do not change the sessions: a session run in its
            // worktree reads the file as ticked so far, and must find the
            // same sessions as the run that started it.
            group_of.push(if t.parallel && !t.paths.is_empty() {
                Group::Parallel(
                    t.paths.clone(),
                    t.depends.iter().map(|(d, _)| d.clone()).collect(),
                    t.phase,
                )
            } else {
                Group::Sequential
            });
        }
        if let (Some((command, _)), Some(number)) = (&test, check_number) {
            let what = phase
                .checkpoint
                .clone()
                .unwrap_or_else(|| format!("{} is complete", phase.title));
            plan.steps.push(Step {
                number,
                title: format!("Checkpoint: {}", phase.title),
                changes: String::new(),
                verify: Some(Verify {
                    command: command.clone(),
                    expected: Some(what),
                    expected_kind: Some(super::ExpectedKind::Prose),
                }),
                on_failure: OnFailure {
                    action: FailurePolicy::Retry,
                    instructions: Some(
                        "the phase's tests fail: fix the phase's work, then 'run --resume' runs them again".into(),
                    ),
                },
                check_only: true,
                task_type: Some("phase-check".into()),
                line: phase.line,
                ..Default::default()
            });
            group_of.push(Group::Sequential);
        }
    }
    if plan.steps.is_empty() {
        diags.problem(
            1,
            "no tasks: a spec-kit task is a checklist line '- [ ] T001 <what> in <path>'",
        );
    }
    sessions(&mut plan, &group_of);
    plan
}

/// What the executor is asked: the task, its phase and story.
fn describe(t: &Task, phase: &Phase) -> String {
    let mut out = t.text.clone();
    out.push_str(&format!("\n\nspec-kit task {} of phase '{}'", t.id, phase.title));
    if let Some(story) = &t.story {
        out.push_str(&format!(", user story {story}"));
    }
    if t.parallel {
        out.push_str(" (parallel: touch only the files it names)");
    }
    out.push('.');
    out
}

fn read_tasks(doc: &Document<'_>, diags: &mut Diagnostics) -> (Vec<Task>, Vec<Phase>) {
    let mut phases = vec![Phase {
        title: "Tasks".into(),
        checkpoint: None,
        line: 1,
    }];
    let mut tasks: Vec<Task> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut heading_at = doc.headings.iter().peekable();
    let mut in_task_section = true;
    for line in &doc.lines {
        while let Some(h) = heading_at.peek() {
            if h.no > line.no {
                break;
            }
            if h.no == line.no && h.level <= 2 {
                if let Some((n, title)) = phase_heading(h.text) {
                    phases.push(Phase {
                        title: if title.is_empty() {
                            format!("Phase {n}")
                        } else {
                            format!("Phase {n}: {title}")
                        },
                        checkpoint: None,
                        line: h.no,
                    });
                    in_task_section = true;
                } else if h.level == 2 {
                    // "## Dependencies & Execution Order", "## Notes": prose.
                    in_task_section = false;
                }
            }
            heading_at.next();
        }
        if line.fenced || !in_task_section {
            continue;
        }
        let text = line.text.trim();
        if let Some(rest) = text
            .strip_prefix("**Checkpoint**:")
            .or_else(|| text.strip_prefix("**Checkpoint:**"))
            .or_else(|| text.strip_prefix("Checkpoint:"))
        {
            if let Some(p) = phases.last_mut() {
                p.checkpoint = Some(plain(rest.trim()));
            }
            continue;
        }
        match item(line) {
            Some(i) => match task_id(i.text) {
                Some((id, rest)) => {
                    let phase = phases.len() - 1;
                    if let Some(first) = seen.get(id) {
                        diags.problem(line.no, format!("task {id} appears twice (first at line {first})"));
                        continue;
                    }
                    seen.insert(id.to_owned(), line.no);
                    let task = read_task(id, rest, i.done(), phase, line.no, diags);
                    tasks.push(task);
                }
                None if i.text.starts_with('[') || phases.len() > 1 => diags.problem(
                    line.no,
                    format!(
                        "task line without an ID: spec-kit writes '- [ ] T001 [P] [US1] <what> in <path>' ('{}')",
                        short(i.text)
                    ),
                ),
                None => {}
            },
            None if task_id(text).is_some() && text.split_whitespace().next().is_some_and(|w| w.len() <= 6) => {
                diags.problem(
                    line.no,
                    format!(
                        "task without its checkbox: spec-kit writes '- [ ] {}' ('{}')",
                        short(text),
                        short(text)
                    ),
                );
            }
            None => {}
        }
    }
    // Dependencies name earlier tasks.
    let order: HashMap<&str, usize> = tasks.iter().enumerate().map(|(i, t)| (t.id.as_str(), i)).collect();
    for (i, t) in tasks.iter().enumerate() {
        for (d, line) in &t.depends {
            match order.get(d.as_str()) {
                None => diags.problem(*line, format!("{} depends on {d}, which is no task of this file", t.id)),
                Some(&j) if j >= i => diags.problem(
                    *line,
                    format!(
                        "{} depends on {d}, which comes after it: phases run in order, and tasks in their order",
                        t.id
                    ),
                ),
                _ => {}
            }
        }
    }
    (tasks, phases)
}

fn short(text: &str) -> String {
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text.to_owned()
    }
}

fn read_task(id: &str, rest: &str, done: bool, phase: usize, line: usize, diags: &mut Diagnostics) -> Task {
    let mut parallel = false;
    let mut story = None;
    let mut text = rest.trim();
    // `[P]` and `[US1]` markers, in any order, before the description.
    while let Some(inner) = text.strip_prefix('[') {
        let Some(end) = inner.find(']') else { break };
        let label = inner[..end].trim();
        if label.eq_ignore_ascii_case("p") {
            parallel = true;
        } else if label.len() <= 12 && !label.is_empty() && !label.contains(' ') {
            story = Some(label.to_owned());
        } else {
            break;
        }
        text = inner[end + 1..].trim_start();
    }
    if text.is_empty() {
        diags.problem(line, format!("task {id} says nothing to do"));
    }
    let (described, depends) = dependencies(text);
    if described.contains("[P]") {
        diags.problem(
            line,
            format!("task {id}: '[P]' belongs right after the ID ('- [ ] {id} [P] …'), not inside the description"),
        );
    }
    Task {
        id: id.to_owned(),
        parallel,
        story,
        text: text.replace('`', ""),
        paths: paths_in(&described),
        depends: depends.into_iter().map(|d| (d, line)).collect(),
        done,
        phase,
        line,
    }
}

/// The description without its dependency clauses, and the tasks they name
/// ("depends on T012, T013", "after T010", "requires T004").
fn dependencies(text: &str) -> (String, Vec<String>) {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    let mut described = text.to_owned();
    for lead in ["depends on", "depend on", "requires", "after"] {
        let mut from = 0;
        while let Some(at) = lower[from..].find(lead).map(|i| from + i) {
            from = at + lead.len();
            let tail = &text[from..];
            let mut ids = Vec::new();
            let mut consumed = 0;
            for word in tail.split_inclusive([' ', ',', ')', ';']) {
                let w = word.trim_matches([' ', ',', ')', ';', '.']);
                if w.is_empty() || w == "and" || w == "&" {
                    consumed += word.len();
                    continue;
                }
                match task_id(w) {
                    Some((id, "")) => {
                        ids.push(id.to_owned());
                        consumed += word.len();
                    }
                    _ => break,
                }
            }
            if !ids.is_empty() {
                described = described.replace(&text[at..from + consumed], "");
                out.extend(ids);
            }
        }
    }
    let set: BTreeSet<String> = out.iter().cloned().collect();
    let mut unique: Vec<String> = Vec::new();
    for d in out {
        if set.contains(&d) && !unique.contains(&d) {
            unique.push(d);
        }
    }
    (described, unique)
}
