//! Whole-output snapshots: a test records the commands it runs and what each
//! printed (stdout, stderr, exit status) as one transcript, normalised so it
//! reads the same on every machine and run, and compares it with the file
//! `tests/cli/snapshots/<module>/<name>.txt`, where `<module>` is the test
//! file's path under `tests/cli/` without `.rs` (`historian/clean`).
//!
//! A missing or different snapshot fails the test with a diff. Only
//! `ULTRAPLAN_REGENERATE=1` writes snapshots (as for the man pages), so a run
//! in CI can never bless its own output: review the diff, then commit it.
//!
//! Our own tiny equivalent of `insta`'s file snapshots: the comparison is a
//! string equality and the diff comes from `similar`, already a dependency,
//! so no crate (and no `cargo insta` tool) is added for it.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::harness::support::{bin_dir, capture, repo_root, tree_state, Output, TestEnv};

/// A story of commands and what they printed, built up by a test.
#[must_use = "a transcript is only checked by `assert_transcript!`"]
pub struct Transcript<'a> {
    env: &'a TestEnv,
    text: String,
    replacements: Vec<(String, String)>,
}

impl<'a> Transcript<'a> {
    pub fn new(env: &'a TestEnv) -> Self {
        Transcript {
            env,
            text: String::new(),
            replacements: Vec::new(),
        }
    }

    /// Runs `git <args>` in `cwd` and records it.
    pub fn run(&mut self, cwd: &Path, args: &[&str]) -> Output {
        self.run_with(cwd, args, &[], None)
    }

    /// Runs `git <args>` in `cwd` with extra environment variables and
    /// (optionally) text on stdin, and records it.
    pub fn run_with(&mut self, cwd: &Path, args: &[&str], vars: &[(&str, &str)], stdin: Option<&str>) -> Output {
        let mut cmd = self.env.command("git", cwd);
        cmd.args(args);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let out = match stdin {
            None => capture(cmd),
            Some(input) => capture_with_stdin(cmd, input),
        };
        let mut line = String::new();
        for (k, v) in vars {
            line.push_str(&format!("{k}={} ", quote(v)));
        }
        line.push_str("git");
        for a in args {
            line.push(' ');
            line.push_str(&quote(a));
        }
        let cwd = cwd.strip_prefix(self.env.root()).unwrap_or(cwd);
        self.text.push_str(&format!("{}$ {line}\n", cwd.display()));
        match stdin {
            Some("") => self.text.push_str("[stdin: empty]\n"),
            Some(input) => {
                self.text.push_str("[stdin]\n");
                push_block(&mut self.text, input);
            }
            None => {}
        }
        self.push_output(&out);
        out
    }

    /// Records a command the test ran itself (in the background, say, to
    /// signal it): `shown` as the user would type it, run in `cwd`, then
    /// what it printed and its exit as [`Transcript::run`] records them.
    pub fn ran(&mut self, cwd: &Path, shown: &str, out: &Output) {
        let cwd = cwd.strip_prefix(self.env.root()).unwrap_or(cwd);
        self.text.push_str(&format!("{}$ {shown}\n", cwd.display()));
        self.push_output(out);
    }

    fn push_output(&mut self, out: &Output) {
        if !out.stdout.is_empty() {
            push_block(&mut self.text, &out.stdout);
        }
        if !out.stderr.is_empty() {
            self.text.push_str("[stderr]\n");
            push_block(&mut self.text, &out.stderr);
        }
        self.text.push_str(&format!("[exit {}]\n\n", out.code));
    }

    /// Shows a file as it is now (`path` relative to the test directory).
    pub fn file(&mut self, path: &Path) {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let shown = path.strip_prefix(self.env.root()).unwrap_or(path);
        self.text.push_str(&format!("[file {}]\n", shown.display()));
        push_block(&mut self.text, &text);
        self.text.push('\n');
    }

    /// A line of commentary, so the snapshot reads as a story.
    pub fn note(&mut self, text: &str) {
        self.text.push_str(&format!("# {text}\n\n"));
    }

    /// Replaces `from` by `to` wherever it appears (a value only this test
    /// knows, such as a process id), before the common rules.
    pub fn replace(&mut self, from: impl Into<String>, to: impl Into<String>) {
        self.replacements.push((from.into(), to.into()));
    }

    /// The normalised text, as it is compared.
    pub fn finish(&self) -> String {
        let mut text = self.text.clone();
        for (from, to) in &self.replacements {
            text = text.replace(from, to);
        }
        // A carriage return would hide in the file; show it.
        normalise(&text, self.env.root()).replace('\r', "␍")
    }
}

/// Checks the transcript against `tests/cli/snapshots/<module>/<name>.txt`.
macro_rules! assert_transcript {
    ($transcript:expr, $name:literal) => {
        $crate::harness::transcript::check(module_path!(), $name, &$transcript.finish())
    };
}

pub fn snapshot_dir() -> PathBuf {
    repo_root().join("tests/cli/snapshots")
}

/// Where the snapshot `name` of the test module `module` (its
/// `module_path!()`, `cli::historian::clean`) lives: the module's path
/// below the crate, as its file's below `tests/cli/`.
pub fn snapshot_path(module: &str, name: &str) -> PathBuf {
    let mut path = snapshot_dir();
    path.extend(module.split("::").skip(1));
    path.join(format!("{name}.txt"))
}

/// Compares `actual` with the snapshot `name` of the test module `module`
/// (its `module_path!()`); see [`snapshot_path`].
pub fn check(module: &str, name: &str, actual: &str) {
    let path = snapshot_path(module, name);
    let expected = std::fs::read_to_string(&path).ok();
    if expected.as_deref() == Some(actual) {
        return;
    }
    if std::env::var_os("ULTRAPLAN_REGENERATE").is_some() {
        std::fs::create_dir_all(path.parent().expect("snapshot folder")).expect("create snapshot folder");
        std::fs::write(&path, actual).expect("write snapshot");
        return;
    }
    let shown = path.strip_prefix(repo_root()).unwrap_or(&path).display().to_string();
    match expected {
        None => panic!(
            "no snapshot {shown}; the output was:\n{actual}\nrun: ULTRAPLAN_REGENERATE=1 cargo test --test cli, review, commit"
        ),
        Some(expected) => {
            let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
                .unified_diff()
                .header(&shown, "actual")
                .to_string();
            panic!(
                "snapshot {shown} differs:\n{diff}\nif the new output is right: ULTRAPLAN_REGENERATE=1 cargo test --test cli, review, commit"
            )
        }
    }
}

fn push_block(text: &mut String, block: &str) {
    text.push_str(block);
    if !block.ends_with('\n') {
        text.push_str("\n[no newline at end]\n");
    }
}

fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%^".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

pub(crate) fn capture_with_stdin(mut cmd: std::process::Command, input: &str) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("command runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_owned();
    let writer = std::thread::spawn(move || {
        // A program that exits without reading is not an error here.
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("command ends");
    writer.join().expect("stdin writer");
    Output::from(out)
}

/// What differs between machines and runs, each with the token that
/// replaces it. Order matters: paths first (they may hold digits), then the
/// run ids, times and durations in named fields (they hold hex-looking
/// digits), then hashes, then durations in prose.
static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        // Temporary files of a run are named by its process id.
        (r"(ultraplan/tmp/[A-Za-z_.-]*?)\d+", "${1}<PID>"),
        // A run id: `<UTC time>-<pid>`.
        (r"\b\d{8}T\d{6}Z-\d+\b", "<RUN>"),
        // RFC 3339 times, with or without fractions and offset.
        (
            r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?",
            "<TIME>",
        ),
        // The historian's clean-branch stamp `YYYYMMDD-HHMMSS`.
        (r"\b\d{8}-\d{6}\b", "<STAMP>"),
        (r"\b\d{4}-\d{2}-\d{2}\b", "<DATE>"),
        // Durations in named fields, before the hashes: a fraction of
        // seven digits (`"execution_time":0.0123456`) would read as one.
        (
            r#"((?:duration_ms|duration_secs|execution_time|elapsed_ms)"?:\s*)\d+(?:\.\d+)?"#,
            "${1}<DUR>",
        ),
        // Outcome ids `outcome_<agent>_<8 hex>` (random).
        (r"(outcome_[A-Za-z0-9_.-]*?_)[0-9a-f]{8}\b", "${1}<ID>"),
        // Object ids, full or abbreviated (an abbreviation needs a digit, so
        // that words like `defaced` stay, or git's seven characters).
        (r"\b[0-9a-f]{40}\b", "<HASH>"),
        (r"\b[0-9a-f]*[0-9][0-9a-f]*\b|\b[a-f]{7}\b", "<HEX?>"),
        // Durations in prose (`34 ms`, `0.4s`, `1s`); leading padding goes
        // too, as column widths follow the numbers.
        (r"( ?) *\b\d+(?:\.\d+)? ?(?:ms|s)\b", "${1}<DUR>"),
    ]
    .into_iter()
    .map(|(pattern, token)| (Regex::new(pattern).expect("rule"), token))
    .collect()
});

static SHORT_HEX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[0-9a-f]{7,12}$").expect("short hex"));

/// The English words of seven letters spelled with `a` to `f` alone: an
/// abbreviation of seven such letters is a hash otherwise.
const HEX_WORDS: [&str; 3] = ["acceded", "defaced", "effaced"];

/// Applies the rules to `text`; `root` is the test's temporary directory.
pub fn normalise(text: &str, root: &Path) -> String {
    let mut text = text.replace(&root.display().to_string(), "<TMP>");
    text = text.replace(&bin_dir().display().to_string(), "<BIN>");
    text = text.replace(&repo_root().display().to_string(), "<SRC>");
    if let Ok(host) = hostname() {
        // Locks name the host they were taken on (`pid 12 on myhost`).
        let on_host = Regex::new(&format!(r"\bon {}\b", regex::escape(&host))).expect("host rule");
        text = on_host.replace_all(&text, "on <HOST>").into_owned();
    }
    for (rule, token) in RULES.iter() {
        text = if *token == "<HEX?>" {
            rule.replace_all(&text, |c: &regex::Captures<'_>| {
                let word = &c[0];
                // All digits is a hash too at git's abbreviation length: one
                // in 27 abbreviations has no letter, and a hash that varies
                // between runs would make the snapshot flaky. About one in a
                // thousand has no digit: at that length it is a hash unless
                // it is a word.
                let digits = word.chars().any(|ch| ch.is_ascii_digit());
                let letters = word.chars().any(|ch| ch.is_ascii_lowercase());
                let hash = if digits {
                    word.len() == 7 || letters
                } else {
                    !HEX_WORDS.contains(&word)
                };
                if SHORT_HEX.is_match(word) && hash {
                    "<HASH>".to_owned()
                } else {
                    word.to_owned()
                }
            })
            .into_owned()
        } else {
            rule.replace_all(&text, *token).into_owned()
        };
    }
    text
}

fn hostname() -> std::io::Result<String> {
    Ok(std::fs::read_to_string("/proc/sys/kernel/hostname")?.trim().to_owned())
}

/// Every snapshot belongs to a test: its name appears in the file of the
/// module whose folder holds it (`snapshots/historian/clean/x.txt`, in
/// `historian/clean.rs`), so a test file moved without its snapshots, or
/// snapshots moved without their file, fail here.
#[test]
fn every_snapshot_has_its_test() {
    let regenerate = std::env::var_os("ULTRAPLAN_REGENERATE").is_some();
    let mut orphans = Vec::new();
    for (path, _) in tree_state(&snapshot_dir()) {
        let module = path.parent().unwrap_or(Path::new(""));
        let source = repo_root().join("tests/cli").join(module).with_extension("rs");
        let source = std::fs::read_to_string(&source).unwrap_or_default();
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        let named = path.extension().is_some_and(|e| e == "txt") && source.contains(&format!("\"{stem}\""));
        if !named {
            let file = snapshot_dir().join(&path);
            if regenerate {
                std::fs::remove_file(&file).expect("remove orphan snapshot");
            } else {
                orphans.push(file);
            }
        }
    }
    assert!(
        orphans.is_empty(),
        "snapshots without a test: {orphans:?}\nrun: ULTRAPLAN_REGENERATE=1 cargo test --test cli transcript"
    );
}

#[test]
fn normalising_keeps_words_and_replaces_what_varies() {
    let root = Path::new("/tmp/.tmpAbC123");
    let text = "run 20261123T122948Z-2314 at 2026-11-23T12:29:49.233Z in /tmp/.tmpAbC123/repo\n\
                commit 08844e0 (08844e0e08ecff0c39ceeb619d63a3d65141609e) defaced added 12345678 in 1234567\n\
                cdcdacc feat(run): link run to the tool, effaced\n\
                outcome_shell_480fe767 took 0.4s;   34 ms; duration_ms: 17 \"duration_ms\":5\n\
                \"execution_time\":0.0123456,\"x\":1\n\
                branch feature-20261123-122948-clean on 2026-01-02 Step 12\n";
    assert_eq!(
        normalise(text, root),
        "run <RUN> at <TIME> in <TMP>/repo\n\
         commit <HASH> (<HASH>) defaced added 12345678 in <HASH>\n\
         <HASH> feat(run): link run to the tool, effaced\n\
         outcome_shell_<ID> took <DUR>; <DUR>; duration_ms: <DUR> \"duration_ms\":<DUR>\n\
         \"execution_time\":<DUR>,\"x\":1\n\
         branch feature-<STAMP>-clean on <DATE> Step 12\n"
    );
}
