//! How many pieces of work a commit's message names (issue 15, item 1:
//! the number of commits decided from evidence).
//!
//! A squashed commit keeps the messages of what it squashed: `git rebase -i`
//! joins them with blank lines, GitHub's squash merge lists them as `* `
//! bullets, `git merge --squash` quotes each under its `commit <id>` line.
//! Each of those subjects is a piece of work the author committed on its
//! own, and the planner splits the commit into about that many (see
//! `affinity::split_unit`).
//!
//! A later paragraph counts as a subject only when it reads like one: a
//! single line, short, not a sentence ending in a full stop, not a trailer
//! (`Signed-off-by: …`), a link or an issue reference. A body's one-line
//! paragraphs mostly end in a full stop; when one does not, the count is
//! one too many, and the affinity still has the last word (a join it is
//! sure of is made anyway).

/// The subjects a message names, the first line first; when the message
/// lists the commits it joined (bullets, quoted commits), those alone.
pub fn subjects(message: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut listed: Vec<&str> = Vec::new();
    let mut paragraphs = message.split("\n\n").map(str::trim).filter(|p| !p.is_empty());
    let Some(first) = paragraphs.next() else {
        return out;
    };
    out.push(first.lines().next().unwrap_or(first).trim());
    let mut quoted = false;
    for paragraph in paragraphs {
        let lines: Vec<&str> = paragraph.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        // `git merge --squash`: `commit <id>`, `Author:`, `Date:`, then the
        // message indented; the subject is the first paragraph after them.
        if lines.first().is_some_and(|l| is_commit_line(l)) {
            quoted = true;
            continue;
        }
        if quoted {
            quoted = false;
            listed.extend(lines.first());
            continue;
        }
        // GitHub's squash merge: `* subject` bullets.
        if lines.iter().all(|l| l.starts_with("* ")) {
            listed.extend(lines.iter().map(|l| l[2..].trim()).filter(|l| reads_as_subject(l)));
            continue;
        }
        if let [line] = lines[..] {
            if reads_as_subject(line) {
                out.push(line);
            }
        }
    }
    if listed.is_empty() {
        out
    } else {
        listed
    }
}

/// Words too common in subjects to say which files a subject is about.
const PLAIN: [&str; 40] = [
    "add", "added", "adds", "and", "are", "but", "can", "change", "changes", "fix", "fixed", "fixes", "for", "from",
    "into", "make", "makes", "more", "new", "not", "now", "one", "only", "remove", "removed", "some", "support",
    "that", "the", "this", "update", "updated", "updates", "use", "used", "uses", "was", "when", "with", "without",
];

/// The words of a text: identifiers cut at case changes, underscores and
/// punctuation, lowercased, at least three letters, plain words left out.
pub fn words(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut word = String::new();
    let mut last_lower = false;
    let mut flush = |word: &mut String| {
        if word.len() >= 3 && !PLAIN.contains(&word.as_str()) && !word.bytes().all(|b| b.is_ascii_digit()) {
            out.insert(std::mem::take(word));
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && last_lower {
                flush(&mut word);
            }
            last_lower = c.is_lowercase() || c.is_ascii_digit();
            word.extend(c.to_lowercase());
        } else {
            flush(&mut word);
            last_lower = false;
        }
    }
    flush(&mut word);
    out
}

fn is_commit_line(line: &str) -> bool {
    line.strip_prefix("commit ")
        .is_some_and(|id| id.len() >= 7 && id.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether one line reads like a commit's subject.
fn reads_as_subject(line: &str) -> bool {
    let words = line.split_whitespace().count();
    let lower = line.to_ascii_lowercase();
    // `Signed-off-by: …`, `Ref: …`, `Fixes: …`; not `fix(parser): …`.
    let trailer = line.split_once(':').is_some_and(|(key, _)| {
        let kind = key.split('(').next().unwrap_or(key).trim_end_matches('!');
        let conventional = !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase());
        !key.is_empty() && !key.contains(' ') && !conventional
    });
    let reference = [
        "fixes #",
        "closes #",
        "fix #",
        "close #",
        "resolves #",
        "refs #",
        "see #",
        "cc @",
    ]
    .iter()
    .any(|p| lower.starts_with(p));
    // A release's subject is often its version alone: `v2.34.1`, `ignore-0.4.33`.
    let version = words == 1 && line.bytes().any(|b| b.is_ascii_digit()) && line.contains('.');
    (words >= 2 || version)
        && line.chars().count() <= 120
        && !line.ends_with('.')
        && !line.ends_with(':')
        && !line.ends_with(',')
        && !trailer
        && !reference
        && !lower.contains("://")
        && !["#", ">", "-", "|", "```", "("].iter().any(|p| line.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::subjects;

    #[test]
    fn words_are_cut_at_case_changes_and_punctuation() {
        let found: Vec<String> = super::words("fix(parser): add parseHeader to the HTTP_client")
            .into_iter()
            .collect();
        assert_eq!(found, ["client", "header", "http", "parse", "parser"]);
    }

    #[test]
    fn one_message_names_one_piece_of_work() {
        assert_eq!(
            subjects("Fix the parser\n\nIt read past the end.\n"),
            ["Fix the parser"]
        );
        assert_eq!(
            subjects("Fix the parser\n\nSigned-off-by: A <a@example.com>\n"),
            ["Fix the parser"]
        );
        assert_eq!(subjects("Fix the parser\n\nFixes #12\n"), ["Fix the parser"]);
        assert_eq!(
            subjects("Fix the parser\n\nRef: the report on the list\n"),
            ["Fix the parser"]
        );
        assert_eq!(
            subjects("Fix the parser\n\nSee https://example.com/12 for more\n"),
            ["Fix the parser"]
        );
        assert!(subjects("").is_empty());
        assert_eq!(subjects("v1.2.0\n\nglobset-0.4.20\n"), ["v1.2.0", "globset-0.4.20"]);
    }

    #[test]
    fn a_squash_names_each_message_it_joined() {
        let rebase =
            "Add the lexer\n\nThe lexer reads tokens.\n\nDocument the lexer\n\nfix(lexer): bump version to 1.2.0\n";
        assert_eq!(
            subjects(rebase),
            [
                "Add the lexer",
                "Document the lexer",
                "fix(lexer): bump version to 1.2.0"
            ]
        );
        let github = "Lexer (#12)\n\n* Add the lexer\n\n* Document the lexer\n\n---------\n\nCo-authored-by: B <b@example.com>\n";
        assert_eq!(subjects(github), ["Add the lexer", "Document the lexer"]);
        let merge = "Squashed commit of the following:\n\ncommit 0123456789abcdef\nAuthor: A <a@example.com>\nDate:   today\n\n    Add the lexer\n\ncommit 89abcdef01234567\nAuthor: A <a@example.com>\nDate:   today\n\n    Document the lexer\n";
        assert_eq!(subjects(merge), ["Add the lexer", "Document the lexer"]);
    }
}
