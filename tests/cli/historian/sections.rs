//! git-historian reads the section a hunk falls in (issue 15, item 1): a
//! lock file's hunk changing `version` and `checksum` lines belongs to the
//! package named above it, a README's hunk to the heading above it, and so
//! to the subject naming that package or that heading.

use crate::harness::historian::{commit_all, record_clean, show_patches};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

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
    let mut t = Transcript::new(&env);
    let clean = record_clean(&mut t, &repo, "feature", &[]);
    show_patches(&mut t, &repo, &clean);
    assert_transcript!(t, "a_lock_files_hunks_go_with_the_package_they_change");
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
    let mut t = Transcript::new(&env);
    let clean = record_clean(&mut t, &repo, "feature", &[]);
    show_patches(&mut t, &repo, &clean);
    assert_transcript!(t, "a_documents_hunks_go_with_the_heading_they_fall_under");
}
