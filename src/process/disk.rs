//! Disk space a run needs, and deleting what it is done with without waiting.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context as _, Result};

/// Free space where `path` is (or would be: its nearest existing ancestor
/// is asked): bytes an unprivileged user may still write, files it may
/// still create (`None` when the filesystem does not count them), and the
/// block size files are rounded up to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreeSpace {
    pub bytes: u64,
    pub files: Option<u64>,
    pub block: u64,
}

/// The test suite's stand-in for a full disk: `ULTRAPLAN_TEST_DISK_FREE` is
/// taken as the free bytes (like `ULTRAPLAN_TEST_FAULT`, for tests only).
const TEST_FREE_VAR: &str = "ULTRAPLAN_TEST_DISK_FREE";

/// [`FreeSpace`] of the filesystem holding `path`.
pub fn free_space(path: &Path) -> Result<FreeSpace> {
    let mut at = path;
    while !at.exists() {
        at = at.parent().unwrap_or(Path::new("/"));
    }
    let st = rustix::fs::statvfs(at).with_context(|| format!("cannot read the free space of '{}'", at.display()))?;
    let block = st.f_frsize.max(512);
    let mut free = FreeSpace {
        bytes: st.f_bavail.saturating_mul(block),
        files: (st.f_files > 0).then_some(st.f_favail),
        block,
    };
    if let Some(bytes) = std::env::var(TEST_FREE_VAR).ok().and_then(|v| v.parse().ok()) {
        free.bytes = bytes;
    }
    Ok(free)
}

/// Deletes `path` (a directory nothing else uses any more) in a process of
/// its own that outlives this one: `rm -rf` at the lowest CPU priority (the
/// run's own work goes first), in its own process group, with
/// nothing of the run's (its token, its terminal) so that neither Ctrl-C
/// nor a run cleaning up after itself stops it. Whoever finds the directory
/// still there later (a crash in between) deletes it again.
pub fn delete_detached(path: &Path) -> Result<()> {
    use std::os::unix::process::CommandExt as _;
    let mut command = Command::new("rm");
    super::fork::lowest_priority(&mut command);
    let child = command
        .arg("-rf")
        .arg("--")
        .arg(path)
        .env_remove(super::RUN_TOKEN_VAR)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .with_context(|| format!("cannot start deleting '{}'", path.display()))?;
    // Not waited for: it ends on its own and the system reaps it once we
    // are gone; a zombie until then costs nothing.
    drop(child);
    Ok(())
}
