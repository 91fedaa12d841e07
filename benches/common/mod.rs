//! What the benchmarks share: a hermetic git, copies of a template
//! repository, and medians.

#![allow(dead_code)] // each bench uses its own part

use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Runs `git args` in `dir` with the hermetic environment; panics on failure.
pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(env())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// A git that reads no user or system configuration and has an identity.
pub fn env() -> Vec<(&'static str, &'static str)> {
    vec![
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_AUTHOR_NAME", "Bench"),
        ("GIT_AUTHOR_EMAIL", "bench@example.com"),
        ("GIT_COMMITTER_NAME", "Bench"),
        ("GIT_COMMITTER_EMAIL", "bench@example.com"),
        // No background gc racing the copies of a template.
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "gc.auto"),
        ("GIT_CONFIG_VALUE_0", "0"),
    ]
}

/// `cp -a template to`.
pub fn copy(template: &Path, to: &Path) {
    let status = Command::new("cp").arg("-a").arg(template).arg(to).status().unwrap();
    assert!(status.success());
}

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// A repository in `repo` with `files` committed files (100 per directory
/// under `src/`), on branch `main`, its index refreshed after the files aged
/// past its timestamp and its objects packed, so no side pays for racy entries.
pub fn repository_of(repo: &Path, files: usize) {
    std::fs::create_dir_all(repo).unwrap();
    git(repo, &["init", "-q", "-b", "main"]);
    for d in 0..files.div_ceil(100) {
        let dir = repo.join(format!("src/d{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100.min(files - d * 100) {
            std::fs::write(dir.join(format!("f{f:02}.txt")), format!("file {d} {f}\n").repeat(5)).unwrap();
        }
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", &format!("{files} files")]);
    git(repo, &["repack", "-adq"]);
    std::thread::sleep(Duration::from_millis(1100));
    git(repo, &["update-index", "--really-refresh", "-q"]);
}
