//! git-historian reads issue numbers (issue 15, item 1): a squash whose
//! fix says `Fixes #1173` and whose regression test is named for that
//! issue (`r1173`, a link to it) keeps the test with the fix, though the
//! test shares no other word with it.

use crate::harness::historian::{commit_all, record_clean, CLIENT_WITH_RETRY};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

#[test]
fn a_test_named_for_the_issue_a_fix_closes_joins_the_fix() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("src/pattern.c"),
        "int pattern_prefix(const char *p)\n{\n\treturn p[0] == '*' && p[1] == '*' && p[2] == '/';\n}\n",
    );
    write(&repo.join("src/client.c"), "int client_open(void) { return 0; }\n");
    write(
        &repo.join("tests/regression.sh"),
        "#!/bin/sh\nr1164() {\n\tmkdir -p sub && echo hit > sub/file\n\texpect_out 'sub/file' -- hit\n}\n",
    );
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("src/pattern.c"),
        "int pattern_prefix(const char *p)\n{\n\tif (p[0] == '*' && p[1] == '*' && p[2] == '\\0')\n\t\treturn 1;\n\treturn p[0] == '*' && p[1] == '*' && p[2] == '/';\n}\n",
    );
    write(&repo.join("src/client.c"), CLIENT_WITH_RETRY);
    write(
        &repo.join("tests/regression.sh"),
        "#!/bin/sh\nr1164() {\n\tmkdir -p sub && echo hit > sub/file\n\texpect_out 'sub/file' -- hit\n}\n\n# https://example.org/tracker/issues/1173\nr1173() {\n\tmkdir -p deep/er && echo hit > deep/er/file\n\texpect_out 'deep/er/file' -- '**'\n}\n",
    );
    commit_all(
        &env,
        &repo,
        "pattern: fix matching of a bare double star\n\nFixes #1173.\n\nRetry a failed client connection\n",
    );
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_test_named_for_the_issue_a_fix_closes_joins_the_fix");
}

/// A changelog's subject names the issue the regression test is named for,
/// and the fix says a word of the test's; a subject saying the kind of file
/// it changes (`changelog:`) counts half with a file of another kind. Since
/// issue 39's pruning (no signal keeps docs apart from code, plain words
/// such as `fix` count) the changelog's entry goes with the fix and the
/// regression test is a commit of its own: recorded as the planner does it,
/// not as a reviewer would want it (what held them apart cost nothing on
/// the evaluation's held-out half).
#[test]
fn a_changelog_entry_naming_an_issue_and_the_fix_it_notes() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("CHANGELOG.md"), "# Changelog\n\n## Unreleased\n\n");
    write(
        &repo.join("src/reader.c"),
        "int read_input(const char *s, int n)\n{\n\treturn s[0];\n}\n",
    );
    write(
        &repo.join("tests/regression.sh"),
        "#!/bin/sh\nr1164() {\n\texpect_out 'a' -- a\n}\n",
    );
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("CHANGELOG.md"),
        "# Changelog\n\n## Unreleased\n\n- A crash is fixed (#1173).\n",
    );
    write(
        &repo.join("src/reader.c"),
        "int read_input(const char *s, int n)\n{\n\tif (n == 0)\n\t\treturn -1;\n\treturn s[0];\n}\n",
    );
    write(
        &repo.join("tests/regression.sh"),
        "#!/bin/sh\nr1164() {\n\texpect_out 'a' -- a\n}\n\nr1173() {\n\texpect_out '' -- input\n}\n",
    );
    commit_all(
        &env,
        &repo,
        "changelog: note the fix of #1173\n\nStop crashing on empty input\n",
    );
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_changelog_entry_naming_an_issue_and_the_fix_it_notes");
}

/// A version number a part and a subject both name outweighs the words a
/// conventional prefix shares with a manifest: the release's bump of
/// `package.json` goes with `Release 5.1.0`, not with the `build(deps): bump …`
/// of a workflow's action squashed beside it.
#[test]
fn a_version_both_name_outweighs_a_prefix_s_words() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let manifest = |version: &str| {
        format!("{{\n  \"name\": \"server\",\n  \"version\": \"{version}\",\n  \"main\": \"index.js\"\n}}\n")
    };
    let workflow = |action: &str| {
        format!(
            "name: codeql\non: [push]\njobs:\n  analyze:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: github/codeql-action/init@{action}\n      - uses: github/codeql-action/analyze@{action}\n"
        )
    };
    write(&repo.join("package.json"), &manifest("5.0.0"));
    write(&repo.join(".github/workflows/codeql.yml"), &workflow("v3.28.11"));
    write(&repo.join("index.js"), "module.exports = {};\n");
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("package.json"), &manifest("5.1.0"));
    write(&repo.join(".github/workflows/codeql.yml"), &workflow("v3.28.13"));
    commit_all(
        &env,
        &repo,
        "Release 5.1.0\n\nbuild(deps): bump github/codeql-action from 3.28.11 to 3.28.13 (#6429)\n",
    );
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_version_both_name_outweighs_a_prefix_s_words");
}
