//! `HISTORIAN_EVAL_LABELS=1`: how well each file of a squashed commit is
//! matched to the subject of the original commit that wrote most of it
//! (`subjects::subject_of_parts`), on the units whose message names as
//! many subjects as they squashed (the subjects taken in order): the share
//! of changed lines matched right, matched wrong and not matched.

use std::collections::BTreeMap;

use ultraplan::historian::plan::context::Tuning;
use ultraplan::historian::plan::{affinity, subjects};

use super::sources::{each_unit, Unit};
use super::Segment;

/// Lines matched right, wrong, and not matched.
#[derive(Default)]
pub struct Labels {
    pub right: usize,
    pub wrong: usize,
    pub none: usize,
}

pub fn study(segments: &[Segment], tuning: &Tuning, out: &mut Labels) {
    each_unit(segments, tuning, |u| {
        let Unit {
            seg,
            files,
            words,
            commit,
            named,
            originals,
            ..
        } = u;
        if named.len() < 2 || named.len() != originals.len() {
            return;
        }
        let parts = affinity::parts(&seg.changes, files, words);
        let about = subjects::subject_of_parts(&parts, &named, &commit.message, tuning);
        for (p, part) in parts.iter().enumerate() {
            let mut by: BTreeMap<usize, u32> = BTreeMap::new();
            for &i in &part.items {
                for &(j, w) in &seg.truth.items[i] {
                    *by.entry(j).or_default() += w;
                }
            }
            let Some((&writer, _)) = by.iter().max_by_key(|(j, w)| (**w, std::cmp::Reverse(**j))) else {
                continue;
            };
            match about[p] {
                None => out.none += part.lines,
                Some(s) if originals[s] == writer => out.right += part.lines,
                Some(s) => {
                    out.wrong += part.lines;
                    if std::env::var_os("HISTORIAN_EVAL_LABELS_SHOW").is_some() {
                        let truth = originals.iter().position(|&o| o == writer);
                        println!(
                            "wrong {} ({} lines): took {:?}, wrote {:?}",
                            seg.changes.files[part.file].path,
                            part.lines,
                            named[s],
                            truth.map(|t| named[t])
                        );
                    }
                }
            }
        }
    });
}
