//! What a GSD plan says must be true, turned into checks ultraplan runs
//! itself (issue 10, item 6): front matter `must_haves.artifacts` and the
//! grep-verifiable lines of a task's `<acceptance_criteria>` become the
//! task's Manifest (DESIGN §6.2 d); the other criteria and the
//! `must_haves.truths` are recorded in the result's evidence.
//!
//! Grep-verifiable means one of these shapes, the path bare or backticked
//! and the text in single, double or back quotes:
//!
//! * `path contains 'text'` (also `includes`, `has`);
//! * `path does not contain 'text'`;
//! * `path uses 'a', NOT 'b'`.

use super::front_matter::scalar_text;
use super::{KeyLink, Manifest, MustContain, Step};

/// One `must_haves.artifacts` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Artifact {
    pub path: String,
    pub contains: Vec<String>,
    pub provides: Option<String>,
    pub min_lines: Option<u64>,
}

/// `must_haves.artifacts` and `must_haves.truths` of the front matter.
pub(crate) fn must_haves(yaml: &serde_yaml::Value) -> (Vec<Artifact>, Vec<String>) {
    let Some(m) = yaml.get("must_haves") else {
        return (Vec::new(), Vec::new());
    };
    let truths = m
        .get("truths")
        .and_then(|t| t.as_sequence())
        .map(|items| items.iter().filter_map(scalar_text).collect())
        .unwrap_or_default();
    let artifacts = m
        .get("artifacts")
        .and_then(|a| a.as_sequence())
        .map(|items| {
            items
                .iter()
                .filter_map(|item| {
                    let path = match item {
                        serde_yaml::Value::String(p) => p.clone(),
                        other => other.get("path").and_then(scalar_text)?,
                    };
                    let mut contains: Vec<String> = item.get("contains").and_then(scalar_text).into_iter().collect();
                    if let Some(exports) = item.get("exports").and_then(|e| e.as_sequence()) {
                        contains.extend(exports.iter().filter_map(scalar_text));
                    }
                    Some(Artifact {
                        path,
                        contains,
                        provides: item.get("provides").and_then(scalar_text),
                        min_lines: item.get("min_lines").and_then(|v| v.as_u64()),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    (artifacts, truths)
}

/// `must_haves.key_links` of the front matter (entries without `from` and
/// `to` are left out).
pub(crate) fn key_links(yaml: &serde_yaml::Value) -> Vec<KeyLink> {
    let Some(items) = yaml
        .get("must_haves")
        .and_then(|m| m.get("key_links"))
        .and_then(|k| k.as_sequence())
    else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            Some(KeyLink {
                from: item.get("from").and_then(scalar_text)?,
                to: item.get("to").and_then(scalar_text)?,
                via: item.get("via").and_then(scalar_text),
                pattern: item.get("pattern").and_then(scalar_text),
            })
        })
        .collect()
}

/// Audits, after the task that lists a link's `from` file, that the link
/// is there (like `must_haves.artifacts`); its `via` is recorded.
pub(crate) fn apply_links(step: &mut Step, links: &[KeyLink]) {
    let mine: Vec<&KeyLink> = links
        .iter()
        .filter(|l| step.files.iter().any(|f| f.path == l.from))
        .collect();
    if mine.is_empty() {
        return;
    }
    let manifest = step.manifest.get_or_insert_with(Manifest::default);
    for link in mine {
        manifest.key_links.push(link.clone());
        if let Some(via) = &link.via {
            step.unchecked.push(format!("{} → {} via {via}", link.from, link.to));
        }
    }
}

/// Links whose `from` no task lists are audited after the last task.
pub(crate) fn unclaimed_links(steps: &mut [Step], links: &[KeyLink]) {
    let unclaimed: Vec<KeyLink> = links
        .iter()
        .filter(|l| !steps.iter().any(|s| s.files.iter().any(|f| f.path == l.from)))
        .cloned()
        .collect();
    if let Some(last) = steps.last_mut() {
        if !unclaimed.is_empty() {
            for link in &unclaimed {
                if let Some(via) = &link.via {
                    last.unchecked.push(format!("{} → {} via {via}", link.from, link.to));
                }
            }
            last.manifest
                .get_or_insert_with(Manifest::default)
                .key_links
                .extend(unclaimed);
        }
    }
}

/// A criterion read as a check: (path, must contain, must not contain).
fn grep_criterion(line: &str) -> Option<(String, Option<String>, Option<String>)> {
    let t = line.trim();
    let (path, rest) = match t.strip_prefix('`') {
        Some(after) => {
            let end = after.find('`')?;
            (after[..end].to_owned(), after[end + 1..].trim_start())
        }
        None => {
            let (p, r) = t.split_once(' ')?;
            (p.to_owned(), r.trim_start())
        }
    };
    if path.is_empty() || !(path.contains('.') || path.contains('/')) {
        return None;
    }
    let lower = rest.to_lowercase();
    let quoted = |s: &str| -> Option<(String, usize)> {
        let s = s.trim_start();
        let q = s.chars().next().filter(|c| matches!(c, '\'' | '"' | '`'))?;
        let end = s[1..].find(q)?;
        Some((s[1..1 + end].to_owned(), end + 2))
    };
    for verb in ["does not contain", "doesn't contain", "must not contain"] {
        if let Some(after) = lower.strip_prefix(verb) {
            let (text, _) = quoted(&rest[rest.len() - after.len()..])?;
            return Some((path, None, Some(text)));
        }
    }
    for verb in ["contains", "includes", "has", "uses"] {
        if let Some(after) = lower.strip_prefix(verb) {
            let after_raw = &rest[rest.len() - after.len()..];
            let (text, used) = quoted(after_raw)?;
            let tail = after_raw.trim_start()[used..]
                .trim_start()
                .trim_start_matches(',')
                .trim_start();
            let not = tail.strip_prefix("NOT").or_else(|| tail.strip_prefix("not"));
            let forbidden = match not {
                Some(n) => Some(quoted(n)?.0),
                None if tail.is_empty() => None,
                None => return None,
            };
            return Some((path, Some(text), forbidden));
        }
    }
    None
}

/// Applies a task's `<acceptance_criteria>` lines and the plan's artifacts
/// that the task lists in its files to the step.
pub(crate) fn apply(step: &mut Step, criteria: &[String], artifacts: &[Artifact]) {
    let mut manifest = Manifest::default();
    for line in criteria {
        match grep_criterion(line) {
            Some((path, must, not)) => {
                if let Some(text) = must {
                    manifest.must_contain.push(MustContain {
                        path: path.clone(),
                        pattern: regex::escape(&text),
                    });
                }
                if let Some(text) = not {
                    manifest.must_not_contain.push(MustContain {
                        path,
                        pattern: regex::escape(&text),
                    });
                }
            }
            None => step.unchecked.push(line.clone()),
        }
    }
    for a in artifacts.iter().filter(|a| step.files.iter().any(|f| f.path == a.path)) {
        manifest.expected_paths.push(a.path.clone());
        // "Real content": more than whitespace.
        manifest.must_contain.push(MustContain {
            path: a.path.clone(),
            pattern: r"\S".into(),
        });
        for text in &a.contains {
            manifest.must_contain.push(MustContain {
                path: a.path.clone(),
                pattern: regex::escape(text),
            });
        }
        if let Some(n) = a.min_lines {
            step.unchecked.push(format!("{} has at least {n} lines", a.path));
        }
        if let Some(p) = &a.provides {
            step.unchecked.push(format!("{} provides {p}", a.path));
        }
    }
    if manifest != Manifest::default() && step.manifest.is_none() {
        step.manifest = Some(manifest);
    }
}

/// The `- ` items of an `<acceptance_criteria>` element.
pub(crate) fn criteria_lines(content: &str) -> Vec<String> {
    content
        .lines()
        .map(|l| l.trim())
        .filter_map(|l| l.strip_prefix("- ").or_else(|| l.strip_prefix("* ")))
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grep_verifiable_criteria() {
        assert_eq!(
            grep_criterion("src/lib/session.ts contains 'createHmac'"),
            Some(("src/lib/session.ts".into(), Some("createHmac".into()), None))
        );
        assert_eq!(
            grep_criterion("`src/a.ts` uses 'sid', NOT 'session_id'"),
            Some(("src/a.ts".into(), Some("sid".into()), Some("session_id".into())))
        );
        assert_eq!(
            grep_criterion("config.json does not contain \"debug\""),
            Some(("config.json".into(), None, Some("debug".into())))
        );
        assert_eq!(grep_criterion("Users can sign in with 'email'"), None);
        assert_eq!(grep_criterion("src/a.ts contains the handler"), None);
    }

    #[test]
    fn must_haves_from_front_matter() {
        let yaml: serde_yaml::Value = crate::yaml::parse(
            "must_haves:\n  truths: [\"works\"]\n  artifacts:\n    - path: src/a.ts\n      provides: A\n      min_lines: 3\n      exports: [\"GET\"]\n",
        )
        .unwrap();
        let (artifacts, truths) = must_haves(&yaml);
        assert_eq!(truths, ["works"]);
        assert_eq!(artifacts[0].path, "src/a.ts");
        assert_eq!(artifacts[0].contains, ["GET"]);
        assert_eq!(artifacts[0].min_lines, Some(3));
    }
}
