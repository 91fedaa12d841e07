//! git-historian reads a word written in two cases whole as well
//! (issue 15, item 1): a subject saying `AppVeyor` names `appveyor.yml`,
//! so the file's change stays with that subject rather than riding along
//! with the larger piece of work squashed beside it.

use crate::historian::{assert_same_tree, commit_all, field, planned, planned_sorted};
use crate::support::*;

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
    assert_eq!(
        planned_sorted(&env, &repo),
        [
            planned(
                "build: point the manifests at the crates directory",
                &["Cargo.toml", "matcher/Cargo.toml", "printer/Cargo.toml"]
            ),
            planned("ci(appveyor): soft-disable AppVeyor", &["appveyor.yml"]),
        ]
    );
    let out = env.run(&repo, &["historian", "clean"]).expect_code(0);
    assert_same_tree(&env, &repo, "feature", &field(&out, "Clean branch"));
}
