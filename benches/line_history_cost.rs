//! What reading the line history costs (`analyse::line_history`: which
//! past commits last wrote the lines each hunk touches), on its own and
//! beside the change set's analysis and change coupling, as the files a
//! branch changes grow 10x and 100x and the history behind the base grows
//! past the 500 commits read.
//!
//! A repository of `files` files of 200 lines (100 per folder) is written
//! by its first commit, then `history` commits each edit one line in each
//! of three files; the branch edits three lines of every file. The walk
//! reads every commit up to its limit (most lines were written by the
//! first commit, which it does not read), diffing the files each changed:
//! the most it does. Each cell is the best of three.
//!
//! Run with `cargo bench --bench line_history_cost`.
mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use ultraplan::git::Workspace;
use ultraplan::historian::analyse::{coupling, items::ChangeSet, line_history};

fn main() {
    for (files, history) in [
        (10, 100),
        (100, 100),
        (1000, 100),
        (10, 1000),
        (100, 1000),
        (1000, 1000),
    ] {
        let dir = tempfile::tempdir_in("/dev/shm").unwrap();
        let p = dir.path();
        common::git(p, &["init", "-q", "-b", "main"]);
        let body = |f: usize, edits: &[(usize, usize)]| {
            let mut s = String::new();
            for l in 0..200 {
                match edits.iter().rev().find(|(line, _)| *line == l) {
                    Some((_, k)) => s.push_str(&format!("line {l} of file {f}, edited by {k}\n")),
                    None => s.push_str(&format!("line {l} of file {f}\n")),
                }
            }
            s
        };
        let mut edits: Vec<Vec<(usize, usize)>> = vec![Vec::new(); files];
        let mut stream = String::new();
        let commit = |stream: &mut String, k: usize, changed: Vec<(usize, String)>, branch: &str| {
            stream.push_str(&format!(
                "commit refs/heads/{branch}\ncommitter B <b@example.com> {} +0000\ndata 2\nc\n",
                1_700_000_000 + k
            ));
            for (f, text) in changed {
                stream.push_str(&format!(
                    "M 100644 inline d{}/f{f}.txt\ndata {}\n{text}\n",
                    f / 100,
                    text.len()
                ));
            }
        };
        commit(&mut stream, 0, (0..files).map(|f| (f, body(f, &[]))).collect(), "main");
        for k in 1..=history {
            let changed: Vec<(usize, String)> = (0..3)
                .map(|j| {
                    let f = (k * 7 + j * 13) % files;
                    edits[f].push(((k * 13 + j) % 200, k));
                    (f, body(f, &edits[f]))
                })
                .collect();
            commit(&mut stream, k, changed, "main");
        }
        stream.push_str("reset refs/heads/feature\nfrom refs/heads/main\n");
        let changed: Vec<(usize, String)> = (0..files)
            .map(|f| {
                let mut e = edits[f].clone();
                e.extend([(20, 9999), (100, 9999), (180, 9999)]);
                (f, body(f, &e))
            })
            .collect();
        commit(&mut stream, history + 1, changed, "feature");
        let mut child = Command::new("git")
            .args(["fast-import", "--quiet"])
            .current_dir(p)
            .envs(common::env())
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stream.as_bytes()).unwrap();
        assert!(child.wait().unwrap().success());
        common::git(p, &["repack", "-adq"]);
        let ws = Workspace::discover_in(p).unwrap();
        let repo = ws.repo().unwrap();
        let base = repo.rev_parse("main").unwrap();
        let tip = repo.rev_parse("feature").unwrap();
        let t = Instant::now();
        let changes = ChangeSet::analyse(repo, base, tip).unwrap();
        let analyse = t.elapsed();
        let t = Instant::now();
        coupling::read(repo, &changes, coupling::HISTORY).unwrap();
        let coupling_time = t.elapsed();
        let mut best = f64::MAX;
        let mut known = 0;
        for _ in 0..3 {
            let t = Instant::now();
            let h = line_history::read(repo, &changes, coupling::HISTORY).unwrap();
            best = best.min(t.elapsed().as_secs_f64());
            known = h.items.iter().filter(|v| !v.is_empty()).count();
        }
        println!(
            "files {files:>5} history {history:>5} items {:>5} (known {known:>5}): analyse {:>8.1} ms, coupling {:>8.1} ms, line history {:>8.1} ms",
            changes.items.len(),
            analyse.as_secs_f64() * 1e3,
            coupling_time.as_secs_f64() * 1e3,
            best * 1e3
        );
    }
}
