//! A pending historian session (DESIGN §10.4), stored in git: the ref
//! `refs/historian/<branch>` points at a commit whose tree holds
//!
//! ```text
//! session.json   where the run stands: branch, original tip, base and how
//!                it was found, clean branch, step, the commit in question,
//!                the commits built so far, the question's options
//! plan.json      the commit plan (the plan-file shape), whose blob id is
//!                the plan's hash
//! question.txt   the QUESTION block as it was printed
//! ```
//!
//! Its parents are the previous state (so `git log refs/historian/<branch>`
//! is the session's history) and the last commit built (so the partial
//! clean branch stays reachable whatever happens to its ref). Every update
//! is a compare-and-swap on the ref. The branch name is the ref's name as
//! is: git's own rules for branch names keep two sessions' refs apart.
//!
//! Not to be confused with ultraplan's sessions (DESIGN §7), the parallel
//! parts of a task plan run in their own worktrees: a historian session is
//! one rewrite waiting for a person's answer.

use anyhow::{anyhow, bail, Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::error::FatalWithHint;
use crate::git::{Entry, EntryKind, Expect, Oid, Repo};
use crate::redact::{redact, redact_file};

use super::analyse::base::BaseSource;
use super::plan::PlanFile;

pub const PREFIX: &str = "refs/historian/";

/// The session ref of `branch` (a short branch name).
pub fn ref_name(branch: &str) -> String {
    format!("{PREFIX}{branch}")
}

/// Where a session stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// Waiting for an answer.
    Question,
    /// Every commit is built and checked; only the clean branch and the
    /// session ref remain to be settled (a run killed right there).
    Completing,
}

/// What the pending question is about.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Pending {
    /// A commit over the size limits: each option's commits, as item names.
    /// The last option (keep as one commit) has no entry here.
    Size { splits: Vec<Vec<Vec<String>>> },
    /// The plan was unsure how to split the work: each option's commits,
    /// in order, as item names (the first is the plan proposed).
    Untangle { readings: Vec<Vec<Vec<String>>> },
    /// The commit writer asked: its QUESTION block, as it printed it.
    Writer { block: String },
    /// Nothing to answer.
    None,
}

/// Settings of the run that a resume keeps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub max_files: usize,
    pub max_lines: usize,
    pub verify_each: Option<String>,
    /// `clean --stack`: the stack branches are made when the run ends.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stack: bool,
}

/// The stored state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub version: u32,
    /// The original branch's short name.
    pub branch: String,
    pub original_tip: String,
    pub base: String,
    pub base_source: BaseSource,
    pub clean_branch: String,
    pub stage: Stage,
    pub step: u8,
    /// The commit in question (from 0).
    pub current: usize,
    /// Commits built so far, in order.
    pub built: Vec<String>,
    /// Where the clean branch points, and where it pointed before the last
    /// update (so a run killed between the two writes can be settled).
    pub clean_tip: Option<String>,
    pub previous_clean_tip: Option<String>,
    pub plan_hash: String,
    pub pending: Pending,
    pub settings: Settings,
    pub created_at: String,
}

pub const VERSION: u32 = 1;

/// A session as read from its ref.
#[derive(Clone, Debug)]
pub struct Stored {
    pub ref_name: String,
    /// The state commit the ref points at.
    pub commit: Oid,
    pub session: Session,
    pub plan: PlanFile,
    pub question: String,
}

pub fn oid(text: &str) -> Result<Oid> {
    Oid::from_hex(text.as_bytes()).with_context(|| format!("bad object id '{text}' in the session"))
}

impl Session {
    pub fn original_tip(&self) -> Result<Oid> {
        oid(&self.original_tip)
    }

    pub fn base(&self) -> Result<Oid> {
        oid(&self.base)
    }

    pub fn built(&self) -> Result<Vec<Oid>> {
        self.built.iter().map(|b| oid(b)).collect()
    }

    pub fn clean_tip(&self) -> Result<Option<Oid>> {
        self.clean_tip.as_deref().map(oid).transpose()
    }

    pub fn previous_clean_tip(&self) -> Result<Option<Oid>> {
        self.previous_clean_tip.as_deref().map(oid).transpose()
    }

    pub fn clean_ref(&self) -> String {
        format!("refs/heads/{}", self.clean_branch)
    }
}

/// Reads the session at `ref_name`, if there is one.
pub fn load(repo: &Repo, ref_name: &str) -> Result<Option<Stored>> {
    let Some(commit) = repo.read_ref(ref_name)? else {
        return Ok(None);
    };
    let tree = repo.commit_tree(commit)?;
    let read = |name: &str| -> Result<String> {
        let data = repo
            .read_path(tree, name)?
            .ok_or_else(|| anyhow!("the historian session '{ref_name}' has no {name}"))?;
        Ok(String::from_utf8_lossy(&data).into_owned())
    };
    let session: Session = serde_json::from_str(&read("session.json")?)
        .with_context(|| format!("the historian session '{ref_name}' is unreadable"))?;
    if session.version != VERSION {
        bail!(
            "the historian session '{ref_name}' was written by another version (format {}, expected {VERSION})",
            session.version
        );
    }
    let plan: PlanFile = serde_json::from_str(&read("plan.json")?)
        .with_context(|| format!("the plan of the historian session '{ref_name}' is unreadable"))?;
    let question = read("question.txt")?;
    Ok(Some(Stored {
        ref_name: ref_name.to_owned(),
        commit,
        session,
        plan,
        question,
    }))
}

/// The id `plan` would have as `plan.json` (the plan's hash), redacted as
/// it is stored: redaction is idempotent, so a stored plan read back hashes
/// the same.
pub fn plan_hash(repo: &Repo, plan: &PlanFile) -> Result<(Vec<u8>, Oid)> {
    let json = serde_json::to_string_pretty(plan)?;
    let text = redact_file("plan.json", &json).into_owned().into_bytes();
    let id = repo.write_blob(&text)?;
    Ok((text, id))
}

/// Writes a new state of the session, moving the ref from `previous`
/// (`None`: it must not exist) — a lost race is an error naming the ref.
/// Everything it writes is redacted here: the session (the commit writer's
/// question, the verify-each command), the plan, the question, the commit
/// and reflog message.
pub fn save(
    repo: &Repo,
    previous: Option<Oid>,
    session: &Session,
    plan: &PlanFile,
    question: &str,
    message: &str,
) -> Result<Oid> {
    let ref_name = ref_name(&session.branch);
    let json = redact_file("session.json", &serde_json::to_string_pretty(session)?).into_owned();
    let question = redact(question);
    let message = redact(message);
    let (_, plan_id) = plan_hash(repo, plan)?;
    let blob = |data: &[u8]| -> Result<Option<Entry>> {
        Ok(Some(Entry {
            id: repo.write_blob(data)?,
            kind: EntryKind::Blob,
        }))
    };
    let tree = repo.build_tree(
        repo.empty_tree(),
        &[
            ("session.json".into(), blob(json.as_bytes())?),
            (
                "plan.json".into(),
                Some(Entry {
                    id: plan_id,
                    kind: EntryKind::Blob,
                }),
            ),
            ("question.txt".into(), blob(question.as_bytes())?),
        ],
    )?;
    let mut parents: Vec<Oid> = previous.into_iter().collect();
    if let Some(tip) = session.clean_tip()? {
        parents.push(tip);
    }
    let commit = repo.write_commit(tree, &parents, &message)?;
    let expect = match previous {
        Some(p) => Expect::Value(p),
        None => Expect::Absent,
    };
    repo.update_ref(&ref_name, commit, expect, &message)
        .with_context(|| format!("cannot record the historian session in '{ref_name}'"))?;
    Ok(commit)
}

/// Removes the session if it is still at `commit`.
pub fn delete(repo: &Repo, stored: &Stored) -> Result<()> {
    repo.delete_ref(&stored.ref_name, Some(stored.commit))
        .with_context(|| format!("cannot remove the historian session '{}'", stored.ref_name))
}

/// Every session ref, by name.
pub fn list(repo: &Repo) -> Result<Vec<String>> {
    Ok(repo
        .refs_with_prefix(PREFIX)?
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}

/// The branch a session ref belongs to.
pub fn branch_of(ref_name: &str) -> &str {
    ref_name.strip_prefix(PREFIX).unwrap_or(ref_name)
}

/// The pending sessions: `branch`'s, or every one when no branch is named;
/// an error when the branch named has none.
pub fn pending(repo: &Repo, branch: Option<&str>) -> Result<Vec<Stored>> {
    let refs = match branch {
        Some(b) => vec![ref_name(b.trim_start_matches("refs/heads/"))],
        None => list(repo)?,
    };
    let mut sessions: Vec<Stored> = Vec::new();
    for r in &refs {
        if let Some(s) = load(repo, r)? {
            sessions.push(s);
        } else if branch.is_some() {
            bail!("no historian session is pending for '{}'", branch_of(r));
        }
    }
    Ok(sessions)
}

/// The session of `branch`, or the only one when no branch is named and
/// `HEAD`'s branch has none; a fatal error naming the sessions otherwise.
pub fn find_session(repo: &Repo, branch: Option<&str>) -> Result<Stored> {
    let sessions = list(repo)?;
    let wanted = match branch {
        Some(b) => Some(b.trim().trim_start_matches("refs/heads/").to_owned()),
        None => repo
            .head()?
            .branch
            .map(|b| b.trim_start_matches("refs/heads/").to_owned()),
    };
    if let Some(b) = &wanted {
        let name = ref_name(b);
        if let Some(stored) = load(repo, &name)? {
            return Ok(stored);
        }
        if branch.is_some() {
            bail!("no historian session is pending for '{b}'");
        }
    }
    match sessions.as_slice() {
        [] => bail!("no historian session is pending"),
        [only] => load(repo, only)?.with_context(|| format!("the session '{only}' vanished")),
        many => Err(FatalWithHint {
            message: format!(
                "{} historian sessions are pending and none is for the current branch",
                many.len()
            ),
            hint: format!(
                "name the branch: {}",
                many.iter()
                    .map(|r| branch_of(r).to_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
        .into()),
    }
}
