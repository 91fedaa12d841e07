//! No input makes the parser panic.

use super::super::parse;
use proptest::prelude::*;

const FRAGMENTS: &[&str] = &[
    "# Title\n",
    "## Implementation Plan\n",
    "## Execution Strategy\n",
    "### Execution Order\n",
    "## Verification\n",
    "## Dependencies\n",
    "## Scope Fence\n",
    "## Steps\n",
    "## Exit Condition\n",
    "### Step 1: A\n",
    "### Step 99999999999: B\n",
    "### Session 2: S\n",
    "- **Files:** `a`, `../b` (new)\n",
    "- **Verify:**\n",
    "- **Verify:** `x` → expected: `y`\n",
    "  ```bash\n",
    "```\n",
    "~~~\n",
    "- **On failure:** `revert` — x\n",
    "- **Checkpoint:** `git commit -m \"m\"`\n",
    "- **Manifest:**\n",
    "  manifest: {a: [\n",
    "- **Steps:** 1-3, 5–2\n",
    "- **Depends on:** Session 2, S1\n",
    "- **Wave:** 0\n",
    "- Wave 1: Session 1 (x)\n",
    "- **Scope fence:** Touch: `**/*` — Never touch: `[`\n",
    "- [ ] `cmd` → expected: `z`\n",
    "<task type=\"auto\">\n",
    "<name>Task 1: n</name>\n",
    "<files>a, b</files>\n",
    "<verify>`v`</verify>\n",
    "</task>\n",
    "<success_criteria>\n- [x] Task 1: n\n</success_criteria>\n",
    "---\n",
    "plan: 01\n",
    "  - **File:** `t`\n",
    "`",
    "**",
    "→",
    "\u{feff}",
    "\r\n",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = parse(&text, "x.md");
    }

    #[test]
    fn plan_shaped_text_never_panics(parts in prop::collection::vec(0..FRAGMENTS.len(), 0..60), noise in ".{0,20}") {
        let mut text: String = parts.iter().map(|&i| FRAGMENTS[i]).collect();
        text.push_str(&noise);
        if let Ok(plan) = parse(&text, "x.md") {
            // Every diagnostic has a line inside the file.
            let lines = text.split('\n').count();
            for d in &plan.diagnostics {
                prop_assert!(d.line >= 1 && d.line <= lines.max(1), "{d:?}");
            }
        }
    }
}
