//! `git historian clean` against a batched plain-git script that builds a
//! clean branch by hand, in one run (issue 15, item 4), and how clean's
//! time grows with the branch and with the repository.
//!
//! A repository of `files` files (100 per directory) has a branch of
//! `commits` commits, each editing ten files of one directory (a line
//! changed, a line added), every file at most once: 200 commits touch
//! 2,000 files. `git historian clean` rewrites it (analyse, plan, build
//! every commit in memory, write them as one pack, check the tree, create
//! the branch). The plain-git script does what a person or an agent would
//! do with the same goal: check out a new branch at the base, then for each
//! of 20 groups of the changed files (in path order) one
//! `git checkout <tip> -- <files>` and one `git commit` (no file is deleted
//! here, so no `git rm`). Both sides start from copies of one template (the
//! working tree hard-linked, the index refreshed, `.git` copied) and run as
//! alternating pairs (common's module docs), with the maximum resident set
//! of each historian run read from its own `wait4`.
//!
//! The files the branch changes hold C source (five small functions each;
//! a commit changes one and adds one calling it), added on main first. In
//! `.c` files clean parses them with tree-sitter; the second shape names
//! the same texts `.txt`, which clean reads as words: the difference
//! between the two is the parser's cost. The shapes: 20,000 files and 200 commits (the
//! comparison of the issue, 5 pairs), the same with text (3 pairs), then
//! 50 and 800 commits over 20,000 files and 200 commits over 100,000 files
//! (3 pairs each). `HISTORIAN_SPEED_SHAPES=1` runs only the first two; `HISTORIAN_SPEED_BIN=<path>` measures another build of
//! `git-historian` (an older one, for a before-and-after).
//!
//! Run with `cargo bench --bench historian_speed`.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{env, machine, median, repository_of, sampled, Pairs, Sample};

const FILES_PER_COMMIT: usize = 10;
const GROUPS: usize = 20;

/// One repository and branch to measure.
#[derive(Clone, Copy)]
struct Shape {
    files: usize,
    commits: usize,
    pairs: usize,
    /// Whether the files the branch changes are C source, which clean
    /// parses, or text, which it reads as words: the difference is the
    /// parser's cost.
    source: bool,
}

const fn shape(files: usize, commits: usize, pairs: usize, source: bool) -> Shape {
    Shape {
        files,
        commits,
        pairs,
        source,
    }
}

const SHAPES: [Shape; 5] = [
    shape(20_000, 200, 5, true),
    shape(20_000, 200, 3, false),
    shape(20_000, 50, 3, true),
    shape(20_000, 800, 3, true),
    shape(100_000, 200, 3, true),
];

/// A changed file's path and its text before and after commit `k`: C
/// source, in a `.c` file or (to measure without the parser) a `.txt`.
fn changed_file(shape: Shape, d: usize, f: usize, k: usize) -> (String, String, String) {
    let function = |n: usize, body: &str| format!("int f_{d}_{f}_{n}(int x)\n{{\n\treturn {body};\n}}\n\n");
    let before: String = (0..5).map(|n| function(n, &format!("x + {n}"))).collect();
    let mut after: String = std::iter::once(function(0, "x * 2"))
        .chain((1..5).map(|n| function(n, &format!("x + {n}"))))
        .collect();
    after.push_str(&format!("int added_{k}(void)\n{{\n\treturn f_{d}_{f}_0(1);\n}}\n"));
    let extension = if shape.source { "c" } else { "txt" };
    (format!("src/d{d:03}/g{f:02}.{extension}"), before, after)
}

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

/// The template: `files` files on `main`, and `feature` with `commits`
/// commits made with fast-import. Commit `k` edits ten files of directory
/// `k mod D` (D directories), the next ten of it each time round, so no file
/// is edited twice.
fn template(root: &Path, shape: Shape) -> PathBuf {
    let repo = root.join(format!("template-{}-{}-{}", shape.files, shape.commits, shape.source));
    repository_of(&repo, shape.files);
    let dirs = shape.files / 100;
    assert!(
        shape.commits.div_ceil(dirs) * FILES_PER_COMMIT <= 100,
        "too many commits for the files"
    );
    let mut stream = String::new();
    let touched = |k: usize| {
        let d = k % dirs;
        (0..FILES_PER_COMMIT).map(move |j| (d, (k / dirs) * FILES_PER_COMMIT + j))
    };
    {
        // The files the branch changes, added on main first.
        let message = "add the sources\n";
        stream.push_str(&format!(
            "commit refs/heads/main\nmark :1\ncommitter Bench <bench@example.com> 1699999000 +0000\ndata {}\n{message}from refs/heads/main^0\n",
            message.len()
        ));
        for k in 0..shape.commits {
            for (d, f) in touched(k) {
                let (path, before, _) = changed_file(shape, d, f, k);
                stream.push_str(&format!("M 100644 inline {path}\ndata {}\n{before}\n", before.len()));
            }
        }
    }
    for k in 0..shape.commits {
        let message = format!("change module d{:03}\n", k % dirs);
        // The first commit starts from main as it is once the sources are
        // on it (`:1`: fast-import reads `refs/heads/main^0` from the
        // repository, where the sources are not yet); the others follow it.
        let from = if k == 0 { "from :1\n" } else { "" };
        stream.push_str(&format!(
            "commit refs/heads/feature\ncommitter Bench <bench@example.com> {} +0000\ndata {}\n{message}{from}",
            1_700_000_000 + k * 60,
            message.len()
        ));
        for (d, f) in touched(k) {
            let (path, _, contents) = changed_file(shape, d, f, k);
            stream.push_str(&format!(
                "M 100644 inline {path}\ndata {}\n{contents}\n",
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
        shape.commits.to_string()
    );
    repo
}

/// A copy of `template` to run on: `.git` copied, the working tree's files
/// hard-linked (git replaces a file it checks out, never writes into it),
/// and the index refreshed, since linking a file changes its ctime.
fn copy(template: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("copy");
    for entry in std::fs::read_dir(template).expect("template") {
        let from = entry.expect("entry").path();
        let flag = if from.file_name().is_some_and(|n| n == ".git") {
            "-a"
        } else {
            "-al"
        };
        let status = Command::new("cp").arg(flag).arg(&from).arg(to).status().expect("cp");
        assert!(status.success());
    }
    common::git(to, &["update-index", "-q", "--really-refresh"]);
}

/// One `git historian clean`, as a user who takes the first option of
/// every QUESTION runs it (`resume --answer 1` until the branch is made):
/// the time of all of them, the clean branch, and the largest resident set
/// of any of them in KiB.
fn historian(repo: &Path, out: &Path) -> (Sample, String, i64) {
    let bin = std::env::var("HISTORIAN_SPEED_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_git-historian").to_owned());
    let mut args: Vec<&str> = vec!["-q", "clean", "feature", "--base", "main", "--json"];
    let mut total = Sample::default();
    let mut largest = 0;
    loop {
        let stdout = std::fs::File::create(out).expect("output file");
        let (elapsed, (status, max_rss)) = sampled(|| {
            // Reaped by the wait4 below, which also gives this child's own rusage.
            #[allow(clippy::zombie_processes)]
            let child = Command::new(&bin)
                .args(&args)
                .current_dir(repo)
                .envs(env())
                .stdout(stdout)
                .spawn()
                .expect("git-historian runs");
            let mut status = 0;
            // SAFETY: zeroed is a valid rusage for wait4 to fill.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: the pid is our own child, not yet waited for; the pointers live for the call.
            let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
            assert_eq!(pid, child.id() as libc::pid_t, "wait4");
            (status, usage.ru_maxrss)
        });
        total.wall += elapsed.wall;
        total.cpu += elapsed.cpu;
        largest = largest.max(max_rss);
        let text = std::fs::read_to_string(out).expect("output");
        let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
        match code {
            Some(0) => {
                let json: serde_json::Value = serde_json::from_str(&text).expect("json");
                let branch = json["clean_branch"].as_str().expect("branch").to_owned();
                return (total, branch, largest);
            }
            // A QUESTION: the first option, as a user accepting the plan.
            Some(3) => args = vec!["-q", "resume", "--answer", "1", "--json"],
            _ => panic!("git historian {args:?} ended with {status}: {text}"),
        }
    }
}

/// The changed files in path order, cut into `GROUPS` lists.
fn groups(repo: &Path) -> Vec<Vec<String>> {
    let files: Vec<String> = output(repo, &["diff", "--name-only", "main", "feature"])
        .lines()
        .map(str::to_owned)
        .collect();
    files
        .chunks(files.len().div_ceil(GROUPS))
        .map(<[String]>::to_vec)
        .collect()
}

fn script(repo: &Path, groups: &[Vec<String>], file: &Path) -> Sample {
    let mut body = String::from("set -e\ngit checkout -q -b scripted main\n");
    for (n, files) in groups.iter().enumerate() {
        body.push_str(&format!(
            "git checkout -q feature -- {}\ngit commit -q -m 'group {}'\n",
            files.join(" "),
            n + 1
        ));
    }
    // A file, not `bash -c`: 8,000 paths are more than one argument may hold.
    std::fs::write(file, body).expect("script");
    let (elapsed, status) = sampled(|| {
        Command::new("bash")
            .arg(file)
            .current_dir(repo)
            .envs(env())
            .status()
            .expect("bash runs")
    });
    assert!(status.success());
    elapsed
}

/// What one shape measured.
struct Measured {
    shape: Shape,
    pairs: Pairs,
    built: usize,
    max_rss: Vec<i64>,
}

fn measure(root: &Path, shape: Shape) -> Measured {
    let template = template(root, shape);
    let groups = groups(&template);
    let mut pairs = Pairs::default();
    let mut built = 0;
    let mut max_rss = Vec::new();
    for round in 0..shape.pairs {
        let a = root.join(format!("h-{}-{}-{round}", shape.files, shape.commits));
        copy(&template, &a);
        let (ours, clean, rss) = historian(&a, &root.join("historian.json"));
        max_rss.push(rss);
        assert_eq!(
            output(&a, &["rev-parse", &format!("{clean}^{{tree}}")]),
            output(&a, &["rev-parse", "feature^{tree}"]),
            "the clean branch has the original tree"
        );
        built = output(&a, &["rev-list", "--count", &format!("main..{clean}")])
            .trim()
            .parse()
            .expect("count");
        let b = root.join(format!("s-{}-{}-{round}", shape.files, shape.commits));
        copy(&template, &b);
        pairs.push(ours, script(&b, &groups, &root.join("script.sh")));
        assert_eq!(
            output(&b, &["rev-parse", "scripted^{tree}"]),
            output(&b, &["rev-parse", "feature^{tree}"]),
            "the script built the same tree"
        );
        for dir in [a, b] {
            std::fs::remove_dir_all(dir).expect("clean up");
        }
    }
    std::fs::remove_dir_all(template).expect("clean up");
    Measured {
        shape,
        pairs,
        built,
        max_rss,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Median and range of `of` over the samples, in ms.
fn spread(samples: &[Sample], of: fn(&Sample) -> Duration) -> String {
    let all: Vec<Duration> = samples.iter().map(of).collect();
    let (lo, hi) = (all.iter().min().expect("samples"), all.iter().max().expect("samples"));
    format!("{:.0} ms ({:.0}-{:.0})", ms(median(all.clone())), ms(*lo), ms(*hi))
}

fn main() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path();
    let only_first = std::env::var("HISTORIAN_SPEED_SHAPES").is_ok_and(|v| v.trim() == "1");
    let shapes = if only_first { &SHAPES[..2] } else { &SHAPES[..] };
    println!("historian_speed: {}", machine());
    let mut all = Vec::new();
    for &shape in shapes {
        let m = measure(root, shape);
        println!(
            "{} files, a branch of {} commits touching {} {} files, {} commits built, {} groups in the script, {} alternating pairs",
            shape.files,
            shape.commits,
            shape.commits * FILES_PER_COMMIT,
            if shape.source { "C" } else { "text" },
            m.built,
            GROUPS,
            shape.pairs
        );
        println!("{}", m.pairs.report("git historian clean", "plain git script"));
        let (w, lo, hi) = m.pairs.ratio(|s| s.wall);
        println!(
            "  historian is {:.1}x faster (wall; {:.1}-{:.1}); max RSS {} KiB",
            1.0 / w,
            1.0 / hi,
            1.0 / lo,
            m.max_rss.iter().max().expect("runs")
        );
        all.push(m);
    }
    println!("\n| files | commits | files touched | historian wall | historian cpu | script wall | faster (wall) | historian max RSS |");
    println!("|---|---|---|---|---|---|---|---|");
    for m in &all {
        let (w, lo, hi) = m.pairs.ratio(|s| s.wall);
        println!(
            "| {} | {} | {} {} | {} | {} | {} | {:.1}x ({:.1}-{:.1}) | {:.1} MiB |",
            m.shape.files,
            m.shape.commits,
            m.shape.commits * FILES_PER_COMMIT,
            if m.shape.source { "C" } else { "text" },
            spread(&m.pairs.ours, |s| s.wall),
            spread(&m.pairs.ours, |s| s.cpu),
            spread(&m.pairs.theirs, |s| s.wall),
            1.0 / w,
            1.0 / hi,
            1.0 / lo,
            *m.max_rss.iter().max().expect("runs") as f64 / 1024.0
        );
    }
}
