//! Where a hunk may be cut: a run of changed lines often holds several
//! entries written for different reasons — two file types added to one
//! table, two dependencies bumped on adjacent lines, three changelog
//! entries, two functions added one after the other. Each such entry is a
//! block, and a block is a hunk of its own ([`cut`]), free to go to a
//! different commit.
//!
//! A cut never changes what the hunks make together: the blocks of a hunk
//! cover its lines on both sides, one after the other, so applying them all
//! is applying the hunk (`lines::apply`), and applying some of them gives a
//! text whose every line comes from the base or the tip.
//!
//! Blocks are read from the lines alone, in any language:
//! * an entry starts at a line as little indented as any line of the hunk,
//!   which neither closes or continues the entry before (`}`, `)`, `else`)
//!   nor follows a line that leads into the next (a comment, an attribute,
//!   a decorator — one spread over lines too — a section's header, a line
//!   left open, and in C a return type on a line of its own); blank lines
//!   stay with the entry before them (those opening the hunk, with the
//!   first entry);
//! * in prose (Markdown, text, man pages, files named like `README`) only
//!   at a list item, a heading or a paragraph (after a blank line), since a
//!   paragraph's lines are one entry, and a heading (`#`, or underlined)
//!   is one with its first paragraph or item;
//! * a hunk is cut when it only adds lines, only removes lines, or replaces
//!   lines one for one, each by a line opening alike (each entry by its new
//!   version, not a list re-wrapped), where an entry starts on both sides;
//!   a hunk replacing some lines by more or fewer is kept whole (pairing its
//!   lines where they open alike scored no better on the evaluation);
//! * a hunk that does not hold whole entries — its first outer line closes
//!   an entry begun above it (a diff that took the function above's closing
//!   brace), or its last leads into lines below it — is kept whole;
//! * a hunk of more than [`MOST_BLOCKS`] entries is one piece of data (a
//!   table regenerated, a list sorted) and is kept whole.
//!
//! Cutting can only err towards a commit in the middle of the clean branch
//! holding half an entry; the last commit is always the tip. The rules
//! above came from real histories where it did (a re-wrapped initializer,
//! a K&R signature, a decorator over three lines, a stray brace).

use super::lines::Hunk;

/// More entries than this in one hunk are kept together.
pub const MOST_BLOCKS: usize = 12;

/// `hunks` of a file at `path` (from `old` to `new` lines), each cut into
/// its blocks.
pub fn cut(path: &str, old: &[&[u8]], new: &[&[u8]], hunks: Vec<Hunk>) -> Vec<Hunk> {
    let (prose, c_like) = (is_prose(path), is_c_like(path));
    let mut out = Vec::with_capacity(hunks.len());
    for hunk in hunks {
        let cuts = cuts(&old[hunk.old.clone()], &new[hunk.new.clone()], prose, c_like);
        if cuts.len() < 2 || cuts.len() > MOST_BLOCKS {
            out.push(hunk);
            continue;
        }
        let ends = (hunk.old.len(), hunk.new.len());
        for (n, &(o, w)) in cuts.iter().enumerate() {
            let (o_end, w_end) = cuts.get(n + 1).copied().unwrap_or(ends);
            out.push(Hunk {
                old: hunk.old.start + o..hunk.old.start + o_end,
                new: hunk.new.start + w..hunk.new.start + w_end,
            });
        }
    }
    out
}

/// Where the hunk replacing `old` lines by `new` ones may be cut, as
/// offsets on both sides, the first `(0, 0)`: where an entry starts among
/// the lines it adds or removes, or, when it replaces lines one for one
/// and each line by one opening alike (`clap = …` by `clap = …`, not a
/// list re-wrapped), where an entry starts on both sides. Another hunk is
/// not cut.
fn cuts(old: &[&[u8]], new: &[&[u8]], prose: bool, c_like: bool) -> Vec<(usize, usize)> {
    if old.is_empty() {
        return starts(new, prose, c_like).into_iter().map(|n| (0, n)).collect();
    }
    if new.is_empty() {
        return starts(old, prose, c_like).into_iter().map(|o| (o, 0)).collect();
    }
    if old.len() != new.len() || old.iter().zip(new).any(|(o, n)| opening(o) != opening(n)) {
        return vec![(0, 0)];
    }
    let theirs = starts(old, prose, c_like);
    let mine = starts(new, prose, c_like);
    // Both sorted: their common offsets in one pass.
    let mut out = Vec::new();
    let mut rest = theirs.iter().peekable();
    for at in mine {
        while rest.next_if(|&&o| o < at).is_some() {}
        if rest.peek() == Some(&&at) {
            out.push((at, at));
        }
    }
    out
}

/// What a line opens with: its indentation and first word or sign.
fn opening(line: &[u8]) -> &[u8] {
    let indent = line.iter().take_while(|b| **b == b' ' || **b == b'\t').count();
    let rest = &line[indent..];
    let word = rest
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-'))
        .map_or(rest.len(), |i| i.max(1));
    &line[..indent + word]
}

/// Whether a file at `path` is C or C++, where a function's return type
/// may stand on a line of its own.
fn is_c_like(path: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e).to_ascii_lowercase();
    ["c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx", "m", "mm", "y", "l"].contains(&ext.as_str())
}

/// Whether a file at `path` is prose, whose lines wrap paragraphs.
fn is_prose(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((_, ext)) => {
            let ext = ext.to_ascii_lowercase();
            [
                "md", "markdown", "txt", "rst", "adoc", "asciidoc", "textile", "org", "pod",
            ]
            .contains(&ext.as_str())
                || ext.len() == 1 && ext.bytes().all(|b| b.is_ascii_digit())
        }
        None => name.bytes().any(|b| b.is_ascii_uppercase()) && !name.bytes().any(|b| b.is_ascii_lowercase()),
    }
}

/// The offsets of `lines` where an entry starts (the first always does).
/// None but the first when the lines do not hold whole entries: the
/// first of them closes an entry begun before (a diff that took the
/// closing brace of the function above), or the last leads into lines
/// after the hunk.
fn starts(lines: &[&[u8]], prose: bool, c_like: bool) -> Vec<usize> {
    let indent = |line: &[u8]| line.iter().take_while(|b| **b == b' ' || **b == b'\t').count();
    let blank = |line: &[u8]| line.iter().all(u8::is_ascii_whitespace);
    let least = lines.iter().filter(|l| !blank(l)).map(|l| indent(l)).min().unwrap_or(0);
    let outer_lines = || {
        lines
            .iter()
            .filter(|l| !blank(l) && indent(l) == least)
            .map(|l| trimmed(l))
    };
    // Whether an outer line leads into what follows: in prose, a heading
    // into its paragraphs and items; in C, a return type into the name.
    let leads_on = |text: &[u8]| {
        if prose {
            text.starts_with(b"#") || is_underline(text)
        } else {
            leads_on(text) || c_like && text.last().is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        }
    };
    if !prose
        && (outer_lines().next().is_some_and(continues)
            || outer_lines()
                .next_back()
                .is_some_and(|t| leads_on(t) && !t.starts_with(b"//") && !t.starts_with(b"#")))
    {
        return vec![0];
    }
    let mut out = vec![0];
    let mut after_blank = false;
    // Blank lines opening the hunk belong to its first entry.
    let mut begun = lines.first().is_some_and(|l| !blank(l));
    let mut leads = lines.first().is_some_and(|l| leads_on(trimmed(l)));
    // A decorator or attribute spread over lines (`@route(` … `)`) still
    // leads, once closed, into what it decorates.
    let mut held = lines.first().is_some_and(|l| decorates(trimmed(l)));
    for (i, line) in lines.iter().enumerate().skip(1) {
        if blank(line) {
            after_blank = begun;
            continue;
        }
        let text = trimmed(line);
        if !begun {
            begun = true;
            leads = leads_on(text);
            held = decorates(text);
            continue;
        }
        let outer = indent(line) == least;
        let entry = if prose {
            !leads && (after_blank || is_list_item(text))
        } else {
            !continues(text) && !leads
        };
        if outer && entry {
            out.push(i);
        }
        if outer {
            if !prose && continues(text) {
                leads = std::mem::take(&mut held) || leads_on(text);
            } else {
                leads = leads_on(text);
                held = decorates(text);
            }
        }
        after_blank = false;
    }
    out
}

/// Whether an outer line opens a decorator or attribute it continues on
/// the lines after (`@route(`, `#[cfg(`).
fn decorates(text: &[u8]) -> bool {
    (text.starts_with(b"@") || text.starts_with(b"#[")) && matches!(text.last(), Some(b'(' | b'[' | b'{' | b','))
}

/// Whether a line of prose underlines a heading (`-----`, `=====`).
fn is_underline(text: &[u8]) -> bool {
    text.len() >= 3 && (text.iter().all(|b| *b == b'-') || text.iter().all(|b| *b == b'='))
}

fn trimmed(line: &[u8]) -> &[u8] {
    let start = line.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let end = line.len() - line.iter().rev().take_while(|b| b.is_ascii_whitespace()).count();
    &line[start..end.max(start)]
}

/// Whether an outer line closes or continues the entry before it.
fn continues(text: &[u8]) -> bool {
    const WORDS: [&[u8]; 8] = [
        b"else", b"elif", b"elsif", b"except", b"finally", b"catch", b"end", b"fi",
    ];
    matches!(
        text.first(),
        Some(b'}' | b')' | b']' | b'{' | b'.' | b'|' | b'&' | b'+' | b'?' | b':')
    ) || text.starts_with(b"</")
        || WORDS.iter().any(|w| {
            text.starts_with(w)
                && !text
                    .get(w.len())
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        })
}

/// Whether an outer line leads into the one after it: a comment, an
/// attribute or a decorator, a section's header (`[dependencies]`), a line
/// left open.
fn leads_on(text: &[u8]) -> bool {
    if text.starts_with(b"[") && text.ends_with(b"]") {
        return true;
    }
    [&b"//"[..], b"/*", b"*", b"#", b"@", b"--", b";", b"\"\"\"", b"'''"]
        .iter()
        .any(|p| text.starts_with(p))
        || matches!(text.last(), Some(b'(' | b'[' | b'{' | b'=' | b'\\' | b'<'))
        || text.ends_with(b"&&")
        || text.ends_with(b"||")
}

/// Whether a line of prose is a list item or a heading.
fn is_list_item(text: &[u8]) -> bool {
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    [&b"- "[..], b"* ", b"+ ", b"#", b"|"]
        .iter()
        .any(|p| text.starts_with(p))
        || digits > 0 && text[digits..].starts_with(b". ")
        || text.starts_with(b".") && prose_macro(text)
}

/// A man page's request that opens an entry (`.TP`, `.SH`, `.IP`).
fn prose_macro(text: &[u8]) -> bool {
    [&b".TP"[..], b".SH", b".SS", b".IP", b".PP"]
        .iter()
        .any(|m| text.starts_with(m))
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn long_lists_stay_whole() {
        let long: String = (0..=MOST_BLOCKS).map(|i| format!("- entry{i}\n")).collect();
        assert_eq!(pieces("x.txt", "", &long).len(), 1);
        let code: String = (0..=MOST_BLOCKS).map(|i| format!("x{i} = {i}\n")).collect();
        assert_eq!(pieces("x.py", "", &code).len(), 1);
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
        let new =
            "import x\n@route(\n    \"/users\",\n)\ndef users():\n    pass\n@route(\"/\")\ndef index():\n    pass\n";
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
}
