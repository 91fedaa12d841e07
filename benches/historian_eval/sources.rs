//! Where the eval's cases come from: the repositories (a generated one, and
//! the public ones of [`REPOSITORIES`] mirrored under `/work/.mirror`), their
//! runs of small consecutive commits cut into groups of 2–3, and each group
//! rebuilt as the branch of one regime ([`Regime`]) and analysed as the
//! planner and the truth see it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use ultraplan::git::{BranchCommit, Oid, Repo, Workspace};
use ultraplan::historian::analyse::coupling::Coupling;
use ultraplan::historian::analyse::items::ChangeSet;
use ultraplan::historian::analyse::line_history;

/// Time spent reading the line history of every case (`line_history::read`).
pub static LINE_HISTORY_NANOS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
use ultraplan::historian::analyse::provenance::{self, Provenance};
use ultraplan::historian::execute::build::Builder;

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

/// How a group of original commits reaches the planner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Regime {
    /// Squashed into one commit with one neutral message: a tangled commit.
    Neutral,
    /// Rebuilt as 3–8 `wip`/`fix`/`more` commits whose hunks interleave the
    /// originals (some of A, then of B, then the rest of A).
    Messy,
    /// Squashed into one commit keeping the messages joined, as `git rebase
    /// -i` joins them.
    Joined,
    /// The originals themselves (their trees, messages and authors; the tip
    /// is the last): a branch that is already clean, where the best plan
    /// keeps it as it is (`HISTORIAN_EVAL_REGIMES=clean`).
    Clean,
    /// The originals as a clean branch, but the first two squashed into
    /// one commit under the first's message (a commit that says one thing
    /// and holds two; with two originals, the whole branch): what trusting
    /// the author's commits can cost (`HISTORIAN_EVAL_REGIMES=tangled`).
    Tangled,
}

pub const REGIMES: [Regime; 5] = [
    Regime::Neutral,
    Regime::Messy,
    Regime::Joined,
    Regime::Clean,
    Regime::Tangled,
];

impl Regime {
    pub fn label(self) -> &'static str {
        match self {
            Regime::Neutral => "neutral squash",
            Regime::Messy => "messy branch",
            Regime::Joined => "joined messages",
            Regime::Clean => "clean branch",
            Regime::Tangled => "tangled first commit",
        }
    }
}

/// The neutral message of a tangled commit: says nothing of its work.
pub const NEUTRAL: &str = "Update\n";
/// The messages of a messy branch's commits.
const MESSY: [&str; 6] = ["wip", "fix", "more", "wip", "more work", "fixes"];

/// Consecutive original commits that become one case.
pub struct Group {
    pub base: Oid,
    pub originals: Vec<BranchCommit>,
    /// The history behind the run's base (for change coupling).
    pub history: std::sync::Arc<History>,
}

/// The commits behind a run's base: subjects and the paths each touched,
/// newest first.
#[derive(Default)]
pub struct History {
    pub commits: Vec<(String, Vec<String>)>,
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
                "--format=%x00%s",
                "--name-only",
                &format!("-n{HISTORY}"),
                &base.to_string(),
            ],
        );
        let mut commits = Vec::new();
        for record in text.split('\0').skip(1) {
            let mut lines = record.lines();
            let subject = lines.next().unwrap_or("").to_owned();
            let paths: Vec<String> = lines.filter(|l| !l.is_empty()).map(str::to_owned).collect();
            commits.push((subject, paths));
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
            subjects: Vec::new(),
            commits: vec![Vec::new(); changes.files.len()],
            lines: Default::default(),
        };
        if changes.files.len() < 2 {
            return coupling;
        }
        for (subject, paths) in &self.commits {
            let at = coupling.subjects.len() as u32;
            coupling.subjects.push(subject.clone());
            // A sweeping commit couples nothing (`coupling::SWEEPING`).
            if paths.len() > SWEEPING {
                continue;
            }
            let mut files: Vec<usize> = paths.iter().filter_map(|p| index.get(p.as_str()).copied()).collect();
            files.sort_unstable();
            files.dedup();
            for (n, &a) in files.iter().enumerate() {
                coupling.touched[a] += 1;
                coupling.commits[a].push(at);
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

/// `group` rebuilt as `regime`'s branch; `None` when it cannot be rebuilt
/// (a path that is a file at one step and a directory at another).
pub fn case(repo: &Repo, group: &Group, prepared: &Prepared, regime: Regime, seed: u64) -> Option<Case> {
    let last = group.originals.last()?;
    if regime == Regime::Clean {
        // The originals as they are: nothing to write, their provenance is
        // the truth's.
        return Some(Case {
            changes: prepared.changes.clone(),
            branch: group.originals.clone(),
            seen: prepared.truth.clone(),
            originals: group.originals.clone(),
            truth: prepared.truth.clone(),
            coupling: prepared.coupling.clone(),
        });
    }
    let author = &group.originals[0].author;
    let tip = match regime {
        Regime::Neutral => repo.write_commit_as(last.tree, &[group.base], NEUTRAL, author).ok()?,
        Regime::Joined => {
            let message = group
                .originals
                .iter()
                .map(|c| c.message.trim_end())
                .collect::<Vec<_>>()
                .join("\n\n")
                + "\n";
            repo.write_commit_as(last.tree, &[group.base], &message, author).ok()?
        }
        Regime::Messy => messy(repo, &prepared.changes, &prepared.truth, group, seed)?,
        Regime::Clean => last.id,
        Regime::Tangled => {
            let first = &group.originals[0];
            let second = &group.originals[1];
            let a = repo
                .write_commit_as(second.tree, &[group.base], &first.message, &first.author)
                .ok()?;
            match group.originals.get(2) {
                Some(third) => repo
                    .write_commit_as(third.tree, &[a], &third.message, &third.author)
                    .ok()?,
                None => a,
            }
        }
    };
    let branch = repo.branch_commits(group.base, tip).ok()?;
    // The branch ends in the originals' tree: the same items.
    let mut changes = prepared.changes.clone();
    changes.tip = tip;
    let seen = provenance::trace(repo, &changes, &branch).ok()?;
    Some(Case {
        changes,
        branch,
        seen,
        originals: group.originals.clone(),
        truth: prepared.truth.clone(),
        coupling: prepared.coupling.clone(),
    })
}

/// The messy branch of a group: its items, each given to the original that
/// wrote most of it, cut per original into 1–3 chunks (a start, more, a fix
/// to it later) so that there are 3–8 in all where the items allow, the
/// chunks interleaved at random keeping each original's in order, one
/// `wip`-like commit per chunk, and one commit in four or so also taking the
/// next chunk of another original (work on two things committed at once).
fn messy(repo: &Repo, changes: &ChangeSet, truth: &Provenance, group: &Group, seed: u64) -> Option<Oid> {
    let mut random = Lcg(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut by_original: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..changes.items.len() {
        by_original.entry(truth.primary(i).unwrap_or(0)).or_default().push(i);
    }
    let items = changes.items.len();
    let wanted = (3 + random.below(6) as usize).min(items);
    // Chunks per original: one each, then more to the larger ones at random.
    let mut chunks: BTreeMap<usize, usize> = by_original.keys().map(|&o| (o, 1)).collect();
    let mut total: usize = chunks.len();
    let mut guard = 0;
    while total < wanted && guard < 64 {
        guard += 1;
        let keys: Vec<usize> = by_original
            .iter()
            .filter(|(o, list)| chunks[o] < 3 && chunks[o] < list.len())
            .map(|(o, _)| *o)
            .collect();
        if keys.is_empty() {
            break;
        }
        let o = keys[random.below(keys.len() as u64) as usize];
        *chunks.get_mut(&o).expect("an original") += 1;
        total += 1;
    }
    // Each original's items in chunks (in path order, cut at random places).
    let mut queues: Vec<std::collections::VecDeque<Vec<usize>>> = Vec::new();
    for (o, list) in &by_original {
        let n = chunks[o];
        let mut cuts: BTreeSet<usize> = BTreeSet::new();
        while cuts.len() + 1 < n {
            cuts.insert(1 + random.below((list.len() - 1) as u64) as usize);
        }
        let mut queue = std::collections::VecDeque::new();
        let mut start = 0;
        for &cut in cuts.iter().chain(std::iter::once(&list.len())) {
            queue.push_back(list[start..cut].to_vec());
            start = cut;
        }
        queues.push(queue);
    }
    let mut builder = Builder::new(repo, changes);
    let author = &group.originals[0].author;
    let mut tip = group.base;
    loop {
        let open: Vec<usize> = (0..queues.len()).filter(|&q| !queues[q].is_empty()).collect();
        if open.is_empty() {
            break;
        }
        let q = open[random.below(open.len() as u64) as usize];
        let mut chunk = queues[q].pop_front().expect("an open queue");
        // Now and then a commit carries work of two originals: the end of
        // one and the start of another, committed together.
        let others: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&o| o != q && !queues[o].is_empty())
            .collect();
        if !others.is_empty() && random.below(4) == 0 {
            let o = others[random.below(others.len() as u64) as usize];
            chunk.extend(queues[o].pop_front().expect("an open queue"));
            chunk.sort_unstable();
        }
        let prepared = builder.prepare(&chunk).ok()?;
        let message = format!("{}\n", MESSY[random.below(MESSY.len() as u64) as usize]);
        tip = builder.commit(prepared, &message, author).ok()?;
    }
    Some(tip)
}
