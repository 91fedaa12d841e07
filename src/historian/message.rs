//! Commit messages (DESIGN §10.3): reading the branch's subjects — which are
//! noise ("wip", "fix typo"), which amend another commit (`fixup!`,
//! `squash!`, `amend!`), which carry a summary worth keeping — and writing
//! conventional-commit messages `<type>(<scope>): <summary>` with a body
//! listing what the commit holds and where it came from.

use std::fmt::Write as _;
use std::sync::LazyLock;

use regex::Regex;

use super::classify::Category;

/// What a branch commit's subject says about the commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A subject worth keeping.
    Normal,
    /// Real work under a subject that says nothing ("wip", "stuff").
    Wip,
    /// A small correction of earlier work ("fix typo", "lint", "address review").
    Fixup,
    /// `fixup!`, `squash!` or `amend!` followed by the subject it amends.
    FixupOf(String),
    /// A merge commit.
    Merge,
}

impl Kind {
    /// Whether the subject should not become (part of) a new subject.
    pub fn is_noise(&self) -> bool {
        !matches!(self, Kind::Normal)
    }
}

static FIXUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)^(
            fix(es|ed|ing)?(\s+(a|the|some|small|minor|silly|stupid))?\s+(typos?|spelling|whitespace|indentation|imports?|lint(ing)?|clippy|warnings?|formatting|fmt|style|tests?|build|ci|compilation|compile\s+errors?|merge\s+conflicts?|conflicts?|nits?|it)
            |(fix(es|ed)?|oops|whoops|typos?|nits?|nitpicks?|lint|linting|clippy|fmt|format(ting)?|reformat(ted)?|cargo\s+fmt|rustfmt|prettier|black|gofmt|style|tweaks?|cleanup|clean\s*up|minor|minor\s+(fix(es)?|changes?|cleanup|tweaks?)|small\s+(fix(es)?|changes?)|polish|fixup|forgot(ten)?\b.*|missed\b.*|oops\b.*)
            |address(ed)?\s+(code\s+)?(review|pr)?\s*(comments?|feedback|remarks|suggestions)
            |(code\s+)?review\s+(comments?|feedback|fixes)
            |pr\s+(comments?|feedback)
            |apply\s+suggestions?\s+from\s+code\s+review
            |(update|fix)\s+after\s+review
        )[.!]*$",
    )
    .expect("valid fixup pattern")
});

static WIP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)^(
            wip|w\.i\.p\.?|work\s+in\s+progress|tmp|temp|temporary|checkpoint|save|saving|save\s+(work|progress)|stuff|more|more\s+(stuff|changes|work)|
            changes|some\s+changes|update|updates|updated|misc|progress|continue|continued|again|asdf+|qwerty|foo|bar|test|testing|
            commit|first\s+(try|attempt)|try|trying|attempt|another\s+(try|attempt)|[.\-_x]+|\d+|done|ok|works?|working|it\s+works|
            almost|almost\s+(done|there)|progress\s+on\s+.*|wip\s+on\s+.*|todo
        )[.!]*$",
    )
    .expect("valid wip pattern")
});

static CONVENTIONAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([a-zA-Z]+)(?:\(([^)]*)\))?(!)?:\s*(.*)$").expect("valid conventional pattern"));

static WIP_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(\[wip\]|wip:|wip\s+-|wip\s+)\s*").expect("valid wip prefix pattern"));

/// The kind of a commit from its full message and parent count.
pub fn kind(message: &str, parents: usize) -> Kind {
    let subject = message.lines().next().unwrap_or("").trim();
    if parents > 1 || subject.starts_with("Merge branch ") || subject.starts_with("Merge remote-tracking branch ") {
        return Kind::Merge;
    }
    for prefix in ["fixup! ", "squash! ", "amend! "] {
        if let Some(rest) = subject.strip_prefix(prefix) {
            let mut target = rest.trim();
            // `fixup! fixup! x` amends whatever `x` is.
            while let Some(inner) = ["fixup! ", "squash! ", "amend! "]
                .iter()
                .find_map(|p| target.strip_prefix(p))
            {
                target = inner.trim();
            }
            return Kind::FixupOf(target.to_owned());
        }
    }
    match line_kind(subject) {
        // A body that says something makes the commit worth its words
        // (a squash of several commits, a "wip" explained below).
        Kind::Wip | Kind::Fixup if meaningful_body_line(message).is_some() => Kind::Normal,
        other => other,
    }
}

fn line_kind(line: &str) -> Kind {
    let plain = summary_of(line).to_lowercase();
    let plain = plain.trim();
    if plain.is_empty() || WIP.is_match(plain) {
        Kind::Wip
    } else if FIXUP.is_match(plain) {
        Kind::Fixup
    } else {
        Kind::Normal
    }
}

/// The first line of a body paragraph (or list item) that reads like a
/// subject of its own: three words or more, not a trailer, not noise.
fn meaningful_body_line(message: &str) -> Option<&str> {
    let mut paragraph_start = false;
    for line in message.lines().skip(1) {
        let text = line.trim();
        if text.is_empty() {
            paragraph_start = true;
            continue;
        }
        let item = text
            .strip_prefix("* ")
            .or_else(|| text.strip_prefix("- "))
            .map(str::trim);
        let candidate = match (item, paragraph_start) {
            (Some(item), _) => Some(item),
            (None, true) => Some(text),
            (None, false) => None,
        };
        paragraph_start = false;
        let Some(candidate) = candidate else { continue };
        let trailer = candidate
            .split_once(": ")
            .is_some_and(|(key, _)| !key.contains(' ') && key.contains('-') || key == "Signed-off-by");
        if !trailer
            && !candidate.starts_with('#')
            && candidate.split_whitespace().count() >= 3
            && line_kind(candidate) == Kind::Normal
        {
            return Some(candidate);
        }
    }
    None
}

/// The line a summary is taken from: the subject, or when the subject says
/// nothing, the first body line that does.
pub fn meaningful_subject(message: &str) -> &str {
    let subject = message.lines().next().unwrap_or("").trim();
    match line_kind(subject) {
        Kind::Normal => subject,
        _ => meaningful_body_line(message).unwrap_or(subject),
    }
}

/// A subject split into its conventional parts, noise prefixes dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subject {
    pub commit_type: Option<String>,
    pub scope: Option<String>,
    pub summary: String,
}

/// The summary of `subject` without `type(scope):` or a `WIP:` prefix.
fn summary_of(subject: &str) -> String {
    parse_subject(subject).summary
}

/// Reads `feat(parser): Added the parser.` as type `feat`, scope `parser`,
/// summary `add the parser`.
pub fn parse_subject(subject: &str) -> Subject {
    let mut text = subject.trim();
    let mut commit_type = None;
    let mut scope = None;
    if let Some(rest) = WIP_PREFIX.find(text) {
        text = &text[rest.end()..];
    }
    if let Some(caps) = CONVENTIONAL.captures(text) {
        let t = caps[1].to_lowercase();
        if KNOWN_TYPES.contains(&t.as_str()) {
            commit_type = Some(t);
            scope = caps
                .get(2)
                .map(|m| m.as_str().trim().to_owned())
                .filter(|s| !s.is_empty());
            text = caps.get(4).map_or("", |m| m.as_str());
        }
    }
    if let Some(rest) = WIP_PREFIX.find(text) {
        text = &text[rest.end()..];
    }
    let summary = imperative(text.trim().trim_end_matches(['.', '!', ' ']));
    Subject {
        commit_type,
        scope,
        summary,
    }
}

const KNOWN_TYPES: &[&str] = &[
    "feat", "fix", "refactor", "perf", "docs", "test", "tests", "build", "ci", "chore", "style", "revert", "deps",
];

/// The summary in the imperative, first letter lowercase unless it starts an
/// acronym or a name with capitals inside (`API`, `GitHub`).
fn imperative(summary: &str) -> String {
    let mut words = summary.splitn(2, ' ');
    let first = words.next().unwrap_or("");
    let rest = words.next();
    let lower = first.to_lowercase();
    let replaced = IMPERATIVE
        .iter()
        .find(|(past, _)| *past == lower)
        .map(|(_, present)| present.to_string());
    let first = match replaced {
        Some(p) => p,
        None => {
            let inner_capitals = first.chars().skip(1).any(|c| c.is_uppercase());
            if inner_capitals {
                first.to_owned()
            } else {
                lower
            }
        }
    };
    match rest {
        Some(rest) => format!("{first} {rest}"),
        None => first,
    }
}

const IMPERATIVE: &[(&str, &str)] = &[
    ("added", "add"),
    ("adds", "add"),
    ("adding", "add"),
    ("fixed", "fix"),
    ("fixes", "fix"),
    ("fixing", "fix"),
    ("updated", "update"),
    ("updates", "update"),
    ("updating", "update"),
    ("removed", "remove"),
    ("removes", "remove"),
    ("removing", "remove"),
    ("implemented", "implement"),
    ("implements", "implement"),
    ("changed", "change"),
    ("changes", "change"),
    ("refactored", "refactor"),
    ("refactors", "refactor"),
    ("moved", "move"),
    ("moves", "move"),
    ("renamed", "rename"),
    ("renames", "rename"),
    ("improved", "improve"),
    ("improves", "improve"),
    ("introduced", "introduce"),
    ("introduces", "introduce"),
    ("created", "create"),
    ("creates", "create"),
    ("deleted", "delete"),
    ("deletes", "delete"),
    ("replaced", "replace"),
    ("replaces", "replace"),
    ("bumped", "bump"),
    ("bumps", "bump"),
    ("upgraded", "upgrade"),
    ("cleaned", "clean"),
    ("made", "make"),
    ("makes", "make"),
    ("converted", "convert"),
    ("extracted", "extract"),
    ("simplified", "simplify"),
    ("supported", "support"),
    ("supports", "support"),
    ("documented", "document"),
    ("enabled", "enable"),
    ("disabled", "disable"),
    ("allowed", "allow"),
    ("allows", "allow"),
    ("reworked", "rework"),
    ("rewrote", "rewrite"),
    ("wrote", "write"),
    ("used", "use"),
    ("uses", "use"),
    ("handled", "handle"),
    ("handles", "handle"),
    ("ensured", "ensure"),
    ("ensures", "ensure"),
    ("prevented", "prevent"),
    ("prevents", "prevent"),
];

/// The conventional type a summary's first word suggests.
fn type_from_words(summary: &str) -> Option<&'static str> {
    let first = summary.split_whitespace().next()?.to_lowercase();
    Some(match first.as_str() {
        "fix" | "correct" | "resolve" | "repair" | "prevent" | "handle" | "avoid" | "guard" | "restore" => "fix",
        "refactor" | "rename" | "move" | "extract" | "restructure" | "reorganize" | "reorganise" | "split"
        | "simplify" | "clean" | "tidy" | "replace" | "rework" | "inline" | "unify" | "merge" | "deduplicate" => {
            "refactor"
        }
        "optimize" | "optimise" | "speed" | "cache" | "perf" => "perf",
        "document" | "docs" => "docs",
        "test" | "tests" => "test",
        "bump" | "upgrade" | "downgrade" | "pin" => "build",
        "add" | "implement" | "support" | "introduce" | "create" | "allow" | "enable" | "new" | "make" | "show"
        | "print" | "report" | "accept" | "teach" | "let" | "expose" | "provide" => "feat",
        _ => return None,
    })
}

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
}

/// The longest subject line written.
const SUBJECT_WIDTH: usize = 72;

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
                    let ci = self
                        .files
                        .iter()
                        .all(|f| f.path.starts_with(".github/") || f.path.contains("ci") || f.path.starts_with(".ci/"));
                    return if ci { "ci" } else { "chore" }.to_owned();
                }
                _ => {}
            }
        }
        for (_, subject, kind, _) in &self.sources {
            if kind.is_noise() {
                continue;
            }
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
            if let Some(t) = type_from_words(&parsed.summary) {
                if !matches!(t, "docs" | "test" | "build") {
                    return t.to_owned();
                }
            }
        }
        if self.sources.iter().all(|(_, _, k, _)| k.is_noise())
            && self
                .sources
                .iter()
                .any(|(_, _, k, _)| matches!(k, Kind::Fixup | Kind::FixupOf(_)))
        {
            return "fix".to_owned();
        }
        let added: usize = self.files.iter().map(|f| f.added).sum();
        let removed: usize = self.files.iter().map(|f| f.removed).sum();
        let new_files = self.files.iter().any(|f| f.letter == 'A');
        if new_files || added >= removed {
            "feat".to_owned()
        } else {
            "refactor".to_owned()
        }
    }

    /// The summary: the heaviest meaningful original subject, else one made
    /// from what the commit holds.
    pub fn summary(&self) -> String {
        for (_, subject, kind, _) in &self.sources {
            if !kind.is_noise() {
                let s = parse_subject(subject).summary;
                if !s.is_empty() {
                    return s;
                }
            }
        }
        self.describe()
    }

    /// What the commit holds, in a few words (`add parser.rs and lexer.rs`).
    pub fn describe(&self) -> String {
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
                match (&self.scope, self.only_category()) {
                    (_, Some(Category::Docs)) => format!("{v} documentation"),
                    (_, Some(Category::Test)) => format!("{v} tests"),
                    (_, Some(Category::Build)) => format!("{v} build and dependencies"),
                    (Some(scope), _) => format!("{v} {scope} ({} files)", files.len()),
                    (None, _) => format!("{v} {} files", files.len()),
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
            Some(s) => format!("{commit_type}({s}): "),
            None => format!("{commit_type}: "),
        };
        let summary = truncate_words(&self.summary(), SUBJECT_WIDTH.saturating_sub(head.len()));
        let mut message = format!("{head}{summary}\n\n");
        if !self.sources.is_empty() {
            message.push_str("From:\n");
            for (id, subject, _, _) in &self.sources {
                let _ = writeln!(message, "  {id} {}", truncate_words(subject, 62));
            }
            message.push('\n');
        }
        message.push_str("Holds:\n");
        const LISTED: usize = 60;
        for f in self.files.iter().take(LISTED) {
            let mut line = format!("  {} ", f.letter);
            match &f.from {
                Some(from) => {
                    let _ = write!(line, "{from} -> {}", f.path);
                }
                None => line.push_str(&f.path),
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
        message
    }
}

/// `text` cut at a word boundary to at most `width` characters.
fn truncate_words(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
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
mod tests {
    use super::*;

    #[test]
    fn kinds_of_subjects() {
        for (subject, expected) in [
            ("WIP", Kind::Wip),
            ("wip", Kind::Wip),
            ("more stuff", Kind::Wip),
            ("...", Kind::Wip),
            ("fix typo", Kind::Fixup),
            ("Fix typos.", Kind::Fixup),
            ("oops", Kind::Fixup),
            ("cargo fmt", Kind::Fixup),
            ("address review comments", Kind::Fixup),
            ("fixup! add parser", Kind::FixupOf("add parser".into())),
            ("squash! fixup! add parser", Kind::FixupOf("add parser".into())),
            ("Merge branch 'main' into feature", Kind::Merge),
            ("add parser", Kind::Normal),
            ("fix crash when the plan is empty", Kind::Normal),
            ("WIP: add lexer", Kind::Normal),
            ("feat(cli): add --json", Kind::Normal),
            ("wip\n\nthe parser reads expressions now", Kind::Normal),
            ("Lint\n\n* Support legacy flag defaults\n* Fix typing", Kind::Normal),
            ("wip\n\nSigned-off-by: A Person <a@example.com>", Kind::Wip),
        ] {
            assert_eq!(kind(subject, 1), expected, "{subject}");
        }
    }

    #[test]
    fn subjects_lose_their_noise() {
        let s = parse_subject("feat(parser): Added the expression parser.");
        assert_eq!(s.commit_type.as_deref(), Some("feat"));
        assert_eq!(s.scope.as_deref(), Some("parser"));
        assert_eq!(s.summary, "add the expression parser");
        assert_eq!(parse_subject("WIP: Fixed API timeouts").summary, "fix API timeouts");
        assert_eq!(parse_subject("GitHub action").summary, "GitHub action");
        assert_eq!(parse_subject("Note: something").summary, "note: something");
    }

    fn file(letter: char, path: &str, added: usize, removed: usize) -> FileLine {
        FileLine {
            letter,
            path: path.into(),
            from: None,
            hunks: None,
            added,
            removed,
            note: None,
        }
    }

    #[test]
    fn messages_are_conventional_with_a_body() {
        let draft = Draft {
            categories: vec![(Category::Source, 40), (Category::Test, 10)],
            scope: Some("parser".into()),
            sources: vec![
                ("abc1234".into(), "Add the parser".into(), Kind::Normal, 45),
                ("def5678".into(), "wip".into(), Kind::Wip, 5),
            ],
            files: vec![file('A', "src/parser.rs", 40, 0), file('M', "tests/parser.rs", 10, 0)],
        };
        let message = draft.message();
        assert!(message.starts_with("feat(parser): add the parser\n\n"), "{message}");
        assert!(message.contains("  abc1234 Add the parser\n"), "{message}");
        assert!(message.contains("  A src/parser.rs (+40)\n"), "{message}");
    }

    #[test]
    fn noise_only_commits_are_described_by_their_files() {
        let draft = Draft {
            categories: vec![(Category::Docs, 3)],
            scope: Some("readme".into()),
            sources: vec![("abc1234".into(), "wip".into(), Kind::Wip, 3)],
            files: vec![file('M', "README.md", 2, 1)],
        };
        assert!(
            draft.message().starts_with("docs: update README.md\n"),
            "{}",
            draft.message()
        );
    }

    #[test]
    fn long_summaries_are_cut_at_a_word() {
        let cut = truncate_words("one two three four five", 12);
        assert_eq!(cut, "one two…");
        assert!(cut.chars().count() <= 12);
    }
}
