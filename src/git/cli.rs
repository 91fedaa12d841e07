//! The one way the program runs the `git` binary, for what gix 0.90 cannot
//! do. Every use says, next to the call, what gix lacks there:
//!
//! | use | where | what gix lacks |
//! |---|---|---|
//! | `read-tree -m -u`, `update-ref` | `merge` | a two-way checkout that refuses to overwrite untracked files |
//! | `checkout --detach`, `checkout -B`, `clean -fdx`, `status` (the proof after them) | `linked` | moving a working tree from one tree to another; clean |
//! | `worktree add`, `worktree move` | `linked` | a checkout as cheap as git's (gix's took twice its CPU); moving a worktree |
//! | `worktree remove` (fallback), `worktree prune` | `linked` | removing a registration it cannot resolve; prune |
//! | `stash list/drop/store` | `refs::pointers` | editing reflogs (the stash list is one) |
//! | `rev-parse --git-path hooks`, `config --local` | `config::local` | `core.hooksPath` resolution as git does it; locked config writes |
//! | `ls-remote`, `fetch`, `push` | `remote` | push at all; the user's transports, credential helpers and `insteadOf` |
//! | `apply` | [`apply_patch`] (the shell executor's `diff` blocks) | applying a patch |
//! | `maintenance run --auto` | [`Repo::maintain_auto`] (the end of a run) | packing loose objects, as `git gc --auto` does |
//!
//! git is found with `which`; `GIT_INDEX_FILE` never leaks into it (a hook
//! that runs us may have set one for its own index).

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use anyhow::{anyhow, Context as _, Result};

use super::repo::Repo;
use crate::process;

/// A `git` command line being put together.
pub(crate) struct GitCli {
    /// Options before the subcommand (`--git-dir`, `-C`, `-c`).
    globals: Vec<OsString>,
    args: Vec<OsString>,
    cwd: Option<PathBuf>,
    unset: Vec<&'static str>,
    set: Vec<(&'static str, &'static str)>,
    stdin: Option<Vec<u8>>,
}

impl GitCli {
    fn new() -> GitCli {
        GitCli {
            globals: Vec::new(),
            args: Vec::new(),
            cwd: None,
            unset: vec!["GIT_INDEX_FILE"],
            set: Vec::new(),
            stdin: None,
        }
    }

    /// `git -C <dir>`: the repository `dir` is in, whatever `GIT_DIR` and
    /// `GIT_WORK_TREE` say.
    pub(crate) fn in_dir(dir: &Path) -> GitCli {
        let mut git = GitCli::new();
        git.globals.extend(["-C".into(), dir.as_os_str().to_owned()]);
        git.unset.extend(["GIT_DIR", "GIT_WORK_TREE"]);
        git
    }

    /// Without hooks (`core.hooksPath=/dev/null`): nothing of the user's runs.
    pub(crate) fn no_hooks(mut self) -> GitCli {
        self.globals.extend(["-c".into(), "core.hooksPath=/dev/null".into()]);
        self
    }

    /// A credential prompt fails instead of waiting for a terminal.
    pub(crate) fn no_prompt(mut self) -> GitCli {
        self.set.push(("GIT_TERMINAL_PROMPT", "0"));
        self
    }

    pub(crate) fn arg(mut self, arg: impl Into<OsString>) -> GitCli {
        self.args.push(arg.into());
        self
    }

    pub(crate) fn args<S: Into<OsString>>(mut self, args: impl IntoIterator<Item = S>) -> GitCli {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Feeds `input` to git's stdin (otherwise stdin is empty).
    pub(crate) fn stdin(mut self, input: Vec<u8>) -> GitCli {
        self.stdin = Some(input);
        self
    }

    fn name(&self) -> String {
        self.args
            .first()
            .map_or_else(String::new, |a| a.to_string_lossy().into_owned())
    }

    /// Runs git to its end, capturing its output.
    pub(crate) fn output(self) -> Result<Output> {
        let name = self.name();
        let mut cmd = Command::new(program()?);
        cmd.args(&self.globals).args(&self.args);
        if let Some(cwd) = &self.cwd {
            cmd.current_dir(cwd);
        }
        for key in &self.unset {
            cmd.env_remove(key);
        }
        for (key, value) in &self.set {
            cmd.env(key, value);
        }
        let Some(input) = self.stdin else {
            return cmd.output().with_context(|| format!("cannot run git {name}"));
        };
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().with_context(|| format!("cannot run git {name}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            // A git that dies early closes its stdin; its exit status says why.
            let _ = stdin.write_all(&input);
        }
        child
            .wait_with_output()
            .with_context(|| format!("cannot run git {name}"))
    }
}

impl Repo {
    /// `git --git-dir <this repository>`, without a work tree; the current
    /// directory is the work tree's top when there is one.
    pub(crate) fn git_cli(&self) -> GitCli {
        let mut git = GitCli::new();
        git.globals
            .extend(["--git-dir".into(), self.git_dir().as_os_str().to_owned()]);
        git.cwd = self.workdir().ok().map(Path::to_owned);
        git
    }

    /// [`Repo::git_cli`] with the work tree (when there is one) as `--work-tree`.
    pub(crate) fn git_cli_with_work_tree(&self) -> GitCli {
        let mut git = self.git_cli();
        if let Ok(workdir) = self.workdir() {
            git.globals
                .extend(["--work-tree".into(), workdir.as_os_str().to_owned()]);
        }
        git
    }

    /// `git <args>` against this repository and its work tree.
    pub(crate) fn git(&self, args: &[&str]) -> Result<Output> {
        self.git_cli_with_work_tree().args(args).output()
    }

    /// `git maintenance run --auto --quiet`, as git's own commands run it
    /// after writing objects: once the repository holds more loose objects
    /// than `gc.auto` allows (6,700 by default; 0 turns it off), git packs
    /// them, in the background unless `maintenance.autoDetach` (or
    /// `gc.autoDetach`) is false. Best effort, as in git: its own problems
    /// (another gc running) are its to report, and are not a run's failure.
    pub fn maintain_auto(&self) {
        let _ = self
            .git_cli()
            .no_hooks()
            .args(["maintenance", "run", "--auto", "--quiet"])
            .output();
    }
}

/// Applies the patch `patch` to the files of the working tree `dir` (`git
/// apply`: gix has no patch application), under the process runner: its own
/// process group, `timeout`, output kept up to `cap` bytes, `env` added to
/// the environment.
pub fn apply_patch(
    dir: &Path,
    patch: &str,
    env: Vec<(String, String)>,
    timeout: Duration,
    cap: usize,
) -> Result<process::Finished> {
    let git = program()?;
    process::run(process::Spec {
        program: &git.to_string_lossy(),
        args: vec!["apply".into(), "--whitespace=nowarn".into(), "-".into()],
        cwd: dir,
        env,
        stdin: Some(format!("{}\n", patch.trim_end()).into_bytes()),
        timeout,
        cap,
    })
}

/// The `git` on `PATH`.
fn program() -> Result<PathBuf> {
    which::which("git").map_err(|_| anyhow!("git is not on PATH"))
}

/// The last few lines of git's messages, for an error.
pub(crate) fn last_lines(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let tail = &lines[lines.len().saturating_sub(3)..];
    let joined = tail
        .iter()
        .map(|l| {
            l.strip_prefix("fatal: ")
                .or_else(|| l.strip_prefix("error: "))
                .unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join("; ");
    if joined.is_empty() {
        "git gave no reason".into()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_messages_are_shortened() {
        assert_eq!(
            last_lines(b"fatal: 'nowhere' does not appear to be a git repository\nfatal: Could not read from remote repository.\n"),
            "'nowhere' does not appear to be a git repository; Could not read from remote repository."
        );
        assert_eq!(last_lines(b""), "git gave no reason");
    }
}
