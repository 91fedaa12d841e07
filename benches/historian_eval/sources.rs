//! Where the eval's cases come from: the repositories (a generated one, and
//! the public ones of [`REPOSITORIES`] mirrored under `/work/.mirror`), their
//! runs of small consecutive commits cut into groups of 2–3, each group
//! analysed once as the truth sees it ([`prepare`]); `regimes` rebuilds it
//! as each regime's branch.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use ultraplan::git::{BranchCommit, Oid, Repo, Workspace};
use ultraplan::historian::analyse::coupling::Coupling;
use ultraplan::historian::analyse::items::ChangeSet;
use ultraplan::historian::analyse::line_history;

/// Time spent reading the line history of every case (`line_history::read`).
pub static LINE_HISTORY_NANOS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
use ultraplan::historian::analyse::provenance::{self, Provenance};

use super::common;

/// A commit is someone's unit of work when it changes at most this many
/// files and lines (no vendored code, no mass reformatting).
pub const MOST_FILES: usize = 25;
pub const MOST_LINES: usize = 600;
/// How many commits behind a run's base are read for change coupling, and
/// how many files a commit may touch and still count (as the library reads
/// them, `analyse::coupling`).
const HISTORY: usize = ultraplan::historian::analyse::coupling::HISTORY;
const SWEEPING: usize = 40;

/// A public repository of the evaluation and its half. The halves were
/// fixed before any tuning on the regimes: one repository of each language
/// that has two (two of JavaScript/TypeScript's four) is held out, and the
/// planner is tuned on the others only.
pub struct Repository {
    pub name: &'static str,
    pub language: &'static str,
    pub held_out: bool,
}

const fn repository(name: &'static str, language: &'static str, held_out: bool) -> Repository {
    Repository {
        name,
        language,
        held_out,
    }
}

pub const REPOSITORIES: [Repository; 24] = [
    repository("jqlang/jq", "C", false),
    repository("salewski/mandoc-mirror", "C", false),
    repository("OpenSMTPD/OpenSMTPD", "C", false),
    repository("tmux/tmux", "C", true),
    repository("fmtlib/fmt", "C++", false),
    repository("gabime/spdlog", "C++", true),
    repository("JamesNK/Newtonsoft.Json", "C#", true),
    repository("spf13/cobra", "Go", false),
    repository("junegunn/fzf", "Go", true),
    repository("google/gson", "Java", false),
    repository("expressjs/express", "JavaScript", false),
    repository("gsd-build/get-shit-done", "JavaScript", false),
    repository("axios/axios", "JavaScript", true),
    repository("sindresorhus/ky", "TypeScript", true),
    repository("slimphp/Slim", "PHP", false),
    repository("guzzle/guzzle", "PHP", true),
    repository("psf/requests", "Python", false),
    repository("pallets/flask", "Python", true),
    repository("rack/rack", "Ruby", false),
    repository("sinatra/sinatra", "Ruby", true),
    repository("BurntSushi/ripgrep", "Rust", false),
    repository("sharkdp/fd", "Rust", true),
    repository("bats-core/bats-core", "Shell", false),
    repository("nvm-sh/nvm", "Shell", true),
];

pub struct Source {
    pub name: String,
    pub language: String,
    /// `Some(true)` held out, `Some(false)` tuning, `None` for the
    /// generated history and repositories named in `HISTORIAN_EVAL_REPOS`.
    pub held_out: Option<bool>,
    pub git_dir: PathBuf,
}

pub fn git_out(git_dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(args)
        .envs(common::env())
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The generated history, then every repository of [`REPOSITORIES`] (found
/// or not: a missing one is reported), then `HISTORIAN_EVAL_REPOS`.
pub fn sources(generated: &Path) -> Vec<Source> {
    let mut out = vec![Source {
        name: "generated".into(),
        language: "Rust".into(),
        held_out: None,
        git_dir: generated.join(".git"),
    }];
    let mirror = std::env::var_os("HISTORIAN_EVAL_MIRROR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/.mirror"));
    for r in &REPOSITORIES {
        let dir = mirror.join(r.name.replace('/', "+"));
        let git_dir = [dir.join("repo"), dir.join(".git"), dir.clone()]
            .into_iter()
            .find(|d| d.join("objects").is_dir())
            .unwrap_or(dir);
        out.push(Source {
            name: r.name.into(),
            language: r.language.into(),
            held_out: Some(r.held_out),
            git_dir,
        });
    }
    if let Ok(list) = std::env::var("HISTORIAN_EVAL_REPOS") {
        for dir in list.split(':').filter(|d| !d.is_empty()) {
            out.push(Source {
                name: dir.to_owned(),
                language: "?".into(),
                held_out: None,
                git_dir: PathBuf::from(dir),
            });
        }
    }
    out
}

/// Linear chains of non-merge commits, newest chains first, each oldest first.
fn chains(git_dir: &Path) -> Vec<Vec<(Oid, Oid)>> {
    let text = git_out(git_dir, &["rev-list", "--parents", "HEAD"]);
    let mut parents: HashMap<Oid, Vec<Oid>> = HashMap::new();
    let mut order = Vec::new();
    for line in text.lines() {
        let ids: Vec<Oid> = line
            .split_whitespace()
            .map(|h| Oid::from_hex(h.as_bytes()).expect("hex"))
            .collect();
        order.push(ids[0]);
        parents.insert(ids[0], ids[1..].to_vec());
    }
    let mut used = BTreeSet::new();
    let mut out = Vec::new();
    for &start in &order {
        let mut chain = Vec::new();
        let mut at = start;
        while !used.contains(&at) {
            let Some(ps) = parents.get(&at) else { break };
            if ps.len() != 1 {
                break;
            }
            used.insert(at);
            chain.push((ps[0], at));
            at = ps[0];
        }
        chain.reverse();
        if chain.len() >= 4 {
            out.push(chain);
        }
    }
    out
}

/// A deterministic stream of numbers.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Consecutive original commits that become one case.
pub struct Group {
    pub base: Oid,
    pub originals: Vec<BranchCommit>,
    /// The history behind the run's base (for change coupling).
    pub history: std::sync::Arc<History>,
}

/// The commits behind a run's base: the paths each touched, newest first.
#[derive(Default)]
pub struct History {
    pub commits: Vec<Vec<String>>,
}

impl History {
    fn read(git_dir: &Path, base: Oid) -> History {
        let text = git_out(
            git_dir,
            &[
                "log",
                "--first-parent",
                "--no-merges",
                "--no-renames",
                "--format=%x00",
                "--name-only",
                &format!("-n{HISTORY}"),
                &base.to_string(),
            ],
        );
        let mut commits = Vec::new();
        for record in text.split('\0').skip(1) {
            let paths: Vec<String> = record.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect();
            commits.push(paths);
        }
        History { commits }
    }

    /// The coupling of `changes`' files, as `analyse::coupling::read` would
    /// find it from the run's base.
    pub fn coupling(&self, changes: &ChangeSet) -> Coupling {
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (i, file) in changes.files.iter().enumerate() {
            index.insert(file.path.as_str(), i);
            if let Some(old) = file.old_path() {
                index.entry(old).or_insert(i);
            }
        }
        let mut coupling = Coupling {
            touched: vec![0; changes.files.len()],
            together: HashMap::new(),
            lines: Default::default(),
        };
        if changes.files.len() < 2 {
            return coupling;
        }
        for paths in &self.commits {
            // A sweeping commit couples nothing (`coupling::SWEEPING`).
            if paths.len() > SWEEPING {
                continue;
            }
            let mut files: Vec<usize> = paths.iter().filter_map(|p| index.get(p.as_str()).copied()).collect();
            files.sort_unstable();
            files.dedup();
            for (n, &a) in files.iter().enumerate() {
                coupling.touched[a] += 1;
                for &b in &files[n + 1..] {
                    *coupling.together.entry((a, b)).or_default() += 1;
                }
            }
        }
        coupling
    }
}

/// One group rebuilt for one regime, analysed.
pub struct Case {
    pub changes: ChangeSet,
    /// The branch the planner sees, and its provenance.
    pub branch: Vec<BranchCommit>,
    pub seen: Provenance,
    /// The original commits (the truth) and their provenance.
    pub originals: Vec<BranchCommit>,
    pub truth: Provenance,
    pub coupling: Coupling,
}

/// The scratch repository a source's cases are written into, borrowing the
/// source's objects: the source is only read.
pub fn scratch(source: &Source, scratch_root: &Path) -> Option<Workspace> {
    if !source.git_dir.join("objects").is_dir() {
        return None;
    }
    let scratch = scratch_root.join(source.name.replace('/', "_"));
    common::git(scratch_root, &["init", "-q", "--bare", scratch.to_str()?]);
    let objects = std::fs::canonicalize(source.git_dir.join("objects")).ok()?;
    std::fs::write(
        scratch.join("objects/info/alternates"),
        format!("{}\n", objects.display()),
    )
    .ok()?;
    Workspace::discover_in(&scratch).ok()
}

/// Whether a commit is small enough to be someone's unit of work: at most
/// [`MOST_FILES`] files and [`MOST_LINES`] changed lines (a commit whose
/// blobs the mirror lacks is not).
fn is_small(repo: &Repo, parent: Oid, commit: Oid) -> bool {
    let (Ok(old), Ok(new)) = (repo.commit_tree(parent), repo.commit_tree(commit)) else {
        return false;
    };
    repo.diff_stat(old, new)
        .is_ok_and(|(files, lines)| files > 0 && files <= MOST_FILES && lines > 0 && lines <= MOST_LINES)
}

/// Runs of `length` small consecutive commits (up to `segments`, spread
/// over the history), cut into groups of 2–3.
pub fn groups(source: &Source, repo: &Repo, segments: usize, length: usize) -> Vec<Group> {
    let mut runs: Vec<Vec<(Oid, Oid)>> = Vec::new();
    for chain in chains(&source.git_dir) {
        let mut current: Vec<(Oid, Oid)> = Vec::new();
        for (parent, commit) in chain {
            if is_small(repo, parent, commit) {
                current.push((parent, commit));
                if current.len() == length {
                    runs.push(std::mem::take(&mut current));
                }
            } else {
                current.clear();
            }
        }
        if runs.len() >= segments * 4 {
            break;
        }
    }
    let step = (runs.len() / segments.max(1)).max(1);
    let mut out = Vec::new();
    let mut random = Lcg(0x5eed ^ source.name.len() as u64);
    for run in runs.iter().step_by(step).take(segments) {
        let history = std::sync::Arc::new(History::read(&source.git_dir, run[0].0));
        let originals: Vec<BranchCommit> = run
            .iter()
            .map(|(_, c)| repo.branch_commit(*c).expect("commit"))
            .collect();
        let mut at = 0;
        while at < originals.len() {
            let mut take = 2 + random.below(2) as usize;
            if originals.len() - at - take.min(originals.len() - at) == 1 {
                take += 1;
            }
            let take = take.min(originals.len() - at);
            out.push(Group {
                base: run[at].0,
                originals: originals[at..at + take].to_vec(),
                history: history.clone(),
            });
            at += take;
        }
    }
    out
}

/// A group's change items, read once for every regime (each regime's
/// branch ends in the same tree), with the truth's provenance and coupling.
pub struct Prepared {
    pub changes: ChangeSet,
    pub truth: Provenance,
    pub coupling: Coupling,
}

/// `group` analysed; `None` when it changes nothing.
pub fn prepare(repo: &Repo, group: &Group) -> Option<Prepared> {
    let last = group.originals.last()?;
    let changes = ChangeSet::analyse(repo, group.base, last.id).ok()?;
    if changes.items.is_empty() {
        return None;
    }
    let truth = provenance::trace(repo, &changes, &group.originals).ok()?;
    let mut coupling = group.history.coupling(&changes);
    let started = std::time::Instant::now();
    coupling.lines = line_history::read(repo, &changes, HISTORY).ok()?;
    LINE_HISTORY_NANOS.fetch_add(
        started.elapsed().as_nanos() as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
    Some(Prepared {
        changes,
        truth,
        coupling,
    })
}
