//! The Manifest field: the YAML audit of what a step must leave behind.

use crate::ultraplan::plan::markdown::Field;
use crate::ultraplan::plan::{Diagnostics, Manifest};

/// Manifest: a YAML block (usually fenced), with or without a `manifest:` key.
pub(crate) fn manifest(field: &Field<'_>, step: u32, diags: &mut Diagnostics) -> Option<Manifest> {
    let (yaml, line) = match field.code_blocks().into_iter().next() {
        Some(block) => (block.code, block.line + 1),
        None => (field.text(), field.line),
    };
    let value: serde_yaml::Value = match crate::yaml::parse(&yaml) {
        Ok(v) => v,
        Err(err) => {
            let at = err.line.map_or(line, |l| line + l.saturating_sub(1));
            diags.problem(at, format!("step {step}: Manifest is not valid YAML: {}", err.message));
            return None;
        }
    };
    let inner = match &value {
        serde_yaml::Value::Mapping(m) if m.len() == 1 && m.contains_key("manifest") => m["manifest"].clone(),
        _ => value,
    };
    if let serde_yaml::Value::Mapping(m) = &inner {
        const KNOWN: [&str; 7] = [
            "expected_paths",
            "forbidden_paths",
            "must_contain",
            "must_not_contain",
            "min_file_count",
            "commit_message_pattern",
            "bash_syntax_check",
        ];
        for key in m.keys().filter_map(|k| k.as_str()) {
            if !KNOWN.contains(&key) {
                diags.warning(line, format!("step {step}: unknown Manifest key '{key}' is ignored"));
            }
        }
    }
    match serde_yaml::from_value::<Manifest>(inner) {
        Ok(m) => Some(m),
        Err(err) => {
            diags.problem(
                line,
                format!(
                    "step {step}: cannot read the Manifest: {}",
                    first_line(&err.to_string())
                ),
            );
            None
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
