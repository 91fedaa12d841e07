//! git-historian's command line: help and version now; the rewrite arrives
//! with its own issue.

use crate::support::*;

#[test]
fn help_version_and_usage() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let out = env.run(&repo, &["historian", "-h"]).expect_code(0);
    assert!(out.stdout.contains("Usage: git historian [OPTIONS]"), "{out}");
    let out = env.run(&repo, &["historian"]).expect_code(129);
    assert!(out.stderr.contains("Usage: git historian"), "{out}");
    assert!(out.stdout.is_empty(), "{out}");
    let _ = env.run(&repo, &["historian", "--bogus"]).expect_code(129);
}
