//! The `.lock` files git and gix create beside what they are about to
//! rewrite — a reference (`refs/…/<name>.lock`), `packed-refs.lock`, each
//! worktree's `index.lock` and `HEAD.lock`, `config.lock`, `shallow.lock` —
//! and which outlive a process killed while it held one: every later
//! writer of that file fails then ("Unable to create '….lock': File
//! exists"), plain git too.
//!
//! A lock file is removed only when its writer is provably gone:
//!
//! * the caller knows it (the file lies in a namespace whose every writer
//!   ran under a lock of the caller's whose holder is dead, see
//!   [`Repo::remove_stale_lock_files`]); or
//! * it was last written before every live git process working in this
//!   repository started (a process cannot write a file before it exists),
//!   which holds too when no git process works here at all.
//!
//! Anything else — a lock a live git process may hold, or any lock where the
//! process table cannot be read (off Linux) — is kept, and said so.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::Result;

use super::repo::Repo;
use crate::process;

/// A lock file found in the repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockFile {
    /// What it locks, relative to the git directory and without `.lock`:
    /// `refs/notes/ultraplan`, `packed-refs`, `index`, `worktrees/<id>/index`.
    pub name: String,
    pub path: PathBuf,
    /// How long ago it was last written.
    pub age: Duration,
    /// Its inode, so that a lock made anew at the same path after it was
    /// judged is never the one removed.
    inode: (u64, u64),
}

/// What [`Repo::remove_stale_lock_files`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LockSweep {
    /// Removed, with why its writer is gone.
    pub removed: Vec<(LockFile, String)>,
    /// Kept, with who may hold it.
    pub kept: Vec<(LockFile, String)>,
}

/// A git process that started this little after a lock file was written
/// may still have written it: process start times are counted in clock
/// ticks (10 ms), the uptime in hundredths of a second.
const MARGIN: Duration = Duration::from_millis(30);

/// The lock files git keeps at the top of a git directory.
const TOP_LEVEL: [&str; 5] = ["index", "HEAD", "packed-refs", "config", "shallow"];

impl Repo {
    /// Every lock file of the repository: the shared ones, each worktree's
    /// `index` and `HEAD`, and every reference's.
    pub fn lock_files(&self) -> Result<Vec<LockFile>> {
        let common = self.common_dir().to_owned();
        let mut out = Vec::new();
        for name in TOP_LEVEL {
            push_lock(&mut out, &common, name);
        }
        let admin = common.join("worktrees");
        if let Ok(entries) = std::fs::read_dir(&admin) {
            for entry in entries.flatten() {
                let id = entry.file_name().to_string_lossy().into_owned();
                for name in ["index", "HEAD"] {
                    push_lock(&mut out, &common, &format!("worktrees/{id}/{name}"));
                }
            }
        }
        let mut pending = vec![common.join("refs")];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                match entry.file_type() {
                    Ok(t) if t.is_dir() => pending.push(path),
                    Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "lock") => {
                        if let Ok(relative) = path.with_extension("").strip_prefix(&common) {
                            let name = relative.to_string_lossy().into_owned();
                            push_lock(&mut out, &common, &name);
                        }
                    }
                    _ => {}
                }
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Removes the lock files whose writer is gone: those `writer_gone`
    /// says so of (given the locked name, such as
    /// `refs/ultraplan/plan/run`: the caller knows every writer there ran
    /// under its own lock, whose holder is dead with every process it
    /// started), and those last written before every live git process
    /// working in this repository started. The rest are kept.
    pub fn remove_stale_lock_files(&self, writer_gone: &dyn Fn(&str) -> bool) -> Result<LockSweep> {
        let mut sweep = LockSweep::default();
        let found = self.lock_files()?;
        if found.is_empty() {
            return Ok(sweep);
        }
        let working = process::git_processes_in(&self.roots());
        for lock in found {
            let verdict = if writer_gone(&lock.name) {
                Ok("the run that wrote it is gone".to_owned())
            } else {
                judge(&lock, working.as_deref())
            };
            match verdict {
                Ok(why) => {
                    if still_the_same(&lock) && std::fs::remove_file(&lock.path).is_ok() {
                        sweep.removed.push((lock, why));
                    }
                }
                Err(who) => sweep.kept.push((lock, who)),
            }
        }
        Ok(sweep)
    }

    /// Where a git process working in this repository has its working
    /// directory or git directory: the git directory and every worktree.
    fn roots(&self) -> Vec<PathBuf> {
        let common = self.common_dir().to_owned();
        let mut roots = vec![common.clone()];
        if common.file_name().is_some_and(|n| n == ".git") {
            if let Some(main) = common.parent() {
                roots.push(main.to_owned());
            }
        }
        if let Ok(workdir) = self.workdir() {
            roots.push(workdir.to_owned());
        }
        if let Ok(linked) = self.linked_worktrees() {
            roots.extend(linked.into_iter().map(|w| w.path));
        }
        roots
    }
}

/// `Ok(why it is stale)`, or `Err(who may hold it)`.
fn judge(lock: &LockFile, working: Option<&[process::GitProcess]>) -> std::result::Result<String, String> {
    let Some(working) = working else {
        return Err("whether a git process holds it cannot be told here".into());
    };
    match working.iter().find(|p| p.age + MARGIN >= lock.age) {
        Some(p) => Err(format!("{} (pid {}) may hold it", p.name, p.pid)),
        None if working.is_empty() => Ok("no git process works in this repository".into()),
        None => Ok("it is older than every git process working here".into()),
    }
}

fn push_lock(out: &mut Vec<LockFile>, common: &Path, name: &str) {
    let path = common.join(format!("{name}.lock"));
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return;
    };
    if !meta.is_file() {
        return;
    }
    let written = meta.modified().unwrap_or_else(|_| SystemTime::now());
    out.push(LockFile {
        name: name.to_owned(),
        age: SystemTime::now().duration_since(written).unwrap_or_default(),
        inode: (meta.dev(), meta.ino()),
        path,
    });
}

/// Whether the file at the lock's path is still the one judged.
fn still_the_same(lock: &LockFile) -> bool {
    std::fs::symlink_metadata(&lock.path).is_ok_and(|m| (m.dev(), m.ino()) == lock.inode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::testing::{fixture, git, open};

    fn plant(path: &Path, ago: Duration) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let file = std::fs::File::create(path).unwrap();
        file.set_modified(SystemTime::now() - ago).unwrap();
    }

    #[test]
    fn stale_lock_files_go_and_the_one_a_live_git_process_may_hold_stays() {
        let f = fixture();
        let repo = open(&f.path);
        let git_dir = f.path.join(".git");
        let old = Duration::from_secs(60);
        for name in ["index", "packed-refs", "refs/notes/ultraplan", "refs/heads/main"] {
            plant(&git_dir.join(format!("{name}.lock")), old);
        }
        let names: Vec<String> = repo.lock_files().unwrap().into_iter().map(|l| l.name).collect();
        assert_eq!(
            names,
            ["index", "packed-refs", "refs/heads/main", "refs/notes/ultraplan"]
        );
        // A git process working here that started before the index lock
        // was written (it waits for input meanwhile).
        let mut live = std::process::Command::new("git")
            .args(["hash-object", "--stdin"])
            .current_dir(&f.path)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        plant(&git_dir.join("index.lock"), Duration::ZERO);
        let sweep = repo.remove_stale_lock_files(&|_| false).unwrap();
        let removed: Vec<&str> = sweep.removed.iter().map(|(l, _)| l.name.as_str()).collect();
        let kept: Vec<&str> = sweep.kept.iter().map(|(l, _)| l.name.as_str()).collect();
        drop(live.stdin.take());
        let _ = live.wait();
        if cfg!(target_os = "linux") {
            assert_eq!(removed, ["packed-refs", "refs/heads/main", "refs/notes/ultraplan"]);
            assert_eq!(kept, ["index"], "{sweep:?}");
            assert!(sweep.kept[0].1.contains("git (pid"), "{sweep:?}");
        }
        // Once that process is gone, nothing holds it.
        let sweep = repo.remove_stale_lock_files(&|_| false).unwrap();
        if cfg!(target_os = "linux") {
            assert_eq!(sweep.removed.len(), 1, "{sweep:?}");
            assert!(!git_dir.join("index.lock").exists());
        }
        git(&f.path, &["commit", "-q", "--allow-empty", "-m", "git works again"]);
    }

    #[test]
    fn a_lock_the_caller_knows_is_orphaned_goes_whatever_runs() {
        let f = fixture();
        let repo = open(&f.path);
        let lock = f.path.join(".git/refs/ultraplan/plan/run.lock");
        plant(&lock, Duration::ZERO);
        let mut live = std::process::Command::new("git")
            .args(["hash-object", "--stdin"])
            .current_dir(&f.path)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let sweep = repo
            .remove_stale_lock_files(&|name| name.starts_with("refs/ultraplan/plan/"))
            .unwrap();
        drop(live.stdin.take());
        let _ = live.wait();
        assert_eq!(sweep.removed.len(), 1, "{sweep:?}");
        assert!(!lock.exists());
    }
}
