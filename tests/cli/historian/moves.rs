//! Moved code never disappears in between (issue 15, item 6): a test
//! module split over several commits into a package, the old module
//! deleted in the first of them and the package's `__init__.py` added in
//! the last. Every line present at the base and at the tip must be present
//! in every commit of the clean branch, and the package's `__init__.py`
//! must come no later than its first module; both checked with real git.

use std::collections::BTreeSet;
use std::path::Path;

use crate::harness::historian::{commit_all, record_clean};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// The four parts of the old module, each moved to a module of its own.
const PARTS: [(&str, &str); 4] = [
    ("parse", "parse_line"),
    ("format", "format_row"),
    ("errors", "check_row"),
    ("cli", "run_command"),
];

/// One part's tests: 15 lines, each test's lines unique to it.
fn part(name: &str, function: &str) -> String {
    let mut out = String::new();
    for case in 1..=3 {
        out.push_str(&format!(
            "def test_{name}_case_{case}():\n    value = {function}('{name}-input-{case}')\n    expected = make_expected_{name}({case})\n    assert value == expected, 'case {case} of {name}'\n\n"
        ));
    }
    out
}

fn header() -> &'static str {
    "import pytest\nfrom app import parse_line, format_row, check_row, run_command\nfrom helpers import make_expected_parse, make_expected_format, make_expected_errors, make_expected_cli\n\n"
}

/// Nonblank lines, trimmed, of every file of `rev`.
fn lines_at(env: &TestEnv, repo: &Path, rev: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for path in env.git(repo, &["ls-tree", "-r", "--name-only", rev]).lines() {
        let text = env.git(repo, &["show", &format!("{rev}:{path}")]);
        out.extend(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from));
    }
    out
}

/// The lines of `wanted` missing from every file of `rev`.
fn missing_at(env: &TestEnv, repo: &Path, rev: &str, wanted: &BTreeSet<String>) -> Vec<String> {
    let present = lines_at(env, repo, rev);
    wanted.difference(&present).cloned().collect()
}

/// A branch moving `tests/test_big.py` into `tests/big/` over four commits:
/// the old module goes in the first, `__init__.py` comes with the last.
fn split_repo(env: &TestEnv) -> std::path::PathBuf {
    let repo = env.repo("repo");
    write(
        &repo.join("app.py"),
        "def parse_line(text):\n    return text.split(',')\n",
    );
    let mut big = header().to_owned();
    for (name, function) in PARTS {
        big.push_str(&part(name, function));
    }
    write(&repo.join("tests/test_big.py"), &big);
    commit_all(env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "split-tests"]);
    for (n, (name, function)) in PARTS.iter().enumerate() {
        if n == 0 {
            std::fs::remove_file(repo.join("tests/test_big.py")).unwrap();
        }
        write(
            &repo.join(format!("tests/big/test_{name}.py")),
            &format!("{}{}", header(), part(name, function)),
        );
        if n == PARTS.len() - 1 {
            write(
                &repo.join("tests/big/__init__.py"),
                "\"\"\"Tests of the app, by area.\"\"\"\n",
            );
        }
        commit_all(env, &repo, &format!("Move the {name} tests into the tests package"));
    }
    repo
}

#[test]
fn moved_tests_are_in_every_clean_commit_and_the_package_comes_first() {
    let env = TestEnv::new();
    let repo = split_repo(&env);
    let kept: BTreeSet<String> = lines_at(&env, &repo, "main")
        .intersection(&lines_at(&env, &repo, "split-tests"))
        .cloned()
        .collect();
    assert!(kept.len() > 50, "{kept:?}");
    // The original branch loses the moved tests in between: what the clean
    // branch must not do.
    assert!(!missing_at(&env, &repo, "split-tests~3", &kept).is_empty());

    // The split is kept apart, and the commit finishing the move is named
    // for what it adds, not for the old module it removes.
    let mut t = Transcript::new(&env);
    // The package's `__init__.py` links only weakly to the tests it holds,
    // but each commit is the author's cut: it stays with the first module
    // of the package, and clean decides.
    let out = t.run(&repo, &["historian", "clean"]).expect_code(0);
    let clean = crate::harness::historian::field(&out, "Clean branch");
    crate::harness::historian::show_outcome(&mut t, &repo, "split-tests", &clean);
    assert_transcript!(t, "moved_tests_are_in_every_clean_commit_and_the_package_comes_first");
    let commits = assert_nothing_missing(&env, &repo, "split-tests", &clean);
    // The first commit with anything of the package has its `__init__.py`.
    let first = commits
        .iter()
        .position(|id| {
            !env.git(&repo, &["ls-tree", "-r", "--name-only", id, "tests/big/"])
                .is_empty()
        })
        .expect("the package is added");
    let files = env.git(&repo, &["ls-tree", "-r", "--name-only", &commits[first], "tests/big/"]);
    assert!(
        files.lines().any(|f| f == "tests/big/__init__.py"),
        "commit {} adds the package without __init__.py: {files}",
        first + 1
    );
}

/// Every line present at both ends of the branch is in every commit of
/// `clean`; returns the clean commits, oldest first.
fn assert_nothing_missing(env: &TestEnv, repo: &Path, branch: &str, clean: &str) -> Vec<String> {
    let kept: BTreeSet<String> = lines_at(env, repo, "main")
        .intersection(&lines_at(env, repo, branch))
        .cloned()
        .collect();
    let commits: Vec<String> = env
        .git(repo, &["rev-list", "--reverse", &format!("main..{clean}")])
        .lines()
        .map(String::from)
        .collect();
    for (n, id) in commits.iter().enumerate() {
        let missing = missing_at(env, repo, id, &kept);
        assert!(
            missing.is_empty(),
            "commit {} of {} lacks {missing:?}\n{}",
            n + 1,
            commits.len(),
            env.git(repo, &["log", "--stat", "--reverse", &format!("main..{clean}")])
        );
    }
    commits
}

#[test]
fn a_hunk_removing_moved_tests_waits_for_the_commit_that_adds_them_back() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut big = header().to_owned();
    for (name, function) in PARTS {
        big.push_str(&part(name, function));
    }
    write(&repo.join("tests/test_big.py"), &big);
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "trim"]);
    // The first commit cuts three parts out of the old module (one hunk
    // removing lines) and moves the first of them; the others follow.
    let mut trimmed = header().to_owned();
    trimmed.push_str(&part(PARTS[0].0, PARTS[0].1));
    write(&repo.join("tests/test_big.py"), &trimmed);
    write(
        &repo.join("tests/big/__init__.py"),
        "\"\"\"Tests of the app, by area.\"\"\"\n",
    );
    for (n, (name, function)) in PARTS[1..].iter().enumerate() {
        write(
            &repo.join(format!("tests/big/test_{name}.py")),
            &format!("{}{}", header(), part(name, function)),
        );
        let subject = match n {
            0 => "Start the tests package with the format tests".to_owned(),
            _ => format!("Move the {name} tests into the tests package"),
        };
        commit_all(&env, &repo, &subject);
    }
    // The moves are kept apart, each commit as the author cut it; the old
    // module shrinks in the commit adding the last part back.
    let mut t = Transcript::new(&env);
    let clean = record_clean(&mut t, &repo, "trim", &[]);
    assert_transcript!(
        t,
        "a_hunk_removing_moved_tests_waits_for_the_commit_that_adds_them_back"
    );
    assert_nothing_missing(&env, &repo, "trim", &clean);
}

#[test]
fn code_swapped_between_two_files_is_swapped_in_one_commit() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("src/left.py"),
        "def left():\n    return compute_the_left_answer(41)\n",
    );
    write(
        &repo.join("lib/right.py"),
        "def right():\n    return compute_the_right_answer(43)\n",
    );
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "swap"]);
    write(
        &repo.join("src/left.py"),
        "def left():\n    return compute_the_right_answer(43)\n",
    );
    commit_all(&env, &repo, "Left answers right");
    write(
        &repo.join("lib/right.py"),
        "def right():\n    return compute_the_left_answer(41)\n",
    );
    commit_all(&env, &repo, "Right answers left");
    // Either commit alone would lose a line: they are joined.
    let mut t = Transcript::new(&env);
    let clean = record_clean(&mut t, &repo, "swap", &[]);
    assert_transcript!(t, "code_swapped_between_two_files_is_swapped_in_one_commit");
    assert_nothing_missing(&env, &repo, "swap", &clean);
}

/// A module declaration comes with its module, whatever the module's file
/// is called: `mod index;` in one commit, `src/index.rs` (or
/// `src/index/mod.rs`) mostly written in the next beside its first use.
/// Before, `index` read as a directory's module file and the declaration
/// landed after the code using it: a clean commit that did not compile.
#[test]
fn a_module_declaration_comes_with_its_module_whatever_it_is_named() {
    for module in ["src/index.rs", "src/index/mod.rs"] {
        let env = TestEnv::new();
        let repo = env.repo("repo");
        write(
            &repo.join("src/main.rs"),
            "mod flags;\nmod search;\n\nfn main() {\n    let args = flags::parse();\n    search::run(&args);\n}\n",
        );
        write(
            &repo.join("src/flags.rs"),
            "pub fn parse() -> Vec<String> {\n    std::env::args().collect()\n}\n",
        );
        write(
            &repo.join("src/search.rs"),
            "pub fn run(args: &[String]) {\n    println!(\"{:?}\", args);\n}\n",
        );
        commit_all(&env, &repo, "base");
        env.git(&repo, &["checkout", "-q", "-b", "feature"]);
        write(
            &repo.join("src/main.rs"),
            "mod flags;\nmod index;\nmod search;\n\nfn main() {\n    let args = flags::parse();\n    search::run(&args);\n}\n",
        );
        write(&repo.join(module), "// index\n");
        commit_all(&env, &repo, "core: add index module");
        write(
            &repo.join(module),
            "// index\npub fn read(args: &[String]) -> bool {\n    !args.is_empty()\n}\n",
        );
        write(
            &repo.join("src/main.rs"),
            "mod flags;\nmod index;\nmod search;\n\nfn main() {\n    let args = flags::parse();\n    if index::read(&args) {\n        return;\n    }\n    search::run(&args);\n}\n",
        );
        commit_all(&env, &repo, "index: add initial indexing scaffolding");
        let mut t = Transcript::new(&env);
        let clean = record_clean(&mut t, &repo, "feature", &[]);
        match module {
            "src/index.rs" => assert_transcript!(t, "a_module_declaration_comes_with_its_module_index_rs"),
            _ => assert_transcript!(t, "a_module_declaration_comes_with_its_module_index_mod_rs"),
        }
        for commit in env.git(&repo, &["rev-list", &format!("main..{clean}")]).lines() {
            let main = env.git(&repo, &["show", &format!("{commit}:src/main.rs")]);
            let has_module = env.run(&repo, &["cat-file", "-e", &format!("{commit}:{module}")]).code == 0;
            assert_eq!(main.contains("mod index;"), has_module, "{module} at {commit}:\n{main}");
            if main.contains("index::read") {
                assert!(has_module, "{module}: a use before its module at {commit}");
            }
        }
    }
}

/// A file that becomes a directory (`readme.md` → `readme.md/index.md`):
/// no tree holds both, so no commit may come between them — neither in
/// the plan nor in any split a QUESTION offers. Every option is taken in
/// turn, and each ends in SUCCESS with the original tree.
#[test]
fn no_split_offered_parts_a_file_from_the_directory_it_becomes() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let long: String = (1..=600).map(|n| format!("line {n}\n")).collect();
    write(&repo.join("readme.md"), &long);
    write(&repo.join("src/lib.c"), "int lib(void) { return 0; }\n");
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    std::fs::remove_file(repo.join("readme.md")).unwrap();
    write(&repo.join("readme.md/index.md"), &long.replace("line", "row"));
    write(&repo.join("src/lib.c"), "int lib(void) { return 1; }\n");
    commit_all(&env, &repo, "Turn the readme into a directory and grow the library");
    // The planner puts the two apart by itself; one commit holding both,
    // as a plan file says, is what a split must part without parting the
    // file from the directory it becomes.
    let plan = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0).json();
    let mut one = plan.clone();
    let all = |key: &str| -> Vec<serde_json::Value> {
        plan["commits"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c[key].as_array().unwrap().clone())
            .collect()
    };
    one["commits"] = serde_json::json!([{
        "message": "Turn the readme into a directory and grow the library",
        "files": all("files"),
        "hunks": all("hunks"),
    }]);
    let file = env.root().join("one.json");
    std::fs::write(&file, one.to_string()).unwrap();
    let file = file.to_str().unwrap();
    let clean = [
        "historian",
        "clean",
        "--max-lines",
        "50",
        "--max-files",
        "2",
        "--plan",
        file,
    ];
    let mut t = Transcript::new(&env);
    let asked = t.run(&repo, &clean).expect_code(3);
    let options = asked.stdout.lines().filter(|l| l.starts_with("Option ")).count();
    for n in 1..=options {
        if n > 1 {
            t.note(&format!("asked again (as above), answered with option {n}"));
            let _ = env.run(&repo, &clean).expect_code(3);
        }
        let answer = n.to_string();
        let out = t
            .run(&repo, &["historian", "resume", "--answer", &answer, "feature"])
            .expect_code(0);
        crate::harness::historian::show_outcome(
            &mut t,
            &repo,
            "feature",
            &crate::harness::historian::field(&out, "Clean branch"),
        );
    }
    assert_transcript!(t, "no_split_offered_parts_a_file_from_the_directory_it_becomes");
}

/// A submodule added on the branch and its `.gitmodules` entry land in
/// one commit: between the two, `git submodule status` fails (no mapping
/// for the path). Checked by `--verify-each` at every clean commit.
#[test]
fn a_new_submodule_lands_with_its_gitmodules_entry() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("README.md"), "# Project\n");
    commit_all(&env, &repo, "base");
    let base = env.git(&repo, &["rev-parse", "HEAD"]);
    let base = base.trim();
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    let gitlink = |id: &str| {
        let info = format!("160000,{id},vendor/lib");
        env.git(&repo, &["update-index", "--add", "--cacheinfo", &info]);
    };
    gitlink(base);
    write(
        &repo.join(".gitmodules"),
        "[submodule \"vendor/lib\"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n",
    );
    env.git(&repo, &["add", ".gitmodules"]);
    env.git(&repo, &["commit", "-q", "-m", "Add the lib submodule"]);
    write(&repo.join("docs/usage.md"), "# Usage\n\nRun it.\n");
    commit_all(&env, &repo, "Document the usage");
    gitlink("1111111111111111111111111111111111111111");
    env.git(&repo, &["commit", "-q", "-m", "Bump the lib"]);
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature", &["--verify-each", "git submodule status"]);
    assert_transcript!(t, "a_new_submodule_lands_with_its_gitmodules_entry");
}

/// A definition removed on the branch goes no earlier than the commits
/// that stop using it: flask's `_cv_request` left `globals.py` before
/// `ctx.py` stopped importing it, and four clean commits failed to import.
#[test]
fn a_definition_is_removed_after_the_commits_that_stop_using_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("app/globals.py"),
        "def current_app():\n    return _app\n\n\ndef request_context_var():\n    return _request\n",
    );
    write(
        &repo.join("app/ctx.py"),
        "from .globals import current_app\nfrom .globals import request_context_var\n\n\ndef push():\n    return request_context_var()\n",
    );
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("app/ctx.py"),
        "from .globals import current_app\n\n\ndef push():\n    return current_app()\n",
    );
    commit_all(&env, &repo, "Push the application context instead");
    write(&repo.join("app/globals.py"), "def current_app():\n    return _app\n");
    commit_all(&env, &repo, "Drop the request context variable");
    let mut t = Transcript::new(&env);
    let clean = record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_definition_is_removed_after_the_commits_that_stop_using_it");
    // In every commit, a module importing the name has it defined.
    for commit in env.git(&repo, &["rev-list", &format!("main..{clean}")]).lines() {
        let show = |path: &str| env.git(&repo, &["show", &format!("{commit}:{path}")]);
        let imports = show("app/ctx.py").contains("import request_context_var");
        let defines = show("app/globals.py").contains("def request_context_var");
        assert!(!imports || defines, "commit {commit} imports what it no longer defines");
    }
}
