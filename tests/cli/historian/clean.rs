//! git-historian against the real git: a clean branch beside the original
//! with the same tree, nothing of the user's touched (HEAD, index, working
//! tree with dirty and untracked files, the original branch and its
//! reflog), every kind of change item, grouping and messages, and bad
//! input (plans and plan files: `plans.rs`; the base: `base.rs`).

use std::path::{Path, PathBuf};

use crate::harness::historian::*;
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

fn stage(env: &TestEnv, repo: &Path) {
    env.git(repo, &["add", "src/main.rs"]);
    write(&repo.join("docs/guide.md"), "# Unstaged edit\n");
}

#[test]
fn help_version_and_usage() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut t = Transcript::new(&env);
    t.replace(env!("CARGO_PKG_VERSION"), "<VERSION>");
    let _ = t.run(&repo, &["historian", "-h"]).expect_code(0);
    let _ = t.run(&repo, &["historian"]).expect_code(129);
    let _ = t.run(&repo, &["historian", "--bogus"]).expect_code(129);
    let _ = t
        .run(&repo, &["historian", "clean", "--max-files", "0"])
        .expect_code(129);
    let _ = t.run(&repo, &["historian", "resume"]).expect_code(129);
    let _ = t.run(&repo, &["historian", "--version"]).expect_code(0);
    assert_transcript!(t, "help_version_and_usage");
}

#[test]
fn clean_builds_a_branch_with_the_same_tree_and_touches_nothing() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    make_dirty(&repo);
    stage(&env, &repo);
    let before = user_state(&env, &repo, "feature");
    let tip = env.git(&repo, &["rev-parse", "feature"]);

    // The clean branch: from the base, with the original tree; its commits
    // conventional, none empty, the noise subjects gone, each message
    // saying what it holds; the author is the original author, the
    // committer the user; no session is left behind after a SUCCESS.
    let mut t = Transcript::new(&env);
    let clean = record_clean(&mut t, &repo, "feature", &[]);
    let range = format!("main..{clean}");
    let _ = t
        .run(
            &repo,
            &["log", "--reverse", "--format=%an <%ae> / %cn <%ce>%n%B", &range],
        )
        .expect_code(0);
    let _ = t.run(&repo, &["for-each-ref", "refs/historian/"]).expect_code(0);
    assert_transcript!(t, "clean_builds_a_branch_with_the_same_tree_and_touches_nothing");
    assert_eq!(
        env.git(&repo, &["merge-base", "main", &clean]),
        env.git(&repo, &["rev-parse", "main"])
    );
    // Nothing of the user's moved: HEAD, index, working tree (dirty and
    // untracked files included), the original branch and its reflog.
    assert_eq!(env.git(&repo, &["rev-parse", "feature"]), tip);
    let mut after = user_state(&env, &repo, "feature");
    let clean_line = format!("refs/heads/{clean} ");
    after.branches = after
        .branches
        .lines()
        .filter(|l| !l.starts_with(&clean_line))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(before, after);
}

#[test]
fn fixups_wip_and_typo_fixes_fold_into_what_they_amend() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    // Docs and the dependency are commits of their own, typed as such,
    // the dependency first (DESIGN §10.3), docs after the code; the lexer's
    // typo fix is in the lexer's commit.
    let mut t = Transcript::new(&env);
    let clean = record_clean(&mut t, &repo, "feature", &["feature"]);
    assert_transcript!(t, "fixups_wip_and_typo_fixes_fold_into_what_they_amend");
    let ids: Vec<String> = env
        .git(&repo, &["rev-list", "--reverse", &format!("main..{clean}")])
        .lines()
        .map(String::from)
        .collect();
    let files_of = |id: &str| env.git(&repo, &["diff-tree", "--no-commit-id", "--name-only", "-r", "-M", id]);
    // The parser commit holds the WIP continuation and the fixup!: at that
    // commit the parser is already in its final form.
    let parser = ids
        .iter()
        .find(|id| files_of(id).lines().any(|f| f == "src/parser.rs"))
        .expect("a commit adds the parser");
    assert_eq!(
        env.git(&repo, &["show", &format!("{parser}:src/parser.rs")]),
        env.git(&repo, &["show", "feature:src/parser.rs"])
    );
}

/// The branch of `examples/historian-demo.sh`, with a logo: the export
/// module's code came in "WIP" and "more stuff", its test and a version
/// bump under one subject, and `lib.rs` declares the module.
fn demo_repo(env: &TestEnv) -> PathBuf {
    let repo = env.repo("repo");
    write(&repo.join("src/lib.rs"), "pub mod parse;\n");
    write(
        &repo.join("src/parse.rs"),
        "pub fn parse(s: &str) -> Vec<&str> {\n    s.split(',').collect()\n}\n",
    );
    write(&repo.join("README.md"), "# csvkit\n\nSplits lines.\n");
    write(
        &repo.join("Cargo.toml"),
        "[package]\nname = \"csvkit\"\nversion = \"0.1.0\"\n",
    );
    commit_all(env, &repo, "initial commit");
    env.git(&repo, &["checkout", "-q", "-b", "feature/export"]);
    write(&repo.join("src/lib.rs"), "pub mod parse;\npub mod export;\n");
    write(
        &repo.join("src/export.rs"),
        "pub fn to_tsv(fields: &[&str]) -> String {\n    fields.join(\"\\t\")\n}\n",
    );
    write(
        &repo.join("README.md"),
        "# csvkit\n\nSplits lines.\n\n## Export\n\nto_tsv joins fields with tabs.\n",
    );
    commit_all(env, &repo, "WIP");
    write(
        &repo.join("tests/export.rs"),
        "use csvkit::export::to_tsv;\n\n#[test]\nfn joins_with_tabs() {\n    assert_eq!(to_tsv(&[\"a\", \"b\"]), \"a\\tb\");\n}\n",
    );
    write(
        &repo.join("Cargo.toml"),
        "[package]\nname = \"csvkit\"\nversion = \"0.2.0\"\n",
    );
    commit_all(env, &repo, "export to tsv + tests, bump version");
    write(
        &repo.join("src/parse.rs"),
        "pub fn parse(s: &str) -> Vec<&str> {\n    s.split(',').map(str::trim).collect()\n}\n",
    );
    write(
        &repo.join("tests/parse.rs"),
        "use csvkit::parse::parse;\n\n#[test]\nfn trims_fields() {\n    assert_eq!(parse(\"a, b\"), [\"a\", \"b\"]);\n}\n",
    );
    commit_all(env, &repo, "trim whitespace in parse");
    write(
        &repo.join("README.md"),
        "# csvkit\n\nSplits lines.\n\n## Export\n\n`to_tsv` joins fields with tabs.\n",
    );
    commit_all(env, &repo, "fix typo");
    write(
        &repo.join("src/export.rs"),
        "pub fn to_tsv(fields: &[&str]) -> String {\n    fields.join(\"\\t\")\n}\n\npub fn to_psv(fields: &[&str]) -> String {\n    fields.join(\"|\")\n}\n",
    );
    write(
        &repo.join("docs/formats.md"),
        "# Export formats\n\n* TSV: `to_tsv`\n* PSV: `to_psv`\n",
    );
    commit_all(env, &repo, "more stuff");
    std::fs::write(repo.join("logo.png"), [137u8, 80, 78, 71, 13, 10, 26, 10, 0, 0]).unwrap();
    commit_all(env, &repo, "add a logo");
    repo
}

#[test]
fn the_demo_branch_reads_as_a_reviewer_would_want() {
    let env = TestEnv::new();
    let repo = demo_repo(&env);
    // The version bump alone (only the clause about the build file names
    // it); the parse fix with its test; the module, its declaration (from
    // "WIP") and its test (from the commit with the version bump) as one
    // commit, with the docs: the README's section came in "WIP" with the
    // module (its typo fixed later), the formats page in "more stuff" with
    // `to_psv` — written with the module, they go with it; the logo.
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature/export", &[]);
    assert_transcript!(t, "the_demo_branch_reads_as_a_reviewer_would_want");
}

#[test]
fn python_wiring_and_a_new_test_join_the_module() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("pkg/__init__.py"), "from .parser import parse\n");
    write(
        &repo.join("pkg/parser.py"),
        "def parse(line):\n    return line.split(',')\n",
    );
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "exporter"]);
    write(
        &repo.join("pkg/exporter.py"),
        "def to_tsv(fields):\n    return '\\t'.join(fields)\n",
    );
    commit_all(&env, &repo, "wip");
    write(
        &repo.join("pkg/__init__.py"),
        "from .parser import parse\nfrom .exporter import to_tsv\n",
    );
    write(&repo.join("notes.md"), "# Notes\n\nExporting next.\n");
    commit_all(&env, &repo, "Export the exporter and take notes");
    write(
        &repo.join("tests/test_exporter.py"),
        "from pkg import to_tsv\n\ndef test_tabs():\n    assert to_tsv(['a', 'b']) == 'a\\tb'\n",
    );
    write(
        &repo.join("pkg/parser.py"),
        "def parse(line):\n    return [f.strip() for f in line.split(',')]\n",
    );
    commit_all(&env, &repo, "Test the exporter, fix the parser");
    // The import wiring the module in and the module's new test join the
    // module, though each came from another commit; the parser's fix reads
    // as the clause about it.
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "exporter", &[]);
    assert_transcript!(t, "python_wiring_and_a_new_test_join_the_module");
}

#[test]
fn renames_deletions_binary_files_modes_links_and_submodules() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("tool.sh"), "#!/bin/sh\necho tool\n");
    write(&repo.join("old/name.txt"), "one\ntwo\nthree\nfour\nfive\nsix\n");
    write(&repo.join("gone.txt"), "bye\n");
    write(&repo.join("a"), "a file that becomes a directory\n");
    std::fs::write(repo.join("image.bin"), [0u8, 1, 2, 3, 255, 0, 7]).unwrap();
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "kinds"]);
    std::fs::create_dir_all(repo.join("new")).unwrap();
    env.git(&repo, &["mv", "old/name.txt", "new/name.txt"]);
    write(&repo.join("new/name.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
    commit_all(&env, &repo, "Move the name list and extend it");
    env.git(&repo, &["rm", "-q", "gone.txt"]);
    commit_all(&env, &repo, "Remove gone.txt");
    std::fs::write(repo.join("image.bin"), [0u8, 9, 9, 9, 255, 0, 7, 8]).unwrap();
    std::fs::write(repo.join("logo.png"), [137u8, 80, 78, 71, 0, 0, 1]).unwrap();
    commit_all(&env, &repo, "Update the image and add a logo");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(repo.join("tool.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    commit_all(&env, &repo, "Make the tool executable");
    std::os::unix::fs::symlink("tool.sh", repo.join("run")).unwrap();
    commit_all(&env, &repo, "Link run to the tool");
    // A file that becomes a directory.
    env.git(&repo, &["rm", "-q", "a"]);
    write(&repo.join("a/inside.txt"), "now a directory\n");
    commit_all(&env, &repo, "Turn a into a directory");
    // A submodule entry (a gitlink to some commit), committed from the index.
    let some_commit = env.git(&repo, &["rev-parse", "main"]);
    env.git(
        &repo,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{},vendor/lib", some_commit.trim()),
        ],
    );
    env.git(
        &repo,
        &["commit", "-q", "-m", "Add the vendored library as a submodule"],
    );
    let before = user_state(&env, &repo, "kinds");

    // Every kind of change is an item of the plan; the rename is one
    // change (the old path goes where the new appears).
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    record_clean(&mut t, &repo, "kinds", &[]);
    assert_transcript!(t, "renames_deletions_binary_files_modes_links_and_submodules");
    let mut after = user_state(&env, &repo, "kinds");
    after.branches = before.branches.clone();
    assert_eq!(before, after);
}

#[test]
fn hunks_of_one_file_go_to_different_commits() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let lines: Vec<String> = (1..=40).map(|n| format!("line {n}")).collect();
    write(&repo.join("list.txt"), &(lines.join("\n") + "\n"));
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "two"]);
    let mut first = lines.clone();
    first[2] = "line 3, reworded for the greeting".into();
    write(&repo.join("list.txt"), &(first.join("\n") + "\n"));
    write(&repo.join("greeting.txt"), "hello\n");
    commit_all(&env, &repo, "Add a greeting");
    let mut second = first.clone();
    second[35] = "line 36, reworded for the farewell".into();
    write(&repo.join("list.txt"), &(second.join("\n") + "\n"));
    write(&repo.join("farewell.txt"), "goodbye\n");
    commit_all(&env, &repo, "Add a farewell");

    // The first commit holds only the first hunk, the second the other.
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    // Nothing links a new file to its commit's hunk of the list (a chance
    // of 0.40), but each commit is the author's cut (parts join from 0.25
    // on a branch of described commits): it stays whole, and clean decides.
    let out = t.run(&repo, &["historian", "clean"]).expect_code(0);
    let clean = crate::harness::historian::field(&out, "Clean branch");
    crate::harness::historian::show_outcome(&mut t, &repo, "two", &clean);
    show_patches(&mut t, &repo, &clean);
    assert_transcript!(t, "hunks_of_one_file_go_to_different_commits");
}

#[test]
fn bad_input_is_a_clear_message_and_writes_nothing() {
    let env = TestEnv::new();
    let outside = env.root().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let mut t = Transcript::new(&env);
    let _ = t.run(&outside, &["historian", "clean"]).expect_code(128);

    let repo = env.repo("repo");
    let refs_before = refs(&env, &repo);
    let _ = t.run(&repo, &["historian", "clean", "nope"]).expect_code(128);
    t.note("on the only branch: no base but itself");
    let _ = t.run(&repo, &["historian", "clean"]).expect_code(1);
    t.note("named as its own base: nothing beyond it");
    let _ = t.run(&repo, &["historian", "clean", "--base", "main"]).expect_code(1);
    t.note("detached HEAD without a branch named");
    env.git(&repo, &["checkout", "-q", "--detach"]);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(128);
    t.note("no session to resume, show or abort");
    let _ = t.run(&repo, &["historian", "resume", "--answer", "1"]).expect_code(128);
    let _ = t.run(&repo, &["historian", "abort"]).expect_code(128);
    let _ = t.run(&repo, &["historian", "status"]).expect_code(0);
    let out = env.run(&repo, &["historian", "status", "--json"]).expect_code(0);
    assert_eq!(out.json()["sessions"], serde_json::json!([]));
    // A bad configuration value names the key.
    env.git(&repo, &["checkout", "-q", "-b", "f"]);
    write(&repo.join("f.txt"), "f\n");
    commit_all(&env, &repo, "Add f");
    t.note("a bad configuration value names the key");
    let _ = t
        .run(&repo, &["-c", "historian.maxFiles=lots", "historian", "plan"])
        .expect_code(128);
    assert_transcript!(t, "bad_input_is_a_clear_message_and_writes_nothing");
    assert_eq!(
        refs_before.lines().count() + 1,
        refs(&env, &repo).lines().count(),
        "only the branch f is new"
    );
}

/// A squashed commit keeps the subjects of what it joined; the plan splits
/// it into as many commits, where one subject alone (and a body line that
/// does not open like a subject) keeps it whole.
#[test]
fn a_squash_is_split_into_the_pieces_its_message_names() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("src/lib.rs"), "pub mod retry;\npub mod timeout;\n");
    commit_files(&env, &repo, &LIMITS, "base");
    for (branch, message) in [
        ("one", "Tune the client\n\nBoth limits grow.\n"),
        ("body", "Tune the client\n\nThe limits grow with the load\n"),
        (
            "squashed",
            "Retry failed requests\n\nThe client tries again after a failure.\n\nLengthen the timeout\n",
        ),
    ] {
        squash_on(&env, &repo, branch, &LIMITS_RAISED, message);
    }
    // A body's one-line paragraph, with or without a full stop, is no
    // subject: the commit stays whole.
    let mut t = Transcript::new(&env);
    for branch in ["one", "body"] {
        env.git(&repo, &["checkout", "-q", branch]);
        let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    }

    env.git(&repo, &["checkout", "-q", "squashed"]);
    record_clean(&mut t, &repo, "squashed", &[]);
    assert_transcript!(t, "a_squash_is_split_into_the_pieces_its_message_names");
}
