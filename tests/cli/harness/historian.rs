//! The historian's shared setup: a messy feature branch, what of the user's
//! a run must leave as it was, and what a user reads of a clean run with git,
//! recorded into a transcript.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

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

/// `client.c` with a retry loop added to `client_open`: a second piece of
/// work beside whatever a squash's first subject did.
pub const CLIENT_WITH_RETRY: &str = "int client_open(void) { return 0; }\n\nint client_retry(int attempts)\n{\n\twhile (attempts-- > 0)\n\t\tif (client_open() == 0)\n\t\t\treturn 0;\n\treturn -1;\n}\n";

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

pub fn assert_same_tree(env: &TestEnv, repo: &Path, a: &str, b: &str) {
    assert_eq!(
        env.git(repo, &["rev-parse", &format!("{a}^{{tree}}")]),
        env.git(repo, &["rev-parse", &format!("{b}^{{tree}}")]),
        "trees of {a} and {b} differ"
    );
    assert_eq!(env.git(repo, &["diff", "--stat", a, b]), "", "git diff {a} {b}");
}

/// Records `git historian clean <args>`, which must succeed, on `branch`
/// (checked out, or named in `args`), and then what a user reads of the
/// outcome with git ([`show_outcome`]); returns the clean branch's name.
pub fn record_clean(t: &mut Transcript, repo: &Path, branch: &str, args: &[&str]) -> String {
    let mut all = vec!["historian", "clean"];
    all.extend_from_slice(args);
    let out = t.run(repo, &all).expect_code(0);
    let clean = field(&out, "Clean branch");
    show_outcome(t, repo, branch, &clean);
    clean
}

/// Records, with the real git, what a run left: the clean branch's commits
/// from `main`, oldest first, each with its files; `git diff --exit-code`
/// from the original tip, which prints nothing and exits 0 when the trees
/// are identical; and `git fsck`.
pub fn show_outcome(t: &mut Transcript, repo: &Path, original: &str, clean: &str) {
    show_outcome_from(t, repo, "main", original, clean);
}

/// [`show_outcome`] for a clean branch built on `base`.
pub fn show_outcome_from(t: &mut Transcript, repo: &Path, base: &str, original: &str, clean: &str) {
    let range = format!("{base}..{clean}");
    let _ = t
        .run(repo, &["log", "--reverse", "--format=%s", "--name-status", &range])
        .expect_code(0);
    let _ = t
        .run(repo, &["diff", "--exit-code", "--stat", original, clean])
        .expect_code(0);
    let _ = t
        .run(repo, &["fsck", "--strict", "--no-progress", "--no-dangling"])
        .expect_code(0);
}

/// Records the clean branch's commits from `main`, oldest first, each with
/// its patch: what it holds when it holds only part of a file.
pub fn show_patches(t: &mut Transcript, repo: &Path, clean: &str) {
    let range = format!("main..{clean}");
    let _ = t
        .run(repo, &["log", "--reverse", "--format=%s", "-p", &range])
        .expect_code(0);
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

/// Writes each `(path, text)` into `repo` and commits them all as `message`.
pub fn commit_files(env: &TestEnv, repo: &Path, files: &[(&str, &str)], message: &str) {
    for (path, text) in files {
        write(&repo.join(path), text);
    }
    commit_all(env, repo, message);
}

/// A repository `repo` whose first commit (on `main`) holds `files` beside
/// a README: no history behind the base speaks of them (neither change
/// coupling nor the line history reads a root commit's work).
pub fn repo_holding(env: &TestEnv, files: &[(&str, &str)]) -> PathBuf {
    let repo = env.root().join("repo");
    std::fs::create_dir_all(&repo).expect("repo dir");
    env.git(&repo, &["init", "-q", "-b", "main"]);
    write(&repo.join("README.md"), "# demo\n");
    commit_files(env, &repo, files, "initial");
    repo
}

/// Starts `branch` at `main` and commits `files` on it as one commit
/// `message`: a squash, when the message names several pieces of work.
pub fn squash_on(env: &TestEnv, repo: &Path, branch: &str, files: &[(&str, &str)], message: &str) {
    env.git(repo, &["checkout", "-q", "-b", branch, "main"]);
    commit_files(env, repo, files, message);
}

/// The clean branch a run made beside `original` (`<original>-<stamp>`).
pub fn clean_branch(env: &TestEnv, repo: &Path, original: &str) -> String {
    let pattern = format!("refs/heads/{original}-*");
    env.git(repo, &["for-each-ref", "--format=%(refname:short)", &pattern])
        .trim()
        .to_owned()
}

/// A client's two limits, `src/retry.rs` and `src/timeout.rs`, as a base
/// holds them.
pub const LIMITS: [(&str, &str); 2] = [
    ("src/retry.rs", "pub fn attempts(limit: u32) -> u32 {\n    limit\n}\n"),
    ("src/timeout.rs", "pub fn seconds(wait: u64) -> u64 {\n    wait\n}\n"),
];

/// [`LIMITS`], both raised: two pieces of work a squash may hold.
pub const LIMITS_RAISED: [(&str, &str); 2] = [
    (
        "src/retry.rs",
        "pub fn attempts(limit: u32) -> u32 {\n    limit.max(3)\n}\n",
    ),
    (
        "src/timeout.rs",
        "pub fn seconds(wait: u64) -> u64 {\n    wait.max(30)\n}\n",
    ),
];
