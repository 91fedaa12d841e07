//! git-historian against the real git: a clean branch beside the original
//! with the same tree, nothing of the user's touched (HEAD, index, working
//! tree with dirty and untracked files, the original branch and its
//! reflog), every kind of change item, grouping and messages, plans and
//! plan files, base detection and bad input.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::*;
use crate::transcript::Transcript;

/// Everything of the user's that historian must leave as it was.
#[derive(Debug, PartialEq, Eq)]
pub struct UserState {
    head: String,
    head_ref: String,
    pub branches: String,
    reflog: String,
    status: String,
    index: Vec<u8>,
    files: BTreeMap<PathBuf, Vec<u8>>,
}

pub fn user_state(env: &TestEnv, repo: &Path, branch: &str) -> UserState {
    UserState {
        head: env.git(repo, &["rev-parse", "HEAD"]),
        head_ref: env.run(repo, &["symbolic-ref", "-q", "HEAD"]).stdout,
        branches: env.git(
            repo,
            &[
                "for-each-ref",
                "--format=%(refname) %(objectname)",
                "refs/heads/",
                "refs/remotes/",
            ],
        ),
        reflog: env.git(repo, &["reflog", "show", "--format=%H %gs", branch]),
        status: env.git(repo, &["status", "--porcelain=v1", "--untracked-files=all"]),
        index: std::fs::read(repo.join(".git/index")).unwrap_or_default(),
        files: worktree_files(repo),
    }
}

/// Branches other than the ones named, as `git for-each-ref` lists them.
pub fn refs(env: &TestEnv, repo: &Path) -> String {
    env.git(repo, &["for-each-ref", "--format=%(refname) %(objectname)"])
}

pub fn commit_all(env: &TestEnv, repo: &Path, message: &str) {
    env.git(repo, &["add", "-A"]);
    env.git(repo, &["commit", "-q", "-m", message]);
}

/// The value of `Key: value` in a RESULT block.
pub fn field(out: &Output, key: &str) -> String {
    let prefix = format!("{key}: ");
    out.stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no '{key}' in:\n{out}"))
        .to_owned()
}

/// Subjects of `range`, oldest first.
pub fn subjects_of(env: &TestEnv, repo: &Path, range: &str) -> Vec<String> {
    env.git(repo, &["log", "--reverse", "--format=%s", range])
        .lines()
        .map(String::from)
        .collect()
}

/// The commits `historian plan --json` plans for the branch checked out.
pub fn planned_commits(env: &TestEnv, repo: &Path) -> Vec<serde_json::Value> {
    let out = env.run(repo, &["historian", "plan", "--json"]).expect_code(0);
    out.json()["commits"].as_array().cloned().unwrap_or_default()
}

/// Each commit `historian plan --json` plans: its subject and its items
/// (files, then hunks), sorted.
pub fn planned_items(env: &TestEnv, repo: &Path) -> Vec<(String, Vec<String>)> {
    planned_commits(env, repo)
        .iter()
        .map(|c| {
            let subject = c["message"].as_str().unwrap().lines().next().unwrap().to_owned();
            let mut items: Vec<String> = c["files"]
                .as_array()
                .unwrap()
                .iter()
                .chain(c["hunks"].as_array().unwrap())
                .map(|f| f.as_str().unwrap().to_owned())
                .collect();
            items.sort();
            (subject, items)
        })
        .collect()
}

/// `client.c` with a retry loop added to `client_open`: a second piece of
/// work beside whatever a squash's first subject did.
pub const CLIENT_WITH_RETRY: &str = "int client_open(void) { return 0; }\n\nint client_retry(int attempts)\n{\n\twhile (attempts-- > 0)\n\t\tif (client_open() == 0)\n\t\t\treturn 0;\n\treturn -1;\n}\n";

/// A planned commit as `planned_items` gives it.
pub fn planned(subject: &str, items: &[&str]) -> (String, Vec<String>) {
    (subject.to_owned(), items.iter().map(|i| i.to_string()).collect())
}

/// The commit `CLIENT_WITH_RETRY` is planned as, answering to the subject
/// `Retry a failed client connection`.
pub fn planned_retry() -> (String, Vec<String>) {
    planned("feat(client): retry a failed client connection", &["src/client.c"])
}

/// The items of `historian plan --json --explain`'s explanation.
pub fn explained_items(env: &TestEnv, repo: &Path) -> Vec<serde_json::Value> {
    let out = env
        .run(repo, &["historian", "plan", "--json", "--explain"])
        .expect_code(0);
    out.json()["explanation"]["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// `planned_items`, sorted by subject.
pub fn planned_sorted(env: &TestEnv, repo: &Path) -> Vec<(String, Vec<String>)> {
    let mut plan = planned_items(env, repo);
    plan.sort();
    plan
}

pub fn assert_same_tree(env: &TestEnv, repo: &Path, a: &str, b: &str) {
    assert_eq!(
        env.git(repo, &["rev-parse", &format!("{a}^{{tree}}")]),
        env.git(repo, &["rev-parse", &format!("{b}^{{tree}}")]),
        "trees of {a} and {b} differ"
    );
    assert_eq!(env.git(repo, &["diff", "--stat", a, b]), "", "git diff {a} {b}");
}

/// Runs `historian clean` on the checked-out `branch` and checks that the
/// clean branch it names ends in the same tree.
pub fn assert_clean_keeps_tree(env: &TestEnv, repo: &Path, branch: &str) {
    let out = env.run(repo, &["historian", "clean"]).expect_code(0);
    assert_same_tree(env, repo, branch, &field(&out, "Clean branch"));
}

pub fn is_conventional(subject: &str) -> bool {
    let Some((head, summary)) = subject.split_once(": ") else {
        return false;
    };
    let kind = head.split('(').next().unwrap_or("");
    !summary.trim().is_empty()
        && [
            "feat", "fix", "refactor", "perf", "docs", "test", "build", "ci", "chore", "style", "revert",
        ]
        .contains(&kind)
        && (!head.contains('(') || head.ends_with(')'))
}

/// A messy feature branch: a parser with a WIP continuation, a fixup!, a
/// typo fix, tests, docs, a dependency, a lexer, a rename, a deletion.
pub fn messy_repo(env: &TestEnv) -> PathBuf {
    let repo = env.repo("repo");
    write(
        &repo.join("Cargo.toml"),
        "[package]\nname = \"demo\"\n\n[dependencies]\n",
    );
    write(
        &repo.join("src/main.rs"),
        "mod util;\n\nfn main() {\n    println!(\"{}\", util::helper());\n}\n",
    );
    write(
        &repo.join("src/util.rs"),
        "pub fn helper() -> u32 {\n    1\n}\n\npub fn old_name() -> u32 {\n    2\n}\n",
    );
    write(&repo.join("src/legacy.rs"), "pub fn legacy() {}\n");
    write(&repo.join("docs/guide.md"), "# Guide\n\nHow to use it.\n");
    commit_all(env, &repo, "base project");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("src/parser.rs"),
        "pub fn parse_expression(text: &str) -> usize {\n    text.len()\n}\n",
    );
    write(
        &repo.join("src/main.rs"),
        "mod parser;\nmod util;\n\nfn main() {\n    println!(\"{}\", util::helper());\n}\n",
    );
    commit_all(env, &repo, "Add the expression parser");
    write(
        &repo.join("src/parser.rs"),
        "pub fn parse_expression(text: &str) -> usize {\n    text.trim().len()\n}\n\npub fn parse_statement(text: &str) -> usize {\n    parse_expression(text) + 1\n}\n",
    );
    commit_all(env, &repo, "wip");
    write(
        &repo.join("tests/parser.rs"),
        "use demo::parser::parse_expression;\n\n#[test]\nfn parses() {\n    assert_eq!(parse_expression(\"ab\"), 2);\n}\n",
    );
    commit_all(env, &repo, "test the parser");
    write(
        &repo.join("src/parser.rs"),
        "pub fn parse_expression(text: &str) -> usize {\n    text.trim().len()\n}\n\npub fn parse_statement(text: &str) -> usize {\n    parse_expression(text) + 2\n}\n",
    );
    commit_all(env, &repo, "fixup! Add the expression parser");
    write(
        &repo.join("docs/guide.md"),
        "# Guide\n\nHow to use it.\n\n## Parsing\n\nThe parser reads expressions.\n",
    );
    commit_all(env, &repo, "Document parsing");
    write(
        &repo.join("Cargo.toml"),
        "[package]\nname = \"demo\"\n\n[dependencies]\nregex = \"1\"\n",
    );
    commit_all(env, &repo, "Depend on regex");
    write(
        &repo.join("src/lexer.rs"),
        "pub fn tokenize(text: &str) -> Vec<String> {\n    text.split_whitespace().map(String::from).collect()\n}\n",
    );
    commit_all(env, &repo, "Add a lexer");
    env.git(&repo, &["mv", "src/util.rs", "src/helpers.rs"]);
    write(
        &repo.join("src/main.rs"),
        "mod helpers;\nmod parser;\n\nfn main() {\n    println!(\"{}\", helpers::helper());\n}\n",
    );
    commit_all(env, &repo, "Rename util to helpers");
    env.git(&repo, &["rm", "-q", "src/legacy.rs"]);
    commit_all(env, &repo, "Remove the legacy module");
    write(
        &repo.join("docs/guide.md"),
        "# Guide\n\nHow to use it.\n\n## Parsing\n\nThe parser reads expressions.\n",
    );
    write(
        &repo.join("src/lexer.rs"),
        "pub fn tokenize(text: &str) -> Vec<String> {\n    text.split_whitespace().map(String::from).collect()\n}\n\n",
    );
    commit_all(env, &repo, "fix typo");
    repo
}

/// Leaves a staged change, an unstaged change and untracked files.
pub fn make_dirty(repo: &Path) {
    write(&repo.join("src/main.rs"), "// staged edit\n");
    write(&repo.join("notes.txt"), "untracked notes\n");
    write(&repo.join("scratch/idea.md"), "untracked idea\n");
}

fn stage(env: &TestEnv, repo: &Path) {
    env.git(repo, &["add", "src/main.rs"]);
    write(&repo.join("docs/guide.md"), "# Unstaged edit\n");
}

#[test]
fn help_version_and_usage() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let out = env.run(&repo, &["historian", "-h"]).expect_code(0);
    assert!(out.stdout.contains("Usage: git historian [OPTIONS] <COMMAND>"), "{out}");
    for command in ["clean", "plan", "resume", "status", "abort"] {
        assert!(out.stdout.contains(command), "{command}: {out}");
    }
    let out = env.run(&repo, &["historian"]).expect_code(129);
    assert!(out.stderr.contains("Usage: git historian"), "{out}");
    assert!(out.stdout.is_empty(), "{out}");
    let _ = env.run(&repo, &["historian", "--bogus"]).expect_code(129);
    let _ = env
        .run(&repo, &["historian", "clean", "--max-files", "0"])
        .expect_code(129);
    let _ = env.run(&repo, &["historian", "resume"]).expect_code(129);
    let out = env.run(&repo, &["historian", "--version"]).expect_code(0);
    assert!(out.stdout.starts_with("git-historian "), "{out}");
}

#[test]
fn clean_builds_a_branch_with_the_same_tree_and_touches_nothing() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    make_dirty(&repo);
    stage(&env, &repo);
    let before = user_state(&env, &repo, "feature");
    let tip = env.git(&repo, &["rev-parse", "feature"]);
    let base = env.git(&repo, &["rev-parse", "--short", "main"]);

    let out = env.run(&repo, &["historian", "clean"]).expect_code(0);
    assert!(
        out.stdout
            .starts_with("RESULT: SUCCESS\nOriginal branch: feature\nClean branch: feature-"),
        "{out}"
    );
    let clean = field(&out, "Clean branch");
    assert!(
        clean.len() == "feature-20260102-030405-clean".len() && clean.ends_with("-clean"),
        "{clean}"
    );
    assert_eq!(field(&out, "Base commit"), base.trim());
    let created: usize = field(&out, "Commits created").parse().unwrap();

    // The clean branch: from the base, with the original tree.
    assert_same_tree(&env, &repo, "feature", &clean);
    assert_eq!(
        env.git(&repo, &["merge-base", "main", &clean]),
        env.git(&repo, &["rev-parse", "main"])
    );
    assert_eq!(
        env.git(&repo, &["rev-list", "--count", &format!("main..{clean}")])
            .trim(),
        created.to_string()
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
    env.assert_fsck(&repo);
    // No session is left behind after a SUCCESS.
    assert_eq!(env.git(&repo, &["for-each-ref", "refs/historian/"]), "");

    // Commits are conventional, none is empty, noise subjects are gone.
    let subjects = subjects_of(&env, &repo, &format!("main..{clean}"));
    assert_eq!(subjects.len(), created);
    assert!((4..=10).contains(&created), "{subjects:?}");
    for s in &subjects {
        assert!(is_conventional(s), "not conventional: {s}");
        let lower = s.to_lowercase();
        assert!(
            !lower.contains("wip") && !lower.contains("fixup") && !lower.contains("typo"),
            "{s}"
        );
    }
    for id in env.git(&repo, &["rev-list", &format!("main..{clean}")]).lines() {
        let files = env.git(&repo, &["diff-tree", "--no-commit-id", "--name-only", "-r", id]);
        assert!(!files.trim().is_empty(), "empty commit {id}");
        let body = env.git(&repo, &["log", "-1", "--format=%b", id]);
        assert!(body.contains("Holds:\n"), "{body}");
    }
    // The author is the original author; the committer is the user.
    let authors = env.git(&repo, &["log", "--format=%an|%cn", &format!("main..{clean}")]);
    for line in authors.lines() {
        assert_eq!(line, "Ada Author|Carl Committer");
    }
}

#[test]
fn fixups_wip_and_typo_fixes_fold_into_what_they_amend() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let out = env.run(&repo, &["historian", "clean", "feature"]).expect_code(0);
    let clean = field(&out, "Clean branch");
    let ids: Vec<String> = env
        .git(&repo, &["rev-list", "--reverse", &format!("main..{clean}")])
        .lines()
        .map(String::from)
        .collect();
    let files_of = |id: &str| env.git(&repo, &["diff-tree", "--no-commit-id", "--name-only", "-r", "-M", id]);
    let subject_of = |id: &str| env.git(&repo, &["log", "-1", "--format=%s", id]);
    // The parser commit holds the WIP continuation and the fixup!: at that
    // commit the parser is already in its final form.
    let parser = ids
        .iter()
        .find(|id| files_of(id).lines().any(|f| f == "src/parser.rs"))
        .expect("a commit adds the parser");
    assert!(subject_of(parser).contains("parser"), "{}", subject_of(parser));
    assert_eq!(
        env.git(&repo, &["show", &format!("{parser}:src/parser.rs")]),
        env.git(&repo, &["show", "feature:src/parser.rs"])
    );
    // Docs and the dependency are commits of their own, typed as such.
    let docs = ids.iter().find(|id| files_of(id).contains("docs/guide.md")).unwrap();
    assert_eq!(files_of(docs).trim(), "docs/guide.md");
    assert!(subject_of(docs).starts_with("docs"), "{}", subject_of(docs));
    let build = ids.iter().find(|id| files_of(id).contains("Cargo.toml")).unwrap();
    assert!(subject_of(build).starts_with("build"), "{}", subject_of(build));
    // Dependencies come first (DESIGN §10.3); docs after the code.
    assert_eq!(&ids[0], build);
    let position = |id: &String| ids.iter().position(|x| x == id).unwrap();
    assert!(position(docs) > position(parser));
    // The lexer's typo fix went into the lexer's commit.
    let lexer: Vec<&String> = ids.iter().filter(|id| files_of(id).contains("src/lexer.rs")).collect();
    assert_eq!(lexer.len(), 1, "the lexer is added once, typo fix included");
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
    let plan = planned_items(&env, &repo);
    let expected = [
        // Only the clause about the build file names it.
        ("build(cargo): bump version", &["Cargo.toml"][..]),
        (
            "feat(parse): trim whitespace in parse",
            &["src/parse.rs", "tests/parse.rs"],
        ),
        // The module, its declaration (from "WIP") and its test (from the
        // commit with the version bump) are one commit.
        (
            "feat(export): export to tsv + tests",
            &["docs/formats.md", "src/export.rs", "src/lib.rs", "tests/export.rs"],
        ),
        ("chore(assets): add a logo", &["logo.png"]),
        ("docs: update README.md", &["README.md"]),
    ];
    let expected: Vec<(String, Vec<String>)> = expected
        .iter()
        .map(|(s, f)| (s.to_string(), f.iter().map(|x| x.to_string()).collect()))
        .collect();
    assert_eq!(plan, expected);
    let out = env.run(&repo, &["historian", "clean"]).expect_code(0);
    assert_same_tree(&env, &repo, "feature/export", &field(&out, "Clean branch"));
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
    let commits: Vec<(String, String)> = planned_items(&env, &repo)
        .into_iter()
        .map(|(subject, items)| (subject, items.join(" ")))
        .collect();
    let with = |path: &str| {
        commits
            .iter()
            .find(|(_, files)| files.split(' ').any(|f| f == path))
            .unwrap_or_else(|| panic!("{path} in {commits:?}"))
            .clone()
    };
    // The import wiring the module in and the module's new test join the
    // module, though each came from another commit.
    assert_eq!(
        with("pkg/exporter.py").1,
        "pkg/__init__.py pkg/exporter.py tests/test_exporter.py",
        "{commits:?}"
    );
    // The parser's fix reads as the clause about it.
    assert_eq!(
        with("pkg/parser.py"),
        ("fix(parser): fix the parser".into(), "pkg/parser.py".into())
    );
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

    let out = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    let plan = out.json();
    let files: Vec<String> = plan["commits"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            c["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap().to_owned())
        })
        .collect();
    for expected in [
        "new/name.txt",
        "gone.txt",
        "image.bin",
        "logo.png",
        "tool.sh",
        "run",
        "vendor/lib",
        "a",
        "a/inside.txt",
    ] {
        assert!(files.iter().any(|f| f == expected), "{expected} missing from {files:?}");
    }
    let out = env.run(&repo, &["historian", "clean"]).expect_code(0);
    let clean = field(&out, "Clean branch");
    assert_same_tree(&env, &repo, "kinds", &clean);
    env.assert_fsck(&repo);
    let mut after = user_state(&env, &repo, "kinds");
    after.branches = before.branches.clone();
    assert_eq!(before, after);
    // The rename is one change: the old path is gone where the new appears.
    let log = env.git(
        &repo,
        &["log", "--format=", "--name-status", "-M", &format!("main..{clean}")],
    );
    assert!(
        log.lines()
            .any(|l| l.starts_with('R') && l.ends_with("\told/name.txt\tnew/name.txt")),
        "{log}"
    );
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

    let out = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    let plan = out.json();
    let commits = plan["commits"].as_array().unwrap();
    assert_eq!(commits.len(), 2, "{}", out.stdout);
    assert_eq!(commits[0]["hunks"], serde_json::json!(["list.txt#1"]), "{}", out.stdout);
    assert_eq!(commits[1]["hunks"], serde_json::json!(["list.txt#2"]), "{}", out.stdout);

    let out = env.run(&repo, &["historian", "clean"]).expect_code(0);
    let clean = field(&out, "Clean branch");
    assert_same_tree(&env, &repo, "two", &clean);
    // The first commit holds only the first hunk.
    let middle = env.git(&repo, &["show", &format!("{clean}~1:list.txt")]);
    assert!(middle.contains("line 3, reworded"), "{middle}");
    assert!(middle.contains("line 36\n"), "{middle}");
}

#[test]
fn plan_writes_nothing_and_is_deterministic() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    make_dirty(&repo);
    let before = user_state(&env, &repo, "feature");
    let refs_before = refs(&env, &repo);
    let objects = tree_state(&repo.join(".git/objects")).len();
    let out = env.run(&repo, &["historian", "plan"]).expect_code(0);
    assert!(out.stdout.starts_with("Plan for 'feature': "), "{out}");
    assert!(out.stdout.contains("\n1. build"), "{out}");
    let first = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    let second = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    assert_eq!(first.stdout, second.stdout);
    let json = first.json();
    assert_eq!(
        json["tip"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "feature"]).trim()
    );
    assert_eq!(
        json["base"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "main"]).trim()
    );
    for commit in json["commits"].as_array().unwrap() {
        assert!(commit["message"].as_str().unwrap().contains("\n\nHolds:\n"));
        assert!(commit["files"].is_array() && commit["hunks"].is_array());
    }
    assert_eq!(before, user_state(&env, &repo, "feature"));
    assert_eq!(refs_before, refs(&env, &repo));
    assert_eq!(
        objects,
        tree_state(&repo.join(".git/objects")).len(),
        "plan wrote objects"
    );
}

#[test]
fn a_plan_file_is_built_exactly() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let out = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    let mut plan = out.json();
    // Merge the first two commits and retitle them.
    let commits = plan["commits"].as_array_mut().unwrap();
    let second = commits.remove(1);
    for key in ["files", "hunks"] {
        let extra = second[key].as_array().unwrap().clone();
        commits[0][key].as_array_mut().unwrap().extend(extra);
    }
    commits[0]["message"] = "chore: the first two together\n\nBy hand.".into();
    let count = commits.len();
    let file = env.root().join("plan.json");
    std::fs::write(&file, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let out = env
        .run(&repo, &["historian", "clean", "--plan", file.to_str().unwrap()])
        .expect_code(0);
    let clean = field(&out, "Clean branch");
    assert_eq!(field(&out, "Commits created"), count.to_string());
    let subjects = subjects_of(&env, &repo, &format!("main..{clean}"));
    assert_eq!(subjects[0], "chore: the first two together");
    assert_eq!(
        env.git(&repo, &["log", "-1", "--format=%b", &format!("{clean}~{}", count - 1)])
            .trim(),
        "By hand."
    );
    assert_same_tree(&env, &repo, "feature", &clean);

    // YAML written by a person works too.
    let yaml = "commits:\n  - message: \"feat: everything\"\n    files: [Cargo.toml, docs/guide.md, src/helpers.rs, src/legacy.rs, src/lexer.rs, src/main.rs, src/parser.rs, tests/parser.rs]\n";
    let file = env.root().join("plan.yaml");
    std::fs::write(&file, yaml).unwrap();
    let out = env
        .run(
            &repo,
            &[
                "historian",
                "clean",
                "--plan",
                file.to_str().unwrap(),
                "--max-files",
                "50",
            ],
        )
        .expect_code(0);
    assert_eq!(field(&out, "Commits created"), "1");
    assert_same_tree(&env, &repo, "feature", &field(&out, "Clean branch"));
}

#[test]
fn a_plan_missing_or_doubling_items_is_refused_with_the_items() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let out = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    let plan = out.json();
    let refs_before = refs(&env, &repo);
    let first_file = plan["commits"][0]["files"][0].as_str().unwrap().to_owned();

    let mut missing = plan.clone();
    missing["commits"].as_array_mut().unwrap().remove(0);
    let mut doubled = plan.clone();
    let again = doubled["commits"][0]["files"][0].clone();
    doubled["commits"][1]["files"].as_array_mut().unwrap().push(again);
    let mut unknown = plan.clone();
    unknown["commits"][0]["files"]
        .as_array_mut()
        .unwrap()
        .push("no/such/file.rs".into());
    // A NUL makes a commit `git fsck` rejects; an escape recolours a log.
    let mut control = plan.clone();
    control["commits"][0]["message"] = "\u{0}nul in message\n".into();
    let mut escape = plan.clone();
    escape["commits"][1]["message"] = "a \u{1b}[31mred\u{1b}[0m subject\n".into();

    let mut t = Transcript::new(&env);
    for (name, bad, expected) in [
        ("missing", missing, format!("missing: {first_file}")),
        ("doubled", doubled, format!("doubled: {first_file}")),
        ("unknown", unknown, "unknown: no/such/file.rs (commit 1)".to_owned()),
        (
            "control",
            control,
            "commit 1's message holds the control character U+0000".to_owned(),
        ),
        (
            "escape",
            escape,
            "commit 2's message holds the control character U+001B".to_owned(),
        ),
    ] {
        let file = env.root().join(format!("{name}.json"));
        std::fs::write(&file, serde_json::to_string(&bad).unwrap()).unwrap();
        let out = t
            .run(&repo, &["historian", "clean", "--plan", file.to_str().unwrap()])
            .expect_code(128);
        assert!(out.stderr.contains(&expected), "{name}: {out}");
        assert_eq!(refs_before, refs(&env, &repo), "{name} wrote a ref");
    }
    // A plan for another tip, unreadable files, bad YAML.
    let mut moved = plan.clone();
    moved["tip"] = env.git(&repo, &["rev-parse", "main"]).trim().into();
    let file = env.root().join("moved.json");
    std::fs::write(&file, serde_json::to_string(&moved).unwrap()).unwrap();
    let _ = t
        .run(&repo, &["historian", "clean", "--plan", file.to_str().unwrap()])
        .expect_code(128);
    let _ = t
        .run(&repo, &["historian", "clean", "--plan", "nope.yaml"])
        .expect_code(128);
    let file = env.root().join("bad.yaml");
    std::fs::write(&file, "commits:\n  - message: x\n    files: [a\n").unwrap();
    let _ = t
        .run(&repo, &["historian", "plan", "--plan", file.to_str().unwrap()])
        .expect_code(128);
    assert_transcript!(t, "a_plan_missing_or_doubling_items_is_refused_with_the_items");
    assert_eq!(refs_before, refs(&env, &repo));
}

#[test]
fn the_base_is_found_without_a_remote_and_can_be_named() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("w.txt"), "w\n");
    commit_all(&env, &repo, "second on main");
    write(&repo.join("x.txt"), "x\n");
    commit_all(&env, &repo, "main moves on");
    env.git(&repo, &["checkout", "-q", "-b", "topic", "main~1"]);
    write(&repo.join("y.txt"), "y\n");
    commit_all(&env, &repo, "Add y");
    // main moved on after topic forked: the base is the fork point.
    let out = env.run(&repo, &["historian", "plan"]).expect_code(0);
    let fork = env.git(&repo, &["rev-parse", "--short", "main~1"]);
    assert!(
        out.stdout
            .contains(&format!("Base: {} (merge base with main)", fork.trim())),
        "{out}"
    );
    let mut t = Transcript::new(&env);
    t.note("a local main ahead of origin/main, whose unpushed commit topic forked from, beats origin/main");
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main~2"]);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    t.note("otherwise origin/main beats a local main");
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main"]);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main~2"]);
    // --base beats historian.base, which beats detection.
    let out = env
        .run(&repo, &["-c", "historian.base=main~2", "historian", "plan", "--json"])
        .expect_code(0);
    assert_eq!(
        out.json()["base"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "main~2"]).trim()
    );
    let out = env
        .run(
            &repo,
            &[
                "-c",
                "historian.base=main~2",
                "historian",
                "plan",
                "--base",
                "main",
                "--json",
            ],
        )
        .expect_code(0);
    assert_eq!(
        out.json()["base"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "main~1"]).trim()
    );
    // No candidate at all: an ERROR naming what was tried, exit 1.
    env.git(&repo, &["update-ref", "-d", "refs/remotes/origin/main"]);
    env.git(&repo, &["branch", "-m", "main", "trunk"]);
    t.note("no candidate at all: an ERROR naming what was tried");
    let _ = t.run(&repo, &["historian", "clean"]).expect_code(1);
    let out = env.run(&repo, &["historian", "clean", "--json"]).expect_code(1);
    let json = out.json();
    assert_eq!(json["result"], "ERROR");
    assert_eq!(json["step"], 2);
    // A bad --base is an ERROR of step 2 naming it.
    let _ = t
        .run(&repo, &["historian", "clean", "--base", "no-such-rev"])
        .expect_code(1);
    assert_transcript!(t, "the_base_is_found_without_a_remote_and_can_be_named");
    let out = env
        .run(&repo, &["historian", "clean", "--base", "trunk"])
        .expect_code(0);
    assert_same_tree(&env, &repo, "topic", &field(&out, "Clean branch"));
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

#[test]
fn json_results_carry_the_same_as_data() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let out = env.run(&repo, &["historian", "clean", "--json"]).expect_code(0);
    let json = out.json();
    assert_eq!(json["result"], "SUCCESS");
    assert_eq!(json["original_branch"], "feature");
    let clean = json["clean_branch"].as_str().unwrap();
    assert_eq!(
        json["base_commit"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "main"]).trim()
    );
    let commits = json["commits"].as_array().unwrap();
    assert_eq!(json["commits_created"].as_u64().unwrap() as usize, commits.len());
    assert_eq!(
        commits.last().unwrap()["id"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", clean]).trim()
    );
    assert_eq!(
        json["tree"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "feature^{tree}"]).trim()
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
    write(
        &repo.join("src/retry.rs"),
        "pub fn attempts(limit: u32) -> u32 {\n    limit\n}\n",
    );
    write(
        &repo.join("src/timeout.rs"),
        "pub fn seconds(wait: u64) -> u64 {\n    wait\n}\n",
    );
    commit_all(&env, &repo, "base");
    for (branch, message) in [
        ("one", "Tune the client\n\nBoth limits grow.\n"),
        ("body", "Tune the client\n\nThe limits grow with the load\n"),
        (
            "squashed",
            "Retry failed requests\n\nThe client tries again after a failure.\n\nLengthen the timeout\n",
        ),
    ] {
        env.git(&repo, &["checkout", "-q", "-b", branch, "main"]);
        write(
            &repo.join("src/retry.rs"),
            "pub fn attempts(limit: u32) -> u32 {\n    limit.max(3)\n}\n",
        );
        write(
            &repo.join("src/timeout.rs"),
            "pub fn seconds(wait: u64) -> u64 {\n    wait.max(30)\n}\n",
        );
        commit_all(&env, &repo, message);
    }
    // A body's one-line paragraph, with or without a full stop, is no
    // subject: the commit stays whole.
    for branch in ["one", "body"] {
        env.git(&repo, &["checkout", "-q", branch]);
        let out = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
        assert_eq!(
            out.json()["commits"].as_array().unwrap().len(),
            1,
            "{branch}: {}",
            out.stdout
        );
    }

    env.git(&repo, &["checkout", "-q", "squashed"]);
    let out = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    let plan = out.json();
    let files: Vec<serde_json::Value> = plan["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["files"].clone())
        .collect();
    assert_eq!(files.len(), 2, "{}", out.stdout);
    assert!(files.contains(&serde_json::json!(["src/retry.rs"])), "{}", out.stdout);
    assert!(files.contains(&serde_json::json!(["src/timeout.rs"])), "{}", out.stdout);
    let out = env.run(&repo, &["historian", "clean"]).expect_code(0);
    assert_same_tree(&env, &repo, "squashed", &field(&out, "Clean branch"));
}
