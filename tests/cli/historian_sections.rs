//! git-historian reads the section a hunk falls in (issue 15, item 1): a
//! lock file's hunk changing `version` and `checksum` lines belongs to the
//! package named above it, a README's hunk to the heading above it, and so
//! to the subject naming that package or that heading.

use crate::historian::{assert_clean_keeps_tree, commit_all, planned, planned_sorted};
use crate::support::*;

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n\n[dependencies]\nmemchr = \"2.4\"\nlog = \"0.4\"\nserde = \"1.0\"\nitoa = \"1.0\"\nregex = \"1.5\"\n";

/// A `Cargo.lock` of the packages, each at its version and checksum.
fn lock(memchr: (&str, char), regex: (&str, char)) -> String {
    let mut out = String::from("version = 3\n");
    let packages = [
        ("demo", "0.1.0", None),
        ("itoa", "1.0.1", Some('1')),
        ("log", "0.4.14", Some('2')),
        ("memchr", memchr.0, Some(memchr.1)),
        ("ryu", "1.0.9", Some('3')),
        ("serde", "1.0.130", Some('4')),
        ("regex", regex.0, Some(regex.1)),
    ];
    for (name, version, sum) in packages {
        out.push_str(&format!("\n[[package]]\nname = \"{name}\"\nversion = \"{version}\"\n"));
        if let Some(c) = sum {
            out.push_str("source = \"registry+https://github.com/rust-lang/crates.io-index\"\n");
            out.push_str(&format!("checksum = \"{}\"\n", c.to_string().repeat(64)));
        }
    }
    out
}

#[test]
fn a_lock_files_hunks_go_with_the_package_they_change() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("Cargo.toml"), MANIFEST);
    write(&repo.join("Cargo.lock"), &lock(("2.4.1", 'a'), ("1.5.4", 'b')));
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("Cargo.toml"),
        &MANIFEST
            .replace("memchr = \"2.4\"", "memchr = \"2.5\"")
            .replace("regex = \"1.5\"", "regex = \"1.6\""),
    );
    write(&repo.join("Cargo.lock"), &lock(("2.5.0", 'c'), ("1.6.0", 'd')));
    commit_all(&env, &repo, "deps: bump memchr\n\ndeps: bump regex\n");
    assert_eq!(
        planned_sorted(&env, &repo),
        [
            planned(
                "build(cargo): bump memchr",
                &["Cargo.lock#1", "Cargo.lock#2", "Cargo.toml#1"]
            ),
            planned(
                "build(cargo): bump regex",
                &["Cargo.lock#3", "Cargo.lock#4", "Cargo.toml#2"]
            ),
        ]
    );
    assert_clean_keeps_tree(&env, &repo, "feature");
}

#[test]
fn a_documents_hunks_go_with_the_heading_they_fall_under() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let readme = |configuration: &str, platforms: &str| {
        format!(
            "# demo\n\nA tool.\n\n## Configuration\n\nRead from `demo.toml`.\n{configuration}\n\
             ## Usage\n\nRun it.\n\nIt prints a report.\n\nIt exits 0.\n\n\
             ## Platforms\n\nLinux.\n{platforms}\n## License\n\nMIT.\n"
        )
    };
    write(&repo.join("README.md"), &readme("", ""));
    commit_all(&env, &repo, "base");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("README.md"),
        &readme("Keys may be set from the environment too.\n", "macOS 12 and later.\n"),
    );
    commit_all(
        &env,
        &repo,
        "docs: list the supported platforms\n\ndocs: explain the configuration file\n",
    );
    assert_eq!(
        planned_sorted(&env, &repo),
        [
            planned("docs: explain the configuration file", &["README.md#1"]),
            planned("docs: list the supported platforms", &["README.md#2"]),
        ]
    );
    assert_clean_keeps_tree(&env, &repo, "feature");
}
