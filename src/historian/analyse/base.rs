//! The base of a branch (DESIGN §10.1, step 2): where the clean branch
//! starts. `--base <rev>`, else `historian.base`, else the merge base with
//! the upstream's default branch — `<remote>/HEAD` (the branch's remote, or
//! `origin`), `<remote>/main`, `<remote>/master` — else with a local
//! `main` or `master`. No remote is needed. The base is always the merge
//! base of the named revision and the tip, so a base branch that moved on
//! since the branch forked still gives the fork point. When the upstream's
//! branch is found but the local branch of that name is ahead of it and the
//! branch forked from its unpushed commits, the local one is the base (and
//! the plan says why): those commits are not the branch's work.

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::git::{Oid, Repo};

/// How the base was found, so a resumed session can find it again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "from", content = "rev")]
pub enum BaseSource {
    /// `--base <rev>`.
    Option(String),
    /// `historian.base`.
    Config(String),
    /// Found among the usual names; the reference that matched.
    Detected(String),
    /// A local branch (`refs/heads/main`) holding commits its upstream
    /// (`refs/remotes/origin/main`, the candidate found first) has not got,
    /// from which the branch forked: the unpushed commits are not the
    /// branch's work.
    LocalAhead { local: String, upstream: String },
}

impl BaseSource {
    pub fn describe(&self) -> String {
        match self {
            BaseSource::Option(rev) => format!("--base {rev}"),
            BaseSource::Config(rev) => format!("historian.base = {rev}"),
            BaseSource::Detected(name) => format!("merge base with {}", short_ref(name)),
            BaseSource::LocalAhead { local, upstream } => format!(
                "merge base with {l}, not {u}: {l} has commits not pushed yet, and the branch forked from them",
                l = short_ref(local),
                u = short_ref(upstream)
            ),
        }
    }
}

/// `refs/remotes/origin/main` → `origin/main`.
pub fn short_ref(name: &str) -> &str {
    name.strip_prefix("refs/heads/")
        .or_else(|| name.strip_prefix("refs/remotes/"))
        .unwrap_or(name)
}

/// The base found for a tip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    pub commit: Oid,
    pub source: BaseSource,
}

/// Why no base was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoBase {
    /// The revision given does not resolve to a commit.
    BadRevision {
        rev: String,
        source: BaseSource,
        reason: String,
    },
    /// The revision shares no history with the tip.
    Unrelated { source: BaseSource },
    /// None of the usual names exists (or shares history with the tip);
    /// `skipped` is the branch itself when it is one of them.
    NotFound {
        tried: Vec<String>,
        skipped: Option<String>,
    },
}

/// The candidates tried when nothing names the base, in order.
pub fn candidates(remote: &str) -> Vec<String> {
    vec![
        format!("refs/remotes/{remote}/HEAD"),
        format!("refs/remotes/{remote}/main"),
        format!("refs/remotes/{remote}/master"),
        "refs/heads/main".into(),
        "refs/heads/master".into(),
    ]
}

/// Finds the base of `tip` (the branch `branch_ref`).
pub fn find(
    repo: &Repo,
    tip: Oid,
    branch_ref: &str,
    option: Option<&str>,
    config: Option<&str>,
    remote: &str,
) -> Result<std::result::Result<Base, NoBase>> {
    let named = option
        .map(|r| BaseSource::Option(r.to_owned()))
        .or_else(|| config.map(|r| BaseSource::Config(r.to_owned())));
    if let Some(source) = named {
        let rev = match &source {
            BaseSource::Option(r) | BaseSource::Config(r) => r.clone(),
            BaseSource::Detected(_) | BaseSource::LocalAhead { .. } => unreachable!("named sources only"),
        };
        let commit = match repo.rev_parse(&format!("{rev}^{{commit}}")) {
            Ok(c) => c,
            Err(_) => {
                // Said plainly: how the revision parser failed is no help.
                let reason = if repo.rev_parse(&rev).is_ok() {
                    "it names an object that is no commit"
                } else {
                    "no such revision"
                };
                return Ok(Err(NoBase::BadRevision {
                    rev,
                    source,
                    reason: reason.into(),
                }));
            }
        };
        return Ok(match repo.merge_base(commit, tip)? {
            Some(commit) => Ok(Base { commit, source }),
            None => Err(NoBase::Unrelated { source }),
        });
    }
    let tried = candidates(remote);
    let mut skipped = None;
    for name in &tried {
        if name == branch_ref {
            skipped = Some(short_ref(name).to_owned());
            continue;
        }
        let Some(commit) = repo.read_ref(name)? else { continue };
        if let Some(base) = repo.merge_base(commit, tip)? {
            if let Some(ahead) = local_ahead(repo, name, commit, base, tip, branch_ref)? {
                return Ok(Ok(ahead));
            }
            return Ok(Ok(Base {
                commit: base,
                source: BaseSource::Detected(name.clone()),
            }));
        }
    }
    Ok(Err(NoBase::NotFound {
        tried: tried.iter().map(|n| short_ref(n).to_owned()).collect(),
        skipped,
    }))
}

/// The local branch of the remote-tracking `upstream` (the same name
/// under `refs/heads/`; for `<remote>/HEAD`, the branch it points at), when
/// it is ahead of `upstream` and the branch forked from its unpushed
/// commits: its merge base with `tip` is later than `base`. Without this,
/// a commit made on `main` and not pushed yet lands in the clean branch as
/// if it were the branch's.
fn local_ahead(
    repo: &Repo,
    upstream: &str,
    upstream_commit: Oid,
    base: Oid,
    tip: Oid,
    branch_ref: &str,
) -> Result<Option<Base>> {
    let Some(rest) = upstream.strip_prefix("refs/remotes/") else {
        return Ok(None);
    };
    let Some((_, name)) = rest.split_once('/') else {
        return Ok(None);
    };
    let locals: Vec<String> = if name == "HEAD" {
        vec!["refs/heads/main".into(), "refs/heads/master".into()]
    } else {
        vec![format!("refs/heads/{name}")]
    };
    for local in locals.into_iter().filter(|l| l != branch_ref) {
        let Some(commit) = repo.read_ref(&local)? else { continue };
        if commit == upstream_commit || !repo.is_ancestor(upstream_commit, commit)? {
            continue;
        }
        let Some(fork) = repo.merge_base(commit, tip)? else {
            continue;
        };
        if fork != base && repo.is_ancestor(base, fork)? {
            return Ok(Some(Base {
                commit: fork,
                source: BaseSource::LocalAhead {
                    local,
                    upstream: upstream.to_owned(),
                },
            }));
        }
    }
    Ok(None)
}

/// Finds the base again the way `source` found it (for a resumed session).
pub fn again(repo: &Repo, tip: Oid, source: &BaseSource) -> Result<Option<Oid>> {
    let commit = match source {
        BaseSource::Option(rev) | BaseSource::Config(rev) => match repo.rev_parse(&format!("{rev}^{{commit}}")) {
            Ok(c) => c,
            Err(_) => return Ok(None),
        },
        BaseSource::Detected(name) | BaseSource::LocalAhead { local: name, .. } => match repo.read_ref(name)? {
            Some(c) => c,
            None => return Ok(None),
        },
    };
    repo.merge_base(commit, tip)
}
