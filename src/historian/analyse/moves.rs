//! Moved lines (issue 15, item 6): content one change item deletes and
//! another adds, at any path. A line present at the base and at the tip
//! must stay present in every commit of the clean branch, so the planner
//! (`plan::present`) puts the deletion no earlier than a commit that adds
//! the line again.
//!
//! Lines are paired by their content without leading and trailing white
//! space (a moved block is often re-indented). Lines too short or without a
//! letter or digit (`}`, `pass`, `)`, blank lines) pair with everything and
//! are left out. A line some changed file keeps untouched is present all
//! along and pairs nothing; so does a line an item both deletes and adds
//! (moved within a hunk, or re-indented there).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use super::lines::Hunk;

/// One moved line's content: the items deleting it and the items adding it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MovedLine {
    /// Item indices, sorted, none of them among `added_by`.
    pub deleted_by: Vec<usize>,
    /// Item indices, sorted, never empty.
    pub added_by: Vec<usize>,
}

/// The moved lines of a change set, in a fixed order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Moves {
    pub lines: Vec<MovedLine>,
}

/// The key a line pairs by, or `None` when it holds no letter or digit.
pub fn line_key(line: &[u8]) -> Option<u64> {
    let text = line.trim_ascii();
    let meaningful = text.iter().any(|b| b.is_ascii_alphanumeric() || *b >= 0x80);
    meaningful.then(|| {
        // A hasher with fixed keys: the same content gives the same key in every run.
        let mut hasher = DefaultHasher::new();
        text.hash(&mut hasher);
        hasher.finish()
    })
}

/// Collects the lines of every file's items, then pairs them ([`MoveFinder::finish`]).
#[derive(Debug, Default)]
pub struct MoveFinder {
    deleted: HashMap<u64, Vec<usize>>,
    added: HashMap<u64, Vec<usize>>,
    kept: HashSet<u64>,
}

/// How one file's lines belong to its items.
pub enum Cut {
    /// One item per hunk, numbered from the first.
    Hunks { first: usize },
    /// One item for the whole file.
    Whole { item: usize },
    /// A copy: its source stays, so it deletes nothing and keeps nothing;
    /// every line of the copy is added.
    Copy { item: usize },
}

impl MoveFinder {
    /// Records one text file: its base and tip lines and the hunks between them.
    pub fn file(&mut self, old: &[&[u8]], new: &[&[u8]], hunks: &[Hunk], cut: Cut) {
        let item_of = |h: usize| match cut {
            Cut::Hunks { first } => first + h,
            Cut::Whole { item } | Cut::Copy { item } => item,
        };
        if let Cut::Copy { item } = cut {
            for key in new.iter().filter_map(|l| line_key(l)) {
                self.added.entry(key).or_default().push(item);
            }
            return;
        }
        let mut changed = vec![false; old.len()];
        for (h, hunk) in hunks.iter().enumerate() {
            let item = item_of(h);
            changed[hunk.old.clone()].fill(true);
            for key in old[hunk.old.clone()].iter().filter_map(|l| line_key(l)) {
                self.deleted.entry(key).or_default().push(item);
            }
            for key in new[hunk.new.clone()].iter().filter_map(|l| line_key(l)) {
                self.added.entry(key).or_default().push(item);
            }
        }
        let kept = old.iter().zip(changed).filter(|(_, changed)| !changed);
        self.kept.extend(kept.filter_map(|(l, _)| line_key(l)));
    }

    /// The lines deleted by some items and added by others.
    pub fn finish(self) -> Moves {
        let MoveFinder {
            deleted,
            mut added,
            kept,
        } = self;
        let mut by_key: BTreeMap<u64, MovedLine> = BTreeMap::new();
        for (key, mut deleted_by) in deleted {
            if kept.contains(&key) {
                continue;
            }
            let Some(mut added_by) = added.remove(&key) else {
                continue;
            };
            deleted_by.sort_unstable();
            deleted_by.dedup();
            added_by.sort_unstable();
            added_by.dedup();
            // An item deleting and adding the line keeps it present itself.
            if deleted_by.iter().any(|d| added_by.binary_search(d).is_ok()) {
                continue;
            }
            by_key.insert(key, MovedLine { deleted_by, added_by });
        }
        Moves {
            lines: by_key.into_values().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::historian::analyse::lines::{hunks, split_lines};

    fn record(finder: &mut MoveFinder, old: &str, new: &str, cut: Cut) {
        let old = split_lines(old.as_bytes());
        let new = split_lines(new.as_bytes());
        let hunks = hunks(&old, &new);
        finder.file(&old, &new, &hunks, cut);
    }

    #[test]
    fn lines_without_a_letter_or_digit_do_not_pair() {
        assert_eq!(line_key(b"    }\n"), None);
        // Short words pair: leaving out a shortest length cost nothing on
        // the evaluation's held-out half.
        assert!(line_key(b"pass\n").is_some());
        assert_eq!(line_key(b"  ))));;;;;;;;;\n"), None);
        assert_eq!(line_key(b"\n"), None);
        assert!(line_key(b"    assert total == 3\n").is_some());
        // Indentation and line ends do not matter.
        assert_eq!(line_key(b"    assert total == 3\n"), line_key(b"assert total == 3\r\n"));
    }

    #[test]
    fn a_deleted_module_pairs_with_the_files_its_lines_moved_to() {
        let mut finder = MoveFinder::default();
        // Item 0 deletes the old module; items 1 and 2 add its halves
        // (re-indented); item 3 adds something new.
        record(
            &mut finder,
            "def test_parse():\n    assert parse('a,b') == ['a', 'b']\n\ndef test_join():\n    assert join(['a', 'b']) == 'a,b'\n",
            "",
            Cut::Whole { item: 0 },
        );
        record(
            &mut finder,
            "",
            "class TestParse:\n    def test_parse(self):\n        assert parse('a,b') == ['a', 'b']\n",
            Cut::Whole { item: 1 },
        );
        record(
            &mut finder,
            "",
            "def test_join():\n    assert join(['a', 'b']) == 'a,b'\n",
            Cut::Whole { item: 2 },
        );
        record(&mut finder, "", "def test_split():\n    pass\n", Cut::Whole { item: 3 });
        let moves = finder.finish();
        let mut pairs: Vec<(Vec<usize>, Vec<usize>)> = moves
            .lines
            .iter()
            .map(|m| (m.deleted_by.clone(), m.added_by.clone()))
            .collect();
        pairs.sort();
        // `def test_parse():` became a method: not the same line.
        assert_eq!(
            pairs,
            vec![(vec![0], vec![1]), (vec![0], vec![2]), (vec![0], vec![2])],
            "{moves:?}"
        );
    }

    #[test]
    fn kept_lines_lines_moved_within_an_item_and_copies_pair_nothing() {
        let mut finder = MoveFinder::default();
        // Hunk items 0 and 1 of one file: the first deletes a line the file
        // also keeps, the second re-indents a line.
        record(
            &mut finder,
            "import collections\nvalue = compute(1)\nkeep = 1\nimport collections\nif ready:\nrun_everything()\n",
            "value = compute(2)\nkeep = 1\nimport collections\nif ready:\n    run_everything()\n",
            Cut::Hunks { first: 0 },
        );
        // Item 2 adds both lines elsewhere; item 3 is a copy of a file
        // whose lines item 4 deletes.
        record(
            &mut finder,
            "",
            "import collections\nrun_everything()\n",
            Cut::Whole { item: 2 },
        );
        record(
            &mut finder,
            "copied_line = 1\n",
            "copied_line = 1\n",
            Cut::Copy { item: 3 },
        );
        record(&mut finder, "copied_line = 1\n", "", Cut::Whole { item: 4 });
        let moves = finder.finish();
        // Only the copy's line moved: item 4 deletes what the copy adds.
        assert_eq!(
            moves.lines,
            vec![MovedLine {
                deleted_by: vec![4],
                added_by: vec![3]
            }]
        );
    }
}
