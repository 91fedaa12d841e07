//! Talking to remotes, through the `git` binary: gix 0.90 cannot push at all,
//! and fetching through the CLI keeps every transport, credential helper and
//! `insteadOf` rule the user configured working exactly as for `git fetch`.

use anyhow::{bail, Context as _, Result};

use super::cli::last_lines;
use super::repo::{Oid, Repo};

/// How one reference of a push ended, from `git push --porcelain`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushedRef {
    /// The remote reference.
    pub name: String,
    /// Updated, created or already up to date.
    pub ok: bool,
    /// git's summary (`[rejected]`, `[remote rejected]`, …) and reason.
    pub summary: String,
}

/// What a whole push did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PushOutcome {
    pub refs: Vec<PushedRef>,
    /// Whether git exited 0.
    pub success: bool,
    /// git's messages (the remote's `remote:` lines among them), trimmed.
    pub stderr: String,
}

/// One reference of [`Repo::push_leased`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub name: String,
    /// The new value; `None` deletes.
    pub new: Option<Oid>,
    /// What the remote must hold now; `None`: nothing.
    pub expect: Option<Oid>,
}

impl PushOutcome {
    /// Why the push did not go through: the first refused reference's
    /// summary, else the last line git printed.
    pub fn why(&self) -> &str {
        self.refs
            .iter()
            .find(|r| !r.ok)
            .map(|r| r.summary.as_str())
            .or_else(|| self.stderr.lines().last())
            .unwrap_or("the push was refused")
    }

    /// Every reference was refused only because the remote moved meanwhile
    /// (another clone pushed first): fetching again and retrying can succeed.
    pub fn lost_a_race(&self) -> bool {
        let refused: Vec<&PushedRef> = self.refs.iter().filter(|r| !r.ok).collect();
        // An atomic transaction the server could not take names its reason
        // (a ref locked or created by a concurrent push) only in its messages.
        let raced = |r: &&PushedRef| {
            is_race(&r.summary) || (r.summary.contains("atomic transaction failed") && is_race(&self.stderr))
        };
        !refused.is_empty()
            && refused.iter().any(raced)
            && refused
                .iter()
                .all(|r| raced(r) || r.summary.contains("atomic push failed"))
    }
}

fn is_race(summary: &str) -> bool {
    [
        "non-fast-forward",
        "fetch first",
        "stale info",
        "cannot lock ref",
        "failed to update ref",
        "incorrect old value",
        "reference already exists",
    ]
    .iter()
    .any(|s| summary.contains(s))
}

impl Repo {
    /// The URL of the configured remote `name`, if there is such a remote.
    pub fn remote_url(&self, name: &str) -> Option<String> {
        let config = self.inner.config_snapshot();
        let key = format!("remote.{name}.url");
        config.string(key.as_str()).map(|v| v.to_string())
    }

    /// The names of the configured remotes, sorted.
    pub fn remote_names(&self) -> Vec<String> {
        self.inner
            .remote_names()
            .into_iter()
            .map(|n| String::from_utf8_lossy(&n).into_owned())
            .collect()
    }

    /// The remote the branch `branch` (`refs/heads/x`) tracks, if configured.
    pub fn upstream_remote(&self, branch: &str) -> Option<String> {
        let short = branch.strip_prefix("refs/heads/")?;
        let config = self.inner.config_snapshot();
        let key = format!("branch.{short}.remote");
        config.string(key.as_str()).map(|v| v.to_string())
    }

    /// The remote's references matching `patterns` (git's `ls-remote` globs),
    /// with their values.
    pub fn ls_remote(&self, remote: &str, patterns: &[&str]) -> Result<Vec<(String, Oid)>> {
        let mut args = vec!["ls-remote", "--", remote];
        args.extend_from_slice(patterns);
        let out = self.git_transport(&args, None)?;
        if !out.status.success() {
            bail!("cannot reach '{remote}': {}", last_lines(&out.stderr));
        }
        let mut refs = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Some((id, name)) = line.split_once('\t') else {
                continue;
            };
            let id = Oid::from_hex(id.trim().as_bytes()).with_context(|| format!("git ls-remote printed '{line}'"))?;
            refs.push((name.to_owned(), id));
        }
        Ok(refs)
    }

    /// Fetches `refspecs` (given on stdin, so there may be thousands) from
    /// `remote`, without tags, FETCH_HEAD or automatic maintenance; `prune`
    /// deletes copies whose remote reference is gone (within the refspecs).
    pub fn fetch_refspecs(&self, remote: &str, refspecs: &[String], prune: bool) -> Result<()> {
        if refspecs.is_empty() {
            return Ok(());
        }
        let input = refspecs.join("\n") + "\n";
        let mut args = vec![
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--no-auto-maintenance",
            "--no-recurse-submodules",
            "--stdin",
        ];
        if prune {
            args.push("--prune");
        }
        args.push(remote);
        let out = self.git_transport(&args, Some(input.as_bytes()))?;
        if !out.status.success() {
            bail!("cannot reach '{remote}': {}", last_lines(&out.stderr));
        }
        Ok(())
    }

    /// Pushes `refspecs` to `remote` without forcing and without running the
    /// pre-push hook (these are ultraplan's own references, not branches).
    /// `atomic` asks the server to take all or none.
    pub fn push_refspecs(&self, remote: &str, refspecs: &[String], atomic: bool) -> Result<PushOutcome> {
        self.push(remote, &[], refspecs, atomic)
    }

    fn push(&self, remote: &str, options: &[String], refspecs: &[String], atomic: bool) -> Result<PushOutcome> {
        let mut args = vec!["push", "--porcelain", "--no-verify"];
        if atomic {
            args.push("--atomic");
        }
        args.extend(options.iter().map(String::as_str));
        args.push(remote);
        args.extend(refspecs.iter().map(String::as_str));
        let out = self.git_transport(&args, None)?;
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        let mut refs = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            // `<flag>\t<from>:<to>\t<summary> (<reason>)`
            let mut fields = line.splitn(3, '\t');
            let (Some(flag), Some(names), summary) = (fields.next(), fields.next(), fields.next()) else {
                continue;
            };
            let Some((_, to)) = names.split_once(':') else { continue };
            refs.push(PushedRef {
                name: to.to_owned(),
                ok: matches!(flag, " " | "*" | "=" | "+" | "-"),
                summary: summary.unwrap_or("").to_owned(),
            });
        }
        // A server without atomic pushes says so before any reference: the
        // caller retries without --atomic.
        if refs.is_empty() && !out.status.success() && !(atomic && stderr.contains("does not support --atomic")) {
            bail!("cannot push to '{remote}': {}", last_lines(&out.stderr));
        }
        Ok(PushOutcome {
            refs,
            success: out.status.success(),
            stderr,
        })
    }

    /// Moves references of `remote` each under a lease: a reference is
    /// written (or deleted, for `new: None`) only if the remote still holds
    /// `expect` (`None`: only if it does not exist — a create-only push, that
    /// exactly one of several racing clones wins). With `atomic`, all or none.
    /// No pre-push hook runs: these are ultraplan's own references.
    pub fn push_leased(&self, remote: &str, leases: &[Lease], atomic: bool) -> Result<PushOutcome> {
        let options: Vec<String> = leases
            .iter()
            .map(|l| {
                let expect = l.expect.map(|id| id.to_string()).unwrap_or_default();
                format!("--force-with-lease={}:{expect}", l.name)
            })
            .collect();
        let refspecs: Vec<String> = leases
            .iter()
            .map(|l| match l.new {
                Some(id) => format!("{id}:{}", l.name),
                None => format!(":{}", l.name),
            })
            .collect();
        self.push(remote, &options, &refspecs, atomic)
    }

    /// Brings the objects reachable from `ids` (tips of the remote's
    /// references) without writing any reference, so that concurrent
    /// processes never contend for a reference lock.
    pub fn fetch_objects(&self, remote: &str, ids: &[Oid]) -> Result<()> {
        let missing: Vec<String> = ids
            .iter()
            .filter(|id| !self.has_object(**id))
            .map(|id| id.to_string())
            .collect();
        self.fetch_refspecs(remote, &missing, false)
    }

    /// Whether this repository is a shallow clone.
    pub fn is_shallow(&self) -> bool {
        self.inner.is_shallow().unwrap_or(false)
    }

    /// `git <args>` for talking to a remote: no terminal prompts (a hook or a
    /// script must fail, not hang), stdin fed from `input`.
    fn git_transport(&self, args: &[&str], input: Option<&[u8]>) -> Result<std::process::Output> {
        let git = self.git_cli().no_prompt().args(args);
        match input {
            Some(input) => git.stdin(input.to_vec()).output(),
            None => git.output(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_races_are_worth_a_retry() {
        let outcome = |summaries: &[&str]| PushOutcome {
            refs: summaries
                .iter()
                .map(|s| PushedRef {
                    name: "refs/notes/ultraplan".into(),
                    ok: false,
                    summary: (*s).into(),
                })
                .collect(),
            success: false,
            stderr: String::new(),
        };
        assert!(outcome(&["[rejected] (fetch first)"]).lost_a_race());
        assert!(outcome(&["[rejected] (non-fast-forward)", "[rejected] (atomic push failed)"]).lost_a_race());
        assert!(!outcome(&["[remote rejected] (pre-receive hook declined)"]).lost_a_race());
        assert!(!outcome(&[]).lost_a_race());
    }
}
