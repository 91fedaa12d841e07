//! `git ultraplan report`: a run as a picture. [`read`] builds the
//! [`model`] from the recorded state (through the state's readers only);
//! [`html`] renders it as one self-contained page with an inline SVG
//! [`timeline`], [`markdown`] as Markdown for a pull request or a CI job
//! summary. Nothing here writes to the repository or prints.

pub mod html;
pub mod markdown;
pub mod model;
pub mod read;
pub mod timeline;

pub use model::Report;
pub use read::{read, Options};

/// Where a hosting service shows a commit, from a remote's URL: the prefix
/// a commit id completes (`https://github.com/o/r/commit/`), for the hosts
/// whose address for a commit is known (GitHub, GitLab, Codeberg). `None`
/// for any other URL; `--commit-url` names one then. Credentials in the
/// URL are never carried over.
pub fn commit_url_of_remote(remote: &str) -> Option<String> {
    let remote = remote.trim();
    // `git@host:owner/repo.git`, `ssh://git@host/owner/repo`, `https://user:tok@host/owner/repo.git`.
    let rest = match remote.split_once("://") {
        Some((_, rest)) => rest.to_owned(),
        None => remote.replacen(':', "/", 1),
    };
    let rest = rest.rsplit_once('@').map_or(rest.as_str(), |(_, r)| r);
    let (host, path) = rest.split_once('/')?;
    let host = host.split(':').next()?.to_ascii_lowercase();
    let path = path.trim_end_matches('/').trim_end_matches(".git");
    let safe = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    let parts: Vec<&str> = path.split('/').collect();
    if parts.len() < 2 || !parts.iter().all(|p| safe(p)) {
        return None;
    }
    match host.as_str() {
        "github.com" | "codeberg.org" if parts.len() == 2 => Some(format!("https://{host}/{path}/commit/")),
        "gitlab.com" => Some(format!("https://{host}/{path}/-/commit/")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::commit_url_of_remote as url;

    #[test]
    fn commit_addresses_of_known_hosts() {
        assert_eq!(
            url("git@github.com:owner/repo.git").as_deref(),
            Some("https://github.com/owner/repo/commit/")
        );
        assert_eq!(
            url("https://user:secret@github.com/owner/repo").as_deref(),
            Some("https://github.com/owner/repo/commit/")
        );
        assert_eq!(
            url("ssh://git@gitlab.com/group/sub/repo.git").as_deref(),
            Some("https://gitlab.com/group/sub/repo/-/commit/")
        );
        assert_eq!(url("/srv/git/repo.git"), None);
        assert_eq!(url("https://git.example.com/o/r"), None);
        assert_eq!(url("https://github.com/o/r\"><script>"), None);
    }
}
