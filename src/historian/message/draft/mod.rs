//! Writing a new commit's message from a [`Draft`]: the conventional type
//! from its categories and sources, the summary from the original subjects
//! (or from what it holds), and a body listing where it came from and what
//! it holds.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Arc;

use super::clauses;
use super::subject::{parse_subject, type_from_words};
use super::text::{quote_path, without_controls};
use super::Kind;
use crate::historian::analyse::classify::{self, Category};

/// One file as a commit body lists it.
#[derive(Clone, Debug)]
pub struct FileLine {
    pub letter: char,
    pub path: String,
    pub from: Option<String>,
    /// Hunk numbers (from 1) when the commit holds only some of the file's hunks.
    pub hunks: Option<Vec<usize>>,
    pub added: usize,
    pub removed: usize,
    pub note: Option<&'static str>,
}

/// Everything a message is written from.
#[derive(Clone, Debug)]
pub struct Draft {
    /// Categories of the commit's files, with lines, heaviest first.
    pub categories: Vec<(Category, usize)>,
    pub scope: Option<String>,
    /// The branch commits the changes come from: (short id, subject, kind,
    /// lines this commit holds from it), heaviest first.
    pub sources: Vec<(String, String, Kind, usize)>,
    pub files: Vec<FileLine>,
    /// The words the branch's changed files answer to
    /// ([`super::add_path_words`]), for a subject listing several pieces of
    /// work; empty keeps subjects whole.
    pub branch_words: Arc<BTreeSet<String>>,
    /// The other subjects the lead source's message lists in its body (a
    /// squash's, a merged pull request's), any of which may be about this
    /// commit rather than its first line.
    pub alternatives: Vec<String>,
    /// The subject of a squash's message the planner found most of this
    /// commit's lines answer to, when it split the squash by its subjects:
    /// the summary, before the lead source's first line.
    pub answered: Option<String>,
    /// The names the commit's code defines, removes or changes (a hunk's
    /// enclosing function), most changed lines first: what a subject made
    /// from the diff names.
    pub names: Vec<String>,
}

/// How a sentence of prose starts, unlike a subject.
const PROSE: [&str; 7] = ["it ", "this ", "these ", "that ", "we ", "i ", "there "];

/// The longest subject line written.
pub const SUBJECT_WIDTH: usize = 72;

impl Draft {
    fn only_category(&self) -> Option<Category> {
        match self.categories.as_slice() {
            [(c, _)] => Some(*c),
            _ => None,
        }
    }

    /// The conventional type.
    pub fn commit_type(&self) -> String {
        if let Some(c) = self.only_category() {
            match c {
                Category::Docs | Category::Test | Category::Build => return c.commit_type().to_owned(),
                Category::Config => {
                    let ci = self.files.iter().all(|f| classify::is_ci(&f.path));
                    return if ci { "ci" } else { "chore" }.to_owned();
                }
                _ => {}
            }
        }
        // Images, fonts and sounds are neither a feature nor a fix.
        if !self.files.is_empty() && self.files.iter().all(|f| classify::is_asset(&f.path)) {
            return "chore".to_owned();
        }
        // The subject this commit answered to speaks alone: a squash's
        // second piece of work is no fix (or style change) for its first
        // subject's saying so.
        let answered = self.answered.iter().map(String::as_str);
        let sources = self
            .sources
            .iter()
            .filter(|_| self.answered.is_none())
            .filter(|(_, _, kind, _)| !kind.is_noise())
            .map(|(_, subject, _, _)| subject.as_str());
        for subject in answered.chain(sources) {
            let parsed = parse_subject(subject);
            if let Some(t) = parsed.commit_type {
                let t = match t.as_str() {
                    "tests" => "test".to_owned(),
                    "deps" => "build".to_owned(),
                    // The split-out docs or tests of a feature are not the feature.
                    "docs" | "test" | "build" | "ci" => continue,
                    _ => t,
                };
                return t;
            }
            // "test the lexer, fix the parser" holding the parser is a fix.
            if let Some(t) = type_from_words(&self.focused(parsed.summary)) {
                if !matches!(t, "docs" | "test" | "build") {
                    return t.to_owned();
                }
            }
        }
        // A commit that adds a file is new work, though a "fix typo"
        // commit was folded into it.
        let new_files = self.files.iter().any(|f| f.letter == 'A');
        if !new_files
            && self.sources.iter().all(|(_, _, k, _)| k.is_noise())
            && self
                .sources
                .iter()
                .any(|(_, _, k, _)| matches!(k, Kind::Fixup | Kind::FixupOf(_)))
        {
            return "fix".to_owned();
        }
        let added: usize = self.files.iter().map(|f| f.added).sum();
        let removed: usize = self.files.iter().map(|f| f.removed).sum();
        if new_files || added >= removed {
            "feat".to_owned()
        } else {
            "refactor".to_owned()
        }
    }

    /// The summary: the heaviest meaningful original subject (the clauses
    /// of it about this commit, when it lists several pieces of work), else
    /// one made from what the commit holds.
    ///
    /// When the planner split a squash by the subjects its message names,
    /// the subject this commit answered to stands for the first line
    /// ([`Draft::answered`]).
    ///
    /// When the lead source lists other subjects in its body (a squash) and
    /// its first line names nothing this commit holds, the one naming most
    /// of what it holds is taken, the first line on a tie; and when even
    /// that names other files of the branch and
    /// nothing of this commit's (`update CHANGELOG.md` for a commit holding
    /// code), what the commit holds says it better ([`Draft::describe`]).
    pub fn summary(&self) -> String {
        let lead = self
            .sources
            .iter()
            .find(|(_, subject, kind, _)| !kind.is_noise() && !parse_subject(subject).summary.is_empty());
        let Some((_, subject, _, _)) = lead else {
            return self.describe();
        };
        let first = match &self.answered {
            Some(answered) => parse_subject(answered).summary,
            _ => parse_subject(subject).summary,
        };
        if self.alternatives.is_empty() && self.branch_words.is_empty() {
            return self.focused(first);
        }
        let here = self.here_words();
        let mut best = (first.clone(), clauses::relevance(&first, &here, &self.branch_words));
        // The first line stands while it names anything this commit holds;
        // a sentence of prose ("This updates …") is no subject. The subject
        // the planner found this commit answering to stands whatever: it
        // was matched by more than words (`Release 5.1.0` by the version
        // its manifest sets).
        if best.1 .0 == 0 && self.answered.is_none() {
            for alternative in &self.alternatives {
                let s = parse_subject(alternative).summary;
                let lower = s.to_lowercase();
                if PROSE.iter().any(|p| lower.starts_with(p)) {
                    continue;
                }
                let r = clauses::relevance(&s, &here, &self.branch_words);
                if r.0 > best.1 .0 {
                    best = (s, r);
                }
            }
        }
        let (summary, (in_here, elsewhere)) = best;
        if in_here == 0 && elsewhere > 0 {
            // About files this commit does not hold: what it holds says more.
            return self.describe();
        }
        self.focused(summary)
    }

    /// The words this commit's files and names answer to.
    fn here_words(&self) -> BTreeSet<String> {
        let mut words = BTreeSet::new();
        for f in &self.files {
            clauses::add_path_words(&f.path, &mut words);
        }
        for name in &self.names {
            clauses::add_name_words(name, &mut words);
        }
        words
    }

    /// What the commit's code does by the names it defines or changes:
    /// `add parse_statement and parse_block`, `update tokenize`, `add tests
    /// for lexer`; `None` when it holds no code or names nothing.
    fn describe_names(&self) -> Option<String> {
        let verb = if self.files.iter().all(|f| f.letter == 'A' || f.letter == 'C') {
            "add"
        } else if self.files.iter().all(|f| f.letter == 'D') {
            "remove"
        } else {
            "update"
        };
        if self.only_category() == Some(Category::Test) {
            let mut stems: Vec<String> = Vec::new();
            for f in &self.files {
                let stem = classify::tested_stem(&f.path);
                if stem.len() >= 3 && !stems.contains(&stem) {
                    stems.push(stem);
                }
            }
            return (!stems.is_empty() && stems.len() <= 3).then(|| format!("{verb} tests for {}", list(&stems)));
        }
        if !self.categories.iter().any(|(c, _)| c.is_code()) || self.names.is_empty() {
            return None;
        }
        Some(format!("{verb} {}", list(&self.names)))
    }

    /// `summary` cut to the clauses about this commit.
    fn focused(&self, summary: String) -> String {
        let paths = self.files.iter().map(|f| f.path.as_str());
        clauses::focus(&summary, paths, &self.branch_words).unwrap_or(summary)
    }

    /// What the commit holds, in a few words: the names its code defines or
    /// changes (`add parse_statement`), else its files (`add parser.rs and
    /// lexer.rs`).
    pub fn describe(&self) -> String {
        let renamed = matches!(self.files.as_slice(), [f] if f.letter == 'R');
        if !renamed {
            if let Some(described) = self.describe_names() {
                return described;
            }
        }
        self.describe_files()
    }

    /// What the commit holds by its files.
    fn describe_files(&self) -> String {
        let verb = |letter: char| match letter {
            'A' | 'C' => "add",
            'D' => "remove",
            'R' => "rename",
            _ => "update",
        };
        let name = |f: &FileLine| f.path.rsplit('/').next().unwrap_or(&f.path).to_owned();
        match self.files.as_slice() {
            [] => "update".to_owned(),
            [f] if f.letter == 'R' => format!(
                "rename {} to {}",
                f.from
                    .as_deref()
                    .map(|p| p.rsplit('/').next().unwrap_or(p))
                    .unwrap_or("?"),
                name(f)
            ),
            [f] => format!("{} {}", verb(f.letter), name(f)),
            [a, b] if a.letter == b.letter => format!("{} {} and {}", verb(a.letter), name(a), name(b)),
            [a, b] => format!("{} {}, {} {}", verb(a.letter), name(a), verb(b.letter), name(b)),
            files => {
                let first = files[0].letter;
                let v = if files.iter().all(|f| verb(f.letter) == verb(first)) {
                    verb(first)
                } else {
                    "update"
                };
                match self.only_category() {
                    Some(Category::Docs) => format!("{v} documentation"),
                    Some(Category::Test) => format!("{v} tests"),
                    Some(Category::Build) => format!("{v} build and dependencies"),
                    // Named, so that two such commits read apart.
                    _ if files.len() == 3 => {
                        format!("{v} {}, {} and {}", name(&files[0]), name(&files[1]), name(&files[2]))
                    }
                    _ => format!(
                        "{v} {}, {} and {} more files",
                        name(&files[0]),
                        name(&files[1]),
                        files.len() - 2
                    ),
                }
            }
        }
    }

    /// The whole message: subject, blank line, body.
    pub fn message(&self) -> String {
        let commit_type = self.commit_type();
        let scope = self
            .scope
            .as_deref()
            .filter(|s| !s.is_empty() && *s != commit_type && !(commit_type == "docs" && *s == "readme"));
        let head = match scope {
            Some(s) => format!("{commit_type}({}): ", without_controls(s)),
            None => format!("{commit_type}: "),
        };
        let summary = self.summary();
        let summary = truncate_words(&without_controls(&summary), SUBJECT_WIDTH.saturating_sub(head.len()));
        let mut message = format!("{head}{summary}\n\n");
        if !self.sources.is_empty() {
            message.push_str("From:\n");
            for (id, subject, _, _) in &self.sources {
                let _ = writeln!(message, "  {id} {}", truncate_words(&without_controls(subject), 62));
            }
            message.push('\n');
        }
        message.push_str("Holds:\n");
        const LISTED: usize = 60;
        for f in self.files.iter().take(LISTED) {
            let mut line = format!("  {} ", f.letter);
            match &f.from {
                Some(from) => {
                    let _ = write!(line, "{} -> {}", quote_path(from), quote_path(&f.path));
                }
                None => line.push_str(&quote_path(&f.path)),
            }
            let mut details = Vec::new();
            if let Some(hunks) = &f.hunks {
                let list: Vec<String> = hunks.iter().map(|h| h.to_string()).collect();
                details.push(format!(
                    "{} {}",
                    if hunks.len() == 1 { "hunk" } else { "hunks" },
                    list.join(", ")
                ));
            }
            if let Some(note) = f.note {
                details.push(note.to_owned());
            }
            match (f.added, f.removed) {
                (0, 0) => {}
                (a, 0) => details.push(format!("+{a}")),
                (0, r) => details.push(format!("-{r}")),
                (a, r) => details.push(format!("+{a} -{r}")),
            }
            if !details.is_empty() {
                let _ = write!(line, " ({})", details.join("; "));
            }
            message.push_str(&line);
            message.push('\n');
        }
        if self.files.len() > LISTED {
            let _ = writeln!(message, "  … and {} more files", self.files.len() - LISTED);
        }
        // Redacted here too, not only as the commit is written: `plan`
        // shows what `clean` will write.
        crate::redact::redact(&message).into_owned()
    }
}

/// `a`, `a and b`, `a, b and c`, `a, b and 3 more`.
fn list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [a] => a.clone(),
        [a, b] => format!("{a} and {b}"),
        [a, b, c] => format!("{a}, {b} and {c}"),
        [a, b, rest @ ..] => format!("{a}, {b} and {} more", rest.len()),
    }
}

/// `text` cut at a word boundary to at most `width` characters.
fn truncate_words(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    // A clause that fits and says most of it ends it better than a cut
    // word: `fix a crash when the last pane closes` of `…, reported by …`.
    let fits: String = text.chars().take(width).collect();
    if let Some(at) = fits
        .rfind([',', ';'])
        .filter(|&at| 2 * fits[..at].chars().count() >= width)
    {
        return fits[..at].trim_end().to_owned();
    }
    let mut out = String::new();
    for word in text.split_whitespace() {
        let extra = if out.is_empty() { 0 } else { 1 };
        if out.chars().count() + extra + word.chars().count() > width.saturating_sub(1) {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        out = text.chars().take(width.saturating_sub(1)).collect();
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests;
