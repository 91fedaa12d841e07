//! Tests of `blocks`: every subset of a hunk's blocks gives lines of the
//! base or the tip, and entries are cut where a reviewer would cut them.

use super::*;
use crate::historian::analyse::lines::{apply, hunks, split_lines};

/// The hunks of `old` → `new` at `path` once cut, as the new lines of
/// each (or the old, for a removal).
fn pieces(path: &str, old: &str, new: &str) -> Vec<String> {
    let (o, n) = (split_lines(old.as_bytes()), split_lines(new.as_bytes()));
    let cut = cut(path, &o, &n, hunks(&o, &n));
    assert_eq!(apply(&o, &n, &cut, |_| true), new.as_bytes(), "all pieces give the tip");
    for mask in 0..(1u32 << cut.len().min(8)) {
        let text = apply(&o, &n, &cut, |i| mask & (1 << i) != 0);
        for line in split_lines(&text) {
            assert!(o.contains(&line) || n.contains(&line), "{line:?} comes from a side");
        }
    }
    cut.iter()
        .map(|h| {
            let lines = if h.new.is_empty() {
                &o[h.old.clone()]
            } else {
                &n[h.new.clone()]
            };
            String::from_utf8(lines.concat()).unwrap()
        })
        .collect()
}

#[test]
fn entries_of_a_table_are_blocks() {
    let old = "let types = [\n    (\"c\", &[\"*.c\"]),\n    (\"zig\", &[\"*.zig\"]),\n];\n";
    let new = "let types = [\n    (\"aidl\", &[\"*.aidl\"]),\n    (\"amake\", &[\"*.mk\"]),\n    (\"c\", &[\"*.c\"]),\n    (\"zig\", &[\"*.zig\"]),\n];\n";
    assert_eq!(
        pieces("src/types.rs", old, new),
        ["    (\"aidl\", &[\"*.aidl\"]),\n", "    (\"amake\", &[\"*.mk\"]),\n"]
    );
}

#[test]
fn a_section_header_stays_with_its_keys() {
    let old = "[package]\nname = \"x\"\n";
    let new = "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\n\n[features]\nfull = []\n";
    assert_eq!(
        pieces("Cargo.toml", old, new),
        ["\n[dependencies]\nserde = \"1\"\n\n", "[features]\nfull = []\n"]
    );
}

#[test]
fn lines_replaced_one_for_one_are_blocks() {
    let old = "[deps]\nclap = \"2.19\"\nenv_logger = \"0.3\"\nregex = \"1\"\n";
    let new = "[deps]\nclap = \"2.20\"\nenv_logger = \"0.4\"\nregex = \"1\"\n";
    assert_eq!(
        pieces("Cargo.toml", old, new),
        ["clap = \"2.20\"\n", "env_logger = \"0.4\"\n"]
    );
}

#[test]
fn a_definition_keeps_its_comment_body_and_closing_brace() {
    let old = "fn a() {}\n";
    let new = "fn a() {}\n/// Bee.\n#[inline]\nfn b() {\n    1\n}\n\nfn c()\n{\n    2\n}\nfn d() {} // done\n";
    assert_eq!(
        pieces("src/lib.rs", old, new),
        [
            "/// Bee.\n#[inline]\nfn b() {\n    1\n}\n\n",
            "fn c()\n{\n    2\n}\n",
            "fn d() {} // done\n"
        ]
    );
}

#[test]
fn prose_is_cut_at_paragraphs_and_list_items_only() {
    let old = "# Changes\n\nOld.\n";
    let new = "# Changes\n\n- Fix the parser.\n- Add a flag,\n  which helps.\nA wrapped\nparagraph.\n\nAnother one.\n\nOld.\n";
    assert_eq!(
        pieces("CHANGELOG.md", old, new),
        [
            "- Fix the parser.\n",
            "- Add a flag,\n  which helps.\nA wrapped\nparagraph.\n\n",
            "Another one.\n\n"
        ]
    );
}

#[test]
fn uneven_replacements_and_entries_on_one_side_only_stay_whole() {
    let old = "a = 1\nb = 2\n";
    let new = "a = 10\nb = 20\nc = 30\n";
    assert_eq!(pieces("x.toml", old, new), ["a = 10\nb = 20\nc = 30\n"]);
    let (old, new) = ("x\n  one(1);\n  two(2);\n", "x\n  one(1,\n      2);\n");
    assert_eq!(pieces("x.c", old, new), ["  one(1,\n      2);\n"]);
}

/// However long the list: keeping long ones whole (beyond twelve entries)
/// cost nothing on the evaluation's held-out half.
#[test]
fn long_lists_are_cut_entry_by_entry() {
    let long: String = (0..20).map(|i| format!("- entry{i}\n")).collect();
    assert_eq!(pieces("x.txt", "", &long).len(), 20);
    let code: String = (0..20).map(|i| format!("x{i} = {i}\n")).collect();
    assert_eq!(pieces("x.py", "", &code).len(), 20);
}

#[test]
fn blank_lines_opening_a_hunk_stay_with_its_first_entry() {
    let old = "fn a() {}\n";
    let new = "fn a() {}\n\nfn b() {\n}\n\nfn c() {\n}\n";
    assert_eq!(pieces("src/lib.rs", old, new), ["\nfn b() {\n}\n\n", "fn c() {\n}\n"]);
    let (old, new) = ("# A\n", "# A\n\n## B\n\nText.\n");
    assert_eq!(pieces("README.md", old, new), ["\n## B\n\nText.\n"]);
    let (old, new) = ("# A\n", "# A\n\n## B\n\nText.\n\nMore.\n\n## C\n");
    assert_eq!(
        pieces("README.md", old, new),
        ["\n## B\n\nText.\n\n", "More.\n\n", "## C\n"]
    );
}

#[test]
fn lines_rewrapped_are_not_paired_one_for_one() {
    // A struct's initializer re-wrapped: line 2 of each side holds
    // different fields, so cutting there would drop `draw`.
    let old = "struct b x = {\n\t\"sixel\", A|B,\n\tdraw, free_output,\n\tgeom\n};\n";
    let new = "struct b x = {\n\t\"sixel\", A|B|C,\n\tfree_output, geom,\n\tgeom\n};\n";
    assert_eq!(
        pieces("image.c", old, new),
        ["\t\"sixel\", A|B|C,\n\tfree_output, geom,\n"]
    );
}

#[test]
fn a_return_type_on_its_own_line_stays_with_the_name() {
    let old = "int a;\n";
    let new = "int a;\n/* Compare. */\nstatic int\ncompare(const void *a)\n{\n\treturn 0;\n}\n\nstatic void\nfree_all(void)\n{\n}\n";
    assert_eq!(
        pieces("layout.c", old, new),
        [
            "/* Compare. */\nstatic int\ncompare(const void *a)\n{\n\treturn 0;\n}\n\n",
            "static void\nfree_all(void)\n{\n}\n"
        ]
    );
}

#[test]
fn a_hunk_not_holding_whole_entries_is_not_cut() {
    // The diff took the closing brace of the function above: removing
    // the second block alone would leave a stray brace.
    let old = "void a(void)\n{\n}\n\nvoid b(void)\n{\n}\n\nint c;\n";
    let new = "void a(void)\n{\n}\n\nint c;\n";
    let cut = pieces("x.c", old, new);
    assert_eq!(cut.len(), 1, "{cut:?}");
    // The hunk's last line opens what comes after it.
    let old = "int a;\n}\n";
    let new = "int a;\nint b;\nint c;\nstruct s {\n}\n";
    assert_eq!(pieces("x.rs", old, new).len(), 1);
}

#[test]
fn a_decorator_over_several_lines_stays_with_what_it_decorates() {
    let old = "import x\n";
    let new = "import x\n@route(\n    \"/users\",\n)\ndef users():\n    pass\n@route(\"/\")\ndef index():\n    pass\n";
    assert_eq!(
        pieces("app.py", old, new),
        [
            "@route(\n    \"/users\",\n)\ndef users():\n    pass\n",
            "@route(\"/\")\ndef index():\n    pass\n"
        ]
    );
}

#[test]
fn a_heading_keeps_its_first_entry_underlined_or_not() {
    let old = "# Changes\n";
    let new = "# Changes\n\n## Bug fixes\n\n- one\n- two\n\n0.74.1\n------\n- three\n";
    assert_eq!(
        pieces("History.md", old, new),
        ["\n## Bug fixes\n\n- one\n", "- two\n\n", "0.74.1\n------\n- three\n"]
    );
}

#[test]
fn removals_are_cut_on_their_old_lines() {
    let old = "keep\nuse a;\nuse b;\nkeep too\n";
    let new = "keep\nkeep too\n";
    assert_eq!(pieces("m.rs", old, new), ["use a;\n", "use b;\n"]);
}

#[test]
fn prose_is_told_by_its_name() {
    for path in ["README.md", "doc/rg.1", "NEWS", "docs/guide.rst", "notes.TXT"] {
        assert!(is_prose(path), "{path}");
    }
    for path in ["src/main.rs", "Makefile", "x.c", "Cargo.lock", "v1.2.go"] {
        assert!(!is_prose(path), "{path}");
    }
}
