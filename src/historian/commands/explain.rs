//! The rendering of `git historian plan --explain`: each item's deciding
//! signal, its strength and its rivals (`plan::reason`), as text lines under
//! each commit and as the `explanation` of `plan --json --explain`.

use serde_json::{json, Value};

use crate::git::BranchCommit;
use crate::historian::analyse::items::ChangeSet;
use crate::historian::message;
use crate::historian::plan::context::Context;
use crate::historian::plan::explanation::{Explanation, ItemReason};
use crate::historian::plan::reason::{Placement, Rival, Signal, Strength};
use crate::historian::plan::split;

/// What the words of an explanation name: commits and files.
pub struct Names<'a> {
    pub changes: &'a ChangeSet,
    pub commits: &'a [BranchCommit],
    pub explanation: &'a Explanation,
}

impl Names<'_> {
    /// A branch commit's short id, `(noise)` after it when its subject is
    /// noise ("wip", "fix typo": it forms no commit of its own).
    fn commit(&self, k: usize) -> String {
        match self.commits.get(k) {
            Some(c) if message::kind(&c.message, c.parents.len()).is_noise() => {
                format!("{} (noise)", c.id.to_hex_with_len(7))
            }
            Some(c) => c.id.to_hex_with_len(7).to_string(),
            None => "?".into(),
        }
    }

    fn path(&self, file: usize) -> &str {
        self.changes.files.get(file).map_or("?", |f| f.path.as_str())
    }

    /// `file`'s path for a line of text: quoted as git quotes it when it
    /// holds a line break or another control character.
    fn shown(&self, file: usize) -> String {
        message::quote_path(self.path(file)).into_owned()
    }

    /// `file`'s path as an item of `own` names it: another part of its own
    /// file (cut by the subjects its hunks answer to) says so.
    fn other(&self, file: usize, own: usize) -> String {
        if file == own {
            format!("another part of {}", self.shown(file))
        } else {
            self.shown(file)
        }
    }

    /// The new commit (from 1) holding the item.
    fn commit_of(&self, item: usize) -> Option<usize> {
        self.explanation.items.get(item).map(|r| r.commit + 1)
    }
}

fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

/// `provenance`, `linked`, … as JSON names the signal.
fn kind(signal: &Signal) -> &'static str {
    match signal {
        Signal::Provenance { .. } => "provenance",
        Signal::Folded { .. } => "folded",
        Signal::Amends { .. } => "amends",
        Signal::Nearest { .. } => "nearest",
        Signal::NoiseOnly { .. } => "noise-only",
        Signal::Untraced => "untraced",
        Signal::Linked { .. } => "linked",
        Signal::Unlinked { .. } => "unlinked",
        Signal::KeptApart { .. } => "kept-apart",
        Signal::RidesAlong { .. } => "rides-along",
        Signal::ByComponent { .. } => "by-component",
        Signal::Declares { .. } => "declares",
        Signal::TestOf { .. } => "test-of",
        Signal::PathConflict { .. } => "path-conflict",
        Signal::Submodule { .. } => "submodule",
        Signal::DefinitionCycle => "definition-cycle",
        Signal::PackageFirst { .. } => "package-first",
        Signal::AfterReAdd => "after-re-add",
        Signal::PlanFile => "plan-file",
    }
}

/// The placement in words: `written in 1a2b3c4 (100% of its lines)`, of
/// an item of the file `own`.
fn says(p: &Placement, names: &Names<'_>, own: usize) -> String {
    let share = match p.strength {
        Strength::Share(s) => percent(s),
        _ => String::new(),
    };
    let chance = match p.strength {
        Strength::Chance(c) => format!("{c:.2}"),
        _ => String::new(),
    };
    match &p.signal {
        Signal::Provenance { commit } => format!("written in {} ({share} of its lines)", names.commit(*commit)),
        Signal::Folded { fixup, into } => format!(
            "folded into {}: its fixup {} wrote {share} of its lines",
            names.commit(*into),
            names.commit(*fixup)
        ),
        Signal::Amends { noise, into } => format!(
            "{} ({share} of its lines) rewrote lines of {}",
            names.commit(*noise),
            names.commit(*into)
        ),
        Signal::Nearest { noise, into } => format!(
            "{} ({share} of its lines); {} is the nearest commit touching the file",
            names.commit(*noise),
            names.commit(*into)
        ),
        Signal::NoiseOnly { noise } => format!("only {} wrote it ({share} of its lines)", names.commit(*noise)),
        Signal::Untraced => "no branch commit wrote it".into(),
        Signal::Linked { file, feature } => {
            format!("linked to {} by {feature} (chance {chance})", names.other(*file, own))
        }
        Signal::Unlinked { threshold } => match p.strength {
            Strength::Chance(c) if c >= *threshold => format!(
                "a commit of its own: its best link ({chance}) reached {threshold:.2}, but not on average with the rest of that file's commit"
            ),
            _ => format!("a commit of its own: no link reached {threshold:.2} (best {chance})"),
        },
        Signal::KeptApart { threshold } => format!(
            "a commit of its own: its best link ({chance}) reached {threshold:.2}, but the message names the work apart"
        ),
        Signal::RidesAlong { file, lines } => format!(
            "{lines} {} of code riding along with {} (best link {chance})",
            if *lines == 1 { "line" } else { "lines" },
            names.shown(*file)
        ),
        Signal::ByComponent { component } => format!("too many files to weigh pairs: by component '{component}'"),
        Signal::Declares { module } => format!("declares the module '{module}' this commit adds or removes"),
        Signal::TestOf { stem } => format!("a new test of '{stem}', whose new code this commit adds"),
        Signal::PathConflict { path } => {
            format!("'{path}' is a file at one end and a directory at the other: one commit")
        }
        Signal::Submodule { path } => {
            format!("the submodule '{}' and its entry in .gitmodules: one commit", message::quote_path(path))
        }
        Signal::DefinitionCycle => "uses a name another part defines, and defines one it uses: one commit".into(),
        Signal::PackageFirst { package } => {
            format!("the __init__.py of '{package}' comes with the package's first file")
        }
        Signal::AfterReAdd => "deletes lines moved elsewhere: waits for the commit adding them again".into(),
        Signal::PlanFile => "listed here by the plan file".into(),
    }
}

fn rival_says(r: &Rival, names: &Names<'_>, own: usize) -> String {
    match r {
        Rival::Commit { commit, share } => format!("{} {}", names.commit(*commit), percent(*share)),
        Rival::File { file, item, chance } => match names.commit_of(*item) {
            Some(c) => format!("{} {chance:.2} (commit {c})", names.other(*file, own)),
            None => format!("{} {chance:.2}", names.other(*file, own)),
        },
    }
}

/// The lines under one commit (`commit` from 0): `why <item>: …` per item,
/// then the candidates of its question, if it has one (`questions` as
/// [`question_texts`] gives them).
pub fn commit_lines(commit: usize, names: &Names<'_>, questions: &[(usize, Vec<String>)]) -> Vec<String> {
    let mut out: Vec<String> = names
        .explanation
        .items
        .iter()
        .filter(|r| r.commit == commit)
        .filter_map(|r| {
            why(r, names).map(|why| format!("why {}: {why}", message::quote_path(&names.changes.item_name(r.item))))
        })
        .collect();
    for (_, options) in questions.iter().filter(|(c, _)| *c == commit) {
        out.push("clean will ask how to split it; the candidates:".into());
        for (n, text) in options.iter().enumerate() {
            out.push(format!("  Option {}: {}", n + 1, message::without_controls(text)));
        }
    }
    out
}

/// Why one item is in its commit, in words: the deciding signal, the
/// unit's, the subject it answered to, and the rivals it beat; `None` when
/// nothing decided it.
pub fn why(r: &ItemReason, names: &Names<'_>) -> Option<String> {
    let deciding = r.deciding()?;
    let own = names.changes.items[r.item].file;
    let mut line = says(deciding, names, own);
    let mut rivals: Vec<String> = deciding.rivals.iter().map(|x| rival_says(x, names, own)).collect();
    if let (Some(unit), Some(_)) = (&r.unit, &r.placed) {
        line.push_str("; ");
        line.push_str(&says(unit, names, own));
        rivals.extend(unit.rivals.iter().map(|x| rival_says(x, names, own)));
    }
    if let Some(subject) = &r.subject {
        line.push_str(&format!("; answers to the subject '{subject}'"));
        line.push_str(&match r.own_answer {
            Some(own) if own.by_elimination => {
                " by elimination (its commit shares no word with any subject, and no other commit answers to this one)"
                    .to_owned()
            }
            Some(own) => format!(
                " by its own words ({} more than any other subject's)",
                words(own.margin)
            ),
            None => " with the rest of its commit".to_owned(),
        });
    }
    if !rivals.is_empty() {
        line.push_str("; rivals: ");
        line.push_str(&rivals.join(", "));
    }
    // Names made of paths (a stem, a module, a component) and subjects
    // keep no control character either.
    Some(message::without_controls(&line).into_owned())
}

/// The candidate splits of each question as the QUESTION will word them.
pub fn question_texts(ctx: &Context<'_>, explanation: &Explanation) -> Vec<(usize, Vec<String>)> {
    explanation
        .questions
        .iter()
        .map(|q| {
            let mut options: Vec<String> = q.candidates.iter().map(|s| split::describe(ctx, s)).collect();
            options.push(split::KEEP.to_owned());
            (q.commit, options)
        })
        .collect()
}

fn placement_json(p: &Placement, names: &Names<'_>, own: usize) -> Value {
    let (measure, strength) = match p.strength {
        Strength::Rule => ("rule", Value::Null),
        Strength::Share(s) => ("share", json!(round(s))),
        Strength::Chance(c) => ("chance", json!(round(c))),
    };
    let rivals: Vec<Value> = p
        .rivals
        .iter()
        .map(|r| match r {
            Rival::Commit { commit, share } => json!({"commit": names.commit(*commit), "share": round(*share)}),
            Rival::File { file, item, chance } => json!({
                "file": names.path(*file),
                "chance": round(*chance),
                "in_commit": names.commit_of(*item),
            }),
        })
        .collect();
    json!({
        "signal": kind(&p.signal),
        "measure": measure,
        "strength": strength,
        "says": says(p, names, own),
        "rivals": rivals,
    })
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn item_json(r: &ItemReason, names: &Names<'_>) -> Value {
    let own = names.changes.items[r.item].file;
    json!({
        "item": names.changes.item_name(r.item),
        "commit": r.commit + 1,
        "deciding": r.deciding().map(|p| placement_json(p, names, own)),
        "unit": r.unit.as_ref().map(|p| placement_json(p, names, own)),
        "subject": r.subject,
        "subject_margin": r.own_answer.map(|own| round(own.margin)),
        "subject_by_elimination": r.own_answer.map(|own| own.by_elimination),
    })
}

/// A margin in words: `2`, `1.25`, `0.25`.
fn words(margin: f64) -> String {
    let rounded = round(margin);
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded}")
    }
}

/// The `explanation` of `plan --json --explain`: items, then questions
/// with their candidate splits as the QUESTION words them.
pub fn json(ctx: &Context<'_>, names: &Names<'_>) -> Value {
    let items: Vec<Value> = names.explanation.items.iter().map(|r| item_json(r, names)).collect();
    let questions: Vec<Value> = question_texts(ctx, names.explanation)
        .into_iter()
        .map(|(commit, options)| json!({"commit": commit + 1, "candidates": options}))
        .collect();
    json!({"items": items, "questions": questions})
}
