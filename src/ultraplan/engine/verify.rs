//! Verify (DESIGN §6.3): ultraplan runs the command itself; the exit code
//! decides. A backticked literal expectation must also appear in the output;
//! a comparison (`>= 1`) applies when the output is a number; prose is
//! recorded and the exit code alone decides. The Manifest audit (§6.2.d) is
//! checked here too.

use std::path::Path;
use std::time::Duration;

use crate::git::FileChange;
use crate::process::{self, Ending, Finished};
use crate::ultraplan::plan::pattern;
use crate::ultraplan::plan::{Checkpoint, ExpectedKind, Manifest};

/// The outcome of running a check.
pub struct Checked {
    pub ending: Ending,
    pub output: String,
    pub duration: Duration,
    /// `None` when it passed, else why not.
    pub failure: Option<String>,
    /// A note about an expectation that could not apply.
    pub note: Option<String>,
}

impl Checked {
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }

    /// The last lines of the output, for summaries and feedback.
    pub fn tail(&self, lines: usize) -> String {
        tail(&self.output, lines)
    }

    /// Why a failed check failed, for the people reading the report,
    /// `status` and `log`: how it ended, the command, then the last lines
    /// of what it printed (a mismatch shows what the output was).
    pub fn explain(&self, command: &str) -> Option<String> {
        let failure = self.failure.as_ref()?;
        let mut text = format!("{failure}: {}", one_line(command));
        let shown = tail(&self.output, EXPLAINED_LINES);
        if shown.trim().is_empty() {
            text.push_str(" (no output)");
        }
        for line in shown.lines().filter(|l| !l.trim().is_empty()) {
            text.push('\n');
            text.extend(line.chars().take(200));
        }
        Some(text)
    }
}

/// Lines of output a failure's explanation shows.
const EXPLAINED_LINES: usize = 5;

/// A command as one line: a block's first line and how many more it has.
fn one_line(command: &str) -> String {
    let lines: Vec<&str> = command.trim().lines().collect();
    match lines.as_slice() {
        [] => "``".into(),
        [one] => format!("`{one}`"),
        [first, rest @ ..] => format!(
            "`{first}` (and {} more line{})",
            rest.len(),
            if rest.len() == 1 { "" } else { "s" }
        ),
    }
}

/// The last `lines` lines of `text`, redacted whole before it is cut: a key's body must not be shown without
/// the line that names it as a key.
pub fn tail(text: &str, lines: usize) -> String {
    let text = crate::redact::redact(text);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Runs `command` in the strict shell (`sh -o pipefail -c`, `-e` for a block; see
/// [`process::strict`]) in `cwd` and judges it against `expected`.
pub fn run_check(
    command: &str,
    expected: Option<(&str, ExpectedKind)>,
    cwd: &Path,
    env: Vec<(String, String)>,
    timeout: Duration,
    cap: usize,
) -> anyhow::Result<Checked> {
    let finished = process::strict_shell(command, cwd, env, timeout, cap)?;
    Ok(judge(&finished, expected))
}

/// Runs a Verify command, a condition or a Verification item as every check
/// of a run runs: in the strict shell in `cwd`, within the run's verify timeout and
/// transcript cap, judged against its `→ expected:`.
pub fn run_expecting(
    command: &str,
    expected: Option<&str>,
    kind: Option<ExpectedKind>,
    cwd: &Path,
    opts: &super::RunOptions,
) -> anyhow::Result<Checked> {
    run_check(
        command,
        expected.zip(kind),
        cwd,
        Vec::new(),
        opts.verify_timeout,
        opts.transcript_cap,
    )
}

pub fn judge(finished: &Finished, expected: Option<(&str, ExpectedKind)>) -> Checked {
    let output = finished.output();
    let mut note = None;
    let failure = if !finished.ending.success() {
        Some(format!("verify {}", finished.ending.describe()))
    } else {
        match expected {
            Some((literal, ExpectedKind::Literal)) if !contains_literal(&output, literal) => {
                Some(format!("verify output does not contain '{literal}'"))
            }
            Some((comparison, ExpectedKind::Comparison)) => match compare(&output, comparison) {
                Some(true) => None,
                Some(false) => Some(format!("verify output '{}' is not {comparison}", output.trim())),
                None => {
                    note = Some(format!("output is not a number, so '{comparison}' does not apply"));
                    None
                }
            },
            _ => None,
        }
    };
    Checked {
        ending: finished.ending,
        output,
        duration: finished.duration,
        failure,
        note,
    }
}

/// Whether `output` holds the expected literal (DESIGN §6.3): as a
/// substring, except that a literal beginning or ending with a digit is
/// not found inside a longer number — `3` is in `3 passed`, `(3)` and
/// `took 3.`, not in `13`, `35`, `3.5` or `0.3`. The common expectation
/// (a count) then means that number.
pub fn contains_literal(output: &str, literal: &str) -> bool {
    if literal.is_empty() {
        return true;
    }
    let digit_at = |text: &str, at: usize| text[at..].chars().next().is_some_and(|c| c.is_ascii_digit());
    let starts_digit = literal.starts_with(|c: char| c.is_ascii_digit());
    let ends_digit = literal.ends_with(|c: char| c.is_ascii_digit());
    output.match_indices(literal).any(|(at, _)| {
        let before = &output[..at];
        let after = &output[at + literal.len()..];
        let joins_before = starts_digit
            && (before.ends_with(|c: char| c.is_ascii_digit())
                || (before.ends_with('.') && before[..before.len() - 1].ends_with(|c: char| c.is_ascii_digit())));
        let joins_after = ends_digit
            && (after.starts_with(|c: char| c.is_ascii_digit()) || (after.starts_with('.') && digit_at(after, 1)));
        !joins_before && !joins_after
    })
}

/// Applies `>= 1` and friends to a numeric output (its last line); `None`
/// when the output is not a number.
pub fn compare(output: &str, comparison: &str) -> Option<bool> {
    let value: f64 = output.trim().lines().last()?.trim().parse().ok()?;
    let c = comparison.trim();
    let (op, rest) = ["<=", ">=", "==", "!=", "<", ">", "="]
        .iter()
        .find_map(|op| c.strip_prefix(op).map(|r| (*op, r)))?;
    let target: f64 = rest.trim().parse().ok()?;
    Some(match op {
        "<=" => value <= target,
        ">=" => value >= target,
        "<" => value < target,
        ">" => value > target,
        "!=" => value != target,
        _ => value == target,
    })
}

/// Checks a step's Manifest against the attempt (forbidden paths are scope,
/// checked before): expected paths exist, patterns are found, enough files
/// changed, the checkpoint message matches, shell files parse. Returns every miss.
pub fn audit_manifest(
    manifest: &Manifest,
    root: &Path,
    changes: &[FileChange],
    checkpoint: Option<&Checkpoint>,
) -> Vec<String> {
    let mut misses = Vec::new();
    for path in &manifest.expected_paths {
        if pattern::safe_relative_path(path).is_ok() && root.join(path).symlink_metadata().is_err() {
            misses.push(format!("manifest: expected path '{path}' does not exist"));
        }
    }
    for rule in &manifest.must_contain {
        let Ok(safe) = pattern::safe_relative_path(&rule.path) else {
            continue;
        };
        match regex::Regex::new(&rule.pattern) {
            Err(e) => misses.push(format!(
                "manifest: pattern '{}' is not a valid regex: {e}",
                rule.pattern
            )),
            Ok(re) => match std::fs::read_to_string(root.join(&safe)) {
                Ok(text) if re.is_match(&text) => {}
                Ok(_) => misses.push(format!("manifest: '{}' does not contain /{}/", rule.path, rule.pattern)),
                Err(_) => misses.push(format!(
                    "manifest: cannot read '{}' to look for /{}/",
                    rule.path, rule.pattern
                )),
            },
        }
    }
    for rule in &manifest.must_not_contain {
        let Ok(safe) = pattern::safe_relative_path(&rule.path) else {
            continue;
        };
        if let (Ok(re), Ok(text)) = (
            regex::Regex::new(&rule.pattern),
            std::fs::read_to_string(root.join(&safe)),
        ) {
            if re.is_match(&text) {
                misses.push(format!(
                    "manifest: '{}' contains /{}/, which it must not",
                    rule.path, rule.pattern
                ));
            }
        }
    }
    for link in &manifest.key_links {
        if let Some(miss) = audit_link(link, root) {
            misses.push(miss);
        }
    }
    if let Some(min) = manifest.min_file_count {
        if (changes.len() as u64) < min {
            misses.push(format!(
                "manifest: {} file(s) changed, at least {min} expected",
                changes.len()
            ));
        }
    }
    if let (Some(pattern), Some(Checkpoint::Commit { message })) = (&manifest.commit_message_pattern, checkpoint) {
        match regex::Regex::new(pattern) {
            Ok(re) if !re.is_match(message) => misses.push(format!(
                "manifest: checkpoint message '{message}' does not match /{pattern}/"
            )),
            Err(e) => misses.push(format!("manifest: commit_message_pattern is not a valid regex: {e}")),
            _ => {}
        }
    }
    for file in &manifest.bash_syntax_check {
        let Ok(safe) = pattern::safe_relative_path(file) else {
            continue;
        };
        let finished = process::run(process::Spec {
            program: "bash",
            args: vec!["-n".into(), safe.clone()],
            cwd: root,
            env: Vec::new(),
            stdin: None,
            timeout: Duration::from_secs(60),
            cap: 64 * 1024,
        });
        match finished {
            Ok(f) if f.ending.success() => {}
            Ok(f) => misses.push(format!("manifest: bash -n '{file}' failed: {}", tail(&f.output(), 3))),
            Err(e) => misses.push(format!("manifest: cannot run bash -n '{file}': {e}")),
        }
    }
    misses
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(code: i32, out: &str) -> Finished {
        Finished {
            ending: Ending::Exited(code),
            stdout: out.into(),
            stderr: String::new(),
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn exit_code_is_truth() {
        assert!(judge(&finished(0, "anything"), None).passed());
        assert!(!judge(
            &finished(1, "test result: ok"),
            Some(("test result: ok", ExpectedKind::Literal))
        )
        .passed());
        assert!(!judge(&finished(0, "nope"), Some(("test result: ok", ExpectedKind::Literal))).passed());
        assert!(judge(
            &finished(0, "x test result: ok. 1 passed"),
            Some(("test result: ok", ExpectedKind::Literal))
        )
        .passed());
        assert!(judge(
            &finished(0, "whatever"),
            Some(("non-77 exit code", ExpectedKind::Prose))
        )
        .passed());
    }

    #[test]
    fn a_number_is_not_found_inside_a_longer_number() {
        for (output, found) in [
            ("3", true),
            ("3 passed", true),
            ("tests: (3)", true),
            ("took 3.", true),
            ("3.5", false),
            ("13", false),
            ("35", false),
            ("0.3", false),
            ("v3 3.5 3", true),
        ] {
            assert_eq!(contains_literal(output, "3"), found, "{output}");
        }
        assert!(contains_literal("test result: ok. 1 passed", "test result: ok"));
        assert!(!contains_literal("version 1.2.3\n", "1.2"));
        assert!(contains_literal("version 1.2.3\n", "1.2.3"));
    }

    #[test]
    fn comparisons_apply_to_numbers() {
        assert!(judge(&finished(0, "3\n"), Some((">= 1", ExpectedKind::Comparison))).passed());
        assert!(!judge(&finished(0, "0\n"), Some((">= 1", ExpectedKind::Comparison))).passed());
        let not_a_number = judge(&finished(0, "many\n"), Some((">= 1", ExpectedKind::Comparison)));
        assert!(not_a_number.passed());
        assert!(not_a_number.note.is_some());
        assert_eq!(compare("2.5", "< 3"), Some(true));
        assert_eq!(compare("2", "== 2"), Some(true));
        assert_eq!(compare("2", "!= 2"), Some(false));
    }
}

/// A GSD key link (as GSD Core's `verify key-links` checks it): `from`
/// exists, and its `pattern` matches `from` or `to` — without a pattern,
/// `from` names `to` (its path, its path without extension, or its file
/// stem after a `/` or a quote, as imports write it).
fn audit_link(link: &crate::ultraplan::plan::KeyLink, root: &Path) -> Option<String> {
    let read = |p: &str| {
        pattern::safe_relative_path(p)
            .ok()
            .and_then(|safe| std::fs::read_to_string(root.join(safe)).ok())
    };
    let via = link.via.as_deref().map(|v| format!(" (via {v})")).unwrap_or_default();
    let Some(source) = read(&link.from) else {
        return Some(format!(
            "key link: '{}' does not exist, so it cannot reach '{}'{via}",
            link.from, link.to
        ));
    };
    match &link.pattern {
        Some(p) => match regex::Regex::new(p) {
            Err(e) => Some(format!("key link: pattern '{p}' is not a valid regex: {e}")),
            Ok(re) if re.is_match(&source) || read(&link.to).is_some_and(|t| re.is_match(&t)) => None,
            Ok(_) => Some(format!(
                "key link: /{p}/ is in neither '{}' nor '{}'{via}",
                link.from, link.to
            )),
        },
        None => {
            let to = link.to.as_str();
            let no_ext = to
                .rsplit_once('.')
                .map_or(to, |(stem, ext)| if ext.contains('/') { to } else { stem });
            let stem = no_ext.rsplit('/').next().unwrap_or(no_ext);
            let named = source.contains(to)
                || source.contains(no_ext)
                || ["/", "'", "\""]
                    .iter()
                    .any(|lead| source.contains(&format!("{lead}{stem}")));
            (!named).then(|| format!("key link: '{}' does not reference '{}'{via}", link.from, link.to))
        }
    }
}

#[cfg(test)]
mod key_link_tests {
    use super::*;
    use crate::ultraplan::plan::KeyLink;

    #[test]
    fn links_are_found_by_path_stem_or_pattern() {
        let dir = std::env::temp_dir().join(format!("ul-keylink-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("app")).unwrap();
        std::fs::write(dir.join("app/page.html"), "<script src=\"chart.js\"></script>\n").unwrap();
        std::fs::write(dir.join("app/chart.js"), "fetch('/api/week')\n").unwrap();
        let link = |from: &str, to: &str, pattern: Option<&str>| KeyLink {
            from: from.into(),
            to: to.into(),
            via: Some("x".into()),
            pattern: pattern.map(Into::into),
        };
        assert_eq!(audit_link(&link("app/page.html", "app/chart.js", None), &dir), None);
        assert_eq!(
            audit_link(
                &link("app/page.html", "app/chart.js", Some(r"fetch\(.*/api/week")),
                &dir
            ),
            None
        );
        assert!(audit_link(&link("app/page.html", "app/other.js", None), &dir).is_some());
        assert!(audit_link(&link("app/missing.html", "app/chart.js", None), &dir).is_some());
        assert!(audit_link(&link("app/page.html", "app/chart.js", Some("nowhere")), &dir).is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
