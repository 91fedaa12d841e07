//! The repository's own configuration file, written through `git config`
//! (which handles the locking and file layout gix would make us redo), and
//! where git looks for hooks.

use std::path::PathBuf;

use anyhow::{bail, Result};

use crate::git::cli::last_lines;
use crate::git::repo::Repo;

impl Repo {
    /// The hooks directory git uses for this repository (`core.hooksPath`
    /// honoured; shared by linked worktrees), as `git rev-parse --git-path hooks`.
    pub fn hooks_dir(&self) -> Result<PathBuf> {
        // git: gix does not resolve `core.hooksPath` (relative, per worktree) as git does.
        let out = self.git(&["rev-parse", "--git-path", "hooks"])?;
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
        // Read through git as the writes are: gix's configuration is a snapshot
        // taken when the repository was opened, and would miss a value just written.
        let out = self.git(&["config", "--local", "--get-all", key])?;
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
        let out = self.git(&["config", "--local", "--get-regexp", pattern])?;
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
        let out = self.git(args)?;
        if !out.status.success() {
            bail!("git {} failed: {}", args.join(" "), last_lines(&out.stderr));
        }
        Ok(())
    }
}
