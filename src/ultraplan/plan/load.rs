//! Reading a plan from the filesystem for any command: size limit, UTF-8,
//! a file or a GSD phase directory. The only part of `plan/` that touches
//! files; [`super::parse`] gets the text.

use std::path::Path;

use anyhow::{anyhow, bail, Result};

use crate::ultraplan::plan::{self, Plan};

/// Plans larger than this are refused rather than read into memory.
const MAX_PLAN_BYTES: u64 = 16 * 1024 * 1024;

/// Reads and parses the plan at `path`; every failure is fatal and names the file.
pub fn load_plan(path: &Path) -> Result<(String, Plan)> {
    load_plan_with(path, &plan::Context::default())
}

/// [`load_plan`] with the command line's choices (`--tag`,
/// `--skip-optional`); the companion files a format reads beside the plan
/// ([`plan::COMPANIONS`]) are read here, each at most 16 MiB, a missing or
/// unreadable one left out.
pub fn load_plan_with(path: &Path, choices: &plan::Context) -> Result<(String, Plan)> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| anyhow!("cannot read plan '{shown}': {e}"))?;
    if meta.is_dir() {
        return load_phase(path);
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
    let ctx = companions(path, choices);
    let plan = plan::parse_with(&text, &file_name, &ctx).map_err(|why| anyhow!("'{shown}' is not a plan: {why}"))?;
    Ok((text, plan))
}

fn companions(path: &Path, choices: &plan::Context) -> plan::Context {
    let mut ctx = choices.clone();
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    ctx.dir_name = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()));
    for name in plan::COMPANIONS {
        let file = dir.join(name);
        let small = std::fs::metadata(&file).is_ok_and(|m| m.is_file() && m.len() <= MAX_PLAN_BYTES);
        if let Some(text) = small.then(|| std::fs::read_to_string(&file).ok()).flatten() {
            ctx.companions.insert(name.to_owned(), text);
        }
    }
    ctx
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

/// A GSD phase directory: its `*-PLAN.md` files (at most 16 MiB together)
/// as one plan whose sessions they are. The text is the files joined, each
/// after a `<!-- file: NAME -->` line.
fn load_phase(path: &Path) -> Result<(String, Plan)> {
    let shown = path.display();
    let mut names: Vec<String> = std::fs::read_dir(path)
        .map_err(|e| anyhow!("cannot read plan '{shown}': {e}"))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| plan::phase::is_plan_file(n))
        .collect();
    names.sort();
    if names.is_empty() {
        bail!("cannot read plan '{shown}': it is a directory without '*-PLAN.md' files (a GSD phase directory holds them)");
    }
    let mut files = Vec::new();
    let mut total = 0u64;
    for name in names {
        let file = path.join(&name);
        total += std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        if total > MAX_PLAN_BYTES {
            bail!("cannot read plan '{shown}': its plans are larger than 16 MiB together");
        }
        let bytes = std::fs::read(&file).map_err(|e| anyhow!("cannot read plan '{}': {e}", file.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| anyhow!("cannot read plan '{}': it is not UTF-8 text", file.display()))?;
        files.push(plan::phase::PhaseFile { name, text });
    }
    let dir_name = path
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| shown.to_string());
    let plan = plan::phase::compose(&dir_name, &files).map_err(|why| anyhow!("'{shown}' is not a plan: {why}"))?;
    let text = files
        .iter()
        .map(|f| format!("<!-- file: {} -->\n{}", f.name, f.text))
        .collect::<Vec<_>>()
        .join("\n");
    Ok((text, plan))
}
