//! git-historian reads a word written in two cases whole as well
//! (issue 15, item 1): a subject saying `AppVeyor` names `appveyor.yml`,
//! so the file's change stays with that subject rather than riding along
//! with the larger piece of work squashed beside it. A name of three
//! letters is a name too: `nan` ties a test of `has(nan)` to its fix.

use crate::harness::historian::{commit_all, record_clean};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

#[test]
fn a_subject_naming_a_file_in_camel_case_answers_for_it() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let manifest = |name: &str, path: &str| {
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\n\n[dependencies]\ncore = {{ path = \"{path}/core\" }}\nmatch = {{ path = \"{path}/match\" }}\n"
        )
    };
    write(&repo.join("Cargo.toml"), &manifest("searcher", "."));
    write(&repo.join("printer/Cargo.toml"), &manifest("printer", ".."));
    write(&repo.join("matcher/Cargo.toml"), &manifest("matcher", ".."));
    write(
        &repo.join("appveyor.yml"),
        "environment:\n  matrix:\n    - TARGET: x86_64-pc-windows-msvc\nbuild: false\ntest_script:\n  - cargo test\n",
    );
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("Cargo.toml"), &manifest("searcher", "crates"));
    write(&repo.join("printer/Cargo.toml"), &manifest("printer", "../crates"));
    write(&repo.join("matcher/Cargo.toml"), &manifest("matcher", "../crates"));
    write(
        &repo.join("appveyor.yml"),
        "environment:\n  matrix:\n    - TARGET: x86_64-pc-windows-msvc\nbuild: false\ntest_script:\n  - echo disabled\n",
    );
    commit_all(
        &env,
        &repo,
        "repo: point the manifests at the crates directory\n\nci: soft-disable AppVeyor\n",
    );
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_subject_naming_a_file_in_camel_case_answers_for_it");
}

/// `has(nan)` in the test file and `nan` in the fix are the only words
/// they share (with the subject too): names of three letters link.
#[test]
fn a_three_letter_name_ties_a_test_to_its_fix() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let builtin = "#include \"jv.h\"\n\nstatic jv f_has(jv obj, jv key) {\n  if (jv_get_kind(obj) == JV_KIND_ARRAY) {\n    return jv_array_has(obj, key);\n  }\n  return jv_object_has(obj, key);\n}\n";
    let main = "#include <stdio.h>\n\nstatic void usage(void) {\n  fprintf(stderr, \"Usage: jq [options] <filter>\\n\");\n}\n\nint main(int argc, char **argv) {\n  if (argc < 2) {\n    usage();\n    return 2;\n  }\n  return 0;\n}\n";
    let tests = "# Tests for builtins\n\n[1,2] | has(0)\ntrue\n\n{\"a\":1} | has(\"a\")\ntrue\n";
    write(&repo.join("src/builtin.c"), builtin);
    write(&repo.join("src/main.c"), main);
    write(&repo.join("tests/jq.test"), tests);
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("src/builtin.c"),
        &builtin.replace(
            "    return jv_array_has(obj, key);",
            "    double nan = jv_number_value(key);\n    if (nan != nan)\n      return jv_false();\n    return jv_array_has(obj, key);",
        ),
    );
    write(
        &repo.join("src/main.c"),
        &main.replace(
            "  if (argc < 2) {",
            "  if (argc > 1 && argv[1][0] == 'V') {\n    printf(\"jq-1.7\\n\");\n    return 0;\n  }\n  if (argc < 2) {",
        ),
    );
    write(
        &repo.join("tests/jq.test"),
        &format!("{tests}\n[1,2] | has(nan)\nfalse\n\n[] | has(nan)\nfalse\n"),
    );
    commit_all(
        &env,
        &repo,
        "Fix has(nan) on arrays to output false\n\nPrint the version on -V\n",
    );
    let mut t = Transcript::new(&env);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_three_letter_name_ties_a_test_to_its_fix");
}
