use super::checkpoint::*;
use super::files::*;
use super::lists::*;
use super::on_failure::*;
use super::scope::*;
use super::verify::*;
use super::{is_none_text, is_none_value};
use crate::ultraplan::plan::markdown::{parse_fields, Document, Field};
use crate::ultraplan::plan::{shell_words, Checkpoint, Diagnostics, ExpectedKind, FailurePolicy};

fn field(text: &str) -> (Field<'_>, Diagnostics) {
    let doc = Box::leak(Box::new(Document::new(text, 1)));
    (parse_fields(&doc.lines).fields.remove(0), Diagnostics::default())
}

#[test]
fn files_with_markers_and_none() {
    let (f, mut d) = field("- **Files:** `src/a.rs` (new), `src/b.rs` (existing)");
    let got: Vec<_> = files(&f, 1, &mut d).into_iter().map(|f| (f.path, f.new)).collect();
    assert_eq!(got, vec![("src/a.rs".into(), true), ("src/b.rs".into(), false)]);
    let (f, mut d) = field("- **Files:** none (read-only test)");
    assert!(files(&f, 1, &mut d).is_empty());
    let (f, mut d) = field("- Files: src/a.rs, src/b.rs (new)");
    let got: Vec<_> = files(&f, 1, &mut d).into_iter().map(|f| (f.path, f.new)).collect();
    assert_eq!(got, vec![("src/a.rs".into(), false), ("src/b.rs".into(), true)]);
}

#[test]
fn verify_one_line_and_fenced() {
    let (f, mut d) = field("- **Verify:** `cargo test x` → expected: `test result: ok`");
    let v = verify(&f, 1, &mut d).unwrap();
    assert_eq!(v.command, "cargo test x");
    assert_eq!(v.expected.as_deref(), Some("test result: ok"));
    assert_eq!(v.expected_kind, Some(ExpectedKind::Literal));

    let (f, mut d) = field("- **Verify:**\n  ```bash\n  a | b\n  ```\n  -> expected: non-77 exit code\n");
    let v = verify(&f, 1, &mut d).unwrap();
    assert_eq!(v.command, "a | b");
    assert_eq!(v.expected.as_deref(), Some("non-77 exit code"));
    assert_eq!(v.expected_kind, Some(ExpectedKind::Prose));

    let (f, mut d) = field("- Verify: `wc -l` → expected: `>= 1`");
    assert_eq!(
        verify(&f, 1, &mut d).unwrap().expected_kind,
        Some(ExpectedKind::Comparison)
    );
}

#[test]
fn expected_inside_a_code_span_is_part_of_the_command() {
    let (before, after) = split_expected("`grep 'expected: x' f` → expected: `x`");
    assert_eq!(before, "`grep 'expected: x' f`");
    assert_eq!(after, Some("`x`"));
}

#[test]
fn on_failure_forms() {
    for (text, action, instr) in [
        (
            "- **On failure:** revert — restore `a`",
            FailurePolicy::Revert,
            Some("restore `a`"),
        ),
        (
            "- **On failure:** `escalate` — the API changed",
            FailurePolicy::Escalate,
            Some("the API changed"),
        ),
        (
            "- On failure: retry - once, then escalate",
            FailurePolicy::Retry,
            Some("once, then escalate"),
        ),
        ("- On failure: **skip**", FailurePolicy::Skip, None),
    ] {
        let (f, mut d) = field(text);
        let got = on_failure(&f, 1, &mut d).unwrap();
        assert_eq!((got.action, got.instructions.as_deref()), (action, instr), "{text}");
    }
    let (f, mut d) = field("- On failure: panic");
    assert!(on_failure(&f, 1, &mut d).is_none());
    assert_eq!(d.into_vec().len(), 1);
}

#[test]
fn checkpoints() {
    let (f, mut d) = field("- **Checkpoint:** `git commit -m \"feat(x): y\"`");
    assert_eq!(
        checkpoint(&f, 1, &mut d),
        Some(Checkpoint::Commit {
            message: "feat(x): y".into()
        })
    );
    let (f, mut d) = field("- Checkpoint: none");
    assert_eq!(checkpoint(&f, 1, &mut d), None);
    let (f, mut d) = field("- Checkpoint: `git commit -m 'a' -m 'b'`");
    assert_eq!(
        checkpoint(&f, 1, &mut d),
        Some(Checkpoint::Commit {
            message: "a\n\nb".into()
        })
    );
    let (f, mut d) = field("- Checkpoint: `git add -A && git commit -m x`");
    assert!(matches!(checkpoint(&f, 1, &mut d), Some(Checkpoint::Command { .. })));
    let (f, mut d) = field("- Checkpoint: `git commit -am x`");
    assert!(matches!(checkpoint(&f, 1, &mut d), Some(Checkpoint::Command { .. })));
    assert_eq!(d.into_vec().len(), 1, "warns about staging everything");
}

#[test]
fn step_lists_and_session_refs() {
    assert_eq!(step_list("1, 2"), Ok(vec![1, 2]));
    assert_eq!(step_list("3–4"), Ok(vec![3, 4]));
    assert_eq!(step_list("1-3 (all config)"), Ok(vec![1, 2, 3]));
    assert!(step_list("one").is_err());
    assert!(step_list("5-2").is_err());
    assert_eq!(session_refs("none — can run in parallel"), Ok(vec![]));
    assert_eq!(session_refs("Session 1, Session 2"), Ok(vec![1, 2]));
    assert_eq!(session_refs("Sessions 1, 2"), Ok(vec![1, 2]));
    assert_eq!(session_refs("S1 and S3 (schema)"), Ok(vec![1, 3]));
    assert!(session_refs("the first one").is_err());
}

#[test]
fn scope_fence_one_line_and_nested() {
    let (f, _) = field("- **Scope fence:** Touch: `src/a.rs`, `src/b/**` — Never touch: `src/c.rs`");
    let (t, n) = scope_fence(&f, &mut Diagnostics::default());
    assert_eq!(
        t.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(),
        vec!["src/a.rs", "src/b/**"]
    );
    assert_eq!(n.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(), vec!["src/c.rs"]);
    let (f, _) = field("- **Scope fence:**\n  - Touch: `a`\n  - Never touch: `b`, `c`\n");
    let (t, n) = scope_fence(&f, &mut Diagnostics::default());
    assert_eq!((t.len(), n.len()), (1, 2));
}

#[test]
fn shell_words_refuse_operators() {
    assert_eq!(
        shell_words(r#"git commit -m "a \"b\"" -m 'c'"#),
        Some(vec![
            "git".into(),
            "commit".into(),
            "-m".into(),
            "a \"b\"".into(),
            "-m".into(),
            "c".into()
        ])
    );
    assert_eq!(shell_words("a && b"), None);
    assert_eq!(shell_words("echo 'unbalanced"), None);
}

#[test]
fn a_none_value_is_known_by_its_first_letter_as_by_its_plain_text() {
    let values = [
        "none",
        "None",
        "`none`",
        "**None** (nothing to do)",
        "(none)",
        "*n/a*",
        "N/A",
        "—",
        "-",
        "",
        "  ",
        "__nothing__",
        "n__one",
        "`src/none.rs`",
        "/none",
        "no files",
        "never",
        "Nothing yet",
        "`git commit -m \"step 1\"`",
        "test -f d0/f1.txt",
        "1. none",
        "— none",
        "`-`",
        "ñone",
        "Ｎone",
    ];
    for value in values {
        assert_eq!(is_none_value(value), is_none_text(value), "{value:?}");
    }
    assert!(is_none_value("**None** (nothing to do)") && is_none_value("(none)") && !is_none_value("no files"));
}
