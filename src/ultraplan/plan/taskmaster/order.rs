//! Taskmaster's dependency graph: tasks in waves (a task's wave is one
//! more than its dependencies' latest), file order within a wave, a task's
//! subtasks in their own dependency order, and every unknown task or circle
//! named.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::spans;
use super::{id_text, Reader, Unit, STATUSES};

/// The units (tasks without subtasks, and subtasks) in run order, and the
/// waves of task ids.
pub(super) fn order<'v>(
    tasks: &[&'v Value],
    nodes: &[spans::Node],
    r: &mut Reader,
) -> (Vec<Unit<'v>>, Vec<Vec<String>>) {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut ids = Vec::new();
    for (i, t) in tasks.iter().enumerate() {
        let at = nodes.get(i).map_or(0, |n| n.start);
        match t.get("id").and_then(id_text) {
            Some(id) => {
                if index.contains_key(&id) {
                    r.problem(at, format!("task {id} appears twice"));
                } else {
                    index.insert(id.clone(), i);
                }
                ids.push(id);
            }
            None => {
                r.problem(at, format!("task {} has no id", i + 1));
                ids.push(format!("#{}", i + 1));
            }
        }
        let status = t.get("status").and_then(Value::as_str).unwrap_or("pending");
        if !STATUSES.contains(&status) {
            r.problem(
                nodes.get(i).and_then(|n| n.get("status")).map_or(at, |n| n.start),
                format!(
                    "task {}: status '{status}' is not one of Taskmaster's ({})",
                    ids[i],
                    STATUSES.join(", ")
                ),
            );
        }
        if t.get("title")
            .and_then(Value::as_str)
            .is_none_or(|s| s.trim().is_empty())
        {
            r.problem(at, format!("task {} has no title", ids[i]));
        }
    }
    // Task-level edges: dependencies, and subtasks' dependencies on other tasks' subtasks.
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); tasks.len()];
    for (i, t) in tasks.iter().enumerate() {
        let at = nodes.get(i).map_or(0, |n| n.start);
        let mut named: Vec<String> = list(t.get("dependencies")).iter().filter_map(id_text).collect();
        for s in list(t.get("subtasks")) {
            for d in list(s.get("dependencies")) {
                if let Some(d) = id_text(d).filter(|d| d.contains('.')) {
                    let task = d.split('.').next().unwrap_or("").to_owned();
                    if task != ids[i] {
                        named.push(task);
                    }
                }
            }
        }
        for d in named {
            match index.get(&d) {
                Some(&j) if j == i => r.problem(at, format!("task {} depends on itself", ids[i])),
                Some(&j) => {
                    if !deps[i].contains(&j) {
                        deps[i].push(j);
                    }
                    let status = tasks[j].get("status").and_then(Value::as_str).unwrap_or("");
                    if matches!(status, "cancelled" | "deferred") && !skipped(tasks[i]) {
                        r.warning(
                            at,
                            format!("task {} depends on task {d}, which is {status}: it runs anyway", ids[i]),
                        );
                    }
                }
                None => r.problem(
                    at,
                    format!("task {} depends on task {d}, which this tag does not have", ids[i]),
                ),
            }
        }
    }
    // Waves by layering (Kahn, linear in tasks and edges), file order
    // within a wave.
    let mut waiting_on: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); tasks.len()];
    for (i, ds) in deps.iter().enumerate() {
        for &d in ds {
            dependents[d].push(i);
        }
    }
    let mut placed = vec![false; tasks.len()];
    let mut waves: Vec<Vec<usize>> = Vec::new();
    let mut ready: Vec<usize> = (0..tasks.len()).filter(|&i| waiting_on[i] == 0).collect();
    let mut count = 0;
    while count < tasks.len() {
        if ready.is_empty() {
            let remaining: Vec<usize> = (0..tasks.len()).filter(|&i| !placed[i]).collect();
            let cycle = find_cycle(&deps, &remaining);
            let names: Vec<String> = cycle.iter().map(|&i| ids[i].clone()).collect();
            let at = nodes.get(cycle[0]).map_or(0, |n| n.start);
            r.problem(
                at,
                format!(
                    "tasks depend on each other in a circle: {} → {}",
                    names.join(" → "),
                    names[0]
                ),
            );
            waves.push(remaining);
            break;
        }
        ready.sort_unstable();
        let mut next = Vec::new();
        for &i in &ready {
            placed[i] = true;
            for &j in &dependents[i] {
                waiting_on[j] -= 1;
                if waiting_on[j] == 0 {
                    next.push(j);
                }
            }
        }
        count += ready.len();
        waves.push(std::mem::replace(&mut ready, next));
    }
    let mut units = Vec::new();
    for wave in &waves {
        for &i in wave {
            let t = tasks[i];
            let node = nodes.get(i);
            let subs = list(t.get("subtasks"));
            if subs.is_empty() {
                units.push(Unit {
                    id: ids[i].clone(),
                    task: t,
                    sub: None,
                    parent_strategy: None,
                    at: node.map_or(0, |n| n.start),
                });
                continue;
            }
            let sub_nodes = node.and_then(|n| n.get("subtasks")).map(|n| n.items()).unwrap_or(&[]);
            for (k, s) in sub_order(&ids[i], subs, sub_nodes, r) {
                units.push(Unit {
                    id: format!(
                        "{}.{}",
                        ids[i],
                        s.get("id").and_then(id_text).unwrap_or_else(|| (k + 1).to_string())
                    ),
                    task: t,
                    sub: Some(s),
                    parent_strategy: None,
                    at: sub_nodes.get(k).map_or(0, |n| n.start),
                });
            }
            // The task's own strategy checks the whole task: its last subtask.
            if let Some(u) = units.last_mut() {
                u.parent_strategy = t.get("testStrategy").and_then(Value::as_str);
            }
        }
    }
    let waves = waves
        .iter()
        .map(|w| w.iter().map(|&i| ids[i].clone()).collect())
        .collect();
    (units, waves)
}

pub(super) fn skipped(t: &Value) -> bool {
    matches!(
        t.get("status").and_then(Value::as_str),
        Some("done" | "completed" | "review" | "cancelled" | "deferred")
    )
}

pub(super) fn list(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// A task's subtasks in dependency order (their index in the list, and
/// the subtask), file order where nothing says otherwise.
fn sub_order<'v>(task: &str, subs: &'v [Value], nodes: &[spans::Node], r: &mut Reader) -> Vec<(usize, &'v Value)> {
    let ids: Vec<String> = subs
        .iter()
        .enumerate()
        .map(|(k, s)| s.get("id").and_then(id_text).unwrap_or_else(|| (k + 1).to_string()))
        .collect();
    let position: HashMap<&str, usize> = ids.iter().enumerate().map(|(k, id)| (id.as_str(), k)).collect();
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); subs.len()];
    for (k, s) in subs.iter().enumerate() {
        for d in list(s.get("dependencies")).iter().filter_map(id_text) {
            let local = match d.split_once('.') {
                Some((t, sub)) if t == task => sub.to_owned(),
                Some(_) => continue, // another task's: ordered by the task graph
                None => d.clone(),
            };
            match position.get(local.as_str()).copied() {
                Some(j) if j != k => deps[k].push(j),
                Some(_) => r.problem(
                    nodes.get(k).map_or(0, |n| n.start),
                    format!("subtask {task}.{} depends on itself", ids[k]),
                ),
                None => r.problem(
                    nodes.get(k).map_or(0, |n| n.start),
                    format!(
                        "subtask {task}.{} depends on {d}, which task {task} does not have",
                        ids[k]
                    ),
                ),
            }
        }
    }
    // Kahn again, file order first among the ready; a circle is reported
    // once and its subtasks then run in file order.
    let mut waiting_on: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); subs.len()];
    for (k, ds) in deps.iter().enumerate() {
        for &d in ds {
            dependents[d].push(k);
        }
    }
    let mut ready: std::collections::BTreeSet<usize> = (0..subs.len()).filter(|&k| waiting_on[k] == 0).collect();
    let mut placed = vec![false; subs.len()];
    let mut reported = false;
    let mut out = Vec::new();
    while out.len() < subs.len() {
        let k = match ready.pop_first() {
            Some(k) => k,
            None => {
                let remaining: Vec<usize> = (0..subs.len()).filter(|&k| !placed[k]).collect();
                if !reported {
                    reported = true;
                    let cycle = find_cycle(&deps, &remaining);
                    let names: Vec<String> = cycle.iter().map(|&i| format!("{task}.{}", ids[i])).collect();
                    r.problem(
                        nodes.get(cycle[0]).map_or(0, |n| n.start),
                        format!(
                            "subtasks depend on each other in a circle: {} → {}",
                            names.join(" → "),
                            names[0]
                        ),
                    );
                }
                remaining[0]
            }
        };
        if placed[k] {
            continue;
        }
        placed[k] = true;
        for &j in &dependents[k] {
            waiting_on[j] = waiting_on[j].saturating_sub(1);
            if waiting_on[j] == 0 && !placed[j] {
                ready.insert(j);
            }
        }
        out.push((k, &subs[k]));
    }
    out
}

/// A circle among `remaining` (each of which waits for another of them).
fn find_cycle(deps: &[Vec<usize>], remaining: &[usize]) -> Vec<usize> {
    let set: HashSet<usize> = remaining.iter().copied().collect();
    let mut path = vec![remaining[0]];
    let mut seen: HashMap<usize, usize> = HashMap::from([(remaining[0], 0)]);
    loop {
        let at = *path.last().unwrap_or(&remaining[0]);
        let Some(&next) = deps[at].iter().find(|d| set.contains(d)) else {
            return path;
        };
        if let Some(&pos) = seen.get(&next) {
            return path[pos..].to_vec();
        }
        seen.insert(next, path.len());
        path.push(next);
    }
}
