//! Structural validation of a parsed plan (DESIGN §4.4) that needs no
//! filesystem: step numbering, sessions and their steps, dependencies and
//! cycles, waves (declared or derived), Touch overlaps within a wave, scope
//! fences against the steps' files, and path safety.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::pattern::{self, is_glob, safe_relative_path};
use super::{Diagnostics, Plan, PlanKind};

pub(crate) fn validate(plan: &mut Plan, diags: &mut Diagnostics) {
    step_numbers(plan, diags);
    paths(plan, diags);
    if matches!(plan.kind, PlanKind::Plan | PlanKind::Phase | PlanKind::SpecKit) && !plan.sessions.is_empty() {
        sessions(plan, diags);
    }
    fences(plan, diags);
}

fn step_numbers(plan: &Plan, diags: &mut Diagnostics) {
    let mut seen: HashMap<u32, usize> = HashMap::new();
    let mut previous: Option<u32> = None;
    for step in &plan.steps {
        if let Some(first) = seen.get(&step.number) {
            diags.problem(
                step.line,
                format!("step {} appears twice (first at line {first})", step.number),
            );
        } else if previous.is_some_and(|p| step.number < p) {
            diags.problem(
                step.line,
                format!(
                    "step {} comes after step {}; step numbers must increase",
                    step.number,
                    previous.unwrap_or(0)
                ),
            );
        }
        seen.entry(step.number).or_insert(step.line);
        previous = Some(previous.map_or(step.number, |p| p.max(step.number)));
    }
}

/// Every path a plan names must be relative and stay inside the repository.
fn paths(plan: &Plan, diags: &mut Diagnostics) {
    // What names the path is written only for a path refused.
    let mut check = |path: &str, line: usize, what: &dyn Fn() -> String| {
        if let Err(why) = safe_relative_path(path) {
            diags.problem(line, format!("{} path '{path}' {why}", what()));
        }
    };
    for step in &plan.steps {
        let what = || format!("{}:", step.label());
        for file in &step.files {
            check(&file.path, file.line, &|| format!("{} Files", what()));
        }
        if let Some(test) = step.test_first.as_ref().and_then(|t| t.file.as_ref()) {
            check(test, step.line, &|| format!("{} Test first", what()));
        }
        if let Some(manifest) = &step.manifest {
            let named = manifest
                .expected_paths
                .iter()
                .chain(&manifest.forbidden_paths)
                .chain(manifest.must_contain.iter().map(|m| &m.path))
                .chain(manifest.must_not_contain.iter().map(|m| &m.path))
                .chain(&manifest.bash_syntax_check);
            for path in named {
                check(path, step.line, &|| format!("{} Manifest", what()));
            }
        }
    }
    for session in &plan.sessions {
        for p in session.touch.iter().chain(&session.never_touch) {
            check(&p.text, p.line, &|| format!("session {}: scope fence", session.number));
        }
    }
}

fn sessions(plan: &mut Plan, diags: &mut Diagnostics) {
    let numbers: BTreeSet<u32> = plan.sessions.iter().map(|s| s.number).collect();
    let mut seen_sessions: HashMap<u32, usize> = HashMap::new();
    let mut owner: HashMap<u32, u32> = HashMap::new();
    for session in &plan.sessions {
        if let Some(first) = seen_sessions.insert(session.number, session.line) {
            diags.problem(
                session.line,
                format!("session {} appears twice (first at line {first})", session.number),
            );
        }
        for &step in &session.steps {
            if plan.step(step).is_none() {
                diags.problem(
                    session.line,
                    format!(
                        "session {} lists step {step}, which the plan does not have",
                        session.number
                    ),
                );
            } else if let Some(other) = owner.insert(step, session.number) {
                if other != session.number {
                    diags.problem(
                        session.line,
                        format!(
                            "step {step} belongs to both session {other} and session {}",
                            session.number
                        ),
                    );
                }
            }
        }
        for &dep in &session.depends_on {
            if dep == session.number {
                diags.problem(session.line, format!("session {} depends on itself", session.number));
            } else if !numbers.contains(&dep) {
                diags.problem(
                    session.line,
                    format!(
                        "session {} depends on session {dep}, which the plan does not have",
                        session.number
                    ),
                );
            }
        }
    }
    for step in &plan.steps {
        if !owner.contains_key(&step.number) {
            diags.warning(
                step.line,
                format!(
                    "step {} is in no session; a multi-session run will not execute it",
                    step.number
                ),
            );
        }
    }

    let cyclic = report_cycles(plan, diags);
    assign_waves(plan, cyclic, diags);
    touch_overlaps(plan, diags);
}

/// Reports each dependency cycle once (`session 1 → session 2 → session 1`);
/// returns whether there was any.
fn report_cycles(plan: &Plan, diags: &mut Diagnostics) -> bool {
    let deps: BTreeMap<u32, Vec<u32>> = plan
        .sessions
        .iter()
        .map(|s| {
            (
                s.number,
                s.depends_on.iter().copied().filter(|d| *d != s.number).collect(),
            )
        })
        .collect();
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Visiting,
        Done,
    }
    let mut marks: HashMap<u32, Mark> = HashMap::new();
    let mut reported: BTreeSet<Vec<u32>> = BTreeSet::new();
    let mut any = false;
    for &start in deps.keys() {
        if marks.contains_key(&start) {
            continue;
        }
        // Iterative DFS keeping the path, so hostile plans cannot overflow the stack.
        let mut path: Vec<u32> = vec![start];
        let mut next_child: Vec<usize> = vec![0];
        marks.insert(start, Mark::Visiting);
        while let Some(&node) = path.last() {
            let children = deps.get(&node).map_or(&[][..], |v| v.as_slice());
            let i = next_child.last().copied().unwrap_or(0);
            if i >= children.len() {
                marks.insert(node, Mark::Done);
                path.pop();
                next_child.pop();
                continue;
            }
            if let Some(last) = next_child.last_mut() {
                *last += 1;
            }
            let child = children[i];
            if !deps.contains_key(&child) {
                continue;
            }
            match marks.get(&child) {
                Some(Mark::Visiting) => {
                    let from = path.iter().position(|&n| n == child).unwrap_or(0);
                    let cycle: Vec<u32> = path[from..].to_vec();
                    let mut key = cycle.clone();
                    key.sort_unstable();
                    if reported.insert(key) {
                        any = true;
                        let text: Vec<String> = cycle
                            .iter()
                            .chain(std::iter::once(&child))
                            .map(|n| format!("session {n}"))
                            .collect();
                        let line = plan.session(child).map_or(1, |s| s.line);
                        diags.problem(line, format!("dependency cycle: {}", text.join(" → ")));
                    }
                }
                Some(Mark::Done) => {}
                None => {
                    marks.insert(child, Mark::Visiting);
                    path.push(child);
                    next_child.push(0);
                }
            }
        }
    }
    any
}

/// Gives every session its wave: `Wave:` or the execution order when declared,
/// else one more than its latest dependency; then checks that each session runs
/// after everything it depends on.
fn assign_waves(plan: &mut Plan, cyclic: bool, diags: &mut Diagnostics) {
    let mut from_order: HashMap<u32, (u32, usize)> = HashMap::new();
    for decl in &plan.execution_order {
        for &s in &decl.sessions {
            if plan.session(s).is_none() {
                diags.problem(
                    decl.line,
                    format!(
                        "execution order puts session {s} in wave {}, but the plan has no session {s}",
                        decl.number
                    ),
                );
            } else if let Some((other, _)) = from_order.insert(s, (decl.number, decl.line)) {
                if other != decl.number {
                    diags.problem(
                        decl.line,
                        format!(
                            "execution order puts session {s} in both wave {other} and wave {}",
                            decl.number
                        ),
                    );
                }
            }
        }
    }
    for session in &mut plan.sessions {
        match (session.declared_wave, from_order.get(&session.number)) {
            (Some(w), Some(&(o, line))) if w != o => diags.problem(
                line,
                format!(
                    "session {} is in wave {w} by its Wave field but in wave {o} by the execution order",
                    session.number
                ),
            ),
            (None, Some(&(o, _))) => session.declared_wave = Some(o),
            _ => {}
        }
        if !plan.execution_order.is_empty() && !from_order.contains_key(&session.number) {
            diags.warning(
                session.line,
                format!("session {} is missing from the execution order", session.number),
            );
        }
    }
    if cyclic {
        for session in &mut plan.sessions {
            session.wave = session.declared_wave;
        }
    } else {
        let declared: HashMap<u32, Option<u32>> = plan.sessions.iter().map(|s| (s.number, s.declared_wave)).collect();
        let deps: HashMap<u32, Vec<u32>> = plan.sessions.iter().map(|s| (s.number, s.depends_on.clone())).collect();
        let mut resolved: HashMap<u32, u32> = HashMap::new();
        let order: Vec<u32> = plan.sessions.iter().map(|s| s.number).collect();
        for number in order {
            resolve_wave(number, &declared, &deps, &mut resolved);
        }
        for session in &mut plan.sessions {
            session.wave = resolved.get(&session.number).copied();
        }
        for session in &plan.sessions {
            let Some(wave) = session.wave else { continue };
            for dep in &session.depends_on {
                if let Some(dep_wave) = plan.session(*dep).and_then(|d| d.wave) {
                    if dep_wave >= wave && *dep != session.number {
                        diags.problem(
                            session.line,
                            format!(
                                "session {} runs in wave {wave} but depends on session {dep} in wave {dep_wave}; \
                                 it must run in a later wave",
                                session.number
                            ),
                        );
                    }
                }
            }
        }
    }
    let mut waves: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for session in &plan.sessions {
        if let Some(w) = session.wave {
            let list = waves.entry(w).or_default();
            if !list.contains(&session.number) {
                list.push(session.number);
            }
        }
    }
    plan.waves = waves.into_values().collect();
}

/// Topological layering without recursion: a session's wave is its declared
/// one, else one more than the latest of its dependencies (1 with none).
fn resolve_wave(
    start: u32,
    declared: &HashMap<u32, Option<u32>>,
    deps: &HashMap<u32, Vec<u32>>,
    resolved: &mut HashMap<u32, u32>,
) {
    let mut stack = vec![start];
    while let Some(&node) = stack.last() {
        if resolved.contains_key(&node) {
            stack.pop();
            continue;
        }
        if let Some(Some(w)) = declared.get(&node) {
            resolved.insert(node, *w);
            stack.pop();
            continue;
        }
        let pending: Vec<u32> = deps
            .get(&node)
            .into_iter()
            .flatten()
            .copied()
            .filter(|d| *d != node && declared.contains_key(d) && !resolved.contains_key(d))
            .collect();
        if pending.is_empty() {
            let wave = deps
                .get(&node)
                .into_iter()
                .flatten()
                .filter_map(|d| resolved.get(d))
                .max()
                .map_or(1, |w| w + 1);
            resolved.insert(node, wave);
            stack.pop();
        } else {
            stack.extend(pending);
        }
    }
}

/// Within one wave no two sessions may share a file of their Touch lists.
fn touch_overlaps(plan: &Plan, diags: &mut Diagnostics) {
    for (w, wave) in plan.waves.iter().enumerate() {
        if wave.len() < 2 {
            continue;
        }
        let members: Vec<_> = wave.iter().filter_map(|n| plan.session(*n)).collect();
        for (i, a) in members.iter().enumerate() {
            if a.touch.is_empty() {
                diags.warning(
                    a.line,
                    format!(
                        "session {} has no Touch list; overlaps with the other sessions of wave {} cannot be checked",
                        a.number,
                        wave_number(plan, a.number).unwrap_or(w as u32 + 1)
                    ),
                );
            }
            for b in &members[i + 1..] {
                let mut shared = Vec::new();
                for pa in &a.touch {
                    for pb in &b.touch {
                        if pattern::overlap(&pa.text, &pb.text) {
                            shared.push(if pa.text == pb.text {
                                format!("'{}'", pa.text)
                            } else {
                                format!("'{}' and '{}'", pa.text, pb.text)
                            });
                        }
                    }
                }
                if !shared.is_empty() {
                    diags.problem(
                        b.line,
                        format!(
                            "sessions {} and {} are both in wave {} and both touch {}",
                            a.number,
                            b.number,
                            wave_number(plan, a.number).unwrap_or(w as u32 + 1),
                            shared.join(", ")
                        ),
                    );
                }
            }
        }
    }
}

fn wave_number(plan: &Plan, session: u32) -> Option<u32> {
    plan.session(session).and_then(|s| s.wave)
}

/// A step's declared files should respect its session's scope fence: nothing
/// in Never touch, and (when there is a Touch list) nothing outside it. These
/// are warnings, not problems: the plan still runs, and the engine stops that
/// step (DESIGN §6.2.2: escalate before doing anything) rather than the
/// whole plan.
fn fences(plan: &Plan, diags: &mut Diagnostics) {
    for session in &plan.sessions {
        for &number in &session.steps {
            let Some(step) = plan.step(number) else { continue };
            for file in &step.files {
                if is_glob(&file.path) || safe_relative_path(&file.path).is_err() {
                    continue;
                }
                if let Some(p) = session
                    .never_touch
                    .iter()
                    .find(|p| pattern::matches(&p.text, &file.path))
                {
                    diags.warning(
                        file.line,
                        format!(
                            "{}: '{}' is in session {}'s Never touch list ('{}'); the step will escalate before it runs",
                            step.label(), file.path, session.number, p.text
                        ),
                    );
                } else if !session.touch.is_empty()
                    && !session.touch.iter().any(|p| pattern::matches(&p.text, &file.path))
                {
                    diags.warning(
                        file.line,
                        format!(
                            "{}: '{}' is outside session {}'s Touch list; changing it will be a scope violation",
                            step.label(),
                            file.path,
                            session.number
                        ),
                    );
                }
            }
        }
    }
}
