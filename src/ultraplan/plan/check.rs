//! `check`: a parsed plan measured against the repository it will run in —
//! file references (exists, new, not found), paths that leave the repository
//! through symbolic links — and the verdict. Reads the filesystem, writes nothing.

use std::path::Path;

use serde::Serialize;

use super::links::Links;
pub use super::links::{through_links, Through};
use super::pattern::{is_glob, safe_relative_path};
use super::{Diagnostic, Plan, Severity};

/// What a step's file reference points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reference {
    Exists,
    /// Not there yet, but marked as created (by this step or an earlier one).
    New,
    NotFound,
    /// A glob, not a single file.
    Pattern,
}

impl Reference {
    pub fn describe(self) -> &'static str {
        match self {
            Reference::Exists => "EXISTS",
            Reference::New => "NEW (marked as new file)",
            Reference::NotFound => "NOT FOUND (unexpected — may be missing)",
            Reference::Pattern => "PATTERN",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileReference {
    pub step: u32,
    pub path: String,
    pub status: Reference,
    pub line: usize,
}

/// How a plan will run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StrategySummary {
    pub sessions: usize,
    /// Sessions in waves of two or more.
    pub parallel: usize,
    /// Sessions alone in their wave.
    pub sequential: usize,
}

impl std::fmt::Display for StrategySummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.sessions < 2 {
            f.write_str("single session")
        } else {
            write!(
                f,
                "{} sessions ({} parallel, {} sequential)",
                self.sessions, self.parallel, self.sequential
            )
        }
    }
}

impl Plan {
    pub fn strategy(&self) -> StrategySummary {
        if !self.is_multi_session() {
            return StrategySummary {
                sessions: 1,
                parallel: 0,
                sequential: 1,
            };
        }
        let parallel = self.waves.iter().filter(|w| w.len() >= 2).map(Vec::len).sum();
        let in_waves: usize = self.waves.iter().map(Vec::len).sum();
        StrategySummary {
            sessions: self.sessions.len(),
            parallel,
            sequential: in_waves - parallel + (self.sessions.len() - in_waves),
        }
    }
}

/// The verdict of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    #[serde(rename = "READY")]
    Ready,
    #[serde(rename = "NEEDS ATTENTION")]
    NeedsAttention,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ready => "READY",
            Verdict::NeedsAttention => "NEEDS ATTENTION",
        }
    }
}

/// Everything `check` reports about a plan.
#[derive(Clone, Debug)]
pub struct CheckReport {
    pub file_references: Vec<FileReference>,
    /// The plan's diagnostics and the repository's, by line.
    pub diagnostics: Vec<Diagnostic>,
}

impl CheckReport {
    pub fn problems(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Problem)
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning)
    }

    pub fn verdict(&self) -> Verdict {
        if self.problems().next().is_none() {
            Verdict::Ready
        } else {
            Verdict::NeedsAttention
        }
    }
}

/// Checks `plan` against the working tree at `root` (the repository's top
/// level): where each file reference stands, and that no path leaves the
/// repository through a symbolic link.
pub fn check(plan: &Plan, root: &Path) -> CheckReport {
    let mut diagnostics = plan.diagnostics.clone();
    let mut links = Links::new(root);
    let mut file_references = Vec::new();
    // Sets: a hostile plan may list a million paths.
    let mut announced_new: std::collections::HashSet<String> = Default::default();
    for step in &plan.steps {
        let creates_all = creates_files(step);
        for file in &step.files {
            let creates = creates_all
                || creates_file(step, &file.path)
                || writes_its_test(step, &file.path)
                || block_writes(step, &file.path);
            let Ok(path) = safe_relative_path(&file.path) else {
                continue; // already a problem of the plan
            };
            let status = if is_glob(&file.path) {
                Reference::Pattern
            } else if let Some(outside) = links.leaving(&path) {
                diagnostics.push(leaving(step, file, &outside));
                continue;
            } else if root.join(&path).symlink_metadata().is_ok() {
                Reference::Exists
            } else if file.new || creates || announced_new.contains(&path) {
                Reference::New
            } else {
                diagnostics.push(Diagnostic {
                    line: file.line,
                    severity: Severity::Warning,
                    message: format!("{}: '{}' not found (not marked as a new file)", step.label(), file.path),
                });
                Reference::NotFound
            };
            // A file an earlier task lists exists by the time a later one runs.
            announced_new.insert(path);
            file_references.push(FileReference {
                step: step.number,
                path: file.path.clone(),
                status,
                line: file.line,
            });
        }
    }
    // Files the executor is told to read first must be there (or be made by
    // an earlier step).
    let mut missing: std::collections::HashSet<&str> = Default::default();
    let plan_wide = plan.steps.first();
    let each = plan.steps.iter().flat_map(|s| s.context.iter().map(move |p| (s, p)));
    let shared = plan.context.iter().filter_map(|p| plan_wide.map(|s| (s, p)));
    for (step, path) in shared.chain(each) {
        let (line, number) = (step.line, task_number(step));
        {
            let made = announced_new.contains(path);
            let safe = safe_relative_path(path).is_ok();
            if safe && !made && root.join(path).symlink_metadata().is_err() && missing.insert(path) {
                diagnostics.push(Diagnostic {
                    line,
                    severity: Severity::Warning,
                    message: format!(
                        "{}task {number}: context file '{path}' (read first) not found",
                        from_file(step)
                    ),
                });
            }
        }
    }
    diagnostics.sort_by_key(|d| (d.line, d.severity));
    CheckReport {
        file_references,
        diagnostics,
    }
}

/// The problem of a Files path leading out of the repository through the
/// symbolic link `outside`.
/// `01-03-PLAN.md: ` for a step of a phase, which plan file its line is
/// in: a phase's lines are each file's own.
fn from_file(step: &super::Step) -> String {
    step.origin
        .as_ref()
        .map(|(file, _)| format!("{file}: "))
        .unwrap_or_default()
}

/// The task's number as its own file counts it.
fn task_number(step: &super::Step) -> u32 {
    step.origin.as_ref().map_or(step.number, |(_, n)| *n)
}

fn leaving(step: &super::Step, file: &super::FileRef, outside: &Path) -> Diagnostic {
    Diagnostic {
        line: file.line,
        severity: Severity::Problem,
        message: format!(
            "{}: Files path '{}' leads outside the repository through the symbolic link '{}'",
            step.label(),
            file.path,
            outside.display()
        ),
    }
}

/// The Files paths of `plan` that lead out of the worktree at `root`
/// through a symbolic link already there: `run` refuses the plan, as
/// `check` reports it, before any step writes through one.
pub fn paths_leaving(plan: &Plan, root: &Path) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut links = Links::new(root);
    for step in &plan.steps {
        for file in step.files.iter().filter(|f| !is_glob(&f.path)) {
            if let Ok(path) = safe_relative_path(&file.path) {
                if let Some(outside) = links.leaving(&path) {
                    out.push(leaving(step, file, &outside));
                }
            }
        }
    }
    out
}

/// Where a multi-session plan must be for `run` to run its sessions: in the
/// working tree (`in_worktree`, its path there), at a path git can commit
/// — the sessions read it from a commit in their own worktrees, so a plan
/// outside the repository or inside `.git` (any spelling: `.Git/plan.md`)
/// cannot run there. `check` reports it as `run` refuses it.
pub fn placement_problem(plan: &Plan, in_worktree: Option<&str>) -> Option<Diagnostic> {
    if !plan.is_multi_session() {
        return None;
    }
    let message = match in_worktree {
        None => "the plan is outside the repository, so sessions in worktrees cannot see it (move it into the repository, or run the steps here with --fg)".to_owned(),
        Some(rel) if !crate::git::storable(rel) => format!(
            "the plan '{rel}' is inside .git, where git cannot commit it, so sessions in worktrees cannot see it (move it into the working tree, or run the steps here with --fg)"
        ),
        Some(_) => return None,
    };
    Some(Diagnostic {
        line: 1,
        severity: Severity::Problem,
        message,
    })
}

/// Steps whose Files name the plan itself (or, for a GSD phase directory,
/// a path in it): `run` fences the plan off from every step, so such a step
/// escalates before it runs. A warning, as for a path in a session's Never
/// touch list: the rest of the plan runs.
pub fn plan_in_files(plan: &Plan, in_worktree: Option<&str>) -> Vec<Diagnostic> {
    let Some(rel) = in_worktree else {
        return Vec::new();
    };
    let phase = plan.kind == super::PlanKind::Phase;
    let fence = super::pattern::plan_fence(rel, phase);
    let mut out = Vec::new();
    for step in &plan.steps {
        for file in &step.files {
            if !fence.iter().any(|p| super::pattern::matches(p, &file.path)) {
                continue;
            }
            let what = if phase {
                format!("is a plan of the phase '{rel}'")
            } else if file.path.trim_start_matches("./") == rel {
                "is the plan itself".to_owned()
            } else {
                format!("is in the plan's directory '{rel}'")
            };
            out.push(Diagnostic {
                line: file.line,
                severity: Severity::Warning,
                message: super::printable(&format!(
                    "{}: '{}' {what}, which no step may change; the step will escalate before it runs",
                    step.label(),
                    file.path
                )),
            });
        }
    }
    out
}

/// Whether the step says it creates its files: Changes (or a task's action)
/// starting with "create" or "new", or mentioning a new file.
fn creates_files(step: &super::Step) -> bool {
    let changes = step.changes.trim_start().to_lowercase();
    changes.starts_with("create") || changes.starts_with("new ") || changes.contains("new file")
}

/// Whether a shell block of the step writes `path`: a redirection to it
/// (`> path`, `>> path`, `cat > path <<EOF`), or `tee`, `touch`, or the
/// last argument of `cp`, `mv`, `install` or `ln`.
fn block_writes(step: &super::Step, path: &str) -> bool {
    let wanted = |word: &str| {
        let word = word.trim_matches(['"', '\'', ';', '&', '|', ')']);
        word == path || word.strip_prefix("./") == Some(path)
    };
    step.code_blocks
        .iter()
        .filter(|b| matches!(b.lang.as_str(), "" | "sh" | "bash" | "shell" | "zsh" | "console"))
        .flat_map(|b| b.code.lines())
        .any(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let copies = words
                .first()
                .is_some_and(|w| matches!(*w, "cp" | "mv" | "install" | "ln"));
            words.iter().enumerate().any(|(i, w)| {
                let after_redirect = w.rsplit_once('>').is_some_and(|(_, rest)| wanted(rest));
                let previous = i.checked_sub(1).map(|p| words[p]);
                let tee_append = previous == Some("-a") && i >= 2 && words[i - 2] == "tee";
                after_redirect
                    || wanted(w)
                        && (tee_append
                            || matches!(previous, Some(">" | ">>" | "tee" | "touch" | "&>"))
                            || copies && i + 1 == words.len())
            })
        })
}

/// A test-first step (or a TDD task) writes its test file.
fn writes_its_test(step: &super::Step, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    step.test_first.is_some() && (name.contains("test") || name.contains("spec"))
}

/// Words that say a step makes a file: "Create src/a.ts", "add a new
/// `docs/x.md`", "write tests/t.py".
const CREATE_WORDS: &[&str] = &[
    "create",
    "creates",
    "creating",
    "add",
    "adds",
    "adding",
    "write",
    "writes",
    "writing",
    "generate",
    "generates",
    "new",
    "scaffold",
    "touch",
];

/// Whether the step's title or Changes (a task's name or action) says it
/// makes `path`: the path, or its file name, follows one of
/// [`CREATE_WORDS`] in the same sentence, at most six words before it.
fn creates_file(step: &super::Step, path: &str) -> bool {
    let text = format!("{}\n{}", step.title, step.changes).to_lowercase();
    let path = path.to_lowercase();
    let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
    let mut needles = vec![path.clone()];
    if name.contains('.') && name != path {
        needles.push(name);
    }
    needles.iter().any(|needle| {
        // Occurrences and look-behind are both bounded: linear on any input.
        text.match_indices(needle.as_str()).take(64).any(|(at, _)| {
            let mut from = at.saturating_sub(160);
            while !text.is_char_boundary(from) {
                from += 1;
            }
            let before = &text[from..at];
            let sentence_start = before
                .rfind(". ")
                .into_iter()
                .chain(before.rfind('\n'))
                .chain(before.rfind(';'))
                .max()
                .map_or(0, |i| i + 1);
            before[sentence_start..]
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .rev()
                .take(6)
                .any(|w| CREATE_WORDS.contains(&w))
        })
    })
}
