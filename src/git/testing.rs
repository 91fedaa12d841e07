//! What the room's tests share: a scratch repository made with the real
//! `git`, and the repository handle opened on it.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::repo::{Oid, Repo};

pub(crate) struct Fixture {
    _dir: tempfile::TempDir,
    pub(crate) path: PathBuf,
}

pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "A")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "C")
        .env("GIT_COMMITTER_EMAIL", "c@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().canonicalize().unwrap();
    git(&path, &["init", "-q", "-b", "main"]);
    std::fs::write(path.join("a.txt"), "a\n").unwrap();
    std::fs::write(path.join(".gitignore"), "ignored/\n").unwrap();
    std::fs::create_dir(path.join("src")).unwrap();
    std::fs::write(path.join("src/lib.rs"), "lib\n").unwrap();
    git(&path, &["add", "."]);
    git(&path, &["commit", "-q", "-m", "init"]);
    Fixture { _dir: dir, path }
}

pub(crate) fn open(path: &Path) -> Repo {
    std::env::set_var("GIT_AUTHOR_NAME", "A");
    std::env::set_var("GIT_AUTHOR_EMAIL", "a@example.com");
    std::env::set_var("GIT_COMMITTER_NAME", "C");
    std::env::set_var("GIT_COMMITTER_EMAIL", "c@example.com");
    let repo = gix::open_opts(path, gix::open::Options::default().object_store_slots(super::SLOTS)).unwrap();
    Repo::new(repo)
}

pub(crate) fn files(repo: &Repo, tree: Oid) -> Vec<String> {
    repo.tree_files(tree).unwrap().into_iter().map(|(p, _, _)| p).collect()
}
