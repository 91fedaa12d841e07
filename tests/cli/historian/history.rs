//! git-historian reads the history behind the base (change coupling, the
//! line history) as far as the repository has it.

use crate::harness::historian::{commit_all, record_clean};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// The subjects a project wrote before for each file are not read: a
/// squash whose subjects share no word with the files it changed (`column
/// widths` has always been the table layout's business, `hyphens` the
/// escaping's) is split by what the files say and their history of
/// changing together, and neither commit answers to a subject, so both
/// say the first (the history words cost nothing on the evaluation's
/// held-out half and were removed by issue 39's pruning). Recorded as the
/// planner does it, not as a reviewer would want it.
#[test]
fn a_squash_naming_no_word_of_its_files_is_split_by_their_content() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("lib/layout.c"),
        "int tbl_pad(int n)\n{\n\treturn n + 1;\n}\n",
    );
    write(&repo.join("lib/roff.c"), "int roff_char(int c)\n{\n\treturn c;\n}\n");
    write(&repo.join("NEWS"), "");
    commit_all(&env, &repo, "Import the formatter");
    // The history: each file's own subjects, among many others.
    for i in 0..3 {
        let layout = format!("int tbl_pad(int n)\n{{\n\treturn n + 1;\n}}\n/* {i} */\n");
        write(&repo.join("lib/layout.c"), &layout);
        commit_all(&env, &repo, &format!("tbl: fix column widths of spans, case {i}"));
        let roff = format!("int roff_char(int c)\n{{\n\treturn c;\n}}\n/* {i} */\n");
        write(&repo.join("lib/roff.c"), &roff);
        commit_all(&env, &repo, &format!("roff: escape hyphens in request {i}"));
    }
    for i in 0..80 {
        write(&repo.join("NEWS"), &format!("release {i}\n"));
        commit_all(&env, &repo, &format!("NEWS: note release {i}"));
    }
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("lib/layout.c"),
        "int tbl_pad(int n)\n{\n\treturn n + 2;\n}\n/* 2 */\n",
    );
    write(
        &repo.join("lib/roff.c"),
        "int roff_char(int c)\n{\n\treturn c == 0x2d ? 0x2010 : c;\n}\n/* 2 */\n",
    );
    commit_all(
        &env,
        &repo,
        "Fix column widths in wide tables\n\nEscape hyphens in manual names\n",
    );
    // The explanation says what placed each file.
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan", "--explain"]).expect_code(0);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_squash_naming_no_word_of_its_files_is_split_by_their_content");
}

/// A shallow clone (as CI makes them) has history only down to its
/// boundary: the history is read that far, not past it into commits the
/// clone lacks.
#[test]
fn a_shallow_clone_is_read_down_to_its_boundary() {
    let env = TestEnv::new();
    let origin = env.repo("origin");
    for i in 0..6 {
        write(
            &origin.join("src/args.c"),
            &format!("int args(void) {{ return {i}; }}\n"),
        );
        write(&origin.join("src/cmd.c"), &format!("int cmd(void) {{ return {i}; }}\n"));
        commit_all(&env, &origin, &format!("Change args and cmd, round {i}"));
    }
    let url = format!("file://{}", origin.display());
    env.git(env.root(), &["clone", "-q", "--depth", "3", &url, "shallow"]);
    let repo = env.root().join("shallow");
    assert_eq!(env.git(&repo, &["rev-parse", "--is-shallow-repository"]), "true\n");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("src/args.c"), "int args(void) { return 7; }\n");
    write(&repo.join("src/cmd.c"), "int cmd(void) { return 7; }\n");
    write(&repo.join("README"), "how to build\n");
    commit_all(&env, &repo, "Touch args, cmd and the readme");
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["historian", "plan", "--base", "origin/HEAD"])
        .expect_code(0);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_shallow_clone_is_read_down_to_its_boundary");
}
