//! The property every plan keeps (DESIGN §10.2): over generated histories
//! — hunks, additions, deletions, renames, copies (from a file the branch
//! also edits), mode changes and binary files — the automatic plan uses
//! every change item exactly once, each of its commits builds, and the last
//! one's tree is the tip's.

use proptest::prelude::*;

use crate::git::testing::{fixture, open};
use crate::git::{Oid, Repo, TreeEdit};
use crate::historian::analyse::coupling;
use crate::historian::analyse::items::ChangeSet;
use crate::historian::analyse::provenance;
use crate::historian::plan::auto;
use crate::historian::plan::context::{Context, Tuning};

use super::Builder;

/// One file of a generated tree.
#[derive(Clone, Debug)]
struct File {
    path: String,
    lines: Vec<String>,
    executable: bool,
    binary: bool,
}

impl File {
    fn bytes(&self) -> Vec<u8> {
        let mut out: Vec<u8> = self.lines.iter().flat_map(|l| format!("{l}\n").into_bytes()).collect();
        if self.binary {
            out.insert(0, 0);
        }
        out
    }
}

/// What one step of a branch does, by numbers the strategy draws.
#[derive(Clone, Debug)]
enum Op {
    /// Edit line `at` of file `file` (or insert before it, or delete it).
    Edit {
        file: usize,
        at: usize,
        how: u8,
    },
    Add {
        lines: usize,
    },
    Delete {
        file: usize,
    },
    Rename {
        file: usize,
        edit: bool,
    },
    Copy {
        file: usize,
        edit: bool,
    },
    Mode {
        file: usize,
    },
    Binary {
        file: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0usize..8, 0usize..30, 0u8..3).prop_map(|(file, at, how)| Op::Edit { file, at, how }),
        1 => (1usize..12).prop_map(|lines| Op::Add { lines }),
        1 => (0usize..8).prop_map(|file| Op::Delete { file }),
        1 => (0usize..8, any::<bool>()).prop_map(|(file, edit)| Op::Rename { file, edit }),
        2 => (0usize..8, any::<bool>()).prop_map(|(file, edit)| Op::Copy { file, edit }),
        1 => (0usize..8).prop_map(|file| Op::Mode { file }),
        1 => (0usize..8).prop_map(|file| Op::Binary { file }),
    ]
}

fn base_files() -> Vec<File> {
    (0..6)
        .map(|f| File {
            path: format!("src/m{f}.rs"),
            lines: (0..24)
                .map(|n| format!("fn item_{f}_{n}() {{ call_{}(); }}", (n * 7 + f) % 11))
                .collect(),
            executable: false,
            binary: false,
        })
        .collect()
}

/// Applies `op` to `files` (the `n`th op of the history, for fresh names).
fn apply(files: &mut Vec<File>, op: &Op, n: usize) {
    if files.is_empty() {
        return;
    }
    let count = files.len();
    let pick = |f: usize| f % count;
    match *op {
        Op::Edit { file, at, how } => {
            let file = &mut files[pick(file)];
            if file.binary {
                file.lines.push(format!("binary {n}"));
                return;
            }
            let at = at % (file.lines.len() + 1);
            match how {
                0 if at < file.lines.len() => file.lines[at] = format!("fn edited_{n}() {{ item_0_{at}(); }}"),
                1 | 0 => file.lines.insert(at, format!("fn inserted_{n}() {{}}")),
                _ if at < file.lines.len() => {
                    file.lines.remove(at);
                }
                _ => file.lines.push(format!("// end {n}")),
            }
        }
        Op::Add { lines } => files.push(File {
            path: format!("src/new_{n}.rs"),
            lines: (0..lines).map(|l| format!("fn new_{n}_{l}() {{}}")).collect(),
            executable: false,
            binary: false,
        }),
        Op::Delete { file } => {
            files.remove(pick(file));
        }
        Op::Rename { file, edit } | Op::Copy { file, edit } => {
            let at = pick(file);
            let mut copy = files[at].clone();
            copy.path = format!("lib/moved_{n}.rs");
            if edit {
                copy.lines.push(format!("fn after_move_{n}() {{}}"));
            }
            if matches!(op, Op::Rename { .. }) {
                files.remove(at);
            }
            files.push(copy);
        }
        Op::Mode { file } => {
            let at = pick(file);
            files[at].executable = !files[at].executable;
        }
        Op::Binary { file } => {
            let at = pick(file);
            files[at].binary = !files[at].binary;
        }
    }
}

fn tree(repo: &Repo, files: &[File]) -> Oid {
    let edits: Vec<TreeEdit> = files
        .iter()
        .map(|f| TreeEdit::Blob {
            path: f.path.clone(),
            id: repo.write_blob(f.bytes()).unwrap(),
            executable: f.executable,
        })
        .collect();
    repo.edit_tree(None, &edits).unwrap()
}

/// Builds the history (a base, then one commit per group of ops), plans
/// it, and checks the plan.
fn check(repo: &Repo, commits: &[Vec<Op>]) -> Result<(), TestCaseError> {
    let mut files = base_files();
    let base = repo.write_commit(tree(repo, &files), &[], "base\n").unwrap();
    let mut tip = base;
    let mut n = 0;
    for (k, ops) in commits.iter().enumerate() {
        for op in ops {
            apply(&mut files, op, n);
            n += 1;
        }
        tip = repo
            .write_commit(tree(repo, &files), &[tip], &format!("wip {k}\n"))
            .unwrap();
    }
    let changes = ChangeSet::analyse(repo, base, tip).unwrap();
    if changes.items.is_empty() {
        return Ok(());
    }
    let branch = repo.branch_commits(base, tip).unwrap();
    let seen = provenance::trace(repo, &changes, &branch).unwrap();
    let ctx = Context::new(&changes, &seen, &branch, coupling::read(repo, &changes, 0).unwrap());
    let (plan, unsure) = auto::plan_with_doubts(&ctx, &Tuning::default());
    let readings = std::iter::once(plan.commits.iter().map(|c| c.items.clone()).collect::<Vec<_>>())
        .chain(unsure.into_iter().flat_map(|u| u.readings.into_iter().map(|(_, g)| g)));
    for groups in readings {
        let planned = auto::commits_described(&ctx, groups);
        let problems = planned.check(&changes);
        prop_assert!(problems.is_empty(), "{:?}", problems.lines());
        let mut builder = Builder::new(repo, &changes);
        for commit in &planned.commits {
            let prepared = builder.prepare(&commit.items).unwrap();
            builder.commit(prepared, &commit.message, &branch[0].author).unwrap();
        }
        prop_assert_eq!(builder.tree(), changes.tip_tree, "the last tree is the tip's");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn every_item_lands_exactly_once_and_the_tip_tree_is_kept(
        commits in prop::collection::vec(prop::collection::vec(op(), 1..5), 1..5)
    ) {
        let fixture = fixture();
        let repo = open(&fixture.path);
        check(&repo, &commits)?;
    }
}

/// The case that lost an edit: a file modified on the branch and copied
/// (as it was at the base, and edited) in a later commit keeps both.
#[test]
fn a_copy_source_that_is_also_edited_keeps_its_edit_and_the_copy() {
    let fixture = fixture();
    let repo = open(&fixture.path);
    let commits = vec![
        vec![Op::Edit { file: 0, at: 3, how: 0 }],
        vec![Op::Copy { file: 0, edit: true }, Op::Edit { file: 0, at: 9, how: 1 }],
    ];
    check(&repo, &commits).unwrap();
}
