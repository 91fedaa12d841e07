//! `HISTORIAN_EVAL_DUMP=<file>`: each unit of each run of the tuning half
//! as one JSON line, for studying grouping strategies away from the bench:
//! the subjects its message names, its items (path, hunk, lines, kind,
//! names defined, the original commits that wrote them) and the signals of
//! every two of its parts, by file and by hunk.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::json;
use ultraplan::historian::analyse::classify;
use ultraplan::historian::plan::context::Tuning;
use ultraplan::historian::plan::{affinity, count};

use super::sources::{each_unit, Unit};
use super::Segment;

pub fn dump(out: &mut impl Write, repo: &str, segments: &[Segment], tuning: &Tuning) {
    each_unit(segments, tuning, |u| {
        let Unit {
            segment: s,
            seg,
            ctx,
            unit,
            files,
            words,
            commit,
            named,
            originals,
        } = u;
        let items: Vec<serde_json::Value> = files
            .values()
            .flatten()
            .map(|&i| {
                let item = &seg.changes.items[i];
                let path = seg.changes.path(i);
                let mut words = count::words(path);
                for name in &item.symbols.defined {
                    words.extend(count::words(name));
                }
                let mut used_words = std::collections::BTreeSet::new();
                for name in &item.symbols.used {
                    used_words.extend(count::words(name));
                }
                let truth: BTreeMap<String, u32> =
                    seg.truth.items[i].iter().map(|(k, w)| (k.to_string(), *w)).collect();
                json!({
                    "item": i,
                    "file": item.file,
                    "path": path,
                    "hunk": item.hunk,
                    "lines": item.lines,
                    "category": format!("{:?}", classify::category(path)),
                    "code": classify::category(path).is_code(),
                    "defined": item.symbols.defined,
                    "words": words,
                    "used": used_words,
                    "primary": seg.seen.primary(i),
                    "truth": truth,
                    "added": seg.changes.files[item.file].old.is_none(),
                })
            })
            .collect();
        let (parts, pairs) = affinity::pairs(ctx, files, words);
        let (hparts, hpairs) = affinity::hunk_pairs(ctx, files, words);
        let as_json = |parts: &[affinity::Part], pairs: &[affinity::Pair]| {
            json!({
                "parts": parts.iter().map(|p| &p.items).collect::<Vec<_>>(),
                "pairs": pairs.iter().map(|(a, b, f)| json!([a, b, f.to_vec()])).collect::<Vec<_>>(),
            })
        };
        let line = json!({
            "repo": repo,
            "segment": s,
            "unit": unit,
            "message": commit.message,
            "named": named,
            "named_words": named.iter().map(|n| count::words(n)).collect::<Vec<_>>(),
            "originals": originals,
            "original_subjects": originals.iter().map(|&j| seg.originals[j].subject().to_owned()).collect::<Vec<_>>(),
            "items": items,
            "files": as_json(&parts, &pairs),
            "hunks": as_json(&hparts, &hpairs),
        });
        writeln!(out, "{line}").expect("write the dump");
    });
}
