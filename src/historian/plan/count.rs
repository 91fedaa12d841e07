//! How many pieces of work a commit's message names (issue 15, item 1:
//! the number of commits decided from evidence).
//!
//! A squashed commit keeps the messages of what it squashed: `git rebase -i`
//! joins them with blank lines, GitHub's squash merge lists them as `* `
//! bullets, `git merge --squash` quotes each under its `commit <id>` line.
//! Each of those subjects is a piece of work the author committed on its
//! own, and the planner splits the commit into about that many (see
//! `pieces::split_unit`).
//!
//! A later paragraph counts as a subject only when it reads like one: a
//! single line, short, not a sentence ending in a full stop, not a trailer
//! (`Signed-off-by: …`), a link or an issue reference — and, read
//! strictly ([`Reading`]), when it does not open like a body's sentence
//! (`This …`, `The …`, `When …`) or when it opens like a subject (a verb
//! first, a conventional prefix or a version: stricter, fewer cases worse
//! than one commit but a lower mean on the evaluation's tuning half). By
//! default ([`Reading::Stops`]) one sentence ending in a full stop counts
//! too when it opens like a subject (`Added a test for hasNext.`): some
//! projects end every subject so. A body's one-line paragraph ("This keeps
//! the old behaviour") split clean commits before.
//!
//! Later paragraphs are read in the style of the first (`Style`): when
//! the first subject ends in a full stop, a one-line sentence counts
//! whatever word opens it (`Considerable fixes.`), but for a credit (`Found
//! by the fuzzer.`); when the first paragraph wraps over lines (no subject
//! line of its own, as OpenBSD-style projects write) or its subject ends in
//! a full stop (sentences, not a subject line), a paragraph of up to four
//! lines counts when it opens like a subject. A message with a subject
//! line keeps reading a wrapped paragraph as a body. Read strictly, a later
//! subject saying no word an earlier one does not, or all of its words (a
//! pull request's title, then its commit's subject), is the same work —
//! unless the two open with different scopes (`termcolor: …`, `ripgrep: …`)
//! or name different versions (`build: Node.js@10.19`, `build:
//! Node.js@12.16`); the words after a scope are the ones compared — and
//! a join of several messages names those messages even when one of them
//! lists a squash merge's commits. When the count is still one too many, the affinity has the
//! last word (a join it is sure of is made anyway).

use super::subject_line::{
    is_commit_line, is_one_sentence, is_subject_sentence, not_prose, opens_like_subject, reads_as_subject, Style,
};

/// The subjects a message names, the first line first; when the message
/// lists the commits it joined (bullets, quoted commits), those alone.
/// Read as the planner reads them by default ([`Reading::Stops`]).
pub fn subjects(message: &str) -> Vec<&str> {
    subjects_read(message, Reading::Stops)
}

/// How strictly a later one-line paragraph is read as a subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Any line that reads like a subject (short, no full stop, no trailer).
    Loose,
    /// … and does not open like a body's sentence ([`not_prose`]).
    NotProse,
    /// [`Reading::NotProse`], and one sentence ending in a full stop counts
    /// too when it opens like a subject (`Added a test for the parser.`):
    /// some projects end every subject so.
    Stops,
    /// … and opens like a subject ([`opens_like_subject`]).
    Verb,
}

/// [`subjects`], read as `reading` says.
pub fn subjects_read(message: &str, reading: Reading) -> Vec<&str> {
    let strict = reading != Reading::Loose;
    let mut out: Vec<&str> = Vec::new();
    let mut listed: Vec<&str> = Vec::new();
    let mut paragraphs = message.split("\n\n").map(str::trim).filter(|p| !p.is_empty());
    let Some(first) = paragraphs.next() else {
        return out;
    };
    out.push(first.lines().next().unwrap_or(first).trim());
    let style = Style::of(first);
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
        if reading == Reading::Stops && style.opens_wrapped(&lines) {
            out.push(lines[0]);
            continue;
        }
        if let [line] = lines[..] {
            let opens = match reading {
                Reading::Loose => true,
                Reading::NotProse | Reading::Stops => not_prose(line),
                Reading::Verb => opens_like_subject(line),
            };
            let sentence =
                reading == Reading::Stops && (is_subject_sentence(line) || style.stops && is_one_sentence(line));
            if (reads_as_subject(line) || sentence) && opens {
                out.push(line);
            }
        }
    }
    // A join of several messages of which one lists a squash merge's
    // commits: the messages joined are the pieces of work (strict).
    if listed.is_empty() || strict && out.len() >= 2 {
        if strict {
            drop_repeats(&mut out);
        }
        out
    } else {
        listed
    }
}

/// The stretch of `message` each of its `named` subjects opens: from the
/// subject to the next one found after it (or the end), which holds the
/// body written with it. A subject not found is its own stretch.
pub fn stretches<'m>(message: &'m str, named: &[&'m str]) -> Vec<&'m str> {
    let mut starts: Vec<Option<usize>> = Vec::with_capacity(named.len());
    let mut from = 0;
    for subject in named {
        let at = message[from..].find(subject).map(|i| i + from);
        if let Some(at) = at {
            from = at + subject.len();
        }
        starts.push(at);
    }
    (0..named.len())
        .map(|k| match starts[k] {
            Some(start) => {
                let end = starts[k + 1..]
                    .iter()
                    .flatten()
                    .next()
                    .copied()
                    .unwrap_or(message.len());
                &message[start..end]
            }
            None => named[k],
        })
        .collect()
}

/// Drops a later subject whose words an earlier one already says, or which
/// says all of an earlier one's (a pull request's title, then its one
/// commit's subject in the body), the fewer being at least two words or
/// all of the other's. Two subjects sharing most words are two pieces of
/// work when each has a word of its own (`bump grep-pcre2`, then `bump
/// grep-searcher`); a word alone (`Fix the parser`) says too little to
/// repeat another.
fn drop_repeats(subjects: &mut Vec<&str>) {
    let mut seen: Vec<(std::collections::BTreeSet<String>, Option<&str>)> = Vec::new();
    subjects.retain(|s| {
        let scope = scope_of(s);
        let mine = repeat_words(scope.map_or(*s, |p| &s[p.len() + 2..]));
        let repeat = !mine.is_empty()
            && seen.iter().any(|(other, their)| {
                if scope.is_some() && their.is_some() && scope != *their {
                    return false;
                }
                let (fewer, more) = if mine.len() <= other.len() {
                    (&mine, other)
                } else {
                    (other, &mine)
                };
                fewer.is_subset(more) && (fewer.len() >= 2 || fewer == more)
            });
        seen.push((mine, scope));
        !repeat
    });
}

/// The words a subject is compared by to tell a repeat: its [`words`] and
/// its version numbers (`build: Node.js@10.19` is no repeat of
/// `build: Node.js@12.16`).
fn repeat_words(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = words(text);
    out.extend(crate::historian::analyse::versions::versions(text).map(|v| format!("v:{v}")));
    out
}

/// The scope a subject opens with (`termcolor` of `termcolor: add …`,
/// `fix(parser)` of `fix(parser): …`), when it has one.
fn scope_of(subject: &str) -> Option<&str> {
    subject
        .split_once(": ")
        .map(|(prefix, _)| prefix)
        .filter(|p| !p.is_empty() && !p.contains(' ') && p.len() <= 30)
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

#[cfg(test)]
mod tests {
    use crate::historian::plan::count::{subjects, subjects_read, Reading};
    use crate::historian::plan::subject_line::opens_like_subject;

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
        // OpenBSD's approval lines.
        assert_eq!(
            subjects("remove unused states in enum\n\nok gilles@\n\nOK tb@ stsp@\n"),
            ["remove unused states in enum"]
        );
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
    fn a_body_line_that_does_not_open_like_a_subject_is_body() {
        let message = "Fix the parser\n\nThis keeps the old behaviour for empty input\n";
        assert_eq!(
            subjects_read(message, Reading::Loose),
            ["Fix the parser", "This keeps the old behaviour for empty input"]
        );
        assert_eq!(subjects_read(message, Reading::Verb), ["Fix the parser"]);
        let squash =
            "Fix the parser\n\nAdds a test for empty input\n\ndocs: explain the parser\n\nRemoved the old lexer\n";
        assert_eq!(
            subjects_read(squash, Reading::Verb),
            [
                "Fix the parser",
                "Adds a test for empty input",
                "docs: explain the parser",
                "Removed the old lexer"
            ]
        );
        let repeated = "Add -x/--line-regexp (#520)\n\nadd -x/--line-regexp flag\n\nAdd a short key for julia\n";
        assert_eq!(
            subjects_read(repeated, Reading::Verb),
            ["Add -x/--line-regexp (#520)", "Add a short key for julia"]
        );
        let joined = "Lexer (#12)\n\n* Add the lexer\n\n* Document the lexer\n\nFix the parser\n";
        assert_eq!(subjects_read(joined, Reading::Verb), ["Lexer (#12)", "Fix the parser"]);
        assert_eq!(
            subjects_read(joined, Reading::Loose),
            ["Add the lexer", "Document the lexer"]
        );
        let prose = "Fix the parser\n\nThe reader loops on empty input\n\nRename the lexer\n";
        assert_eq!(subjects(prose), ["Fix the parser", "Rename the lexer"]);
        assert!(opens_like_subject("Simplified the reader"));
        assert!(opens_like_subject("Stopped reading twice"));
        assert!(opens_like_subject("2.1.0"));
        assert!(!opens_like_subject("Without it the reader loops"));
        assert!(!opens_like_subject("The reader loops"));
    }

    #[test]
    fn a_subject_ending_in_a_full_stop_counts_when_it_opens_like_one() {
        let message = "Added a test for hasNext.\n\nRemoved an unused import.\n\nFound by the fuzzer.\n\nFixes #12.\n";
        assert_eq!(
            subjects(message),
            ["Added a test for hasNext.", "Removed an unused import."]
        );
        // Two sentences, or a sentence of prose, are a body.
        let body = "Fix the parser\n\nRemoved the check. It never held.\n\nThe reader loops.\n";
        assert_eq!(subjects(body), ["Fix the parser"]);
        assert_eq!(subjects_read(message, Reading::NotProse), ["Added a test for hasNext."]);
    }

    #[test]
    fn later_paragraphs_are_read_in_the_first_subjects_style() {
        // A first subject ending in a full stop: a later one-line sentence
        // is a subject whatever word opens it, but for a body's opening
        // word, a credit or two sentences.
        let stops = "Considerable fixes.\n\nMainly quotes.\n\nLinux compat fix.\n\nThe reader loops.\n\nFound long ago by the fuzzer.\n\nBuilt it. Ran it.\n";
        assert_eq!(
            subjects(stops),
            ["Considerable fixes.", "Mainly quotes.", "Linux compat fix."]
        );
        // Without the full stop, the same sentences are a body.
        let plain = "Considerable fixes\n\nMainly quotes.\n\nLinux compat fix.\n";
        assert_eq!(subjects(plain), ["Considerable fixes"]);
        // A first paragraph wrapped over lines: no subject line, a wrapped
        // paragraph per piece of work, each opening like a subject.
        let wrapped = "Fix a crash when the last pane closes, reported by\nsomeone in issue 12.\n\nAdd a -x flag to resize the window to the\nsize of the largest client.\n\nThe old size is kept when the flag is\nnot given.\n\nMove the option table into its own file and sort it so that the\nlookup can be binary, the table having grown long over the years\nand new options being added in the middle more and more\nfrom now on, which the next release\nwill do.\n";
        assert_eq!(
            subjects(wrapped),
            [
                "Fix a crash when the last pane closes, reported by",
                "Add a -x flag to resize the window to the"
            ]
        );
        // A first subject ending in a full stop: a wrapped paragraph opening
        // like a subject is one too.
        let sentences = "Stop at the right end line when walking wrapped lines.\n\nAdd a way for floating panes to stay above zoom. Use it by\ndefault for modal panes.\n";
        assert_eq!(
            subjects(sentences),
            [
                "Stop at the right end line when walking wrapped lines.",
                "Add a way for floating panes to stay above zoom. Use it by"
            ]
        );
        // A subject line of its own: a wrapped body opening with a verb is
        // a body.
        let body = "Fix the parser\n\nAdd a check for the end of the input, which the\nreader reached without one.\n";
        assert_eq!(subjects(body), ["Fix the parser"]);
    }

    #[test]
    fn subjects_with_a_path_as_scope_or_sharing_most_words_are_counted() {
        let bumps = "deps: bump grep-pcre2 to 0.1.8\n\ndeps: bump grep-searcher to 0.1.14\n";
        assert_eq!(
            subjects(bumps),
            ["deps: bump grep-pcre2 to 0.1.8", "deps: bump grep-searcher to 0.1.14"]
        );
        let scopes = "ignore/types: add AIDL file type\n\nsrc/builtin.c: Add missing semicolon\n\njq_next: simplify the call\n\nSigned-off-by: A <a@example.com>\n";
        assert_eq!(
            subjects(scopes),
            [
                "ignore/types: add AIDL file type",
                "src/builtin.c: Add missing semicolon",
                "jq_next: simplify the call"
            ]
        );
        let same = "Update sidebar.html\n\nUpdate sidebar.html\n\nUpdate sidebarlogo.html\n";
        assert_eq!(subjects(same), ["Update sidebar.html", "Update sidebarlogo.html"]);
    }

    #[test]
    fn subjects_of_different_scopes_or_versions_are_no_repeats() {
        // Another scope: another piece of work, however many words it shares.
        let scopes =
            "termcolor: add BufferedStandardStream\n\nripgrep: use new BufferedStandardStream from termcolor\n";
        assert_eq!(subjects(scopes).len(), 2);
        // One scope: the words after it and the versions tell them apart.
        let bumps = "build: Node.js@10.19\n\nbuild: Node.js@12.16\n\nbuild: mocha@7.0.1\n";
        assert_eq!(subjects(bumps).len(), 3);
        let node = "4.15.5\n\nbuild: support Node.js 8.x\n\nbuild: test against Node.js 9.x nightly\n";
        assert_eq!(subjects(node).len(), 3);
        // A pull request's title, then its commit's subject: one piece.
        let title = "Add -x/--line-regexp (#520)\n\nadd -x/--line-regexp flag\n";
        assert_eq!(subjects(title), ["Add -x/--line-regexp (#520)"]);
        // A scope with a hyphen or a digit is no trailer.
        let hyphen = "doc: add a section\n\ngrep-cli: support compress(1)\n\nSigned-off-by: A <a@example.com>\n";
        assert_eq!(
            subjects(hyphen),
            ["doc: add a section", "grep-cli: support compress(1)"]
        );
    }

    #[test]
    fn each_subject_opens_the_stretch_holding_its_body() {
        let message = "Add the lexer\n\nIt reads tokens.\n\nDocument the lexer\n\nSee the guide.\n";
        let named = subjects(message);
        assert_eq!(
            super::stretches(message, &named),
            [
                "Add the lexer\n\nIt reads tokens.\n\n",
                "Document the lexer\n\nSee the guide.\n"
            ]
        );
        assert_eq!(super::stretches(message, &["Fix it"]), ["Fix it"]);
    }

    #[test]
    fn a_squash_names_each_message_it_joined() {
        let rebase =
            "Add the lexer\n\nThe lexer reads tokens.\n\nDocument the lexer\n\nfix(lexer): bump version to 1.2.0\n";
        assert_eq!(
            subjects_read(rebase, Reading::Loose),
            [
                "Add the lexer",
                "Document the lexer",
                "fix(lexer): bump version to 1.2.0"
            ]
        );
        let github = "Lexer (#12)\n\n* Add the lexer\n\n* Document the lexer\n\n---------\n\nCo-authored-by: B <b@example.com>\n";
        assert_eq!(
            subjects_read(github, Reading::Loose),
            ["Add the lexer", "Document the lexer"]
        );
        let merge = "Squashed commit of the following:\n\ncommit 0123456789abcdef\nAuthor: A <a@example.com>\nDate:   today\n\n    Add the lexer\n\ncommit 89abcdef01234567\nAuthor: A <a@example.com>\nDate:   today\n\n    Document the lexer\n";
        assert_eq!(
            subjects_read(merge, Reading::Loose),
            ["Add the lexer", "Document the lexer"]
        );
        assert_eq!(subjects(github), ["Add the lexer", "Document the lexer"]);
        assert_eq!(subjects(merge), ["Add the lexer", "Document the lexer"]);
    }
}
