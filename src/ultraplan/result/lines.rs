//! Line numbers of keys in a YAML document, for messages: serde_yaml's
//! values carry no positions, so the text is scanned for `key:` lines by
//! indentation, skipping block scalars (`evidence: |`).

use std::collections::HashMap;

/// Maps dotted key paths (`verification.exit_code`) and list items of a key
/// (`files_modified[1]`) to their 1-based lines.
pub(crate) fn key_lines(text: &str) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut block_scalar_indent: Option<usize> = None;
    let mut items: HashMap<String, usize> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - trimmed.len();
        if let Some(block) = block_scalar_indent {
            if indent > block {
                continue;
            }
            block_scalar_indent = None;
        }
        if trimmed.starts_with("- ") || trimmed == "-" {
            if stack.last().is_some_and(|(level, _)| *level <= indent) {
                let parent = stack.iter().map(|(_, k)| k.as_str()).collect::<Vec<_>>().join(".");
                let index = items.entry(parent.clone()).or_insert(0);
                out.entry(format!("{parent}[{index}]")).or_insert(i + 1);
                *index += 1;
            }
            continue;
        }
        if trimmed == "---" {
            continue;
        }
        let Some((key, rest)) = trimmed.split_once(':') else {
            continue;
        };
        let key = key.trim().trim_matches(['"', '\'']);
        if key.is_empty() || key.contains(' ') {
            continue;
        }
        while stack.last().is_some_and(|(level, _)| *level >= indent) {
            stack.pop();
        }
        let path = stack
            .iter()
            .map(|(_, k)| k.as_str())
            .chain(std::iter::once(key))
            .collect::<Vec<_>>()
            .join(".");
        out.entry(path).or_insert(i + 1);
        stack.push((indent, key.to_owned()));
        let value = rest.trim();
        if value.starts_with('|') || value.starts_with('>') {
            block_scalar_indent = Some(indent);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_keys_and_block_scalars() {
        let lines = key_lines(
            "status: x\nverification:\n  command: y\n  exit_code: 1\nevidence: |\n  status: not a key\nerror: null\n",
        );
        assert_eq!(lines["status"], 1);
        assert_eq!(lines["verification.exit_code"], 4);
        assert_eq!(lines["error"], 7);
        assert_eq!(lines.len(), 6);
    }

    #[test]
    fn list_items_are_numbered() {
        let lines = key_lines("files_modified:\n  - a\n  - b\nerror: null\n");
        assert_eq!(lines["files_modified[0]"], 2);
        assert_eq!(lines["files_modified[1]"], 3);
    }
}
