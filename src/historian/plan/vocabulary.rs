//! The words a part of a unit and a subject of a squash's message are read
//! as, to tell which subject each part answers to (`subjects`).
//!
//! A part answers to the words of its path, of its kind (`docs`, `test`,
//! …), of the names it defines and — with `Tuning::used_words` — of the
//! names its lines use: a changelog line, a test calling the function a
//! subject names, the package a lock file's hunk sits in; and of the
//! heading a document's hunk falls under (`analyse::sections`). A
//! subject is read as its words (`count::words`).

use std::collections::BTreeSet;

use super::affinity::Part;
use super::context::Tuning;
use super::count;
use crate::historian::analyse::classify::Category;

/// The words a part answers to: its path's, its kind's, its headings', the
/// names it defines and, as `tuning` asks, the names its lines use.
pub(super) fn part_words(part: &Part, tuning: &Tuning) -> BTreeSet<String> {
    let mut out = count::words(&part.path);
    let kind: &[&str] = match part.category {
        Category::Docs => &["docs", "doc", "documentation", "readme", "changelog"],
        Category::Test => &["test", "tests", "testing", "spec"],
        Category::Build => &[
            "build",
            "deps",
            "dependency",
            "dependencies",
            "bump",
            "version",
            "release",
        ],
        Category::Config => &["config", "configuration", "workflow", "lint"],
        _ => &[],
    };
    out.extend(kind.iter().map(|w| w.to_string()));
    for name in &part.defined {
        out.extend(count::words(name));
    }
    for name in &part.heading {
        out.extend(count::words(name));
    }
    if tuning.used_words {
        for name in &part.used {
            out.extend(count::words(name));
        }
    }
    out
}
