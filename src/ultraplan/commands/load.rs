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
