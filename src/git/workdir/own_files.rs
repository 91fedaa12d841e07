//! git's own files a step could change: `config`, `hooks/*` (but the
//! `*.sample` files git never runs) and `info/*` of the repository (its
//! common directory). A step's snapshot records them as a
//! tree so that a change is seen, named, and put back by a restore: a hook or
//! a `core.fsmonitor` left behind would run code at the user's next git
//! command.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

use crate::git::objects::{EntryKind, TreeEdit};
use crate::git::repo::{Oid, Repo};

/// The directories and files of the common directory that are recorded.
const WATCHED_DIRS: [&str; 2] = ["hooks", "info"];

impl Repo {
    /// git's own files as a tree (`config`, `hooks/<name>`, `info/<name>`).
    pub fn own_files_tree(&self) -> Result<Oid> {
        let root = self.common_dir().to_owned();
        let mut edits = Vec::new();
        let mut add = |rel: String, path: &Path| -> Result<()> {
            let meta = std::fs::symlink_metadata(path)?;
            if !meta.is_file() {
                return Ok(());
            }
            let id = self.write_blob(std::fs::read(path)?)?;
            #[cfg(unix)]
            let executable = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0;
            #[cfg(not(unix))]
            let executable = false;
            edits.push(TreeEdit::Blob {
                path: rel,
                id,
                executable,
            });
            Ok(())
        };
        if root.join("config").exists() {
            add("config".into(), &root.join("config")).context("cannot read git's config")?;
        }
        for dir in WATCHED_DIRS {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                if dir == "hooks" && name.ends_with(".sample") {
                    continue; // never run by git; renaming one shows as a new hook
                }
                add(format!("{dir}/{name}"), &entry.path()).with_context(|| format!("cannot read '{dir}/{name}'"))?;
            }
        }
        self.edit_tree(None, &edits)
    }

    /// Makes git's own files what the tree `recorded` holds, where the tree
    /// `now` (taken a moment ago) differs. Returns the paths written.
    pub fn restore_own_files(&self, now: Oid, recorded: Oid) -> Result<Vec<String>> {
        let root = self.common_dir().to_owned();
        let mut written = Vec::new();
        for change in self.changes(now, recorded)? {
            let path: PathBuf = root.join(&change.path);
            match change.new {
                None => std::fs::remove_file(&path)
                    .or_else(|e| {
                        if e.kind() == std::io::ErrorKind::NotFound {
                            Ok(())
                        } else {
                            Err(e)
                        }
                    })
                    .with_context(|| format!("cannot remove '{}'", path.display()))?,
                Some((id, kind)) => {
                    let bytes = self.read_blob(id)?;
                    let tmp = path.with_extension("ultraplan-tmp");
                    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write '{}'", tmp.display()))?;
                    #[cfg(unix)]
                    {
                        use std::os::unix::fs::PermissionsExt;
                        let mode = if kind == EntryKind::Executable { 0o755 } else { 0o644 };
                        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))?;
                    }
                    #[cfg(not(unix))]
                    let _ = kind;
                    std::fs::rename(&tmp, &path).with_context(|| format!("cannot put '{}' back", path.display()))?;
                }
            }
            written.push(change.path);
        }
        Ok(written)
    }
}

/// Settings that make git run code or look elsewhere for hooks, named when a
/// step adds them: `core.fsmonitor`, `core.hooksPath`, `core.sshCommand`,
/// `core.pager`, `core.editor` and any `*.command`-like filter or alias
/// (`filter.*`, `alias.*` with `!`).
pub fn risky_settings_added(before: &str, after: &str) -> Vec<String> {
    let keys = |text: &str| -> Vec<String> {
        let mut section = String::new();
        let mut out = Vec::new();
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                let inner = line.trim_start_matches('[').split(']').next().unwrap_or("");
                let mut parts = inner.splitn(2, char::is_whitespace);
                let name = parts.next().unwrap_or("").to_ascii_lowercase();
                section = match parts.next() {
                    Some(sub) => format!("{name}.{}", sub.trim().trim_matches('"')),
                    None => name,
                };
            } else if let Some((key, _)) = line.split_once('=') {
                out.push(format!("{section}.{}", key.trim().to_ascii_lowercase()));
            }
        }
        out
    };
    let before = keys(before);
    let risky = |k: &str| {
        matches!(
            k,
            "core.fsmonitor" | "core.hookspath" | "core.sshcommand" | "core.pager" | "core.editor"
        ) || k.starts_with("filter.")
            || k.starts_with("alias.")
    };
    let mut added: Vec<String> = keys(after)
        .into_iter()
        .filter(|k| risky(k) && !before.contains(k))
        .collect();
    added.dedup();
    added
}

#[cfg(test)]
mod tests {
    #[test]
    fn risky_settings_are_named_when_added() {
        let before = "[core]\n\tbare = false\n";
        let after = "[core]\n\tbare = false\n\tfsmonitor = ./spy.sh\n\thooksPath = /tmp/h\n[filter \"x\"]\n\tclean = evil\n[user]\n\tname = a\n";
        assert_eq!(
            super::risky_settings_added(before, after),
            ["core.fsmonitor", "core.hookspath", "filter.x.clean"]
        );
        assert!(super::risky_settings_added(after, after).is_empty());
    }
}
