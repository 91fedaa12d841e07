//! spec-kit's `[P]` tasks as parallel sessions: each batch of parallel
//! tasks of a phase whose paths do not overlap is a wave of one-task
//! sessions fenced to their paths; the tasks between batches run in
//! sequential sessions. No batch of two → no sessions (the foreground).

use crate::ultraplan::plan::{Plan, Session};

/// How a step may run.
pub(super) enum Group {
    /// A `[P]` task: its paths (the fence), the tasks it depends on, and
    /// its phase (a batch never spans two: phases run in order).
    Parallel(Vec<String>, Vec<String>, usize),
    Sequential,
}

/// The most sessions one wave of parallel tasks holds.
const MAX_WAVE: usize = 64;

/// Sessions when two or more tasks can run side by side: each batch of
/// parallel tasks a wave of one-task sessions fenced to their paths, the
/// tasks between batches one sequential session each stretch.
pub(super) fn sessions(plan: &mut Plan, groups: &[Group]) {
    let mut waves: Vec<Vec<(Vec<u32>, Vec<String>)>> = Vec::new();
    let mut sequential: Vec<u32> = Vec::new();
    let mut batch: Vec<(u32, Vec<String>)> = Vec::new();
    let mut batch_ids: Vec<String> = Vec::new();
    let flush = |waves: &mut Vec<Vec<(Vec<u32>, Vec<String>)>>,
                 sequential: &mut Vec<u32>,
                 batch: &mut Vec<(u32, Vec<String>)>,
                 batch_ids: &mut Vec<String>| {
        if batch.len() >= 2 {
            if !sequential.is_empty() {
                waves.push(vec![(std::mem::take(sequential), Vec::new())]);
            }
            waves.push(batch.drain(..).map(|(n, paths)| (vec![n], paths)).collect());
        } else {
            sequential.extend(batch.drain(..).map(|(n, _)| n));
        }
        batch_ids.clear();
    };
    let mut batch_phase = usize::MAX;
    for (step, group) in plan.steps.iter().zip(groups) {
        match group {
            Group::Parallel(paths, depends, phase) => {
                let overlaps = batch.iter().any(|(_, other)| {
                    paths
                        .iter()
                        .any(|p| other.iter().any(|o| crate::ultraplan::plan::pattern::overlap(p, o)))
                });
                let depends_on_batch = depends.iter().any(|d| batch_ids.contains(d));
                // A wave holds at most MAX_WAVE sessions: it bounds the
                // overlap checks (each new task against the batch) too.
                let full = batch.len() >= MAX_WAVE;
                if overlaps || depends_on_batch || *phase != batch_phase || full {
                    flush(&mut waves, &mut sequential, &mut batch, &mut batch_ids);
                }
                batch_phase = *phase;
                batch.push((step.number, paths.clone()));
                batch_ids.extend(step.source_id.clone());
            }
            Group::Sequential => {
                flush(&mut waves, &mut sequential, &mut batch, &mut batch_ids);
                sequential.push(step.number);
            }
        }
    }
    flush(&mut waves, &mut sequential, &mut batch, &mut batch_ids);
    if !waves.iter().any(|w| w.len() >= 2) {
        return; // nothing runs side by side: the foreground
    }
    if !sequential.is_empty() {
        waves.push(vec![(sequential, Vec::new())]);
    }
    let mut number = 0u32;
    let mut previous: Vec<u32> = Vec::new();
    for (w, wave) in waves.into_iter().enumerate() {
        let mut this = Vec::new();
        for (steps, paths) in wave {
            number += 1;
            // Steps are numbered by position.
            let at = |n: u32| plan.steps.get((n as usize).wrapping_sub(1)).filter(|s| s.number == n);
            let first = at(steps[0]);
            let last = steps.last().and_then(|n| at(*n));
            let title = match (first, last) {
                (Some(f), Some(l)) if steps.len() > 1 => format!(
                    "{} … {}",
                    f.source_id.clone().unwrap_or_else(|| f.title.clone()),
                    l.source_id.clone().unwrap_or_else(|| l.title.clone())
                ),
                (Some(f), _) => f.title.clone(),
                _ => String::new(),
            };
            plan.sessions.push(Session {
                number,
                title,
                steps,
                wave: Some(w as u32 + 1),
                depends_on: previous.clone(),
                touch: paths
                    .iter()
                    .map(|p| crate::ultraplan::plan::pattern::PathPattern {
                        text: p.clone(),
                        line: 1,
                    })
                    .collect(),
                never_touch: Vec::new(),
                line: first.map_or(1, |s| s.line),
                declared_wave: Some(w as u32 + 1),
            });
            this.push(number);
        }
        plan.waves.push(this.clone());
        previous = this;
    }
}
