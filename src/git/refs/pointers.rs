//! What git points at: HEAD (its branch and commit) and the stash.
//!
//! A step's snapshot records them; a restore puts them back, so an executor
//! that ran `git commit`, `git reset`, `git checkout -b` or `git stash` and
//! then failed leaves no trace in the user's branch. Nothing is lost on the
//! way: what the step pointed at is returned to be kept reachable from the run
//! state, and a stash the step dropped is stored again.

use anyhow::{anyhow, Context as _, Result};
use gix::refs::transaction::PreviousValue;
use gix::refs::Target;

use super::Expect;
use crate::git::repo::{Head, Oid, Repo};

const STASH: &str = "refs/stash";

/// HEAD and the stash at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pointers {
    pub head: Head,
    pub stash: Option<Oid>,
}

/// What putting the pointers back did.
#[derive(Debug, Default)]
pub struct PutBack {
    /// One clause per thing undone, for a message.
    pub undone: Vec<String>,
    /// Commits the step made or pointed at, to keep reachable.
    pub kept: Vec<Oid>,
}

impl Pointers {
    pub fn render(&self) -> String {
        let oid = |o: Option<Oid>| o.map_or_else(|| "none".to_owned(), |o| o.to_string());
        format!(
            "head {}\nbranch {}\nstash {}\n",
            oid(self.head.commit),
            self.head.branch.as_deref().unwrap_or("(detached)"),
            oid(self.stash)
        )
    }

    pub fn parse(text: &str) -> Option<Pointers> {
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
                .map(str::to_owned)
        };
        let oid = |v: String| -> Option<Option<Oid>> {
            match v.as_str() {
                "none" => Some(None),
                v => v.parse().ok().map(Some),
            }
        };
        let branch = field("branch")?;
        Some(Pointers {
            head: Head {
                commit: oid(field("head")?)?,
                branch: (branch != "(detached)").then_some(branch),
            },
            stash: oid(field("stash")?)?,
        })
    }
}

impl Repo {
    pub fn pointers(&self) -> Result<Pointers> {
        Ok(Pointers {
            head: self.head()?,
            stash: self.read_ref(STASH)?,
        })
    }

    /// Moves HEAD, its branch and the stash back to `recorded`, each only from
    /// the value it holds now (compare-and-swap).
    pub fn put_pointers_back(&self, recorded: &Pointers) -> Result<PutBack> {
        let now = self.pointers()?;
        let mut out = PutBack::default();
        if now == *recorded {
            return Ok(out);
        }
        let short = |o: Option<Oid>| o.map_or_else(|| "nothing".to_owned(), |o| self.short(o));
        if now.head.branch != recorded.head.branch {
            out.kept.extend(now.head.commit);
            let target = match &recorded.head.branch {
                Some(branch) => Target::Symbolic(
                    branch
                        .as_str()
                        .try_into()
                        .with_context(|| format!("invalid branch name '{branch}'"))?,
                ),
                None => Target::Object(
                    recorded
                        .head
                        .commit
                        .ok_or_else(|| anyhow!("a detached HEAD was recorded without a commit"))?,
                ),
            };
            self.set_head(target)?;
            out.undone.push(format!(
                "HEAD was on {} and is back on {}",
                describe_branch(&now.head),
                describe_branch(&recorded.head)
            ));
        }
        match &recorded.head.branch {
            Some(branch) => {
                let current = self.read_ref(branch)?;
                if current != recorded.head.commit {
                    match recorded.head.commit {
                        Some(commit) => {
                            let expect = current.map_or(Expect::Absent, Expect::Value);
                            self.update_ref(branch, commit, expect, "ultraplan: undo a failed step's commits")?;
                        }
                        None => self.delete_ref(branch, current)?,
                    }
                    out.kept.extend(current);
                    out.undone.push(format!(
                        "'{}' moved back from {} to {}",
                        branch.strip_prefix("refs/heads/").unwrap_or(branch),
                        short(current),
                        short(recorded.head.commit)
                    ));
                }
            }
            None => {
                let current = self.head()?.commit;
                if current != recorded.head.commit {
                    if let Some(commit) = recorded.head.commit {
                        self.set_head(Target::Object(commit))?;
                    }
                    out.kept.extend(current);
                    out.undone.push(format!(
                        "detached HEAD moved back from {} to {}",
                        short(current),
                        short(recorded.head.commit)
                    ));
                }
            }
        }
        if now.stash != recorded.stash {
            self.put_stash_back(recorded.stash, &mut out)?;
        }
        out.kept.sort();
        out.kept.dedup();
        out.kept.retain(|k| Some(*k) != recorded.head.commit);
        Ok(out)
    }

    /// Drops the stash entries made since `recorded` was the newest, and
    /// stores `recorded` again if the step dropped or popped it. Through the
    /// `git` binary: gix does not edit reflogs, and the stash list is a reflog.
    fn put_stash_back(&self, recorded: Option<Oid>, out: &mut PutBack) -> Result<()> {
        let list = self.git(&["stash", "list", "--format=%H"])?;
        let list: Vec<Oid> = String::from_utf8_lossy(&list.stdout)
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        let newer: Vec<Oid> = list.iter().take_while(|s| Some(**s) != recorded).copied().collect();
        let found = recorded.is_none() || newer.len() < list.len();
        let drops = if found { newer.len() } else { 0 };
        for _ in 0..drops {
            let done = self.git(&["stash", "drop", "-q", "stash@{0}"])?;
            if !done.status.success() {
                return Err(anyhow!(
                    "cannot drop a stash entry the step made: {}",
                    String::from_utf8_lossy(&done.stderr).trim()
                ));
            }
        }
        if drops > 0 {
            out.kept.extend(newer.iter().copied());
            out.undone.push(format!(
                "dropped the stash entr{} it made ({})",
                if drops == 1 { "y" } else { "ies" },
                newer.iter().map(|s| self.short(*s)).collect::<Vec<_>>().join(", ")
            ));
        }
        if let (false, Some(stash)) = (found, recorded) {
            let message = self
                .commit_info(stash)
                .map(|c| c.message.lines().next().unwrap_or("").to_owned())
                .unwrap_or_default();
            let id = stash.to_string();
            let done = self.git(&["stash", "store", "-q", "-m", &message, &id])?;
            if !done.status.success() {
                return Err(anyhow!(
                    "cannot store stash {id} again: {}",
                    String::from_utf8_lossy(&done.stderr).trim()
                ));
            }
            out.undone
                .push(format!("stored your stash {} again", self.short(stash)));
        }
        Ok(())
    }

    fn set_head(&self, target: Target) -> Result<()> {
        let message = "ultraplan: put HEAD back after a failed step";
        let edit = super::update_edit("HEAD", PreviousValue::Any, target, message, false)?;
        self.inner.edit_reference(edit).context("cannot move HEAD back")?;
        Ok(())
    }
}

fn describe_branch(head: &Head) -> String {
    match &head.branch {
        Some(b) => format!("'{}'", b.strip_prefix("refs/heads/").unwrap_or(b)),
        None => "a detached HEAD".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_round_trip() {
        let id: Oid = "0123456789012345678901234567890123456789".parse().unwrap();
        for p in [
            Pointers {
                head: Head {
                    commit: Some(id),
                    branch: Some("refs/heads/main".into()),
                },
                stash: None,
            },
            Pointers {
                head: Head {
                    commit: None,
                    branch: None,
                },
                stash: Some(id),
            },
        ] {
            assert_eq!(Pointers::parse(&p.render()), Some(p));
        }
        assert_eq!(Pointers::parse("head x\n"), None);
    }
}
