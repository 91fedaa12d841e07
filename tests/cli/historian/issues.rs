//! git-historian does not read issue numbers: a squash whose fix says
//! `Fixes #1173` and whose regression test is named for that issue
//! (`r1173`, a link to it) places the test by what its content shares with
//! the rest, as any other file: here it rides with the client's retry,
//! not with the fix it was written for (the issue-number reading cost
//! nothing on the evaluation's held-out half and was removed by issue 39's
//! pruning). Recorded as the planner does it, not as a reviewer would want
//! it.

use crate::harness::historian::{commit_all, record_clean, CLIENT_WITH_RETRY};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

#[test]
fn a_regression_test_named_for_an_issue_is_placed_by_its_content() {
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
    assert_transcript!(t, "a_regression_test_named_for_an_issue_is_placed_by_its_content");
}
