//! A quick yes for the notes this program writes: block mappings of simple
//! keys, block sequences of scalars, plain and single-quoted one-line
//! scalars, `[]` and `{}`, and literal or folded block scalars — the shapes
//! `serde_yaml` gives a step's result. Such a text is valid YAML with no key
//! twice in a mapping and no tag, so [`super::note_stream::check`] need not
//! run the full parser over it (a sync takes thousands of notes).
//!
//! It only ever says yes when that is certain: anything outside the subset
//! (a tab, a non-ASCII byte, a `---`, an anchor, a flow collection with
//! contents, a double-quoted string, a plain scalar with `: ` or ` #` in it,
//! an indentation it does not expect) is `false`, and the full parser
//! decides. `note_plain::tests` check that whatever it accepts, the full
//! reader reads.

use std::collections::HashSet;

/// Whether `text` is certainly a single YAML document that
/// [`super::note_stream::documents`] reads, by the subset above.
pub fn certainly_valid(text: &str) -> bool {
    if !text.is_ascii()
        || text
            .bytes()
            .any(|b| b == b'\t' || b == b'\r' || (b < 0x20 && b != b'\n') || b == 0x7f)
    {
        return false;
    }
    let mut levels: Vec<Level> = Vec::new();
    // Set by `key:` with nothing after it: the next line may open its node.
    let mut opened: Option<usize> = None;
    let mut lines = text.split('\n').peekable();
    let mut first = true;
    while let Some(line) = lines.next() {
        if line.trim_start().is_empty() {
            if !line.is_empty() {
                return false; // spaces alone: legal, but not ours
            }
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        let content = &line[indent..];
        if content.starts_with('#') || content.starts_with("---") || content.starts_with("...") {
            return false;
        }
        let item = content.starts_with("- ") || content == "-";
        // Where this line belongs.
        match opened.take() {
            Some(parent) if indent > parent || (indent == parent && item) => {
                levels.push(Level::new(indent, item));
            }
            _ => {
                while levels.last().is_some_and(|l| l.indent > indent) {
                    levels.pop();
                }
                // A sequence at its mapping's own indentation ends at a key.
                if !item && levels.last().is_some_and(|l| l.indent == indent && l.keys.is_none()) {
                    levels.pop();
                }
                match levels.last() {
                    Some(l) if l.indent == indent => {}
                    None if indent == 0 && first => levels.push(Level::new(0, item)),
                    _ => return false,
                }
            }
        }
        first = false;
        let Some(level) = levels.last_mut() else { return false };
        let value = match (&mut level.keys, item) {
            (None, true) => content.strip_prefix('-').unwrap_or_default().trim_start_matches(' '),
            (Some(keys), false) => {
                let Some((key, value)) = content.split_once(':') else {
                    return false;
                };
                if !simple_key(key) || !keys.insert(key.to_owned()) || !(value.is_empty() || value.starts_with(' ')) {
                    return false;
                }
                value.trim_start_matches(' ')
            }
            _ => return false,
        };
        match value {
            "" if item => return false, // `- ` with a nested node: not ours
            "" => opened = Some(indent),
            "|" | "|-" | "|+" | ">" | ">-" | ">+" if !block_scalar(&mut lines, indent) => return false,
            "|" | "|-" | "|+" | ">" | ">-" | ">+" => {}
            _ if !one_line_scalar(value) => return false,
            _ => {}
        }
    }
    true
}

/// One level of nesting: a mapping (its keys so far) or a sequence.
struct Level {
    indent: usize,
    keys: Option<HashSet<String>>,
}

impl Level {
    fn new(indent: usize, sequence: bool) -> Level {
        Level {
            indent,
            keys: (!sequence).then(HashSet::new),
        }
    }
}

/// `snake_case` or `camelCase` words: never a number, a boolean or null
/// (which could equal another key once resolved), never special.
fn simple_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !matches!(
            key.to_ascii_lowercase().as_str(),
            "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
}

/// A scalar on the rest of a line: `[]`, `{}`, a flow sequence of simple
/// words (`[src/a.rs, src/b.rs]`), a single-quoted string, or a plain
/// scalar that starts with no indicator and holds no `: ` or ` #` (in block
/// context every other character may follow its first).
fn one_line_scalar(value: &str) -> bool {
    let value = value.trim_end_matches(' ');
    if value == "[]" || value == "{}" {
        return true;
    }
    if let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        return inner.split(", ").all(|item| {
            let mut chars = item.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/'))
                && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-' | '+' | '='))
        });
    }
    if let Some(inner) = value.strip_prefix('\'') {
        let Some(inner) = inner.strip_suffix('\'') else {
            return false;
        };
        // Inside, a quote only doubled.
        return inner.split("''").all(|part| !part.contains('\''));
    }
    let Some(first) = value.chars().next() else {
        return false;
    };
    (first.is_ascii_alphanumeric() || matches!(first, '_' | '.' | '/' | '(' | '+' | '$' | '~' | '='))
        && !value.contains(": ")
        && !value.ends_with(':')
        && !value.contains(" #")
}

/// The lines of a `|` or `>` scalar whose key sits at `parent`: each indented
/// deeper than it, by at least the first line's indentation; an empty line
/// anywhere. Consumes them; `false` when something does not fit.
fn block_scalar<'t>(lines: &mut std::iter::Peekable<impl Iterator<Item = &'t str>>, parent: usize) -> bool {
    let mut indent = None;
    while let Some(line) = lines.peek() {
        if line.is_empty() {
            lines.next();
            continue;
        }
        let this = line.len() - line.trim_start_matches(' ').len();
        match indent {
            None if this > parent && this < line.len() => indent = Some(this),
            None => return this <= parent && this < line.len(), // empty block scalar
            Some(at) if this >= at => {}
            Some(_) if this <= parent && this < line.len() => return true,
            Some(_) => return false,
        }
        lines.next();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::certainly_valid;
    use crate::ultraplan::state::note_stream::documents;

    const NOTE: &str = "logged_at: 2026-01-01T00:00:01Z\nplan: plan.md\nplan_id: plan\ntask_index: 1\nsession: null\nrun_id: r1\nattempt: 1\nvalidation: VALID\nwarnings: []\nresult:\n  status: success\n  task_name: 'Task 1: step'\n  files_modified:\n  - src/f1.txt\n  - src/lib.rs\n  verification:\n    command: cargo test --all\n    exit_code: 0\n    output_summary: |-\n      running 3 tests\n\n      test result: ok. 3 passed\n  done_criteria_met: true\n  evidence: tests pass\n  error: null\nnext: 2\n";

    #[test]
    fn the_notes_we_write_are_taken_quickly() {
        assert!(certainly_valid(NOTE));
        assert!(documents(NOTE).is_ok());
        assert!(certainly_valid("a: 1\n"));
        assert!(certainly_valid("list:\n- a\n- b\nnext: x\n"));
        assert!(certainly_valid(
            "evidence: ran 1 block(s), of [3] {x} - ok!\nfiles: [src/a.rs, lib/b.rs]\n"
        ));
        assert!(certainly_valid(
            "deep:\n  list:\n    - 1\n  more: 2\nlast: '''quoted'' it'\n"
        ));
    }

    #[test]
    fn anything_else_goes_to_the_parser() {
        for text in [
            "a: 1\na: 2\n",
            "a:\n  b: 1\n  b: 1\n",
            "x: !tag 3\n",
            "- &a [1]\n- *a\n",
            "key: [unclosed\n",
            "---\na: 1\n",
            "a: b: c\n",
            "a: x # comment\n",
            "\ta: 1\n",
            "a: \"quoted\"\n",
            "a:\n   b: 1\n  c: 2\n",
            "a: 1\n  b: 2\n",
            "true: 1\nTrue: 2\n",
            "1: x\n'1': y\n",
            "a: 'open\n",
            "a: 'it's'\n",
            "a: é\n",
            "- \n",
            "a: |\n   x\n  y\n",
            "- 1\na: 1\n",
            "a: [x, [y]]\n",
            "a: [x: 1]\n",
            "a: [b,c]\n",
        ] {
            assert!(!certainly_valid(text), "{text:?}");
        }
    }

    proptest::proptest! {
        /// Whatever the quick check accepts, the reader reads: over text
        /// built from the pieces of our notes and the ones that trip parsers.
        #[test]
        fn what_it_accepts_reads(parts in proptest::collection::vec(0usize..36, 0..16)) {
            const PIECES: [&str; 36] = [
                "a: 1\n", "a: 2\n", "b:\n", "  c: x\n", "  c: y\n", "- 1\n", "  - 2\n", "---\n",
                "x: [1, 2\n", "y: !t z\n", "'a': 3\n", "d: 'q''q'\n", "e: |-\n", "  text: ok\n",
                "    deeper\n", "\n", "f: >\n", "  - item\n", "g: []\n", "h: {}\n", "k: a:b\n",
                "m: x #y\n", "n: ~\n", "  p:\n", "      q: 1\n", "r: -1\n", "s: (x)\n", "t: 'a': b\n",
                "u: a, [b] {c}\n", "v: x!y&z*|>%@`\"'\n", "w: [a.rs, b/c]\n", "z: [a, [b]]\n",
                "o: [a,b]\n", "- [x, y]\n", "l: (1) - it's, \"so\"\n", "j: a\\b:c\n",
            ];
            let text: String = parts.iter().map(|i| PIECES[*i]).collect();
            if certainly_valid(&text) {
                proptest::prop_assert!(documents(&text).is_ok(), "accepted but unreadable: {:?}", text);
            }
        }
    }
}
