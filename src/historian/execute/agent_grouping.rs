//! `clean --agent <name>`: the grouping asked of a coding agent, through the
//! same adapters the ultraplan executors use ([`crate::agents`]), and
//! validated before anything is built.
//!
//! The agent gets the analysed change set — every change item with its
//! stable id (`path`, or `path#N` for the Nth hunk of a file changed hunk
//! by hunk, the names plan files use), what it changes, the names it
//! defines and uses —, the branch's commit messages and the deterministic
//! planner's proposal, and answers with a grouping and messages as JSON.
//! It runs read-only, in an empty scratch directory outside the repository:
//! it can change nothing here.
//!
//! Its answer is used only when it holds: every item placed exactly once
//! (and nothing unknown), no empty commit or message, an order that keeps
//! what the analysis says must come first (definitions before their uses,
//! moved lines and new packages never missing in between), and a trial
//! build that ends at the tip's tree, byte for byte. On anything else —
//! the agent failing, no JSON, an invalid grouping — the deterministic plan
//! is built, and the reason is returned for a warning. Either way the run
//! goes on as `clean` does: size questions, the commit writer, the
//! QUESTION / `resume` protocol (the session stores the plan chosen).

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Result;
use serde::Deserialize;
use serde_json::json;

use crate::agents::{self, Access, Agent, Call};
use crate::git::Repo;
use crate::historian::analyse::items::Status;
use crate::historian::analyse::lines;
use crate::historian::engine::Analysis;
use crate::historian::plan::{order, CommitPlan, PlanFile, PlanFileCommit};

use super::build::Builder;

/// Lines of one item's change shown to the agent.
const DIFF_LINES: usize = 40;

/// Problems listed in a warning, at most.
const LISTED: usize = 8;

/// Which agent to ask, and how.
#[derive(Clone, Debug)]
pub struct Ask {
    pub agent: Agent,
    pub settings: agents::Settings,
    pub timeout: Duration,
}

/// The plan to build, and why the agent's was not it (if it was not).
pub struct Proposal {
    pub plan: CommitPlan,
    /// Why the agent's grouping was set aside for the deterministic plan.
    pub rejected: Option<String>,
    /// What the agent said it cost.
    pub cost_usd: Option<f64>,
    pub tokens: Option<agents::Tokens>,
}

/// The agent's answer: `{"commits": [{"message": …, "items": [ids]}]}`.
#[derive(Deserialize)]
struct Answer {
    commits: Vec<AnswerCommit>,
}

#[derive(Deserialize)]
struct AnswerCommit {
    message: String,
    #[serde(default)]
    items: Vec<String>,
}

/// Asks `ask.agent` for a grouping of `analysis`'s items; the
/// deterministic plan when its answer does not hold.
pub fn propose(
    repo: &Repo,
    analysis: &Analysis,
    deterministic: CommitPlan,
    ask: &Ask,
    on_activity: &mut dyn FnMut(&str),
) -> Result<Proposal> {
    let prompt = prompt(repo, analysis, &deterministic)?;
    let scratch = scratch_dir()?;
    let call = Call {
        prompt: &prompt,
        resume: None,
        session_name: &format!("historian-{}", unique()),
        workdir: &scratch,
        scratch: scratch.clone(),
        access: Access::ReadOnly,
    };
    let name = ask.agent.name();
    let mut show = |a: &agents::Activity| on_activity(&format!("{name}: {}", a.describe()));
    let launched = agents::run(ask.agent, &ask.settings, &call, ask.timeout, 1 << 20, &mut show);
    let _ = std::fs::remove_dir_all(&scratch);
    let launched = launched?;
    let mut proposal = Proposal {
        plan: deterministic.clone(),
        rejected: None,
        cost_usd: launched.report.cost_usd,
        tokens: launched.report.tokens,
    };
    let chosen = match (&launched.failure, &launched.report.final_text) {
        (Some(failure), _) => Err(vec![failure.clone()]),
        (None, None) => Err(vec![format!("{name} gave no answer")]),
        (None, Some(text)) => judge(repo, analysis, text),
    };
    match chosen {
        Ok(plan) => proposal.plan = plan,
        Err(problems) => {
            let more = problems.len().saturating_sub(LISTED);
            let mut why: Vec<String> = problems.into_iter().take(LISTED).collect();
            if more > 0 {
                why.push(format!("and {more} more"));
            }
            proposal.rejected = Some(why.join("; "));
            proposal.plan = deterministic;
        }
    }
    Ok(proposal)
}

/// The agent's grouping from its answer `text`, or what is wrong with it.
fn judge(repo: &Repo, analysis: &Analysis, text: &str) -> std::result::Result<CommitPlan, Vec<String>> {
    let json = json_in(text).ok_or_else(|| vec!["its answer holds no JSON object".to_owned()])?;
    let answer: Answer =
        serde_json::from_str(&json).map_err(|e| vec![format!("its answer is not a grouping ({e})")])?;
    let changes = &analysis.changes;
    let index = changes.index();
    let file = PlanFile {
        base: None,
        tip: None,
        explanation: None,
        commits: answer
            .commits
            .into_iter()
            .map(|c| {
                // Hunk ids go under `hunks`, whole files under `files`.
                let (hunks, files) = c.items.into_iter().partition(|id| {
                    index
                        .by_name
                        .get(id.trim())
                        .is_some_and(|&i| changes.items[i].hunk.is_some())
                });
                PlanFileCommit {
                    message: c.message,
                    files,
                    hunks,
                    keep: false,
                }
            })
            .collect(),
    };
    let plan = CommitPlan::from_file(&file, changes).map_err(|p| p.lines())?;
    let groups: Vec<Vec<usize>> = plan.commits.iter().map(|c| c.items.clone()).collect();
    let ordered = order::problems(&analysis.context(), &groups);
    if !ordered.is_empty() {
        return Err(ordered);
    }
    // A trial build, in memory: it must end at the tip's tree.
    let trial = repo.holding_objects();
    let built = (|| -> Result<crate::git::Oid> {
        let mut builder = Builder::after(&trial, changes, &[], None)?;
        for commit in &plan.commits {
            let prepared = builder.prepare(&commit.items)?;
            builder.advance(prepared);
        }
        Ok(builder.tree())
    })();
    match built {
        Ok(tree) if tree == changes.tip_tree => Ok(plan),
        Ok(_) => Err(vec!["its commits do not end at the tip's tree".into()]),
        Err(e) => Err(vec![format!("its commits cannot be built: {e:#}")]),
    }
}

/// The last fenced `json` block of `text`, else its outermost `{…}`.
fn json_in(text: &str) -> Option<String> {
    let mut found = None;
    let mut rest = text;
    while let Some(start) = rest.find("```json") {
        let after = &rest[start + 7..];
        let Some(end) = after.find("```") else { break };
        found = Some(after[..end].trim().to_owned());
        rest = &after[end + 3..];
    }
    found.or_else(|| {
        let (open, close) = (text.find('{')?, text.rfind('}')?);
        (open < close).then(|| text[open..=close].to_owned())
    })
}

/// What the agent is asked, with the change set as JSON.
fn prompt(repo: &Repo, analysis: &Analysis, deterministic: &CommitPlan) -> Result<String> {
    let changes = &analysis.changes;
    let mut items = Vec::with_capacity(changes.items.len());
    for i in 0..changes.items.len() {
        let item = &changes.items[i];
        let file = &changes.files[item.file];
        let kind = match (&file.status, item.hunk) {
            (_, Some(_)) => "hunk of a modified file".to_owned(),
            (Status::Added, None) => "added file".into(),
            (Status::Deleted, None) => "deleted file".into(),
            (Status::Modified, None) => "modified file".into(),
            (Status::Renamed { from }, None) => format!("renamed from {from}"),
            (Status::Copied { from }, None) => format!("copied from {from}"),
            (Status::ModeChanged, None) => "mode changed".into(),
            _ => "type changed".into(),
        };
        let mut defines: Vec<&String> = item.symbols.defined.iter().take(10).collect();
        defines.sort();
        let uses: Vec<&String> = item.symbols.used.iter().take(10).collect();
        items.push(json!({
            "id": changes.item_name(i),
            "path": file.path,
            "kind": kind,
            "lines": item.lines,
            "defines": defines,
            "uses": uses,
            "change": change_text(repo, analysis, i)?,
        }));
    }
    let messages: Vec<serde_json::Value> = analysis
        .commits
        .iter()
        .map(|c| json!({"commit": repo.short(c.id), "message": c.message.trim_end()}))
        .collect();
    let proposal: Vec<serde_json::Value> = deterministic
        .commits
        .iter()
        .map(|c| json!({"message": c.message.trim_end(), "items": c.items.iter().map(|&i| changes.item_name(i)).collect::<Vec<_>>()}))
        .collect();
    let request = json!({
        "branch": analysis.target.branch,
        "base": repo.short(analysis.base.commit),
        "branch_commits": messages,
        "items": items,
        "proposal": {"commits": proposal},
    });
    let text = format!(
        "You are helping rewrite the git branch '{branch}' into a clean series of logical commits.\n\
         Below, as JSON, are the branch's change items (each with a stable id), the messages of its commits, \
         and a deterministic proposal. Group the items into commits a reviewer would accept, in an order where \
         every commit builds on the ones before it (a definition before its uses), and write each commit's \
         message in conventional-commit form (`type(scope): summary`, a blank line, a short body).\n\n\
         Rules:\n- Use every item id exactly once; invent none.\n- Change no file; run nothing: answer only.\n\
         - Answer with one JSON object and nothing else, in a ```json block:\n  \
         {{\"commits\": [{{\"message\": \"…\", \"items\": [\"<id>\", …]}}, …]}}\n\n\
         ```json\n{request}\n```\n",
        branch = analysis.target.branch,
        request = serde_json::to_string_pretty(&request)?,
    );
    // What the agent is sent leaves this machine: no secrets in it.
    Ok(crate::redact::redact(&text).into_owned())
}

/// The lines item `i` changes, `-`/`+` prefixed, at most [`DIFF_LINES`].
fn change_text(repo: &Repo, analysis: &Analysis, i: usize) -> Result<String> {
    let changes = &analysis.changes;
    let item = &changes.items[i];
    let file = &changes.files[item.file];
    if file.binary || file.is_submodule() {
        return Ok("(binary)".into());
    }
    let read = |e: Option<crate::git::Entry>| -> Result<Vec<u8>> {
        match e {
            Some(e) if e.kind != crate::git::EntryKind::Commit => repo.read_blob(e.id),
            _ => Ok(Vec::new()),
        }
    };
    let (old, new) = (read(file.old)?, read(file.new)?);
    let (old, new) = (lines::split_lines(&old), lines::split_lines(&new));
    let (removed, added) = match item.hunk {
        Some(h) => (file.hunks[h].old.clone(), file.hunks[h].new.clone()),
        None => (0..old.len(), 0..new.len()),
    };
    let mut out: Vec<String> = Vec::new();
    let lines_of = |side: &[&[u8]], range: std::ops::Range<usize>, mark: char| -> Vec<String> {
        side.get(range)
            .unwrap_or_default()
            .iter()
            .map(|l| format!("{mark}{}", String::from_utf8_lossy(l).trim_end_matches(['\n', '\r'])))
            .collect()
    };
    out.extend(lines_of(&old, removed, '-'));
    out.extend(lines_of(&new, added, '+'));
    let total = out.len();
    out.truncate(DIFF_LINES);
    if total > DIFF_LINES {
        out.push(format!("… {} more lines", total - DIFF_LINES));
    }
    Ok(out.join("\n"))
}

/// An empty directory outside the repository for the agent to run in.
fn scratch_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("git-historian-agent-{}", unique()));
    std::fs::create_dir_all(&dir).map_err(|e| anyhow::anyhow!("cannot create '{}': {e}", dir.display()))?;
    Ok(dir)
}

fn unique() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}-{:x}", std::process::id(), nanos & 0xffff_ffff_ffff)
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_is_found_in_an_answer() {
        assert_eq!(
            super::json_in("Here:\n```json\n{\"a\": 1}\n```\nand\n```json\n{\"b\": 2}\n```").as_deref(),
            Some("{\"b\": 2}")
        );
        assert_eq!(super::json_in("so {\"c\": {}} it is").as_deref(), Some("{\"c\": {}}"));
        assert_eq!(super::json_in("no json"), None);
    }
}
