//! Reading a plan from the filesystem for any command: size limit, UTF-8,
//! a file or a GSD phase directory. The only part of `plan/` that touches
//! files; [`super::parse`] gets the text.

use std::path::Path;

use anyhow::{anyhow, bail, Context as _, Result};

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
    load_plan_seen(path, choices, |_| {})
}

/// [`load_plan_with`], showing the text of a plan file to `seen` before it
/// is parsed (a caller starts there what needs only the text).
pub fn load_plan_seen(path: &Path, choices: &plan::Context, seen: impl FnOnce(&str)) -> Result<(String, Plan)> {
    let shown = path.display();
    let meta = std::fs::metadata(path).with_context(|| format!("cannot read plan '{shown}'"))?;
    if meta.is_dir() {
        return load_phase(path);
    }
    let bytes = read_plan_file(path)?;
    let text = crate::input::utf8_text(bytes).map_err(|why| anyhow!("cannot read plan '{shown}': {why}"))?;
    seen(&text);
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

/// The bytes of one plan file: a regular file (a symbolic link is followed
/// to one) of at most 16 MiB. A device, a named pipe or a socket is refused
/// before it is opened for reading, so `/dev/zero` is not read without end
/// and a FIFO does not hold the run waiting for a writer.
pub fn read_plan_file(path: &Path) -> Result<Vec<u8>> {
    crate::input::read_regular(path, MAX_PLAN_BYTES).with_context(|| format!("cannot read plan '{}'", path.display()))
}

/// How a plan is named in its state (relative to the top of the worktree when
/// inside it), and that relative path if it is inside.
pub fn plan_location(plan: &Path, workdir: &Path) -> (String, Option<String>) {
    let absolute = plan.canonicalize().unwrap_or_else(|_| plan.to_owned());
    let root = workdir.canonicalize().unwrap_or_else(|_| workdir.to_owned());
    match absolute.strip_prefix(&root) {
        Ok(rel) => {
            // `\` separates a path only on Windows; elsewhere it is part of
            // a name (`x\y.md` is one file).
            let rel = rel.to_string_lossy();
            let rel = if cfg!(windows) {
                rel.replace('\\', "/")
            } else {
                rel.into_owned()
            };
            (rel.clone(), Some(rel))
        }
        Err(_) => (absolute.display().to_string(), None),
    }
}

/// The names of a GSD phase directory's plans (`*-PLAN.md`), sorted. Each
/// must be a file of the directory: a directory or a symbolic link of that
/// name is refused (git would commit a link as a link, not the plan it
/// names, and the sessions read the plans from a commit), as is a device or
/// a named pipe. `check` and `run` both read a phase through this.
pub fn phase_files(dir: &Path) -> Result<Vec<String>> {
    let shown = dir.display();
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read plan '{shown}'"))? {
        let entry = entry.with_context(|| format!("cannot read plan '{shown}'"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !plan::phase::is_plan_file(&name) {
            continue;
        }
        let kind = entry
            .file_type()
            .with_context(|| format!("cannot read plan '{shown}/{name}'"))?;
        let what = if kind.is_file() {
            None
        } else if kind.is_symlink() {
            Some("a symbolic link")
        } else if kind.is_dir() {
            Some("a directory")
        } else {
            Some("not a file")
        };
        if let Some(what) = what {
            bail!("cannot read plan '{shown}': '{name}' is {what}; a phase directory's plans must be files in it");
        }
        names.push(name);
    }
    names.sort();
    Ok(names)
}

/// A GSD phase directory: its `*-PLAN.md` files (at most 16 MiB together)
/// as one plan whose sessions they are. The text is the files joined, each
/// after a `<!-- file: NAME -->` line.
fn load_phase(path: &Path) -> Result<(String, Plan)> {
    let shown = path.display();
    let names = phase_files(path)?;
    if names.is_empty() {
        bail!("cannot read plan '{shown}': it is a directory without '*-PLAN.md' files (a GSD phase directory holds them)");
    }
    let mut files = Vec::new();
    let mut total = 0u64;
    for name in names {
        let file = path.join(&name);
        let bytes = read_plan_file(&file)?;
        total += bytes.len() as u64;
        if total > MAX_PLAN_BYTES {
            bail!("cannot read plan '{shown}': its plans are larger than 16 MiB together");
        }
        let text =
            crate::input::utf8_text(bytes).map_err(|why| anyhow!("cannot read plan '{}': {why}", file.display()))?;
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
