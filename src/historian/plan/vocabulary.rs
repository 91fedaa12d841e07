//! The words a part of a unit and a subject of a squash's message are read
//! as, to tell which subject each part answers to (`subjects`).
//!
//! A part answers to the words of its path, of its kind (`docs`, `test`,
//! …), of the names it defines and — with `Tuning::used_words` — of the
//! names its lines use: a changelog line, a test calling the function a
//! subject names, the package a lock file's hunk sits in; and of the
//! heading a document's hunk falls under (`analyse::sections`). With
//! `Tuning::versions`, a version number the subject names and the part's
//! added lines hold (`1.2.0` in a release's subject, its manifest and its
//! changelog's heading) is one more word; with `Tuning::issues`, so is an
//! issue number the subject's message refers to (`Fixes #1173`) and the
//! part's added lines hold (a regression test `r1173`, a changelog line).
//! With
//! `Tuning::whole_words`, a word written in two cases is read whole as well
//! as cut (`AppVeyor` is `appveyor`, as `appveyor.yml` writes it, besides
//! `app` and `veyor`).

use std::collections::BTreeSet;

use super::affinity::Part;
use super::context::Tuning;
use super::count;
use crate::historian::analyse::classify::Category;
use crate::historian::analyse::issues;

/// The words a part answers to: its path's, its kind's, its headings', the
/// names it defines and, as `tuning` asks, the names its lines use, its version
/// numbers and its issue numbers.
pub(super) fn part_words(part: &Part, tuning: &Tuning) -> BTreeSet<String> {
    let mut out = count::words(&part.path);
    if tuning.whole_words {
        out.extend(count::whole_words(&part.path));
    }
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
    if tuning.versions {
        out.extend(part.versions.iter().map(|v| version_word(v)));
    }
    if tuning.issues {
        out.extend(part.issues.iter().map(|n| issue_word(n)));
    }
    out
}

/// How much one shared word says a part answers to a subject: a version
/// number or an issue number both name says more than a word of English
/// (`Tuning::version_weight`, `Tuning::issue_weight`): `5.1.0` in a
/// manifest outweighs the `build` and `deps` of a `build(deps): bump …`
/// squashed beside the release.
pub(super) fn word_weight(word: &str, tuning: &Tuning) -> f64 {
    if word.starts_with(VERSION) {
        tuning.version_weight
    } else if word.starts_with(ISSUE) {
        tuning.issue_weight
    } else {
        1.0
    }
}

/// What a version number's word opens with: apart from any word of letters.
const VERSION: &str = "v:";
/// What an issue number's word opens with.
const ISSUE: &str = "n:";

/// A version number as a word: apart from any word made of letters.
fn version_word(version: &str) -> String {
    format!("{VERSION}{version}")
}

/// An issue number as a word: apart from any other.
fn issue_word(number: &str) -> String {
    format!("{ISSUE}{number}")
}

/// The words of a subject (or its body), with its version numbers and the
/// issue numbers it refers to as `tuning` asks.
pub(super) fn subject_words(text: &str, tuning: &Tuning) -> BTreeSet<String> {
    let mut out = count::words(text);
    if tuning.whole_words {
        out.extend(count::whole_words(text));
    }
    if tuning.versions {
        out.extend(crate::historian::analyse::versions::versions(text).map(version_word));
    }
    if tuning.issues {
        out.extend(issues::referenced(text).iter().map(|n| issue_word(n)));
    }
    out
}
