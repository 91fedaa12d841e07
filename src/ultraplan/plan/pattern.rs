//! Paths and path patterns from plans: safety (relative, inside the
//! repository, not in `.git`) and glob matching for scope fences.
//!
//! Patterns are relative to the repository root. `**` matches any number of
//! directories, `*` and `?` stay within one name, `[…]` is a character class.
//! A pattern without wildcards also covers everything below it (`src/server`
//! covers `src/server/mod.rs`), as does one ending in `/`.

use std::collections::HashMap;

use serde::Serialize;

/// A path pattern as written in a plan, with its line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PathPattern {
    pub text: String,
    pub line: usize,
}

/// Why a path from a plan or result cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnsafePath {
    Empty,
    Absolute,
    Escapes,
    InsideGitDir,
    ControlCharacter,
}

impl std::fmt::Display for UnsafePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            UnsafePath::Empty => "is empty",
            UnsafePath::Absolute => "is absolute; paths must be relative to the repository root",
            UnsafePath::Escapes => "leaves the repository through '..'",
            UnsafePath::InsideGitDir => "is inside the .git directory",
            UnsafePath::ControlCharacter => "contains a control character",
        })
    }
}

/// Checks that `path` is relative and stays inside the repository, and returns
/// it normalised (`./a/../b` becomes `b`).
pub fn safe_relative_path(path: &str) -> Result<String, UnsafePath> {
    let trimmed = path.trim();
    if trimmed.is_empty() {
        return Err(UnsafePath::Empty);
    }
    if trimmed.chars().any(|c| c.is_control()) {
        return Err(UnsafePath::ControlCharacter);
    }
    let bytes = trimmed.as_bytes();
    let windows_drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if trimmed.starts_with(['/', '\\', '~']) || windows_drive {
        return Err(UnsafePath::Absolute);
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in trimmed.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(UnsafePath::Escapes);
                }
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(UnsafePath::Empty);
    }
    if parts.iter().any(|p| p.eq_ignore_ascii_case(".git")) {
        return Err(UnsafePath::InsideGitDir);
    }
    Ok(parts.join("/"))
}

/// A pattern that covers exactly the path `path` (and what is below it),
/// whatever characters its name holds: `*`, `?` and `[` each become a
/// class of one (`*.md` becomes `[*].md`), so a plan called `*.md` fences
/// itself, not every Markdown file.
pub fn literal(path: &str) -> Vec<String> {
    if !is_glob(path) {
        return vec![path.to_owned()];
    }
    let mut escaped = String::with_capacity(path.len() + 8);
    for c in path.chars() {
        match c {
            '*' | '?' | '[' => {
                escaped.push('[');
                escaped.push(c);
                escaped.push(']');
            }
            c => escaped.push(c),
        }
    }
    let below = format!("{}/**", escaped.trim_end_matches('/'));
    vec![escaped, below]
}

/// The patterns that fence a plan's own files off from its steps: the plan
/// file ([`literal`]), or, for a GSD phase directory (`phase`), each
/// `*-PLAN.md` directly in it — the phase's plans, whose boxes only
/// ultraplan ticks. The directory's other files are not the plan: GSD's
/// executor writes each plan's `{phase}-{plan}-SUMMARY.md` there, and a step
/// may write them as any other file of the repository.
pub fn plan_fence(rel: &str, phase: bool) -> Vec<String> {
    if !phase {
        return literal(rel);
    }
    let dir = rel.trim_end_matches('/');
    let dir = match literal(dir).into_iter().next() {
        Some(escaped) => escaped,
        None => dir.to_owned(),
    };
    vec![format!("{dir}/*-PLAN.md")]
}

/// The `SUMMARY.md` GSD's executor writes for the phase plan `plan_file`
/// (`01-02-PLAN.md` → `01-02-SUMMARY.md`), in the phase directory `rel`.
pub fn phase_summary(rel: &str, plan_file: &str) -> Option<String> {
    let id = plan_file.strip_suffix("-PLAN.md")?;
    let path = format!("{}/{id}-SUMMARY.md", rel.trim_end_matches('/'));
    literal(&path).into_iter().next()
}

/// Whether `text` has glob characters.
pub fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    /// `**`: any number of names.
    AnyDepth,
    /// One name without wildcards.
    Literal(String),
    /// One name with `*`, `?` or `[…]`.
    Glob(String),
}

fn segments(pattern: &str) -> Vec<Segment> {
    let normalized = pattern.trim().trim_start_matches("./");
    let mut segs: Vec<Segment> = normalized
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .map(|s| {
            if s == "**" {
                Segment::AnyDepth
            } else if is_glob(s) {
                Segment::Glob(s.replace("**", "*"))
            } else {
                Segment::Literal(s.to_owned())
            }
        })
        .collect();
    // A plain path, or one ending in '/', covers its whole subtree.
    if !is_glob(normalized) || normalized.ends_with('/') {
        segs.push(Segment::AnyDepth);
    }
    segs
}

/// The files below `root` that `pattern` covers, ignored or not, found by
/// walking only the directories the pattern can reach: `.git` is never
/// entered and symbolic links to directories are not followed.
pub fn expand(root: &std::path::Path, pattern: &str) -> Vec<String> {
    let mut out = Vec::new();
    walk(root, "", &segments(pattern), &mut out);
    out.sort();
    out.dedup();
    out
}

fn walk(root: &std::path::Path, rel: &str, segs: &[Segment], out: &mut Vec<String>) {
    let join = |name: &str| {
        if rel.is_empty() {
            name.to_owned()
        } else {
            format!("{rel}/{name}")
        }
    };
    let Some(first) = segs.first() else {
        if !rel.is_empty() && root.join(rel).symlink_metadata().is_ok_and(|m| m.is_file()) {
            out.push(rel.to_owned());
        }
        return;
    };
    let names = || -> Vec<(String, bool)> {
        let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_owned();
                let is_dir = e.file_type().ok()?.is_dir();
                (name != ".git").then_some((name, is_dir))
            })
            .collect()
    };
    match first {
        Segment::AnyDepth => {
            walk(root, rel, &segs[1..], out);
            for (name, is_dir) in names() {
                if is_dir {
                    walk(root, &join(&name), segs, out);
                } else if segs.len() == 1 {
                    out.push(join(&name));
                }
            }
        }
        Segment::Literal(name) => {
            if name != ".git" && root.join(rel).join(name).symlink_metadata().is_ok() {
                walk(root, &join(name), &segs[1..], out);
            }
        }
        Segment::Glob(glob) => {
            for (name, _) in names() {
                if glob_name(glob, &name) {
                    walk(root, &join(&name), &segs[1..], out);
                }
            }
        }
    }
}

/// Whether `pattern` covers the file `path`.
pub fn matches(pattern: &str, path: &str) -> bool {
    let path_segs: Vec<Segment> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .map(|s| Segment::Literal(s.to_owned()))
        .collect();
    overlap_segments(&segments(pattern), &path_segs)
}

/// Whether some path could be covered by both patterns (conservative for two
/// wildcards in the same name: `*.rs` and `*.md` cannot overlap, `a*` and `*b` can).
pub fn overlap(a: &str, b: &str) -> bool {
    overlap_segments(&segments(a), &segments(b))
}

fn overlap_segments(a: &[Segment], b: &[Segment]) -> bool {
    let mut memo = HashMap::new();
    overlap_from(a, b, 0, 0, &mut memo)
}

fn overlap_from(a: &[Segment], b: &[Segment], i: usize, j: usize, memo: &mut HashMap<(usize, usize), bool>) -> bool {
    if let Some(&known) = memo.get(&(i, j)) {
        return known;
    }
    let result = match (a.get(i), b.get(j)) {
        (None, None) => true,
        (Some(Segment::AnyDepth), _) => {
            overlap_from(a, b, i + 1, j, memo) || (j < b.len() && overlap_from(a, b, i, j + 1, memo))
        }
        (_, Some(Segment::AnyDepth)) => {
            overlap_from(a, b, i, j + 1, memo) || (i < a.len() && overlap_from(a, b, i + 1, j, memo))
        }
        (None, _) | (_, None) => false,
        (Some(x), Some(y)) => names_overlap(x, y) && overlap_from(a, b, i + 1, j + 1, memo),
    };
    memo.insert((i, j), result);
    result
}

fn names_overlap(x: &Segment, y: &Segment) -> bool {
    match (x, y) {
        (Segment::Literal(x), Segment::Literal(y)) => x == y,
        (Segment::Glob(g), Segment::Literal(name)) | (Segment::Literal(name), Segment::Glob(g)) => glob_name(g, name),
        (Segment::Glob(x), Segment::Glob(y)) => {
            let (px, sx) = literal_ends(x);
            let (py, sy) = literal_ends(y);
            (px.starts_with(&py) || py.starts_with(&px)) && (sx.ends_with(&sy) || sy.ends_with(&sx))
        }
        // `**` is handled by the caller.
        _ => true,
    }
}

/// The literal text before the first and after the last wildcard.
fn literal_ends(glob: &str) -> (String, String) {
    let first = glob.find(['*', '?', '[']).unwrap_or(glob.len());
    let last = glob.rfind(['*', '?', ']']).map_or(glob.len(), |i| i + 1);
    (glob[..first].to_owned(), glob[last.max(first)..].to_owned())
}

/// Matches one name against a one-name glob (`*`, `?`, `[…]`, `[!…]`).
fn glob_name(glob: &str, name: &str) -> bool {
    let g: Vec<char> = glob.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut gi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if gi < g.len() {
            match g[gi] {
                '*' => {
                    star = Some((gi, ni));
                    gi += 1;
                    continue;
                }
                '?' => {
                    gi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = class(&g, gi, n[ni]) {
                        if matched {
                            gi = next;
                            ni += 1;
                            continue;
                        }
                    } else if n[ni] == '[' {
                        gi += 1;
                        ni += 1;
                        continue;
                    }
                }
                c if c == n[ni] => {
                    gi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sg, sn)) => {
                gi = sg + 1;
                ni = sn + 1;
                star = Some((sg, sn + 1));
            }
            None => return false,
        }
    }
    g[gi..].iter().all(|&c| c == '*')
}

/// Evaluates the class starting at `g[start] == '['` against `c`: (matched,
/// index after the class), or `None` when the class is not closed.
fn class(g: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negated = matches!(g.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < g.len() {
        if g[i] == ']' && !first {
            return Some((matched != negated, i + 1));
        }
        first = false;
        if i + 2 < g.len() && g[i + 1] == '-' && g[i + 2] != ']' {
            if g[i] <= c && c <= g[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if g[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests;
