//! A step's Manifest (DESIGN §6.2 4d), audited when Verify passed:
//! expected paths exist, patterns are found or absent, key links hold,
//! enough files changed, the checkpoint message matches, shell files parse.
//! Its forbidden paths are scope, fenced in [`super::scope`].

use std::path::Path;
use std::time::Duration;

use super::command_check;
use crate::git::FileChange;
use crate::process;
use crate::ultraplan::plan::pattern;
use crate::ultraplan::plan::{Checkpoint, Manifest};

/// Checks a step's Manifest against the attempt (forbidden paths are scope,
/// checked before): expected paths exist, patterns are found, enough files
/// changed, the checkpoint message matches, shell files parse. Returns every miss.
pub(super) fn audit(
    manifest: &Manifest,
    root: &Path,
    changes: &[FileChange],
    checkpoint: Option<&Checkpoint>,
) -> Vec<String> {
    let mut misses = Vec::new();
    for path in &manifest.expected_paths {
        if pattern::safe_relative_path(path).is_ok() && root.join(path).symlink_metadata().is_err() {
            misses.push(format!("manifest: expected path '{path}' does not exist"));
        }
    }
    for rule in &manifest.must_contain {
        let Ok(safe) = pattern::safe_relative_path(&rule.path) else {
            continue;
        };
        match regex::Regex::new(&rule.pattern) {
            Err(e) => misses.push(format!(
                "manifest: pattern '{}' is not a valid regex: {e}",
                rule.pattern
            )),
            Ok(re) => match std::fs::read_to_string(root.join(&safe)) {
                Ok(text) if re.is_match(&text) => {}
                Ok(_) => misses.push(format!("manifest: '{}' does not contain /{}/", rule.path, rule.pattern)),
                Err(_) => misses.push(format!(
                    "manifest: cannot read '{}' to look for /{}/",
                    rule.path, rule.pattern
                )),
            },
        }
    }
    for rule in &manifest.must_not_contain {
        let Ok(safe) = pattern::safe_relative_path(&rule.path) else {
            continue;
        };
        if let (Ok(re), Ok(text)) = (
            regex::Regex::new(&rule.pattern),
            std::fs::read_to_string(root.join(&safe)),
        ) {
            if re.is_match(&text) {
                misses.push(format!(
                    "manifest: '{}' contains /{}/, which it must not",
                    rule.path, rule.pattern
                ));
            }
        }
    }
    for link in &manifest.key_links {
        if let Some(miss) = audit_link(link, root) {
            misses.push(miss);
        }
    }
    if let Some(min) = manifest.min_file_count {
        if (changes.len() as u64) < min {
            misses.push(format!(
                "manifest: {} file(s) changed, at least {min} expected",
                changes.len()
            ));
        }
    }
    if let (Some(pattern), Some(Checkpoint::Commit { message })) = (&manifest.commit_message_pattern, checkpoint) {
        match regex::Regex::new(pattern) {
            Ok(re) if !re.is_match(message) => misses.push(format!(
                "manifest: checkpoint message '{message}' does not match /{pattern}/"
            )),
            Err(e) => misses.push(format!("manifest: commit_message_pattern is not a valid regex: {e}")),
            _ => {}
        }
    }
    for file in &manifest.bash_syntax_check {
        let Ok(safe) = pattern::safe_relative_path(file) else {
            continue;
        };
        let finished = process::run(process::Spec {
            program: "bash",
            args: vec!["-n".into(), safe.clone()],
            cwd: root,
            env: Vec::new(),
            stdin: None,
            timeout: Duration::from_secs(60),
            cap: 64 * 1024,
        });
        match finished {
            Ok(f) if f.ending.success() => {}
            Ok(f) => misses.push(format!(
                "manifest: bash -n '{file}' failed: {}",
                command_check::tail(&f.output(), 3)
            )),
            Err(e) => misses.push(format!("manifest: cannot run bash -n '{file}': {e}")),
        }
    }
    misses
}

/// A GSD key link (as GSD Core's `verify key-links` checks it): `from`
/// exists, and its `pattern` matches `from` or `to` — without a pattern,
/// `from` names `to` (its path, its path without extension, or its file
/// stem after a `/` or a quote, as imports write it).
fn audit_link(link: &crate::ultraplan::plan::KeyLink, root: &Path) -> Option<String> {
    let read = |p: &str| {
        pattern::safe_relative_path(p)
            .ok()
            .and_then(|safe| std::fs::read_to_string(root.join(safe)).ok())
    };
    let via = link.via.as_deref().map(|v| format!(" (via {v})")).unwrap_or_default();
    let Some(source) = read(&link.from) else {
        return Some(format!(
            "key link: '{}' does not exist, so it cannot reach '{}'{via}",
            link.from, link.to
        ));
    };
    match &link.pattern {
        Some(p) => match regex::Regex::new(p) {
            Err(e) => Some(format!("key link: pattern '{p}' is not a valid regex: {e}")),
            Ok(re) if re.is_match(&source) || read(&link.to).is_some_and(|t| re.is_match(&t)) => None,
            Ok(_) => Some(format!(
                "key link: /{p}/ is in neither '{}' nor '{}'{via}",
                link.from, link.to
            )),
        },
        None => {
            let to = link.to.as_str();
            let no_ext = to
                .rsplit_once('.')
                .map_or(to, |(stem, ext)| if ext.contains('/') { to } else { stem });
            let stem = no_ext.rsplit('/').next().unwrap_or(no_ext);
            let named = source.contains(to)
                || source.contains(no_ext)
                || ["/", "'", "\""]
                    .iter()
                    .any(|lead| source.contains(&format!("{lead}{stem}")));
            (!named).then(|| format!("key link: '{}' does not reference '{}'{via}", link.from, link.to))
        }
    }
}

#[cfg(test)]
mod key_link_tests {
    use super::*;
    use crate::ultraplan::plan::KeyLink;

    #[test]
    fn links_are_found_by_path_stem_or_pattern() {
        let dir = std::env::temp_dir().join(format!("ul-keylink-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("app")).unwrap();
        std::fs::write(dir.join("app/page.html"), "<script src=\"chart.js\"></script>\n").unwrap();
        std::fs::write(dir.join("app/chart.js"), "fetch('/api/week')\n").unwrap();
        let link = |from: &str, to: &str, pattern: Option<&str>| KeyLink {
            from: from.into(),
            to: to.into(),
            via: Some("x".into()),
            pattern: pattern.map(Into::into),
        };
        assert_eq!(audit_link(&link("app/page.html", "app/chart.js", None), &dir), None);
        assert_eq!(
            audit_link(
                &link("app/page.html", "app/chart.js", Some(r"fetch\(.*/api/week")),
                &dir
            ),
            None
        );
        assert!(audit_link(&link("app/page.html", "app/other.js", None), &dir).is_some());
        assert!(audit_link(&link("app/missing.html", "app/chart.js", None), &dir).is_some());
        assert!(audit_link(&link("app/page.html", "app/chart.js", Some("nowhere")), &dir).is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
