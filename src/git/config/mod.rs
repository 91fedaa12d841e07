//! Configuration read with git's precedence: system, global, repository,
//! worktree, `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>` and finally `git -c`
//! (`GIT_CONFIG_PARAMETERS`), which gix does not read by itself; and the
//! few writes to the repository's own configuration file (`local`).

mod local;
mod params;

use anyhow::{anyhow, Context as _, Result};
use gix::bstr::ByteSlice;

pub use params::{parse_config_parameters, ConfigParameter};

/// A read-only view of the effective git configuration.
#[derive(Clone)]
pub struct GitConfig {
    file: gix::config::File,
}

impl GitConfig {
    /// Configuration as a repository opened with `overrides` sees it.
    pub(crate) fn from_repository(repo: &gix::Repository) -> Self {
        GitConfig {
            file: repo.config_snapshot().plumbing().clone(),
        }
    }

    /// Configuration outside any repository: installation, system and global
    /// files, the environment's `GIT_CONFIG_COUNT` pairs, then `-c` overrides.
    pub(crate) fn without_repository(overrides: &[ConfigParameter]) -> Result<Self> {
        let mut file = gix::config::File::from_globals()
            .map_err(|e| anyhow!("{e}"))
            .context("cannot read the global git configuration")?;
        let env = gix::config::File::from_environment_overrides()
            .map_err(|e| anyhow!("{e}"))
            .context("cannot read GIT_CONFIG_COUNT overrides")?;
        file.append(env).map_err(|e| anyhow!("{e}"))?;
        file.append(Self::from_parameters(overrides)?.file)
            .map_err(|e| anyhow!("{e}"))?;
        Ok(GitConfig { file })
    }

    /// Configuration made of `overrides` alone, as if given with `git -c`;
    /// for tests and for callers that must not read the user's files.
    pub fn from_parameters(overrides: &[ConfigParameter]) -> Result<Self> {
        let mut cli = gix::config::File::new(gix::config::file::Metadata::from(gix::config::Source::Cli));
        for param in overrides {
            let key = gix::config::KeyRef::parse_unvalidated(param.key.as_bytes().as_bstr())
                .ok_or_else(|| anyhow!("invalid configuration key '{}'", param.key))?;
            let mut section = cli
                .section_mut_or_create_new(key.section_name, key.subsection_name)
                .with_context(|| format!("invalid configuration key '{}'", param.key))?;
            section
                .push(key.value_name, param.value.as_deref().map(|v| v.as_bytes().as_bstr()))
                .with_context(|| format!("invalid configuration key '{}'", param.key))?;
        }
        Ok(GitConfig { file: cli })
    }

    /// The last value of `key` (`section.name` or `section.sub.name`), as git's
    /// `git config --get` would print it.
    pub fn string(&self, key: &str) -> Option<String> {
        self.file.string(key).map(|v| v.to_str_lossy().into_owned())
    }

    /// All values of a multi-valued `key`, in order.
    pub fn strings(&self, key: &str) -> Vec<String> {
        self.file
            .strings(key)
            .unwrap_or_default()
            .into_iter()
            .map(|v| v.to_str_lossy().into_owned())
            .collect()
    }

    /// `key` as a git boolean (`true`/`yes`/`on`/`1`, a bare key, …).
    pub fn boolean(&self, key: &str) -> Result<Option<bool>> {
        self.file.boolean(key).map_err(|_| {
            anyhow!(
                "bad boolean config value '{}' for '{key}'",
                self.string(key).unwrap_or_default()
            )
        })
    }

    /// `key` as a git integer, with `k`, `m` and `g` suffixes.
    pub fn integer(&self, key: &str) -> Result<Option<i64>> {
        self.file.integer(key).map_err(|_| {
            anyhow!(
                "bad numeric config value '{}' for '{key}'",
                self.string(key).unwrap_or_default()
            )
        })
    }
}

/// The `-c` overrides of this process, from `GIT_CONFIG_PARAMETERS`.
pub(crate) fn command_line_overrides() -> Result<Vec<ConfigParameter>> {
    match std::env::var("GIT_CONFIG_PARAMETERS") {
        Ok(value) => parse_config_parameters(&value),
        Err(std::env::VarError::NotPresent) => Ok(Vec::new()),
        Err(std::env::VarError::NotUnicode(_)) => Err(anyhow!("bogus format in GIT_CONFIG_PARAMETERS")),
    }
}
