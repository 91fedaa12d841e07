//! Where the eval's cases come from: the source repositories (generated,
//! this project, the mirrors) and their runs of commits, squashed and
//! analysed as the planner and the truth see them.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use ultraplan::git::{BranchCommit, Oid, Workspace};
use ultraplan::historian::analyse::coupling::{self, Coupling};
use ultraplan::historian::analyse::items::ChangeSet;
use ultraplan::historian::analyse::provenance;
use ultraplan::historian::plan::context::{Context, Tuning};
use ultraplan::historian::plan::{affinity, count, units};

use super::common;

pub const MOST_FILES: usize = 25;
pub const MOST_LINES: usize = 600;

pub struct Source {
    pub name: String,
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

pub fn sources(generated: &Path) -> Vec<Source> {
    let mut out = vec![Source {
        name: "generated".into(),
        git_dir: generated.join(".git"),
    }];
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let own = Command::new("git")
        .args(["rev-parse", "--path-format=absolute", "--git-common-dir"])
        .current_dir(manifest)
        .output();
    if let Ok(own) = own {
        if own.status.success() {
            out.push(Source {
                name: "this project".into(),
                git_dir: PathBuf::from(String::from_utf8_lossy(&own.stdout).trim()),
            });
        }
    }
    let mirror = std::env::var_os("HISTORIAN_EVAL_MIRROR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/.mirror"));
    if let Ok(entries) = std::fs::read_dir(&mirror) {
        let mut found: Vec<Source> = entries
            .flatten()
            .filter_map(|e| {
                let dir = e.path();
                let git_dir = [dir.join("repo"), dir.join(".git"), dir.clone()]
                    .into_iter()
                    .find(|d| d.join("objects").is_dir())?;
                Some(Source {
                    name: e.file_name().to_string_lossy().replace('+', "/"),
                    git_dir,
                })
            })
            .collect();
        found.sort_by(|a, b| a.name.cmp(&b.name));
        out.extend(found);
    }
    if let Ok(list) = std::env::var("HISTORIAN_EVAL_REPOS") {
        for dir in list.split(':').filter(|d| !d.is_empty()) {
            out.push(Source {
                name: dir.to_owned(),
                git_dir: PathBuf::from(dir),
            });
        }
    }
    out
}

/// Linear chains of non-merge commits, newest chains first, each oldest first.
pub fn chains(git_dir: &Path) -> Vec<Vec<(Oid, Oid)>> {
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
        self.next() % n
    }
}

/// One squashed run, analysed.
pub struct Segment {
    pub changes: ChangeSet,
    /// Provenance in the squashed commits (what the planner sees).
    pub seen: provenance::Provenance,
    pub squashed: Vec<BranchCommit>,
    /// Provenance in the original commits (the truth).
    pub truth: provenance::Provenance,
    pub originals: Vec<BranchCommit>,
    /// The squashed commit each original went into.
    pub squash_of: Vec<usize>,
    pub coupling: Coupling,
}

/// Squashed runs of one source repository.
pub fn segments(
    source: &Source,
    scratch_root: &Path,
    tuning: &Tuning,
    segments: usize,
    length: usize,
) -> Option<Vec<Segment>> {
    if !source.git_dir.join("objects").is_dir() {
        return None;
    }
    // A scratch repository borrowing the source's objects: squashed commits
    // are written there, never into the source.
    let scratch = scratch_root.join(source.name.replace('/', "_"));
    common::git(scratch_root, &["init", "-q", "--bare", scratch.to_str()?]);
    let objects = std::fs::canonicalize(source.git_dir.join("objects")).ok()?;
    std::fs::write(
        scratch.join("objects/info/alternates"),
        format!("{}\n", objects.display()),
    )
    .ok()?;
    let workspace = Workspace::discover_in(&scratch).ok()?;
    let repo = workspace.repo().ok()?;

    // Commits small enough to be someone's unit of work.
    let mut runs: Vec<Vec<(Oid, Oid)>> = Vec::new();
    for chain in chains(&source.git_dir) {
        let mut current: Vec<(Oid, Oid)> = Vec::new();
        for (parent, commit) in chain {
            let ok = ChangeSet::analyse(repo, parent, commit).ok().is_some_and(|c| {
                let lines: usize = c.items.iter().map(|i| i.lines).sum();
                !c.files.is_empty() && c.files.len() <= MOST_FILES && lines <= MOST_LINES && lines > 0
            });
            if ok {
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
    // Spread the segments over what was found.
    let step = (runs.len() / segments.max(1)).max(1);
    let mut out = Vec::new();
    let mut random = Lcg(0x5eed ^ source.name.len() as u64);
    for run in runs.iter().step_by(step).take(segments) {
        let base = run[0].0;
        let originals: Vec<BranchCommit> = run
            .iter()
            .map(|(_, c)| repo.branch_commit(*c).expect("commit"))
            .collect();
        // Squash into runs of 2 or 3.
        let mut squashed: Vec<BranchCommit> = Vec::new();
        let mut squash_of: Vec<usize> = Vec::new();
        let mut parent = base;
        let mut at = 0;
        while at < originals.len() {
            let mut take = 2 + random.below(2) as usize;
            if originals.len() - at - take.min(originals.len() - at) == 1 {
                take += 1;
            }
            let take = take.min(originals.len() - at);
            let part = &originals[at..at + take];
            let message = part
                .iter()
                .map(|c| c.message.trim_end())
                .collect::<Vec<_>>()
                .join("\n\n")
                + "\n";
            let last = part.last().expect("a commit");
            let id = repo
                .write_commit_as(last.tree, &[parent], &message, &part[0].author)
                .expect("write squashed commit");
            squash_of.extend(std::iter::repeat_n(squashed.len(), take));
            squashed.push(repo.branch_commit(id).expect("read squashed commit"));
            parent = id;
            at += take;
        }
        let changes = ChangeSet::analyse(repo, base, parent).expect("analyse");
        if changes.items.is_empty() {
            continue;
        }
        let truth = provenance::trace(repo, &changes, &originals).expect("trace originals");
        let seen = provenance::trace(repo, &changes, &squashed).expect("trace squashed");
        let coupling = coupling::read(repo, &changes, tuning.coupling_history).expect("coupling");
        if std::env::var_os("HISTORIAN_EVAL_ORACLE_LABELS").is_some() {
            oracle_labels(&changes, &truth, &originals, &squash_of, &mut squashed);
        }
        if std::env::var_os("HISTORIAN_EVAL_ORACLE_COUNT").is_some() {
            oracle_count(&truth, &originals, &squash_of, &mut squashed);
        }
        out.push(Segment {
            changes,
            seen,
            squashed,
            truth,
            originals,
            squash_of,
            coupling,
        });
    }
    Some(out)
}

/// Study only (`HISTORIAN_EVAL_ORACLE_LABELS`): each squashed message
/// rewritten so that under every subject a line (`Touches …`, read as its
/// body) names the words of the paths and definitions of the items its
/// original commit wrote most of and no other original of the squash did:
/// how far the planner would go were files matched to subjects right.
fn oracle_labels(
    changes: &ChangeSet,
    truth: &provenance::Provenance,
    originals: &[BranchCommit],
    squash_of: &[usize],
    squashed: &mut [BranchCommit],
) {
    let mut own: Vec<std::collections::BTreeSet<String>> = vec![Default::default(); originals.len()];
    for (i, origins) in truth.items.iter().enumerate() {
        if let Some(&(j, _)) = origins.iter().max_by_key(|(j, w)| (*w, std::cmp::Reverse(*j))) {
            own[j].extend(ultraplan::historian::plan::count::words(changes.path(i)));
            for name in &changes.items[i].symbols.defined {
                own[j].extend(ultraplan::historian::plan::count::words(name));
            }
        }
    }
    let all = own.clone();
    for (j, mine) in own.iter_mut().enumerate() {
        for (k, theirs) in all.iter().enumerate() {
            if k != j && squash_of[k] == squash_of[j] {
                mine.retain(|w| !theirs.contains(w));
            }
        }
    }
    for (u, commit) in squashed.iter_mut().enumerate() {
        let message: Vec<String> = (0..originals.len())
            .filter(|&j| squash_of[j] == u)
            .map(|j| {
                let words: Vec<&str> = own[j].iter().map(String::as_str).collect();
                let message = originals[j].message.trim_end();
                let (subject, rest) = message.split_once('\n').unwrap_or((message, ""));
                format!("{subject}\n\nTouches {}.\n{rest}", words.join(" "))
                    .trim_end()
                    .to_owned()
            })
            .collect();
        commit.message = message.join("\n\n") + "\n";
    }
}

/// Study only (`HISTORIAN_EVAL_ORACLE_COUNT`): each squashed message
/// rewritten as the subjects of the original commits writing most of some
/// item of it, one paragraph each: how far the planner would go were the
/// number of commits read right.
fn oracle_count(
    truth: &provenance::Provenance,
    originals: &[BranchCommit],
    squash_of: &[usize],
    squashed: &mut [BranchCommit],
) {
    let mut writes = vec![false; originals.len()];
    for origins in &truth.items {
        if let Some(&(j, _)) = origins.iter().max_by_key(|(j, w)| (*w, std::cmp::Reverse(*j))) {
            writes[j] = true;
        }
    }
    for (u, commit) in squashed.iter_mut().enumerate() {
        let subjects: Vec<&str> = (0..originals.len())
            .filter(|&j| squash_of[j] == u && writes[j])
            .map(|j| originals[j].message.lines().next().unwrap_or("").trim())
            .collect();
        if !subjects.is_empty() {
            commit.message = subjects.join("\n\n") + "\n";
        }
    }
}

/// One squashed commit of a segment, as the studies read it: the planner's
/// context, the unit's files, the words the parts use and the subjects its
/// message names.
pub struct Unit<'a, 's> {
    pub segment: usize,
    pub seg: &'s Segment,
    pub ctx: &'a Context<'s>,
    pub unit: usize,
    pub files: &'a std::collections::BTreeMap<usize, Vec<usize>>,
    pub words: &'a affinity::Words,
    pub commit: &'s BranchCommit,
    pub named: Vec<&'s str>,
    /// The original commits squashed into it.
    pub originals: Vec<usize>,
}

/// Calls `visit` with every squashed commit of `segments`.
pub fn each_unit(segments: &[Segment], tuning: &Tuning, mut visit: impl FnMut(Unit<'_, '_>)) {
    for (segment, seg) in segments.iter().enumerate() {
        let ctx = Context::new(&seg.changes, &seg.seen, &seg.squashed, seg.coupling.clone());
        let words = affinity::Words::new(&seg.changes, tuning.common_name_share).with_history(&seg.coupling);
        for (&unit, files) in &units::unit_files(&ctx) {
            let Some(commit) = seg.squashed.get(unit) else {
                continue;
            };
            visit(Unit {
                segment,
                seg,
                ctx: &ctx,
                unit,
                files,
                words: &words,
                commit,
                named: count::subjects_read(&commit.message, tuning.reading),
                originals: (0..seg.originals.len()).filter(|&j| seg.squash_of[j] == unit).collect(),
            });
        }
    }
}
