//! `git historian clean` against the old way of building the same commits,
//! in one run (issue 5, item 8).
//!
//! A repository of 20,000 files has a branch of 200 commits touching 2,000
//! of them (each commit edits ten files of one directory: a line changed, a
//! line added). `git historian clean` rewrites it (plan, build every commit
//! in memory, check the tree, create the branch). The plain-git script then
//! builds the very same commits the way a script or an agent would: check
//! out a new branch at the base, and for each commit apply its patch to the
//! index and working tree and commit. The patches and messages are taken
//! from historian's commits beforehand, outside the timing. Both start from
//! copies of one repository and run as alternating pairs (common's module docs).
//!
//! Run with `cargo bench --bench historian_speed`.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{copy, env, machine, repository_of, sampled, Pairs, Sample};

const FILES: usize = 20_000;
const COMMITS: usize = 200;
const FILES_PER_COMMIT: usize = 10;
const ROUNDS: usize = 3;

fn output(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(env())
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The template: `FILES` files on `main`, and `feature` with `COMMITS`
/// commits made with fast-import.
fn template(root: &Path) -> PathBuf {
    let repo = root.join("template");
    repository_of(&repo, FILES);
    let mut stream = String::new();
    for k in 0..COMMITS {
        let message = format!("change module d{k:03}\n");
        // The first commit starts from main; the others follow it.
        let from = if k == 0 { "from refs/heads/main^0\n" } else { "" };
        stream.push_str(&format!(
            "commit refs/heads/feature\ncommitter Bench <bench@example.com> {} +0000\ndata {}\n{message}{from}",
            1_700_000_000 + k * 60,
            message.len()
        ));
        for f in 0..FILES_PER_COMMIT {
            let mut contents = format!("file {k} {f}\n").repeat(5);
            contents = contents.replacen(&format!("file {k} {f}\n"), &format!("file {k} {f} changed\n"), 1);
            contents.push_str(&format!("added by commit {k}\n"));
            stream.push_str(&format!(
                "M 100644 inline src/d{k:03}/f{f:02}.txt\ndata {}\n{contents}\n",
                contents.len()
            ));
        }
    }
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(&repo)
        .envs(env())
        .stdin(Stdio::piped())
        .spawn()
        .expect("fast-import");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stream.as_bytes())
        .expect("stream");
    assert!(child.wait().expect("fast-import ends").success());
    common::git(&repo, &["repack", "-adq"]);
    assert_eq!(
        output(&repo, &["rev-list", "--count", "main..feature"]).trim(),
        COMMITS.to_string()
    );
    repo
}

fn historian(repo: &Path) -> (Sample, String) {
    let bin = env!("CARGO_BIN_EXE_git-historian");
    let (elapsed, out) = sampled(|| {
        Command::new(bin)
            .args(["-q", "clean", "feature", "--base", "main", "--json"])
            .current_dir(repo)
            .envs(env())
            .output()
            .expect("git-historian runs")
    });
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    (elapsed, json["clean_branch"].as_str().expect("branch").to_owned())
}

/// Patches and messages of `branch`'s commits since `main`, oldest first.
fn commits_of(repo: &Path, branch: &str, into: &Path) -> Vec<(PathBuf, PathBuf)> {
    let ids = output(repo, &["rev-list", "--reverse", &format!("main..{branch}")]);
    ids.lines()
        .enumerate()
        .map(|(n, id)| {
            let patch = into.join(format!("{n:04}.patch"));
            let message = into.join(format!("{n:04}.msg"));
            std::fs::write(&patch, output(repo, &["diff", "--binary", &format!("{id}^"), id])).expect("patch");
            std::fs::write(&message, output(repo, &["log", "-1", "--format=%B", id])).expect("message");
            (patch, message)
        })
        .collect()
}

fn script(repo: &Path, commits: &[(PathBuf, PathBuf)]) -> Sample {
    let mut body = String::from("set -e\ngit checkout -q -b scripted main\n");
    for (patch, message) in commits {
        body.push_str(&format!(
            "git apply --index '{}'\ngit commit -q -F '{}'\n",
            patch.display(),
            message.display()
        ));
    }
    let (elapsed, status) = sampled(|| {
        Command::new("bash")
            .args(["-c", &body])
            .current_dir(repo)
            .envs(env())
            .status()
            .expect("bash runs")
    });
    assert!(status.success());
    elapsed
}

fn main() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path();
    let template = template(root);
    let mut pairs = Pairs::default();
    let mut created = 0;
    for round in 0..ROUNDS {
        let a = root.join(format!("h{round}"));
        copy(&template, &a);
        let (ours, clean) = historian(&a);
        assert_eq!(
            output(&a, &["rev-parse", &format!("{clean}^{{tree}}")]),
            output(&a, &["rev-parse", "feature^{tree}"]),
            "the clean branch has the original tree"
        );
        let patches = root.join(format!("patches{round}"));
        std::fs::create_dir_all(&patches).expect("dir");
        let commits = commits_of(&a, &clean, &patches);
        created = commits.len();
        let b = root.join(format!("s{round}"));
        copy(&template, &b);
        pairs.push(ours, script(&b, &commits));
        assert_eq!(
            output(&b, &["rev-parse", "scripted^{tree}"]),
            output(&b, &["rev-parse", "feature^{tree}"]),
            "the script built the same tree"
        );
    }
    println!(
        "historian_speed: {FILES} files, a branch of {COMMITS} commits touching {} files, {created} commits built, {ROUNDS} alternating pairs; {}",
        COMMITS * FILES_PER_COMMIT,
        machine()
    );
    println!("{}", pairs.report("git historian clean", "plain git script"));
    let (w, lo, hi) = pairs.ratio(|s| s.wall);
    println!(
        "  historian is {:.1}x faster (wall; {:.1}-{:.1})",
        1.0 / w,
        1.0 / hi,
        1.0 / lo
    );
}
