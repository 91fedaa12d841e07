use super::fields::field_label;
use super::*;

#[test]
fn fences_hide_headings_and_fields() {
    let doc = Document::new("# Title\n```sh\n# not a heading\n- **Files:** no\n```\n## Real\n", 1);
    let texts: Vec<_> = doc.headings.iter().map(|h| (h.level, h.text)).collect();
    assert_eq!(texts, vec![(1, "Title"), (2, "Real")]);
    assert!(doc.lines[2].fenced);
    assert!(doc.unclosed_fence.is_none());
}

#[test]
fn unclosed_fence_is_reported() {
    let doc = Document::new("a\n~~~\nb\n", 1);
    assert_eq!(doc.unclosed_fence, Some(2));
}

#[test]
fn labels_in_every_spelling() {
    for line in [
        "- **Files:** `a`",
        "- **Files**: `a`",
        "* Files: `a`",
        "+ __Files:__ `a`",
        "Files: `a`",
        "- *Files:* `a`",
    ] {
        assert_eq!(field_label(line), Some(("files".into(), "`a`")), "{line}");
    }
    assert_eq!(field_label("- **Test-first:** x").unwrap().0, "test first");
    assert_eq!(
        field_label("- just a sentence, with: a colon that is long and wordy").map(|f| f.0),
        None
    );
    assert_eq!(field_label("- `code`: x"), None);
}

#[test]
fn field_bodies_take_nested_and_fenced_lines() {
    let doc = Document::new(
        "- **Verify:**\n  ```bash\n  - **Files:** inside\n  ```\n  → expected: ok\n- **On failure:** skip\n\nTrailing prose.\n",
        1,
    );
    let fields = parse_fields(&doc.lines).fields;
    assert_eq!(fields.len(), 2);
    assert_eq!(fields[0].label, "verify");
    assert_eq!(fields[0].body.len(), 4);
    assert_eq!(fields[0].code_blocks()[0].code, "- **Files:** inside");
    assert_eq!(fields[1].value, "skip");
    assert!(fields[1].body.is_empty());
}

#[test]
fn code_spans_follow_commonmark() {
    let spans: Vec<_> = code_spans("a `b` c ``d ` e`` `unclosed")
        .into_iter()
        .map(|s| s.content)
        .collect();
    assert_eq!(spans, vec!["b", "d ` e"]);
}

#[test]
fn headings_normalise() {
    assert_eq!(normalize_heading("**3. Implementation  Plan**"), "implementation plan");
    assert_eq!(normalize_heading("Execution Strategy"), "execution strategy");
}

#[test]
fn checkboxes() {
    assert_eq!(checkbox("[ ] Task 1: a"), Some((false, "Task 1: a")));
    assert_eq!(checkbox("[x] Task 1: a"), Some((true, "Task 1: a")));
    assert_eq!(checkbox("Task"), None);
}
