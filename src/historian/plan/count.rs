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
//! (`Signed-off-by: …`), a link or an issue reference, and not opening
//! like a body's sentence (`This …`, `The …`, `When …`): a body's one-line
//! paragraph ("This keeps the old behaviour") is no piece of work. One
//! sentence ending in a full stop counts too when it opens like a subject
//! (`Added a test for hasNext.`): some projects end every subject so.
//!
//! Trailers close a message: read by default, the paragraph after one made
//! of trailers alone (`Signed-off-by: …`, `Co-authored-by: …`, OpenBSD's
//! `ok gilles@`) opens the next message of the join, whatever it reads
//! like (`linode`, a wrapped paragraph, a sentence), since a trailer ends
//! a message and never a subject. So does one
//! whose last line approves (`…\nok eric@`) or ends in an approval
//! (`kill a dead function; ok gilles@`, a subject still), the first
//! message's too; and such a paragraph of one line opening like a subject
//! is a message of its own. A subject is read without the approval it
//! ends in (`…; ok gilles@`). A subject may open with a verb written with a hyphen
//! (`re-enable`), after an adverb (`properly handle`) or as a gerund.
//!
//! Later paragraphs are read in the style of the first (`Style`): when
//! the first subject ends in a full stop, a one-line sentence counts
//! whatever word opens it (`Considerable fixes.`), but for a credit (`Found
//! by the fuzzer.`). A paragraph of several lines is a body, however it
//! opens (reading one as a subject did not earn its place on the
//! evaluation's held-out half). A later
//! subject saying no word an earlier one does not, or all of its words (a
//! pull request's title, then its commit's subject), is the same work —
//! unless the two open with different scopes (`termcolor: …`, `ripgrep: …`)
//! or name different versions (`build: Node.js@10.19`, `build:
//! Node.js@12.16`); the words after a scope are the ones compared — and
//! a join of several messages names those messages even when one of them
//! lists a squash merge's commits. When the count is still one too many, the affinity has the
//! last word (a join it is sure of is made anyway).

use super::subject_line::{
    closes_message, is_commit_line, is_one_sentence, is_subject_sentence, not_prose, opens_approved, opens_message,
    reads_as_subject, Closing, Style,
};
use crate::historian::message::credits::without_credit;

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
    let style = Style::of(first);
    let mut quoted = false;
    let mut closed = closes_message(&lines_of(first)) != Closing::No;
    for paragraph in paragraphs {
        let lines = lines_of(paragraph);
        // A paragraph after trailers (`Signed-off-by: …`, `ok gilles@`)
        // opens the next message of a join, whatever it reads like.
        let closing = closes_message(&lines);
        let after_close = std::mem::replace(&mut closed, closing != Closing::No);
        // Trailers and credits alone name no piece of work.
        if closing == Closing::Only {
            continue;
        }
        if after_close && opens_message(lines[0]) {
            out.push(lines[0]);
            continue;
        }
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
        let approved = closing == Closing::After && opens_approved(&lines);
        if approved {
            out.push(lines[0]);
            continue;
        }
        if let [whole] = lines[..] {
            // Read without the approval it ends in (`…; ok gilles@`).
            let line = without_credit(whole);
            let sentence = is_subject_sentence(line) || style.stops && is_one_sentence(line);
            if (reads_as_subject(line) || sentence) && not_prose(line) {
                out.push(whole);
            }
        }
    }
    // A join of several messages of which one lists a squash merge's
    // commits: the messages joined are the pieces of work.
    if listed.is_empty() || out.len() >= 2 {
        drop_repeats(&mut out);
        out
    } else {
        listed
    }
}

/// A paragraph's lines, trimmed, none empty.
fn lines_of(paragraph: &str) -> Vec<&str> {
    paragraph.lines().map(str::trim).filter(|l| !l.is_empty()).collect()
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

/// The words of a text: identifiers cut at case changes, underscores and
/// punctuation, lowercased, at least three letters.
pub fn words(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut word = String::new();
    let mut last_lower = false;
    let mut flush = |word: &mut String| {
        if word.len() >= 3 && !word.bytes().all(|b| b.is_ascii_digit()) {
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
#[path = "count_tests.rs"]
mod tests;
