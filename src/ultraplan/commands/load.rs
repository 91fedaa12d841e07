//! Reading a plan file for any command: size limit, UTF-8, format detection.

use std::path::Path;

use anyhow::{anyhow, bail, Result};

use crate::ultraplan::plan::{self, Plan};

/// Plans larger than this are refused rather than read into memory.
const MAX_PLAN_BYTES: u64 = 16 * 1024 * 1024;

/// Reads and parses the plan at `path`; every failure is fatal and names the file.
pub fn load_plan(path: &Path) -> Result<(String, Plan)> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| anyhow!("cannot read plan '{shown}': {e}"))?;
    if meta.is_dir() {
        bail!("cannot read plan '{shown}': it is a directory");
    }
    if meta.len() > MAX_PLAN_BYTES {
        bail!("cannot read plan '{shown}': it is larger than 16 MiB");
    }
    let bytes = std::fs::read(path).map_err(|e| anyhow!("cannot read plan '{shown}': {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| anyhow!("cannot read plan '{shown}': it is not UTF-8 text"))?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let plan = plan::parse(&text, &file_name).map_err(|why| anyhow!("'{shown}' is not a plan: {why}"))?;
    Ok((text, plan))
}

/// How a plan is named in its state (relative to the top of the worktree when
/// inside it), and that relative path if it is inside.
pub fn plan_location(plan: &Path, workdir: &Path) -> (String, Option<String>) {
    let absolute = plan.canonicalize().unwrap_or_else(|_| plan.to_owned());
    let root = workdir.canonicalize().unwrap_or_else(|_| workdir.to_owned());
    match absolute.strip_prefix(&root) {
        Ok(rel) => {
            let rel = rel.to_string_lossy().replace('\\', "/");
            (rel.clone(), Some(rel))
        }
        Err(_) => (absolute.display().to_string(), None),
    }
}

/// For `status`, `log` and friends: whether a state recorded for `recorded`
/// belongs to the plan named on the command line (`wanted`, as
/// [`plan_location`] names it). Plans with the same file name share a slug;
/// a state of another one is not shown as this one's, with a warning.
pub fn state_belongs(recorded: &str, wanted: Option<&str>, ui: &crate::cli::Ui) -> bool {
    match wanted {
        Some(w) if w != recorded => {
            ui.warning(format_args!(
                "the state under this name belongs to '{recorded}', not to '{w}'"
            ));
            false
        }
        _ => true,
    }
}
