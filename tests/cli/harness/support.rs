//! The test environment: a temporary directory with its own HOME, no system or
//! global git configuration, fixed identities and dates, `TZ=UTC`, `LC_ALL=C`,
//! and the build directory first on PATH.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct TestEnv {
    _dir: tempfile::TempDir,
    root: PathBuf,
    vars: BTreeMap<String, String>,
}

/// What a command printed and how it ended, shown together in failures.
#[must_use]
#[derive(Debug)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl std::fmt::Display for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

impl From<std::process::Output> for Output {
    /// What a process the test started itself printed and how it ended (a
    /// signal's death as exit -1).
    fn from(out: std::process::Output) -> Output {
        Output {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        }
    }
}

impl Output {
    /// Asserts the exit code, showing everything when it differs.
    pub fn expect_code(self, code: i32) -> Self {
        assert_eq!(self.code, code, "unexpected exit status:\n{self}");
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{self}"))
    }
}

/// The directory holding the built `git-ultraplan` and `git-historian`.
pub fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_git-ultraplan"))
        .parent()
        .expect("binary has a directory")
        .to_owned()
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(relative: &str) -> PathBuf {
    repo_root().join("tests/fixtures").join(relative)
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let dir = tempfile::tempdir().expect("temporary directory");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        let home = root.join("home");
        std::fs::create_dir_all(&home).expect("home");
        let system_path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        let mut vars = BTreeMap::new();
        let mut set = |k: &str, v: String| {
            vars.insert(k.to_owned(), v);
        };
        set("PATH", format!("{}:{system_path}", bin_dir().display()));
        set("HOME", home.display().to_string());
        set("XDG_CONFIG_HOME", home.join(".config").display().to_string());
        set("XDG_DATA_HOME", home.join(".local/share").display().to_string());
        set("GIT_CONFIG_NOSYSTEM", "1".into());
        set("GIT_CONFIG_GLOBAL", "/dev/null".into());
        set("GIT_CEILING_DIRECTORIES", root.display().to_string());
        set("GIT_AUTHOR_NAME", "Ada Author".into());
        set("GIT_AUTHOR_EMAIL", "ada@example.com".into());
        set("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z".into());
        set("GIT_COMMITTER_NAME", "Carl Committer".into());
        set("GIT_COMMITTER_EMAIL", "carl@example.com".into());
        set("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z".into());
        set("TZ", "UTC".into());
        set("LC_ALL", "C".into());
        set("LANG", "C".into());
        TestEnv { _dir: dir, root, vars }
    }

    /// A new repository `name` under the test directory with one commit.
    pub fn repo(&self, name: &str) -> PathBuf {
        let path = self.root.join(name);
        std::fs::create_dir_all(&path).expect("repo dir");
        self.git(&path, &["init", "-q", "-b", "main"]);
        std::fs::write(path.join("README.md"), "# demo\n").expect("write");
        self.git(&path, &["add", "README.md"]);
        self.git(&path, &["commit", "-q", "-m", "initial"]);
        path
    }

    /// A repository named `repo` whose second commit adds `file` holding
    /// `body` (a plan, as a newcomer commits one).
    pub fn repo_with(&self, file: &str, body: &str) -> PathBuf {
        let repo = self.repo("repo");
        write(&repo.join(file), body);
        self.git(&repo, &["add", file]);
        self.git(&repo, &["commit", "-q", "-m", "add the plan"]);
        repo
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        self.vars.insert(key.to_owned(), value.into());
    }

    /// Leaves `key` out of the environment (a fixed date, say).
    pub fn unset(&mut self, key: &str) {
        self.vars.remove(key);
    }

    pub fn command(&self, program: impl AsRef<OsStr>, cwd: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear().envs(&self.vars).current_dir(cwd).stdin(Stdio::null());
        cmd
    }

    /// Starts `git-ultraplan <args>` itself (not through the `git` wrapper,
    /// so its pid is the one to signal) in the background, output piped.
    pub fn spawn_ultraplan(&self, cwd: &Path, args: &[&str]) -> std::process::Child {
        self.command(bin_dir().join("git-ultraplan"), cwd)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// The same for `git-historian <args>`.
    pub fn spawn_historian(&self, cwd: &Path, args: &[&str]) -> std::process::Child {
        self.command(bin_dir().join("git-historian"), cwd)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Runs `git <args>` in `cwd` (so `git ultraplan …` dispatches to the build).
    pub fn run(&self, cwd: &Path, args: &[&str]) -> Output {
        self.run_with(cwd, args, &[])
    }

    /// Like [`TestEnv::run`] with extra environment variables.
    pub fn run_with(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = self.command("git", cwd);
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        capture(cmd)
    }

    /// Runs plain git and insists that it succeeds; returns its stdout.
    pub fn git(&self, cwd: &Path, args: &[&str]) -> String {
        let out = capture({
            let mut cmd = self.command("git", cwd);
            cmd.args(args);
            cmd
        });
        assert_eq!(out.code, 0, "git {args:?} failed:\n{out}");
        out.stdout
    }
}

pub fn capture(mut cmd: Command) -> Output {
    Output::from(cmd.output().expect("command runs"))
}

/// Every file under `dir` with its size and contents hash, to show that a
/// command wrote nothing.
pub fn tree_state(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir") {
            let entry = entry.expect("entry");
            let path = entry.path();
            let meta = entry.metadata().expect("metadata");
            if meta.is_dir() {
                stack.push(path);
            } else {
                out.insert(
                    path.strip_prefix(dir).unwrap().to_owned(),
                    std::fs::read(&path).unwrap_or_default(),
                );
            }
        }
    }
    out
}

/// Every file of a working tree (not `.git`) with its contents.
pub fn worktree_files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    tree_state(dir)
        .into_iter()
        .filter(|(p, _)| !p.starts_with(".git"))
        .collect()
}

pub fn write(path: &Path, contents: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create dirs");
    }
    std::fs::write(path, contents).expect("write");
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

impl TestEnv {
    /// `git fsck --strict` finds nothing wrong (dangling objects are fine).
    pub fn assert_fsck(&self, repo: &Path) {
        let out = self.run(repo, &["fsck", "--strict", "--no-progress"]);
        assert_eq!(out.code, 0, "git fsck failed:\n{out}");
        for line in out.stdout.lines().chain(out.stderr.lines()) {
            assert!(
                line.starts_with("dangling ") || line.starts_with("notice"),
                "git fsck: {line}"
            );
        }
    }

    /// Subjects of the current branch, newest first.
    pub fn subjects(&self, repo: &Path) -> Vec<String> {
        self.git(repo, &["log", "--format=%s"])
            .lines()
            .map(String::from)
            .collect()
    }
}

/// Waits (up to 30 s) until every one of `paths` exists: markers a slow step
/// leaves once it is under way.
pub fn wait_for(paths: &[PathBuf]) {
    let start = std::time::Instant::now();
    while !paths.iter().all(|p| p.exists()) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "never started: {paths:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Sends `signal` (`-9`, `-INT`, …) to `child` and waits for it to end.
pub fn signal(child: std::process::Child, signal: &str) -> std::process::Output {
    Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    child.wait_with_output().unwrap()
}

/// How many tests this run skipped because the machine lacks a tool.
static SKIPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Says that `test` checks nothing on this machine, and why. Written to the
/// process's stderr itself, past the test harness's capture, so the line shows
/// in a plain `cargo test` and not only with `--nocapture`; the count says how
/// many were skipped so far in this run.
pub fn skip(test: &str, reason: &str) {
    use std::io::Write;
    let n = SKIPPED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
    let line = format!("skipped: {test}: {reason} (skipped in this run so far: {n})\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

impl TestEnv {
    /// The progress of the run state at `state` (a reference) as one JSON
    /// document, as layout 1's `progress.json` held it: `run.json` with the
    /// entries of every folder's `steps.json` under `steps`, read with plain git.
    pub fn progress(&self, repo: &Path, state: &str) -> String {
        let mut run: serde_json::Value =
            serde_json::from_str(&self.git(repo, &["show", &format!("{state}:run.json")])).unwrap();
        let mut steps = serde_json::Map::new();
        let listing = self.git(repo, &["ls-tree", "-r", "--name-only", state, "steps"]);
        for path in listing.lines().filter(|p| p.ends_with("/steps.json")) {
            let entries: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&self.git(repo, &["show", &format!("{state}:{path}")])).unwrap();
            steps.extend(entries);
        }
        let mut numbered: Vec<(u32, serde_json::Value)> =
            steps.into_iter().map(|(k, v)| (k.parse().unwrap(), v)).collect();
        numbered.sort_by_key(|(n, _)| *n);
        let ordered: serde_json::Map<String, serde_json::Value> =
            numbered.into_iter().map(|(n, v)| (n.to_string(), v)).collect();
        run["steps"] = serde_json::Value::Object(ordered);
        serde_json::to_string_pretty(&run).unwrap()
    }
}
