//! What a distributed run publishes: `refs/ultraplan/<slug>/work`, a commit
//! whose tree holds `work.json` (the run's id, the plan's path, the open
//! wave, the commit its sessions start from, every session with its wave and
//! scope fence) and `plan.md` (the plan's text), and whose parent is that
//! commit, so that pushing the reference carries everything a worker needs.

use anyhow::{anyhow, Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::git::{EntryKind, Oid, Repo, TreeEdit};
use crate::redact::redact;
use crate::ultraplan::plan::Plan;

/// The format of `work.json`; a worker refuses any other.
pub const WORK_VERSION: u32 = 1;

/// A published run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    pub version: u32,
    /// The run's id: every claim names it, so claims of an earlier run of the
    /// plan count for nothing.
    pub id: String,
    /// The plan's path in the repository.
    pub plan: String,
    pub slug: String,
    /// The branch the sessions are merged into, if any.
    pub branch: Option<String>,
    /// The open wave (1-based); its sessions may be claimed.
    pub wave: usize,
    /// The commit the open wave's sessions start from.
    pub base: String,
    /// No session is left to run.
    pub finished: bool,
    pub sessions: Vec<WorkSession>,
}

/// One session as published.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkSession {
    pub number: u32,
    pub title: String,
    pub wave: usize,
    /// Its scope fence: the Touch patterns, then `!`-prefixed Never touch ones.
    pub scope: Vec<String>,
}

impl Work {
    /// The work of `plan` (at `path`), wave 1 open from `base`.
    pub fn new(id: String, plan: &Plan, path: &str, slug: &str, branch: Option<String>, base: Oid) -> Work {
        let wave_of = |n: u32| plan.waves.iter().position(|w| w.contains(&n)).map_or(0, |i| i + 1);
        Work {
            version: WORK_VERSION,
            id,
            plan: path.to_owned(),
            slug: slug.to_owned(),
            branch,
            wave: 1,
            base: base.to_string(),
            finished: false,
            sessions: plan
                .sessions
                .iter()
                .map(|s| WorkSession {
                    number: s.number,
                    title: s.title.clone(),
                    wave: wave_of(s.number),
                    scope: s
                        .touch
                        .iter()
                        .map(|p| p.text.clone())
                        .chain(s.never_touch.iter().map(|p| format!("!{}", p.text)))
                        .collect(),
                })
                .collect(),
        }
    }

    /// The sessions that may be claimed now.
    pub fn open(&self) -> Vec<u32> {
        if self.finished {
            return Vec::new();
        }
        self.sessions
            .iter()
            .filter(|s| s.wave == self.wave)
            .map(|s| s.number)
            .collect()
    }

    pub fn base(&self) -> Result<Oid> {
        Oid::from_hex(self.base.as_bytes())
            .map_err(|_| anyhow!("the published base '{}' is not a commit id", self.base))
    }

    pub fn title(&self, n: u32) -> &str {
        self.sessions
            .iter()
            .find(|s| s.number == n)
            .map_or("", |s| s.title.as_str())
    }

    /// Writes the work as a commit on its base; the plan's text goes in
    /// redacted, like everything written to git.
    pub fn write(&self, repo: &Repo, plan_text: &str) -> Result<Oid> {
        let json = serde_json::to_string_pretty(self)?;
        let edits = [
            TreeEdit::Blob {
                path: "work.json".into(),
                id: repo.write_blob(redact(&json).as_bytes())?,
                executable: false,
            },
            TreeEdit::Blob {
                path: "plan.md".into(),
                id: repo.write_blob(redact(plan_text).as_bytes())?,
                executable: false,
            },
        ];
        let tree = repo.edit_tree(None, &edits)?;
        let message = format!(
            "ultraplan: work of {} (wave {}{})",
            self.plan,
            self.wave,
            if self.finished { ", finished" } else { "" }
        );
        repo.write_commit(tree, &[self.base()?], &redact(&message))
    }

    /// The work a published commit holds, and the plan's text; an error
    /// names what does not read.
    pub fn read(repo: &Repo, commit: Oid) -> Result<(Work, String)> {
        let tree = repo.commit_tree(commit)?;
        let text = |path: &str| -> Result<String> {
            match repo.tree_entry(tree, path)? {
                Some((id, EntryKind::Blob)) => Ok(String::from_utf8_lossy(&repo.read_blob(id)?).into_owned()),
                _ => Err(anyhow!("published work {} has no {path}", repo.short(commit))),
            }
        };
        let work: Work = serde_json::from_str(&text("work.json")?)
            .with_context(|| format!("published work {} does not read", repo.short(commit)))?;
        if work.version != WORK_VERSION {
            return Err(anyhow!(
                "published work {} has format {} (this git-ultraplan reads {WORK_VERSION})",
                repo.short(commit),
                work.version
            ));
        }
        Ok((work, text("plan.md")?))
    }
}
