//! Whether a subject says what changed or only lists files: the measure of
//! issue 15's item 5 (`benches/historian_eval.rs` prints the share of such
//! fallback subjects). A fallback names files (`update a.rs, b.rs and 2 more
//! files`), a kind of file alone (`update tests`), or is a numbered part
//! (`… (part 2 of 3)`); a summary from the branch's words or the diff's
//! evidence (`add parse_statement`, `rename util.rs to helpers.rs`, `bump
//! version to 1.2.0`) is not.

/// Whether `subject` (a whole subject line, `type(scope): summary`) is a
/// fallback.
pub fn is_fallback(subject: &str) -> bool {
    let summary = match subject.split_once(": ") {
        Some((head, rest)) if !head.contains(' ') => rest,
        _ => subject,
    };
    fallback_summary(summary.trim())
}

fn fallback_summary(summary: &str) -> bool {
    // `x (2)`: a repeat told apart by number only.
    let summary = match summary.rsplit_once(" (") {
        Some((rest, n)) if n.strip_suffix(')').is_some_and(|n| n.parse::<u32>().is_ok()) => rest,
        _ => summary,
    };
    if let Some((rest, inner)) = summary.rsplit_once(" (") {
        if let Some(inner) = inner.strip_suffix(')') {
            let part = inner
                .strip_prefix("part ")
                .and_then(|p| p.split_once(" of "))
                .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok());
            if part || fallback_summary(inner) {
                return true;
            }
            return fallback_summary(rest);
        }
    }
    let Some((verb, rest)) = summary.split_once(' ') else {
        return summary == "update";
    };
    if !matches!(verb, "add" | "remove" | "update") {
        return false;
    }
    if matches!(rest, "documentation" | "tests" | "build and dependencies") {
        return true;
    }
    let mut pieces = Vec::new();
    for piece in rest.split(", ") {
        for p in piece.split(" and ") {
            pieces.push(p.trim());
        }
    }
    pieces.iter().all(|p| {
        let p = ["add ", "remove ", "update ", "rename "]
            .iter()
            .find_map(|v| p.strip_prefix(v))
            .unwrap_or(p);
        let more = p.strip_suffix(" more files").is_some_and(|n| n.parse::<u32>().is_ok());
        let file = !p.is_empty() && !p.contains(' ') && (p.contains('.') || p.contains('/'));
        more || file
    })
}

#[cfg(test)]
mod tests {
    use super::is_fallback;

    #[test]
    fn file_lists_and_numbered_parts_are_fallbacks() {
        for subject in [
            "feat(app): update a.rs, b.rs and 2 more files",
            "feat: add parser.rs",
            "feat: add parser.rs and lexer.rs",
            "refactor: add x.py, remove y.py",
            "test: update tests",
            "docs: update documentation",
            "chore: update",
            "feat(widgets): add widgets (part 2 of 3)",
            "fix(x): fix the thing (update a.c, b.c and c.c)",
            "feat: update main.go (2)",
        ] {
            assert!(is_fallback(subject), "{subject}");
        }
    }

    #[test]
    fn subjects_saying_what_changed_are_not() {
        for subject in [
            "feat(parser): add the expression parser",
            "refactor: rename util.rs to helpers.rs",
            "build: bump version to 1.2.0",
            "feat(parser): add parse_statement and parse_block",
            "test(parser): add tests for parse_statement",
            "fix: handle empty input (lexer.rs)",
            "update the docs for v2",
        ] {
            assert!(!is_fallback(subject), "{subject}");
        }
    }
}
