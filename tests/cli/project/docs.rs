//! The documentation cannot lie: every command block marked runnable in
//! `README.md` and `docs/` runs here, in a temporary repository, with the
//! built binaries first on PATH (docs/development.md, "Runnable examples").
//!
//! The marks are in the info string of a fenced block, after the language,
//! so GitHub still colours the block by its first word:
//!
//! * `sh runnable` — a shell script, run with `sh -e` (stderr joined to
//!   stdout) in the page's repository; `exit=N` expects exit status N
//!   instead of 0;
//! * `<lang> file=<path>` — written to `<path>` in the page's repository
//!   (where it stands in the page: before the runnable blocks after it);
//! * `text output` — right after a runnable block: each of its lines must be
//!   a line of that block's output, in order, with `…` standing for any text
//!   within a line; a line holding only `…` stands for nothing (lines between
//!   are skipped anyway).
//!
//! Each page is one reader following it from the top: a fresh repository on
//! branch `main` with one empty commit, `initial`, as the page tells a
//! newcomer to make; its blocks run in order, each in the repository's top
//! directory.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::harness::support::{capture, repo_root, TestEnv};

/// A fenced block of a page: where it starts, its info string split into
/// words, and its text.
#[derive(Debug)]
struct Block {
    line: usize,
    info: Vec<String>,
    text: String,
}

impl Block {
    fn has(&self, word: &str) -> bool {
        self.info.iter().skip(1).any(|w| w == word)
    }

    fn attribute(&self, name: &str) -> Option<&str> {
        self.info
            .iter()
            .skip(1)
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
    }
}

/// The fenced blocks of a Markdown page, outermost only (a fence inside a
/// longer fence is text), as CommonMark reads them: a closing fence is the
/// same character, at least as long, with nothing after it.
fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(char, usize, usize, Vec<String>, String)> = None;
    for (i, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let fence_char = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let fence_len = fence_char.map_or(0, |c| trimmed.chars().take_while(|x| *x == c).count());
        match &mut open {
            None => {
                if let Some(c) = fence_char.filter(|_| fence_len >= 3 && indent <= 3) {
                    let info = trimmed[fence_len..].split_whitespace().map(str::to_owned).collect();
                    open = Some((c, fence_len, i + 1, info, String::new()));
                }
            }
            Some((c, len, start, info, text)) => {
                if fence_char == Some(*c) && fence_len >= *len && trimmed[fence_len..].trim().is_empty() {
                    out.push(Block {
                        line: *start,
                        info: std::mem::take(info),
                        text: std::mem::take(text),
                    });
                    open = None;
                } else {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    out
}

/// The pages the test reads: README.md and every Markdown file under docs/.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo_root().join("README.md")];
    let mut stack = vec![repo_root().join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

/// Whether `shown` (a line of an output block, `…` for any text) matches `line`.
fn line_matches(shown: &str, line: &str) -> bool {
    let mut pieces = shown.split('…');
    let first = pieces.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    for (n, piece) in pieces.iter().enumerate() {
        if n + 1 == pieces.len() {
            return rest.ends_with(piece);
        }
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// The first line of `shown` not found, in order, among `output`'s lines.
fn missing_line(shown: &str, output: &str) -> Option<String> {
    let mut lines = output.lines().map(str::trim_end);
    for wanted in shown.lines().map(str::trim_end) {
        if wanted.is_empty() || wanted.trim() == "…" {
            continue;
        }
        if !lines.any(|line| line_matches(wanted, line)) {
            return Some(wanted.to_owned());
        }
    }
    None
}

/// Runs one page's blocks; returns its problems, each naming the line.
fn run_page(page: &Path, blocks: &[Block]) -> Vec<String> {
    let name = page.strip_prefix(repo_root()).unwrap_or(page).display().to_string();
    let env = TestEnv::new();
    let repo = env.root().join("demo");
    std::fs::create_dir_all(&repo).unwrap();
    env.git(&repo, &["init", "-q", "-b", "main"]);
    env.git(&repo, &["commit", "-q", "--allow-empty", "-m", "initial"]);
    let mut problems = Vec::new();
    let mut last_output: Option<(usize, String)> = None;
    for block in blocks {
        if let Some(path) = block.attribute("file") {
            let target = repo.join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(&target, &block.text).unwrap();
        }
        if block.has("runnable") {
            let expected: i32 = match block.attribute("exit").map(str::parse) {
                None => 0,
                Some(Ok(code)) => code,
                Some(Err(_)) => {
                    problems.push(format!("{name}:{}: exit= needs a number", block.line));
                    continue;
                }
            };
            let mut cmd = env.command("sh", &repo);
            cmd.args(["-e", "-c", &format!("exec 2>&1\n{}", block.text)]);
            let out = capture(cmd);
            if out.code != expected {
                problems.push(format!(
                    "{name}:{}: exit {} (expected {expected})\n--- script\n{}--- output\n{}",
                    block.line, out.code, block.text, out.stdout
                ));
            }
            last_output = Some((block.line, out.stdout));
            continue;
        }
        if block.has("output") {
            match last_output.take() {
                None => problems.push(format!(
                    "{name}:{}: an output block must follow a runnable block",
                    block.line
                )),
                Some((from, output)) => {
                    if let Some(line) = missing_line(&block.text, &output) {
                        problems.push(format!(
                            "{name}:{}: the output of the block at line {from} lacks (in order):\n  {line}\n--- output\n{output}",
                            block.line
                        ));
                    }
                }
            }
            continue;
        }
        last_output = None;
    }
    problems
}

#[test]
fn runnable_examples_in_the_documentation_run() {
    let started = Instant::now();
    let mut problems = Vec::new();
    let mut runnable = 0;
    let mut readme_runnable = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let blocks = blocks(&text);
        let count = blocks.iter().filter(|b| b.has("runnable")).count();
        for b in &blocks {
            for word in b.info.iter().skip(1) {
                let known = ["runnable", "output"].contains(&word.as_str())
                    || word.starts_with("file=")
                    || word.starts_with("exit=");
                if !known {
                    problems.push(format!("{}:{}: unknown mark '{word}'", page.display(), b.line));
                }
            }
        }
        if page.ends_with("README.md") && page.parent() == Some(repo_root().as_path()) {
            readme_runnable = count;
        }
        runnable += count;
        if count > 0 {
            problems.extend(run_page(&page, &blocks));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    // The test cannot pass by finding nothing to run.
    assert!(readme_runnable >= 2, "README.md has {readme_runnable} runnable blocks");
    assert!(runnable >= 10, "only {runnable} runnable blocks in the documentation");
    eprintln!(
        "docs: {runnable} runnable blocks in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn blocks_are_read_as_commonmark_fences() {
    let page =
        "text\n````markdown file=plan.md\n# Plan\n```sh\necho hi\n```\n````\n\n```sh runnable exit=1\nfalse\n```\n";
    let found = blocks(page);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].attribute("file"), Some("plan.md"));
    assert_eq!(found[0].text, "# Plan\n```sh\necho hi\n```\n");
    assert!(found[1].has("runnable"));
    assert_eq!(found[1].attribute("exit"), Some("1"));
    assert_eq!(found[1].line, 9);
}

#[test]
fn output_lines_match_in_order_with_ellipses() {
    let output = "Result: COMPLETED\n  1  Write  PASS  1  3b4b518\nVerdict: READY\n";
    assert_eq!(missing_line("Result: COMPLETED\n…\nVerdict: READY\n", output), None);
    assert_eq!(missing_line("  1  Write  PASS  1  …\n", output), None);
    assert_eq!(missing_line("…PASS…\n", output), None);
    assert_eq!(
        missing_line("Verdict: READY\nResult: COMPLETED\n", output).as_deref(),
        Some("Result: COMPLETED")
    );
    assert_eq!(
        missing_line("Result: FAILED\n", output).as_deref(),
        Some("Result: FAILED")
    );
    assert!(!line_matches("PASS", "  PASS"));
}

/// A heading's anchor as GitHub makes it: lowercase, spaces as `-`, every
/// other character but letters, digits, `-` and `_` left out.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (outside fenced blocks).
fn anchors(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        let ticks: String = trimmed.chars().take_while(|c| *c == '`' || *c == '~').collect();
        if ticks.len() >= 3 {
            match &fence {
                None => fence = Some(ticks),
                Some(open) if ticks.starts_with(open.as_str()) && trimmed[ticks.len()..].trim().is_empty() => {
                    fence = None
                }
                Some(_) => {}
            }
            continue;
        }
        if fence.is_none() && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// Every relative link of README.md, docs/ and benches/README.md leads to a
/// file that exists and, with `#…`, to a heading of it.
#[test]
fn links_in_the_documentation_resolve() {
    let mut pages = pages();
    pages.push(repo_root().join("benches/README.md"));
    pages.push(repo_root().join("CHANGELOG.md"));
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut broken = Vec::new();
    for page in pages.iter().filter(|p| p.exists()) {
        let text = std::fs::read_to_string(page).unwrap();
        let mut in_fence = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
                in_fence = !in_fence;
                continue;
            }
            if in_fence {
                continue;
            }
            for target in link.captures_iter(line).map(|c| c[1].to_owned()) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (path, fragment) = match target.split_once('#') {
                    Some((p, f)) => (p, Some(f)),
                    None => (target.as_str(), None),
                };
                let file = if path.is_empty() {
                    page.clone()
                } else {
                    page.parent().unwrap().join(path)
                };
                let name = format!(
                    "{}:{}: {target}",
                    page.strip_prefix(repo_root()).unwrap().display(),
                    n + 1
                );
                if !file.exists() {
                    broken.push(format!("{name} (no such file)"));
                } else if let Some(fragment) = fragment {
                    let target_text = std::fs::read_to_string(&file).unwrap_or_default();
                    if !anchors(&target_text).iter().any(|a| a == fragment) {
                        broken.push(format!("{name} (no such heading)"));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    assert_eq!(
        anchor(" Run state and the record (benches/records.rs)"),
        "run-state-and-the-record-benchesrecordsrs"
    );
    assert_eq!(anchor(" `result check`"), "result-check");
    assert_eq!(anchor(" Verify: command or prose"), "verify-command-or-prose");
}
