//! The house keeps its floors (DESIGN §12, issue 11): every path a module
//! names through `crate::`, `super::` or `self::` is resolved to the module it
//! reaches, and
//!
//! * a room imports only from rooms on lower floors (never up, never across
//!   to a sibling room on its own floor);
//! * sibling modules (the files and folders of one folder) do not import each
//!   other in a circle. A child naming its parent's vocabulary is allowed:
//!   that is what `mod.rs` is for.
//!
//! The floors are written out below; a new room must be given one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Rooms and their floors, lowest first. A module belongs to the longest
/// room that prefixes its path. Rooms of one floor may not import each other.
const FLOORS: &[(&str, u32)] = &[
    // Shared leaves: YAML read with a bound under redaction, which reads
    // YAML documents to redact them string by string.
    ("error", 0),
    ("yaml", 0),
    ("input", 0),
    ("html", 0),
    ("redact", 1),
    ("process", 1),
    ("git", 2),
    ("agents", 2),
    ("cli", 3),
    // The products, side by side.
    ("ultraplan", 4),
    ("historian", 4),
    // Inside git (its module docs): the handle; the runner and objects on it;
    // refs, diff, history and the rest on those; the working tree on top
    // (it restores through diff). Added with the room's split by subject so
    // that it stays layered.
    ("git::repo", 0),
    ("git::cli", 1),
    ("git::objects", 1),
    ("git::testing", 1),
    ("git::refs", 2),
    ("git::diff", 2),
    ("git::history", 2),
    ("git::config", 2),
    ("git::linked", 2),
    ("git::locks", 2),
    ("git::merge", 2),
    ("git::remote", 2),
    ("git::workdir", 3),
    // Inside ultraplan: formats, then records of a run, then what runs it.
    ("ultraplan::plan", 0),
    ("ultraplan::state", 0),
    ("ultraplan::result", 1),
    ("ultraplan::exec", 1),
    ("ultraplan::engine", 2),
    ("ultraplan::records", 2),
    ("ultraplan::outcomes", 3),
    ("ultraplan::report", 3),
    // Sync checks every outcome record it takes against the store's rules;
    // distributed runs sync what their sessions made.
    ("ultraplan::sync", 4),
    ("ultraplan::distribute", 5),
    ("ultraplan::commands", 9),
    // Inside historian: the pipeline, in the order data flows, except that
    // `message` sits under `plan`: the automatic planner drafts each
    // commit's message, and grouping reads what kind each branch commit is
    // from its subject. `outcome` (how a run ends) is rendered as a
    // `protocol` block and returned by every step from `engine` up. The
    // engine (steps 1-4) lies under `execute` (steps 5-6), which builds what
    // the engine planned.
    ("historian::protocol", 0),
    ("historian::outcome", 1),
    ("historian::analyse", 1),
    ("historian::message", 2),
    ("historian::plan", 3),
    ("historian::session", 4),
    ("historian::engine", 5),
    ("historian::execute", 6),
    ("historian::commands", 9),
];

/// A source file and the module path it defines (`ultraplan::engine::step`).
struct Module {
    file: PathBuf,
    path: Vec<String>,
}

fn modules(src: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let file = entry.unwrap().path();
            if file.is_dir() {
                if !file.ends_with("bin") {
                    stack.push(file);
                }
                continue;
            }
            if file.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = file.strip_prefix(src).unwrap().with_extension("");
            let mut path: Vec<String> = relative.iter().map(|c| c.to_string_lossy().into_owned()).collect();
            if matches!(path.last().map(String::as_str), Some("mod" | "lib")) {
                path.pop();
            }
            out.push(Module { file, path });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Code without comments and string literals, so a path in a doc comment or
/// a message is not an import.
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_string = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if in_string {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '/' if chars.peek() == Some(&'/') => break,
                '"' => in_string = true,
                _ => out.push(c),
            }
        }
        out.push('\n');
    }
    out
}

/// Every module path named in `code`, resolved against the module `at`;
/// a `use a::{b, c::d}` group is expanded one level (enough for the rooms).
fn references(code: &str, at: &[String]) -> Vec<Vec<String>> {
    fn ident(s: &str) -> &str {
        let end = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        &s[..end]
    }
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in 0..bytes.len() {
        if !code.is_char_boundary(start) {
            continue;
        }
        let rest = &code[start..];
        let Some(head) = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|h| rest.starts_with(h))
        else {
            continue;
        };
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || matches!(bytes[start - 1], b'_' | b':')) {
            continue;
        }
        // `super` of `a/mod.rs` (module `a`) is the parent of `a`, as for `a.rs`.
        let mut path: Vec<String> = at.to_vec();
        match head {
            "crate::" => path.clear(),
            "super::" => {
                path.pop();
            }
            _ => {}
        }
        let mut tail = &rest[head.len()..];
        while let Some(more) = tail.strip_prefix("super::") {
            path.pop();
            tail = more;
        }
        loop {
            let name = ident(tail);
            if name.is_empty() {
                break;
            }
            path.push(name.to_owned());
            match tail[name.len()..].strip_prefix("::") {
                Some(more) => tail = more,
                None => {
                    tail = "";
                    break;
                }
            }
        }
        // `use super::{a::Y, c}`: each member of the group.
        if let Some(group) = tail.strip_prefix('{') {
            for member in group[..group.find('}').unwrap_or(group.len())].split(',') {
                let member = member.trim();
                let first = ident(member);
                if first.is_empty() || first == "self" {
                    continue;
                }
                let mut p = path.clone();
                p.push(first.to_owned());
                if let Some(second) = member[first.len()..].strip_prefix("::").map(ident) {
                    if !second.is_empty() {
                        p.push(second.to_owned());
                    }
                }
                out.push(p);
            }
        }
        out.push(path);
    }
    out
}

/// The module a path reaches: its longest prefix that is a module.
fn module_of<'m>(path: &[String], known: &'m BTreeSet<Vec<String>>) -> Option<&'m Vec<String>> {
    (0..=path.len()).rev().find_map(|n| known.get(&path[..n]))
}

fn room_of(path: &[String]) -> Option<(&'static str, u32)> {
    let joined = path.join("::");
    FLOORS
        .iter()
        .filter(|(room, _)| joined == *room || joined.starts_with(&format!("{room}::")))
        .max_by_key(|(room, _)| room.len())
        .copied()
}

/// An importing module and the module it imports.
type Edge = (Vec<String>, Vec<String>);

/// Every (importer, imported) pair of modules in `src`.
fn edges(src: &Path) -> (Vec<Module>, BTreeSet<Edge>) {
    let modules = modules(src);
    let known: BTreeSet<Vec<String>> = modules.iter().map(|m| m.path.clone()).collect();
    let mut edges = BTreeSet::new();
    for m in &modules {
        let code = code_of(&std::fs::read_to_string(&m.file).unwrap());
        for reference in references(&code, &m.path) {
            if let Some(target) = module_of(&reference, &known) {
                if *target != m.path {
                    edges.insert((m.path.clone(), target.clone()));
                }
            }
        }
    }
    (modules, edges)
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_room_imports_from_a_room_above_or_beside_it() {
    let (modules, edges) = edges(&src());
    let mut unplaced: Vec<String> = modules
        .iter()
        .filter(|m| !m.path.is_empty() && room_of(&m.path).is_none())
        .map(|m| m.path.join("::"))
        .collect();
    unplaced.sort();
    assert!(unplaced.is_empty(), "modules in no room of FLOORS: {unplaced:?}");
    let mut upward = Vec::new();
    for (from, to) in &edges {
        let (Some(a), Some(b)) = (room_of(from), room_of(to)) else {
            continue;
        };
        // Its own room, or an enclosing module's vocabulary.
        if a.0 == b.0 || from.starts_with(to) {
            continue;
        }
        // Compare the rooms at the level where they part: `ultraplan::engine`
        // against `ultraplan::plan`, `ultraplan::…` against `git`.
        let (ra, rb) = parting_rooms(a.0, b.0);
        let (fa, fb) = (floor(ra), floor(rb));
        if fb >= fa && ra != rb {
            upward.push(format!(
                "{} (floor {fa}) -> {} (floor {fb})",
                from.join("::"),
                to.join("::")
            ));
        }
    }
    assert!(
        upward.is_empty(),
        "imports up or across a floor:\n{}",
        upward.join("\n")
    );
}

/// The two rooms of `a` and `b` at the level where their paths part: the
/// deepest rooms sharing the parent below which they differ.
fn parting_rooms(a: &'static str, b: &'static str) -> (&'static str, &'static str) {
    let (sa, sb): (Vec<&str>, Vec<&str>) = (a.split("::").collect(), b.split("::").collect());
    let common = sa.iter().zip(&sb).take_while(|(x, y)| x == y).count();
    let cut = |s: &'static str, n: usize| -> &'static str {
        let end = s.match_indices("::").nth(n).map_or(s.len(), |(i, _)| i);
        &s[..end]
    };
    let pick = |s: &'static str| {
        // The shallowest room that is not an ancestor of the other one.
        (common..s.split("::").count())
            .map(|n| cut(s, n))
            .find(|r| FLOORS.iter().any(|(x, _)| x == r))
            .unwrap_or(s)
    };
    (pick(a), pick(b))
}

fn floor(room: &str) -> u32 {
    FLOORS.iter().find(|(r, _)| *r == room).map_or(u32::MAX, |(_, f)| *f)
}

#[test]
fn sibling_modules_do_not_import_each_other_in_a_circle() {
    let (_, edges) = edges(&src());
    // Sibling edges: both ends lifted to the children of their common parent.
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (from, to) in &edges {
        let common = from.iter().zip(to).take_while(|(x, y)| x == y).count();
        if common == from.len() || common == to.len() {
            continue; // parent and child
        }
        let a = from[..=common].to_vec();
        let b = to[..=common].to_vec();
        graph.entry(a).or_default().insert(b);
    }
    let mut cycles = Vec::new();
    for start in graph.keys() {
        // A path back to `start` through its siblings, breadth first.
        let mut seen = BTreeSet::new();
        let mut queue = vec![(start.clone(), vec![start.join("::")])];
        while let Some((node, trail)) = queue.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if next == start {
                    let mut cycle = trail.clone();
                    cycle.push(start.join("::"));
                    cycles.push(cycle.join(" -> "));
                } else if seen.insert(next.clone()) {
                    let mut t = trail.clone();
                    t.push(next.join("::"));
                    queue.push((next.clone(), t));
                }
            }
        }
    }
    cycles.sort();
    cycles.dedup();
    assert!(cycles.is_empty(), "modules in a circle:\n{}", cycles.join("\n"));
}

#[test]
fn the_checker_sees_an_upward_import_and_a_circle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    for (file, text) in [
        ("lib.rs", "pub mod git;\npub mod cli;\n"),
        ("git/mod.rs", "mod a;\nmod b;\nuse crate::cli::Exit;\n"),
        ("git/a.rs", "use super::b::X; // crate::cli in a comment\n"),
        (
            "git/b.rs",
            "use super::{a::Y, c};\nconst S: &str = \"crate::cli::Z\";\n",
        ),
        ("cli/mod.rs", "pub struct Exit;\nuse crate::git;\n"),
    ] {
        std::fs::create_dir_all(src.join(file).parent().unwrap()).unwrap();
        std::fs::write(src.join(file), text).unwrap();
    }
    let (_, found) = edges(src);
    let found: Vec<String> = found
        .iter()
        .map(|(a, b)| format!("{} -> {}", a.join("::"), b.join("::")))
        .collect();
    assert_eq!(
        found,
        [
            "cli -> git",
            "git -> cli",
            "git::a -> git::b",
            "git::b -> git",
            "git::b -> git::a"
        ]
    );
}
