//! What the remote holds for distributed runs, read in two round trips:
//! `git ls-remote` for the names, one fetch (of objects only, no reference
//! written, so any number of workers on one clone never contend) for the
//! published work and the claims.

use std::collections::BTreeMap;

use anyhow::Result;

use super::{Claim, Work};
use crate::git::{Oid, Repo};

/// The remote's distributed runs.
#[derive(Debug, Default)]
pub struct View {
    /// Published work by slug: its commit, the work, the plan's text.
    pub works: BTreeMap<String, (Oid, Work, String)>,
    /// Claims by slug and session.
    pub claims: BTreeMap<(String, u32), (Oid, Claim)>,
    /// Session states by slug and session.
    pub states: BTreeMap<(String, u32), Oid>,
    /// Session branches by slug and session.
    pub branches: BTreeMap<(String, u32), Oid>,
    /// What could not be read, with why (skipped, never acted on).
    pub problems: Vec<String>,
}

impl View {
    /// Reads `remote`, only the plan `slug` when given.
    pub fn read(repo: &Repo, remote: &str, slug: Option<&str>) -> Result<View> {
        let patterns = match slug {
            Some(s) => [format!("refs/ultraplan/{s}/*"), format!("refs/heads/ultraplan/{s}/*")],
            None => ["refs/ultraplan/*".to_owned(), "refs/heads/ultraplan/*".to_owned()],
        };
        let listed = repo.ls_remote(remote, &[patterns[0].as_str(), patterns[1].as_str()])?;
        let mut view = View::default();
        let mut wanted = Vec::new();
        let mut works = Vec::new();
        let mut claims = Vec::new();
        for (name, id) in listed {
            match Name::of(&name) {
                Some(Name::Work(slug)) => {
                    wanted.push(id);
                    works.push((slug, id));
                }
                Some(Name::Claim(slug, n)) => {
                    wanted.push(id);
                    claims.push((slug, n, id));
                }
                Some(Name::State(slug, n)) => {
                    view.states.insert((slug, n), id);
                }
                Some(Name::Branch(slug, n)) => {
                    view.branches.insert((slug, n), id);
                }
                None => {}
            }
        }
        repo.fetch_objects(remote, &wanted)?;
        for (slug, id) in works {
            match Work::read(repo, id) {
                Ok((work, plan)) if work.slug == slug => {
                    view.works.insert(slug, (id, work, plan));
                }
                Ok(_) => view
                    .problems
                    .push(format!("refs/ultraplan/{slug}/work names another plan")),
                Err(e) => view.problems.push(format!("refs/ultraplan/{slug}/work: {e:#}")),
            }
        }
        for (slug, n, id) in claims {
            let text = repo.read_blob(id).map(|b| String::from_utf8_lossy(&b).into_owned());
            match text.ok().as_deref().and_then(Claim::parse) {
                Some(claim) if claim.session == n => {
                    view.claims.insert((slug, n), (id, claim));
                }
                _ => view
                    .problems
                    .push(format!("refs/ultraplan/{slug}/claims/session-{n} is not a claim")),
            }
        }
        Ok(view)
    }

    /// The claim on session `n` of `slug` in the run `work_id`, if any.
    pub fn claim_in(&self, slug: &str, n: u32, work_id: &str) -> Option<&(Oid, Claim)> {
        self.claims
            .get(&(slug.to_owned(), n))
            .filter(|(_, c)| c.work == work_id)
    }
}

/// A reference name of a distributed run.
#[derive(Debug, PartialEq, Eq)]
enum Name {
    Work(String),
    Claim(String, u32),
    State(String, u32),
    Branch(String, u32),
}

impl Name {
    fn of(name: &str) -> Option<Name> {
        let session = |s: &str| s.strip_prefix("session-").and_then(|n| n.parse::<u32>().ok());
        if let Some(rest) = name.strip_prefix("refs/heads/ultraplan/") {
            let (slug, last) = rest.split_once('/')?;
            return Some(Name::Branch(slug.to_owned(), session(last)?));
        }
        let parts: Vec<&str> = name.strip_prefix("refs/ultraplan/")?.split('/').collect();
        match parts.as_slice() {
            [slug, "work"] => Some(Name::Work((*slug).to_owned())),
            [slug, "claims", last] => Some(Name::Claim((*slug).to_owned(), session(last)?)),
            [slug, last] => Some(Name::State((*slug).to_owned(), session(last)?)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_distributed_runs() {
        assert_eq!(Name::of("refs/ultraplan/p/work"), Some(Name::Work("p".into())));
        assert_eq!(
            Name::of("refs/ultraplan/p/claims/session-2"),
            Some(Name::Claim("p".into(), 2))
        );
        assert_eq!(
            Name::of("refs/ultraplan/p/session-12"),
            Some(Name::State("p".into(), 12))
        );
        assert_eq!(
            Name::of("refs/heads/ultraplan/p/session-3"),
            Some(Name::Branch("p".into(), 3))
        );
        assert_eq!(Name::of("refs/ultraplan/p/run"), None);
        assert_eq!(Name::of("refs/ultraplan/p/lock"), None);
        assert_eq!(Name::of("refs/ultraplan/p/claims/session-x"), None);
        assert_eq!(Name::of("refs/heads/ultraplan/p/q/session-1"), None);
    }
}
