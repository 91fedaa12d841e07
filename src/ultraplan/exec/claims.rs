//! What an executor says about its own attempt: the result YAML it wrote
//! (to `ULTRAPLAN_RESULT_FILE`, or as the last YAML document it printed),
//! read for its status, evidence, error and metadata — claims to record
//! beside what ultraplan observed, never a verdict.

use super::{AgentClaims, Claim, Outcome, Tokens};

/// Takes status, evidence and error from a result YAML the executor gave.
pub(super) fn apply_claims(outcome: &mut Outcome, yaml: &str) {
    let Ok(serde_yaml::Value::Mapping(map)) = crate::yaml::parse(yaml) else {
        return;
    };
    let text = |k: &str| map.get(k).and_then(|v| v.as_str()).map(str::to_owned);
    match text("status").as_deref() {
        Some("success") => outcome.claim = Claim::Success,
        Some("failure") => outcome.claim = Claim::Failure,
        Some("blocked") => outcome.claim = Claim::Blocked,
        _ => {}
    }
    if let Some(evidence) = text("evidence") {
        outcome.evidence = Some(evidence);
    }
    if let Some(error) = text("error") {
        outcome.error = Some(error);
    }
    if let Some(meta) = map.get("metadata").and_then(|m| m.as_mapping()) {
        if let Some(cost) = meta.get("cost_usd").and_then(|v| v.as_f64()).filter(|c| *c >= 0.0) {
            outcome.cost_usd.get_or_insert(cost);
        }
        // What an agent behind the command protocol says about itself.
        if outcome.tokens.is_none() {
            outcome.tokens = match meta.get("tokens") {
                Some(serde_yaml::Value::Number(n)) => n.as_u64().map(|total| Tokens {
                    total,
                    ..Tokens::default()
                }),
                Some(serde_yaml::Value::Mapping(t)) => {
                    let n = |k: &str| t.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
                    Some(Tokens {
                        input: n("input"),
                        output: n("output"),
                        cached: n("cached"),
                        total: n("total"),
                    })
                }
                _ => None,
            };
        }
        let text = |k: &str| meta.get(k).and_then(|v| v.as_str()).map(str::to_owned);
        if outcome.agent.is_none() && (meta.contains_key("model") || meta.contains_key("session_id")) {
            outcome.agent = Some(AgentClaims {
                model: text("model"),
                session_id: text("session_id"),
                turns: meta.get("turns").and_then(|v| v.as_u64()).map(|t| t as u32),
                resumed: false,
            });
        }
    }
}

/// The last YAML document in an executor's stdout: the last fenced ```yaml
/// block, else the last `---` document that is a mapping with a `status`.
pub fn last_yaml_document(stdout: &str) -> Option<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let mut found = None;
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        if t.starts_with("```yaml") || t.starts_with("```yml") {
            let start = i + 1;
            let mut j = start;
            while j < lines.len() && !lines[j].trim_start().starts_with("```") {
                j += 1;
            }
            found = Some(lines[start..j.min(lines.len())].join("\n"));
            i = j + 1;
        } else {
            i += 1;
        }
    }
    if found.is_some() {
        return found;
    }
    let mut docs: Vec<Vec<&str>> = vec![Vec::new()];
    for line in &lines {
        if line.trim_end() == "---" {
            docs.push(Vec::new());
        } else if line.trim_end() == "..." {
            continue;
        } else if let Some(doc) = docs.last_mut() {
            doc.push(line);
        }
    }
    docs.into_iter().rev().map(|d| d.join("\n")).find(|text| {
        matches!(crate::yaml::parse(text),
            Ok(serde_yaml::Value::Mapping(ref m)) if m.contains_key("status"))
    })
}
