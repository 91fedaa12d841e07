//! The base of a branch (DESIGN §10.1, step 2): where the clean branch
//! starts. `--base <rev>`, else `historian.base`, else the merge base with
//! the upstream's default branch — `<remote>/HEAD` (the branch's remote, or
//! `origin`), `<remote>/main`, `<remote>/master` — else with a local
//! `main` or `master`. No remote is needed. The base is always the merge
//! base of the named revision and the tip, so a base branch that moved on
//! since the branch forked still gives the fork point.

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
}

impl BaseSource {
    pub fn describe(&self) -> String {
        match self {
            BaseSource::Option(rev) => format!("--base {rev}"),
            BaseSource::Config(rev) => format!("historian.base = {rev}"),
            BaseSource::Detected(name) => format!("merge base with {}", short_ref(name)),
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
            BaseSource::Detected(_) => unreachable!("named sources only"),
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

/// Finds the base again the way `source` found it (for a resumed session).
pub fn again(repo: &Repo, tip: Oid, source: &BaseSource) -> Result<Option<Oid>> {
    let commit = match source {
        BaseSource::Option(rev) | BaseSource::Config(rev) => match repo.rev_parse(&format!("{rev}^{{commit}}")) {
            Ok(c) => c,
            Err(_) => return Ok(None),
        },
        BaseSource::Detected(name) => match repo.read_ref(name)? {
            Some(c) => c,
            None => return Ok(None),
        },
    };
    repo.merge_base(commit, tip)
}
