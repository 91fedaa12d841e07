//! Talking to remotes, through the `git` binary: gix 0.90 cannot push at all,
//! and fetching through the CLI keeps every transport, credential helper and
//! `insteadOf` rule the user configured working exactly as for `git fetch`.
//! Also the few configuration writes `sync --setup` makes (`git config`
//! handles the locking and file layout gix would make us redo).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Result};

use super::repo::{Oid, Repo};

/// How one reference of a push ended, from `git push --porcelain`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushedRef {
    /// The remote reference.
    pub name: String,
    /// Updated, created or already up to date.
    pub ok: bool,
    /// git's summary (`[rejected]`, `[remote rejected]`, …) and reason.
    pub summary: String,
}

/// What a whole push did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PushOutcome {
    pub refs: Vec<PushedRef>,
    /// Whether git exited 0.
    pub success: bool,
    /// git's messages (the remote's `remote:` lines among them), trimmed.
    pub stderr: String,
}

impl PushOutcome {
    /// Every reference was refused only because the remote moved meanwhile
    /// (another clone pushed first): fetching again and retrying can succeed.
    pub fn lost_a_race(&self) -> bool {
        let refused: Vec<&PushedRef> = self.refs.iter().filter(|r| !r.ok).collect();
        // An atomic transaction the server could not take names its reason
        // (a ref locked or created by a concurrent push) only in its messages.
        let raced = |r: &&PushedRef| {
            is_race(&r.summary) || (r.summary.contains("atomic transaction failed") && is_race(&self.stderr))
        };
        !refused.is_empty()
            && refused.iter().any(raced)
            && refused
                .iter()
                .all(|r| raced(r) || r.summary.contains("atomic push failed"))
    }
}

fn is_race(summary: &str) -> bool {
    [
        "non-fast-forward",
        "fetch first",
        "stale info",
        "cannot lock ref",
        "failed to update ref",
        "incorrect old value",
        "reference already exists",
    ]
    .iter()
    .any(|s| summary.contains(s))
}

impl Repo {
    /// The URL of the configured remote `name`, if there is such a remote.
    pub fn remote_url(&self, name: &str) -> Option<String> {
        let config = self.inner.config_snapshot();
        let key = format!("remote.{name}.url");
        config.string(key.as_str()).map(|v| v.to_string())
    }

    /// The remote the branch `branch` (`refs/heads/x`) tracks, if configured.
    pub fn upstream_remote(&self, branch: &str) -> Option<String> {
        let short = branch.strip_prefix("refs/heads/")?;
        let config = self.inner.config_snapshot();
        let key = format!("branch.{short}.remote");
        config.string(key.as_str()).map(|v| v.to_string())
    }

    /// The remote's references matching `patterns` (git's `ls-remote` globs),
    /// with their values.
    pub fn ls_remote(&self, remote: &str, patterns: &[&str]) -> Result<Vec<(String, Oid)>> {
        let mut args = vec!["ls-remote", "--", remote];
        args.extend_from_slice(patterns);
        let out = self.git_transport(&args, None)?;
        if !out.status.success() {
            bail!("cannot reach '{remote}': {}", last_lines(&out.stderr));
        }
        let mut refs = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Some((id, name)) = line.split_once('\t') else {
                continue;
            };
            let id = Oid::from_hex(id.trim().as_bytes()).map_err(|e| anyhow!("git ls-remote printed '{line}': {e}"))?;
            refs.push((name.to_owned(), id));
        }
        Ok(refs)
    }

    /// Fetches `refspecs` (given on stdin, so there may be thousands) from
    /// `remote`, without tags, FETCH_HEAD or automatic maintenance; `prune`
    /// deletes copies whose remote reference is gone (within the refspecs).
    pub fn fetch_refspecs(&self, remote: &str, refspecs: &[String], prune: bool) -> Result<()> {
        if refspecs.is_empty() {
            return Ok(());
        }
        let input = refspecs.join("\n") + "\n";
        let mut args = vec![
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--no-auto-maintenance",
            "--no-recurse-submodules",
            "--stdin",
        ];
        if prune {
            args.push("--prune");
        }
        args.push(remote);
        let out = self.git_transport(&args, Some(input.as_bytes()))?;
        if !out.status.success() {
            bail!("cannot reach '{remote}': {}", last_lines(&out.stderr));
        }
        Ok(())
    }

    /// Pushes `refspecs` to `remote` without forcing and without running the
    /// pre-push hook (these are ultraplan's own references, not branches).
    /// `atomic` asks the server to take all or none.
    pub fn push_refspecs(&self, remote: &str, refspecs: &[String], atomic: bool) -> Result<PushOutcome> {
        let mut args = vec!["push", "--porcelain", "--no-verify"];
        if atomic {
            args.push("--atomic");
        }
        args.push(remote);
        args.extend(refspecs.iter().map(String::as_str));
        let out = self.git_transport(&args, None)?;
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        let mut refs = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            // `<flag>\t<from>:<to>\t<summary> (<reason>)`
            let mut fields = line.splitn(3, '\t');
            let (Some(flag), Some(names), summary) = (fields.next(), fields.next(), fields.next()) else {
                continue;
            };
            let Some((_, to)) = names.split_once(':') else { continue };
            refs.push(PushedRef {
                name: to.to_owned(),
                ok: matches!(flag, " " | "*" | "=" | "+" | "-"),
                summary: summary.unwrap_or("").to_owned(),
            });
        }
        // A server without atomic pushes says so before any reference: the
        // caller retries without --atomic.
        if refs.is_empty() && !out.status.success() && !(atomic && stderr.contains("does not support --atomic")) {
            bail!("cannot push to '{remote}': {}", last_lines(&out.stderr));
        }
        Ok(PushOutcome {
            refs,
            success: out.status.success(),
            stderr,
        })
    }

    /// The commits reachable from `tip` but from none of `hidden` (those
    /// this repository lacks are ignored), newest first: what a push of `tip`
    /// adds to a remote whose references are `hidden`. A shallow clone's
    /// walk stops at its boundary.
    pub fn commits_between(&self, tip: Oid, hidden: &[Oid]) -> Result<Vec<Oid>> {
        let hidden: Vec<Oid> = hidden.iter().copied().filter(|h| self.has_object(*h)).collect();
        let walk = self
            .inner
            .rev_walk([tip])
            .with_hidden(hidden)
            .all()
            .map_err(|e| anyhow!("cannot walk history from {tip}: {e}"))?;
        let mut out = Vec::new();
        for info in walk {
            let info = info.map_err(|e| anyhow!("cannot walk history from {tip}: {e}"))?;
            out.push(info.id);
        }
        Ok(out)
    }

    /// Whether this repository is a shallow clone.
    pub fn is_shallow(&self) -> bool {
        self.inner.is_shallow().unwrap_or(false)
    }

    /// The hooks directory git uses for this repository (`core.hooksPath`
    /// honoured; shared by linked worktrees), as `git rev-parse --git-path hooks`.
    pub fn hooks_dir(&self) -> Result<PathBuf> {
        let out = self.git(&["rev-parse", "--git-path", "hooks"], None)?;
        if !out.status.success() {
            bail!("cannot find the hooks directory: {}", last_lines(&out.stderr));
        }
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Ok(match self.workdir() {
            Ok(dir) if path.is_relative() => dir.join(path),
            _ => path,
        })
    }

    /// Every value of the multi-valued `key` in the repository's own configuration file.
    pub fn local_config_values(&self, key: &str) -> Result<Vec<String>> {
        let out = self.git(&["config", "--local", "--get-all", key], None)?;
        // Exit 1 means "no such key".
        if !out.status.success() && out.status.code() != Some(1) {
            bail!("cannot read '{key}': {}", last_lines(&out.stderr));
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect())
    }

    /// Every `(key, value)` of the repository's own configuration file whose
    /// key matches the regular expression `pattern` (`git config --get-regexp`).
    pub fn local_config_regexp(&self, pattern: &str) -> Result<Vec<(String, String)>> {
        let out = self.git(&["config", "--local", "--get-regexp", pattern], None)?;
        if !out.status.success() && out.status.code() != Some(1) {
            bail!("cannot read the configuration: {}", last_lines(&out.stderr));
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                let (k, v) = l.split_once(' ').unwrap_or((l, ""));
                (k.to_owned(), v.to_owned())
            })
            .collect())
    }

    /// Adds `value` to `key` in the repository's configuration, unless it is there.
    pub fn config_add_once(&self, key: &str, value: &str) -> Result<bool> {
        if self.local_config_values(key)?.iter().any(|v| v == value) {
            return Ok(false);
        }
        self.git_config(&["config", "--local", "--add", key, value])?;
        Ok(true)
    }

    /// Sets the single-valued `key`, unless it already holds `value`.
    pub fn config_set(&self, key: &str, value: &str) -> Result<bool> {
        if self.local_config_values(key)?.last().map(String::as_str) == Some(value) {
            return Ok(false);
        }
        self.git_config(&["config", "--local", "--replace-all", key, value])?;
        Ok(true)
    }

    /// Removes `value` from `key` (only that value), if it is there.
    pub fn config_remove_value(&self, key: &str, value: &str) -> Result<bool> {
        if !self.local_config_values(key)?.iter().any(|v| v == value) {
            return Ok(false);
        }
        self.git_config(&["config", "--local", "--fixed-value", "--unset-all", key, value])?;
        Ok(true)
    }

    fn git_config(&self, args: &[&str]) -> Result<()> {
        let out = self.git(args, None)?;
        if !out.status.success() {
            bail!("git {} failed: {}", args.join(" "), last_lines(&out.stderr));
        }
        Ok(())
    }

    /// `git <args>` for talking to a remote: no terminal prompts (a hook or a
    /// script must fail, not hang), stdin fed from `input`.
    fn git_transport(&self, args: &[&str], input: Option<&[u8]>) -> Result<std::process::Output> {
        let git = which::which("git").map_err(|_| anyhow!("git is not on PATH"))?;
        let mut cmd = Command::new(git);
        cmd.arg("--git-dir").arg(self.git_dir());
        if let Ok(workdir) = self.workdir() {
            cmd.current_dir(workdir);
        }
        cmd.args(args)
            .env_remove("GIT_INDEX_FILE")
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| anyhow!("cannot run git {}: {e}", args[0]))?;
        if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
            // A git that dies early closes its stdin; its exit status says why.
            let _ = stdin.write_all(input);
        }
        child
            .wait_with_output()
            .map_err(|e| anyhow!("cannot run git {}: {e}", args[0]))
    }
}

/// The last few lines of git's messages, for an error.
fn last_lines(stderr: &[u8]) -> String {
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
    fn only_races_are_worth_a_retry() {
        let outcome = |summaries: &[&str]| PushOutcome {
            refs: summaries
                .iter()
                .map(|s| PushedRef {
                    name: "refs/notes/ultraplan".into(),
                    ok: false,
                    summary: (*s).into(),
                })
                .collect(),
            success: false,
            stderr: String::new(),
        };
        assert!(outcome(&["[rejected] (fetch first)"]).lost_a_race());
        assert!(outcome(&["[rejected] (non-fast-forward)", "[rejected] (atomic push failed)"]).lost_a_race());
        assert!(!outcome(&["[remote rejected] (pre-receive hook declined)"]).lost_a_race());
        assert!(!outcome(&[]).lost_a_race());
    }

    #[test]
    fn git_messages_are_shortened() {
        assert_eq!(
            last_lines(b"fatal: 'nowhere' does not appear to be a git repository\nfatal: Could not read from remote repository.\n"),
            "'nowhere' does not appear to be a git repository; Could not read from remote repository."
        );
        assert_eq!(last_lines(b""), "git gave no reason");
    }
}
