//! Lines and hunks of one text file: how a base text becomes a tip text as
//! separate hunks, each of which can be applied or not, in any subset, and
//! the text that results. Applying every hunk gives the tip byte for byte
//! (line terminators, CRLF and a missing final newline included), because
//! lines keep their terminators and untouched lines are copied from the base.

use std::ops::Range;
use std::time::{Duration, Instant};

use similar::algorithms::{diff_deadline, Capture, Replace};
use similar::{Algorithm, DiffOp};

/// How long one file's diff may take before a coarser (still exact) one is used.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// `data` cut after each `\n`; the last line may lack one.
pub fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(data.len() / 32 + 1);
    let mut start = 0;
    for (i, byte) in data.iter().enumerate() {
        if *byte == b'\n' {
            out.push(&data[start..=i]);
            start = i + 1;
        }
    }
    if start < data.len() {
        out.push(&data[start..]);
    }
    out
}

/// Whether git would call `data` binary: a NUL byte in its first 8000 bytes.
pub fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

/// A maximal run of changed lines: base lines `old` are replaced by tip lines `new`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

impl Hunk {
    /// Lines removed plus lines added.
    pub fn size(&self) -> usize {
        self.old.len() + self.new.len()
    }
}

/// The edit script from `old` to `new` (Myers, as git's default), its
/// operations one after the other on both sides.
pub fn diff_ops<T: std::hash::Hash + Eq + Ord>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    let deadline = Some(Instant::now() + DIFF_DEADLINE);
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, old, new, deadline);
    if in_sequence(&ops) {
        return ops;
    }
    // similar 2.7's compaction (which slides changes to tidier places) can
    // leave operations out of order, as seen on real files: the script
    // before compaction is exact.
    let mut capture = Replace::new(Capture::new());
    match diff_deadline(
        Algorithm::Myers,
        &mut capture,
        old,
        0..old.len(),
        new,
        0..new.len(),
        deadline,
    ) {
        Ok(()) => capture.into_inner().into_ops(),
        Err(never) => match never {},
    }
}

/// Whether each operation starts, on both sides, where the one before ended.
fn in_sequence(ops: &[DiffOp]) -> bool {
    let mut at = (0, 0);
    ops.iter().all(|op| {
        let (old, new) = (op.old_range(), op.new_range());
        let next = old.start == at.0 && new.start == at.1;
        at = (old.end, new.end);
        next
    })
}

/// The hunks turning `old` into `new`, without context lines: changes
/// separated by at least one unchanged line are separate hunks.
pub fn hunks(old: &[&[u8]], new: &[&[u8]]) -> Vec<Hunk> {
    let mut out: Vec<Hunk> = Vec::new();
    for op in diff_ops(old, new) {
        let (old_range, new_range) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (old_index..old_index + old_len, new_index..new_index + new_len),
        };
        match out.last_mut() {
            Some(last) if last.old.end == old_range.start && last.new.end == new_range.start => {
                last.old.end = old_range.end;
                last.new.end = new_range.end;
            }
            _ => out.push(Hunk {
                old: old_range,
                new: new_range,
            }),
        }
    }
    out
}

/// The text of `old` with the hunks for which `applied(i)` holds replaced
/// by their new lines.
pub fn apply(old: &[&[u8]], new: &[&[u8]], hunks: &[Hunk], applied: impl Fn(usize) -> bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at = 0;
    for (i, hunk) in hunks.iter().enumerate() {
        for line in &old[at..hunk.old.start] {
            out.extend_from_slice(line);
        }
        let lines = if applied(i) {
            &new[hunk.new.clone()]
        } else {
            &old[hunk.old.clone()]
        };
        for line in lines {
            out.extend_from_slice(line);
        }
        at = hunk.old.end;
    }
    for line in &old[at..] {
        out.extend_from_slice(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_all_subsets(old: &str, new: &str) -> usize {
        let (o, n) = (split_lines(old.as_bytes()), split_lines(new.as_bytes()));
        let hs = hunks(&o, &n);
        assert_eq!(apply(&o, &n, &hs, |_| true), new.as_bytes(), "all hunks give the tip");
        assert_eq!(apply(&o, &n, &hs, |_| false), old.as_bytes(), "no hunk gives the base");
        for mask in 0..(1u32 << hs.len().min(10)) {
            let text = apply(&o, &n, &hs, |i| mask & (1 << i) != 0);
            // Every subset is a text whose lines come from base or tip.
            assert!(text.len() <= old.len() + new.len());
        }
        hs.len()
    }

    #[test]
    fn hunks_follow_each_other_where_compaction_would_reorder_them() {
        // One line per letter: similar 2.7 compacts this script out of order.
        let lines = |s: &str| s.chars().map(|c| format!("{c}\n")).collect::<String>();
        let (old, new) = (lines("abcdefegheijkelmkeenoepqoeoeoererestuvow"), lines("xheyezQkk"));
        let (o, n) = (split_lines(old.as_bytes()), split_lines(new.as_bytes()));
        let hs = hunks(&o, &n);
        for pair in hs.windows(2) {
            assert!(
                pair[0].old.end < pair[1].old.start && pair[0].new.end < pair[1].new.start,
                "{hs:?}"
            );
        }
        check_all_subsets(&old, &new);
    }

    #[test]
    fn lines_keep_their_terminators() {
        assert_eq!(split_lines(b"a\nb\r\nc"), vec![&b"a\n"[..], b"b\r\n", b"c"]);
        assert!(split_lines(b"").is_empty());
        assert_eq!(split_lines(b"\n\n").len(), 2);
    }

    #[test]
    fn hunks_are_separated_by_unchanged_lines() {
        let old = "a\nb\nc\nd\ne\n";
        let new = "A\nb\nc\nD\nd\ne\nf\n";
        assert_eq!(check_all_subsets(old, new), 3);
    }

    #[test]
    fn final_newline_and_crlf_survive() {
        check_all_subsets("a\r\nb\r\n", "a\r\nB\r\nc");
        check_all_subsets("x", "x\n");
        check_all_subsets("", "new\n");
        check_all_subsets("gone\n", "");
    }

    #[test]
    fn one_hunk_alone_changes_only_its_lines() {
        let old = "1\n2\n3\n4\n5\n";
        let new = "1\ntwo\n3\n4\nfive\n";
        let (o, n) = (split_lines(old.as_bytes()), split_lines(new.as_bytes()));
        let hs = hunks(&o, &n);
        assert_eq!(hs.len(), 2);
        assert_eq!(apply(&o, &n, &hs, |i| i == 0), b"1\ntwo\n3\n4\n5\n");
        assert_eq!(apply(&o, &n, &hs, |i| i == 1), b"1\n2\n3\n4\nfive\n");
    }

    #[test]
    fn binary_is_a_nul_byte() {
        assert!(is_binary(b"PNG\0\x01"));
        assert!(!is_binary("héllo".as_bytes()));
    }
}
