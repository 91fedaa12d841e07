//! The pre-push gate (DESIGN §15.2): over the commits a push adds to the
//! remote, refuse checkpoints whose recorded result is invalid, unparsable or
//! not a success, and a branch whose plan is still running under a live lock;
//! warn for results with warnings and results not on the remote yet.
//!
//! Only commits reachable from a pushed tip and from none of the remote's
//! tracking references (nor the remote's old value) are looked at; deletions,
//! tags and references outside `refs/heads/` pass. All notes are read in one
//! walk of each notes tree, so a push of thousands of commits stays cheap.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use serde::Serialize;

use super::names::tracking_notes;
use crate::git::{Oid, Repo};
use crate::ultraplan::state::{catalog, LockStatus, RunStatus, NOTES_REF};

/// `ultraplan.prePush`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Refuse the push (exit 1) when anything is refused.
    Strict,
    /// Say what would be refused, and let the push go.
    Warn,
    /// Look at nothing.
    Off,
}

impl Policy {
    pub fn parse(value: &str) -> Result<Policy> {
        match value.to_ascii_lowercase().as_str() {
            "strict" => Ok(Policy::Strict),
            "warn" => Ok(Policy::Warn),
            "off" | "false" => Ok(Policy::Off),
            other => bail!("bad value '{other}' for 'ultraplan.prePush' (expected strict, warn or off)"),
        }
    }
}

/// One pushed reference, as git's pre-push hook input gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushedRef {
    pub local_ref: String,
    pub local: Option<Oid>,
    pub remote_ref: String,
    pub remote: Option<Oid>,
}

/// Parses git's pre-push lines (`<local ref> <local oid> <remote ref> <remote oid>`);
/// blank lines are ignored, anything else malformed is an error naming the line.
pub fn parse_input(text: &str) -> Result<Vec<PushedRef>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let malformed = || {
            anyhow!(
                "line {} of the pre-push input is malformed: '{line}' (expected '<local ref> <local oid> <remote ref> <remote oid>')",
                i + 1
            )
        };
        let [local_ref, local, remote_ref, remote] = fields.as_slice() else {
            return Err(malformed());
        };
        let oid = |hex: &str| -> Result<Option<Oid>> {
            let id = Oid::from_hex(hex.as_bytes()).map_err(|_| malformed())?;
            Ok((!id.is_null()).then_some(id))
        };
        out.push(PushedRef {
            local_ref: (*local_ref).into(),
            local: oid(local)?,
            remote_ref: (*remote_ref).into(),
            remote: oid(remote)?,
        });
    }
    Ok(out)
}

/// Why a commit was refused or warned about.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// Short id, or empty for a finding about a branch.
    pub commit: String,
    pub subject: String,
    pub plan: Option<String>,
    pub step: Option<u64>,
    pub why: String,
    /// The command that helps.
    pub hint: String,
}

/// What the gate found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GateReport {
    pub commits_checked: usize,
    pub results_checked: usize,
    pub refused: Vec<Finding>,
    pub warned: Vec<Finding>,
    /// Pushed checkpoints whose result is not on the remote yet.
    pub not_on_remote: usize,
}

/// What the gate is given.
pub struct GateInput<'a> {
    pub remote: &'a str,
    pub refs: &'a [PushedRef],
    pub lock_timeout: Duration,
}

/// Looks at every commit the push adds.
pub fn check(repo: &Repo, input: &GateInput<'_>) -> Result<GateReport> {
    let mut report = GateReport::default();
    let branches: Vec<&PushedRef> = input
        .refs
        .iter()
        .filter(|r| r.local.is_some() && r.remote_ref.starts_with("refs/heads/"))
        .collect();
    if branches.is_empty() {
        return Ok(report);
    }
    let named = repo.remote_url(input.remote).is_some();
    let commits = pushed_commits(repo, input, &branches, named)?;
    report.commits_checked = commits.len();
    let ours = repo.notes_map(NOTES_REF)?;
    let on_remote = if named {
        repo.notes_map(&tracking_notes(input.remote))?
    } else {
        BTreeMap::new()
    };
    let annotated: Vec<(Oid, Oid)> = commits
        .iter()
        .filter_map(|c| ours.get(c).map(|blob| (*c, *blob)))
        .collect();
    let parsed = super::read_notes(repo, &annotated)?;
    for ((commit, blob), docs) in annotated.iter().zip(parsed) {
        report.results_checked += 1;
        let subject = || -> Result<String> {
            Ok(repo
                .commit_info(*commit)?
                .message
                .lines()
                .next()
                .unwrap_or("")
                .to_owned())
        };
        let finding = |plan: Option<String>, step: Option<u64>, why: String, hint: String| -> Result<Finding> {
            Ok(Finding {
                commit: repo.short(*commit),
                subject: subject()?,
                plan,
                step,
                why,
                hint,
            })
        };
        // Short ids cost a lookup each: only for what is reported.
        let show = || format!("git ultraplan show {}", repo.short(*commit));
        if on_remote.get(commit) != Some(blob) {
            report.not_on_remote += 1;
        }
        if let Some(why) = unreadable(&docs) {
            report.refused.push(finding(None, None, why, show())?);
            continue;
        }
        let docs = docs.unwrap_or_default();
        for doc in &docs {
            let plan = doc.get("plan").and_then(|v| v.as_str()).map(str::to_owned);
            let step = doc.get("task_index").and_then(|v| v.as_u64());
            match judge(doc) {
                Some(Judged::Refuse(why)) => report.refused.push(finding(plan, step, why, show())?),
                Some(Judged::Warn(why)) => report.warned.push(finding(plan, step, why, show())?),
                None => {}
            }
        }
    }
    running_plans(repo, input, &branches, &commits, &mut report)?;
    Ok(report)
}

/// Every commit the pushed branches add to what the remote has, each once.
fn pushed_commits(repo: &Repo, input: &GateInput<'_>, branches: &[&PushedRef], named: bool) -> Result<Vec<Oid>> {
    // A push to a URL (not a configured remote) has no tracking references:
    // only the remote's old values tell what it has.
    let mut hidden: Vec<Oid> = if named {
        repo.refs_with_prefix(&format!("refs/remotes/{}/", input.remote))?
            .into_iter()
            .map(|(_, id)| id)
            .collect()
    } else {
        Vec::new()
    };
    hidden.extend(input.refs.iter().filter_map(|r| r.remote));
    let mut commits: Vec<Oid> = Vec::new();
    let mut seen = BTreeSet::new();
    for pushed in branches {
        let Some(tip) = pushed.local else { continue };
        if !repo.has_object(tip) {
            bail!(
                "the pushed commit {tip} of '{}' is not in this repository",
                pushed.local_ref
            );
        }
        for id in repo.commits_between(tip, &hidden)? {
            if seen.insert(id) {
                commits.push(id);
            }
        }
    }
    Ok(commits)
}

/// Why a note cannot be read as a result: empty, or not YAML.
fn unreadable(docs: &super::fetched::ParsedNote) -> Option<String> {
    match docs {
        Ok(docs) if docs.is_empty() => Some("its result note is empty".into()),
        Ok(_) => None,
        Err(e) => Some(format!("its result does not parse ({e})")),
    }
}

/// Why the gate would refuse a checkpoint carrying this note, if it would:
/// the note is empty or not YAML, or one of its results is INVALID or not
/// a success. `sync` asks this of every note it would push, so that it
/// never pushes what the pre-push gate refuses.
pub(crate) fn refuses(docs: &super::fetched::ParsedNote) -> Option<String> {
    if let Some(why) = unreadable(docs) {
        return Some(why);
    }
    docs.iter().flatten().find_map(|doc| match judge(doc) {
        Some(Judged::Refuse(why)) => Some(why),
        _ => None,
    })
}

/// What the gate makes of one result document.
enum Judged {
    Refuse(String),
    Warn(String),
}

/// An INVALID result or one that is not a success refuses the push; a
/// result valid with warnings is warned about.
fn judge(doc: &serde_yaml::Value) -> Option<Judged> {
    let validation = doc.get("validation").and_then(|v| v.as_str()).unwrap_or("");
    let status = doc
        .get("result")
        .and_then(|r| r.get("status"))
        .and_then(|s| s.as_str())
        .unwrap_or("");
    if validation == "INVALID" {
        let detail = first_warning(doc).map(|w| format!(": {w}")).unwrap_or_default();
        Some(Judged::Refuse(format!("its result is INVALID{detail}")))
    } else if status != "success" {
        Some(Judged::Refuse(if status.is_empty() {
            "its result has no status".to_owned()
        } else {
            format!("its result's status is '{status}', not success")
        }))
    } else if validation == "VALID_WITH_WARNINGS" {
        let count = doc.get("warnings").and_then(|w| w.as_sequence()).map_or(0, |w| w.len());
        Some(Judged::Warn(format!(
            "its result is VALID_WITH_WARNINGS ({count} warning(s))"
        )))
    } else {
        None
    }
}

fn first_warning(doc: &serde_yaml::Value) -> Option<String> {
    doc.get("warnings")?
        .as_sequence()?
        .first()?
        .as_str()
        .map(|s| s.lines().next().unwrap_or("").to_owned())
}

/// Refuses a pushed branch on which a plan is still running under a live lock:
/// the run's checkpoints are among the pushed commits, or the branch is the
/// one checked out here, where a foreground run commits.
fn running_plans(
    repo: &Repo,
    input: &GateInput<'_>,
    branches: &[&PushedRef],
    commits: &[Oid],
    report: &mut GateReport,
) -> Result<()> {
    let current = repo.head().ok().and_then(|h| h.branch);
    let pushed: BTreeSet<String> = commits.iter().map(|c| c.to_string()).collect();
    let mut done: BTreeSet<String> = BTreeSet::new();
    for slug in catalog::slugs(repo)? {
        let live = catalog::locks(repo, &slug)?
            .into_iter()
            .find(|(_, _, info)| info.status(input.lock_timeout) == LockStatus::Live);
        let Some((_, _, info)) = live else { continue };
        for state in catalog::states(repo, &slug)? {
            let p = &state.progress;
            if p.status != RunStatus::InProgress {
                continue;
            }
            let commits_pushed = p
                .steps
                .values()
                .filter_map(|s| s.commit.as_deref())
                .any(|c| pushed.contains(c));
            let branch = branches
                .iter()
                .find(|b| commits_pushed || Some(&b.local_ref) == current.as_ref());
            let Some(branch) = branch else { continue };
            if !done.insert(slug.clone()) {
                continue;
            }
            report.refused.push(Finding {
                commit: String::new(),
                subject: branch.local_ref.clone(),
                plan: Some(p.plan.clone()),
                step: Some(u64::from(p.current_step)),
                why: format!(
                    "the plan is still running (pid {} on {} since {})",
                    info.pid, info.host, info.started_at
                ),
                hint: format!(
                    "wait for it to finish; 'git ultraplan status {}' shows where it is",
                    crate::cli::shell::operand(&p.plan)
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pre_push_lines_are_read_strictly() {
        let zero = "0".repeat(40);
        let one = "1".repeat(40);
        let refs = parse_input(&format!(
            "refs/heads/main {one} refs/heads/main {zero}\n\n(delete) {zero} refs/heads/old {one}\n"
        ))
        .unwrap();
        assert_eq!(refs.len(), 2);
        assert_eq!(refs[0].remote, None);
        assert!(refs[1].local.is_none());
        let err = parse_input(&format!("refs/heads/main {one}\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 1"), "{err}");
        let err = parse_input(&format!(
            "refs/heads/main {one} x\nrefs/heads/a nothex refs/heads/a {zero}\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(err.contains("line 1"), "{err}");
        assert!(parse_input(&format!("refs/heads/a nothex refs/heads/a {zero}\n")).is_err());
    }

    #[test]
    fn policies() {
        assert_eq!(Policy::parse("strict").unwrap(), Policy::Strict);
        assert_eq!(Policy::parse("Warn").unwrap(), Policy::Warn);
        assert_eq!(Policy::parse("off").unwrap(), Policy::Off);
        assert!(Policy::parse("maybe")
            .unwrap_err()
            .to_string()
            .contains("ultraplan.prePush"));
    }
}
