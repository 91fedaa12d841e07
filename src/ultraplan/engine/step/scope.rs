//! Scope fences (DESIGN §6.2): a step's session's Touch and Never touch
//! lists, the Manifest's forbidden paths and the plan file itself, and what
//! a step declares checked against them before anything runs (what it was
//! observed to change is checked in [`super::observe`]).

use std::path::Path;

use super::RunContext;
use crate::ultraplan::plan::check::{self, Through};
use crate::ultraplan::plan::{pattern, Step};

/// A step's fence: what it may touch (empty: anything), what it must never
/// touch, and the session whose fence it is.
#[derive(Clone)]
pub(super) struct Fence {
    pub touch: Vec<String>,
    pub never: Vec<String>,
    pub session: Option<u32>,
    /// The plan's path in the worktree and the patterns of `never` that
    /// fence it (not a list the plan wrote), so a violation names them so.
    plan: Option<(String, Vec<String>)>,
    /// The plan is a GSD phase directory: its `*-PLAN.md` are fenced.
    phase: bool,
}

impl Fence {
    /// `step`'s fence, the same for each of its attempts.
    pub(super) fn of(cx: &RunContext<'_>, step: &Step) -> Fence {
        let phase = cx.plan.kind == crate::ultraplan::plan::PlanKind::Phase;
        let (touch, never) = fence_lists(cx, step, phase);
        let plan = cx
            .input
            .in_worktree
            .as_deref()
            .map(|rel| (rel.to_owned(), pattern::plan_fence(rel, phase)));
        Fence {
            touch,
            never,
            session: step_session(cx, step).map(|s| s.number),
            plan,
            phase,
        }
    }

    /// Why `path`, matched by the Never-touch pattern `p`, may not be
    /// touched: the plan itself, or the list.
    pub(super) fn never_reason(&self, path: &str, p: &str) -> String {
        match &self.plan {
            Some((rel, fence)) if fence.iter().any(|q| q == p) => {
                if self.phase {
                    format!("'{path}' is a plan of the phase '{rel}', which no step may change")
                } else if path.trim_start_matches("./") == rel {
                    format!("'{path}' is the plan itself, which no step may change")
                } else {
                    format!("'{path}' is in the plan's directory '{rel}', which no step may change")
                }
            }
            _ => format!("'{path}' is in Never touch ('{p}')"),
        }
    }
}

/// Declared files in Never touch, or leading where the step may not
/// write through a symbolic link already there (one an earlier step made
/// included: the fence is checked where a path really leads, each time a
/// step starts): a scope violation before anything runs.
pub(super) fn declared_violation(fence: &Fence, workdir: &Path, step: &Step) -> Option<String> {
    let (touch, never) = (&fence.touch, &fence.never);
    let hits: Vec<String> = step
        .files
        .iter()
        .filter_map(|f| {
            if let Some(p) = never.iter().find(|p| pattern::matches(p, &f.path)) {
                return Some(fence.never_reason(&f.path, p));
            }
            let path = pattern::safe_relative_path(&f.path)
                .ok()
                .filter(|p| !pattern::is_glob(p))?;
            match check::through_links(workdir, &path)? {
                Through::Outside(link) => Some(format!(
                    "'{}' leads outside the repository through the symbolic link '{}'",
                    f.path,
                    link.display()
                )),
                Through::Inside(real) if !crate::git::storable(&real) => Some(format!(
                    "'{}' leads into .git through a symbolic link (to '{real}')",
                    f.path
                )),
                Through::Inside(real) => {
                    if let Some(p) = never.iter().find(|p| pattern::matches(p, &real)) {
                        Some(format!(
                            "'{}' is '{real}' through a symbolic link, which is in Never touch ('{p}')",
                            f.path
                        ))
                    } else if !touch.is_empty() && !touch.iter().any(|p| pattern::matches(p, &real)) {
                        Some(format!(
                            "'{}' is '{real}' through a symbolic link, which is outside the Touch list",
                            f.path
                        ))
                    } else {
                        None
                    }
                }
            }
        })
        .collect();
    (!hits.is_empty()).then(|| format!("scope violation: the step declares {}", hits.join(", ")))
}

/// The session whose fence applies to `step`: the one being run, else the
/// one the Execution Strategy gives the step (a foreground run of a plan
/// with sessions fences each step like its session would).
fn step_session<'a>(cx: &RunContext<'a>, step: &Step) -> Option<&'a crate::ultraplan::plan::Session> {
    cx.session
        .or_else(|| cx.plan.sessions.iter().find(|s| s.steps.contains(&step.number)))
}

/// The session's Touch list and everything never to be touched: its Never
/// touch list, the Manifest's forbidden paths and the plan file itself.
fn fence_lists(cx: &RunContext<'_>, step: &Step, phase: bool) -> (Vec<String>, Vec<String>) {
    let mut touch = Vec::new();
    let mut never = Vec::new();
    if let Some(session) = step_session(cx, step) {
        touch.extend(session.touch.iter().map(|p| p.text.clone()));
        never.extend(session.never_touch.iter().map(|p| p.text.clone()));
    }
    if let Some(manifest) = &step.manifest {
        never.extend(manifest.forbidden_paths.iter().cloned());
    }
    if let Some(plan) = &cx.input.in_worktree {
        // The plan's own path, not a pattern: `*.md` is one file. Of a GSD
        // phase directory, its plans; a session of it may also write its
        // plan's SUMMARY.md, as GSD's executor does.
        never.extend(pattern::plan_fence(plan, phase));
        let summary = step
            .origin
            .as_ref()
            .filter(|_| phase && !touch.is_empty())
            .and_then(|(file, _)| pattern::phase_summary(plan, file));
        touch.extend(summary);
    }
    (touch, never)
}
