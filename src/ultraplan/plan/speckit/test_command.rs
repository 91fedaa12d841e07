//! A spec-kit feature's test command: `plan.md`'s Technical Context names
//! it (`**Testing**: pytest`), else `quickstart.md` shows one.

use crate::ultraplan::plan::markdown::{code_spans, Document};
use crate::ultraplan::plan::verify_text::is_command;
use crate::ultraplan::plan::Context;

/// The feature's test command and where it was found: `plan.md`'s
/// `**Testing**:` field (a code span in it, else the value when it reads as
/// a command), else the first command line in `quickstart.md` that runs
/// tests (a word of it contains "test").
pub(super) fn test_command(ctx: &Context) -> Option<(String, String)> {
    if let Some(plan_md) = ctx.companions.get("plan.md") {
        for (i, line) in plan_md.lines().enumerate() {
            let t = crate::ultraplan::plan::markdown::strip_list_marker(line.trim());
            let value = ["**Testing**:", "**Testing:**", "Testing:"]
                .iter()
                .find_map(|lead| t.strip_prefix(lead))
                .map(str::trim);
            let Some(value) = value else { continue };
            let spans = code_spans(value);
            let found = spans
                .iter()
                .map(|s| s.content.trim().to_owned())
                .find(|c| is_command(c))
                .or_else(|| {
                    let v = value.trim_end_matches('.').trim();
                    (is_command(v) && !v.contains("NEEDS CLARIFICATION")).then(|| v.to_owned())
                });
            if let Some(command) = found {
                return Some((command, format!("plan.md line {}: '{}'", i + 1, line.trim())));
            }
        }
    }
    if let Some(quick) = ctx.companions.get("quickstart.md") {
        let doc = Document::new(quick, 1);
        for line in &doc.lines {
            let candidates: Vec<String> = if line.fenced {
                vec![line.text.trim().trim_start_matches("$ ").to_owned()]
            } else {
                code_spans(line.text)
                    .into_iter()
                    .map(|s| s.content.to_owned())
                    .collect()
            };
            for c in candidates {
                let runs_tests = c.split_whitespace().any(|w| w.to_lowercase().contains("test"));
                if runs_tests && !c.starts_with("```") && is_command(&c) {
                    return Some((c.clone(), format!("quickstart.md line {}", line.no)));
                }
            }
        }
    }
    None
}
