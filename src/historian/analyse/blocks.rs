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
//!   which neither closes or continues the entry before (`}`, `)`)
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
//!   a hunk replacing some lines by more or fewer is kept whole (which of
//!   its lines replace which is a guess);
//! * a hunk that does not hold whole entries — its first outer line closes
//!   an entry begun above it (a diff that took the function above's closing
//!   brace), or its last leads into lines below it — is kept whole.
//!
//! Cutting can only err towards a commit in the middle of the clean branch
//! holding half an entry; the last commit is always the tip. The rules
//! above came from real histories where it did (a re-wrapped initializer,
//! a K&R signature, a decorator over three lines, a stray brace).

use super::lines::Hunk;

/// `hunks` of a file at `path` (from `old` to `new` lines), each cut into
/// its blocks.
pub fn cut(path: &str, old: &[&[u8]], new: &[&[u8]], hunks: Vec<Hunk>) -> Vec<Hunk> {
    let (prose, c_like) = (is_prose(path), is_c_like(path));
    let mut out = Vec::with_capacity(hunks.len());
    for hunk in hunks {
        let cuts = cuts(&old[hunk.old.clone()], &new[hunk.new.clone()], prose, c_like);
        if cuts.len() < 2 {
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

/// Whether an outer line closes or continues the entry before it: by its
/// first character (`}`, `)`, `.`, `|`, …) or a closing tag. (Keywords
/// that continue a statement — `else`, `end`, `fi` — were read too; that
/// cost nothing on the evaluation's held-out half.)
fn continues(text: &[u8]) -> bool {
    matches!(
        text.first(),
        Some(b'}' | b')' | b']' | b'{' | b'.' | b'|' | b'&' | b'+' | b'?' | b':')
    ) || text.starts_with(b"</")
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
#[path = "blocks_tests.rs"]
mod tests;
