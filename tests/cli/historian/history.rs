//! git-historian reads the history behind the base (change coupling, the
//! line history) as far as the repository has it.

use crate::harness::historian::{commit_all, record_clean};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// A shallow clone (as CI makes them) has history only down to its
/// boundary: the history is read that far, not past it into commits the
/// clone lacks.
#[test]
fn a_shallow_clone_is_read_down_to_its_boundary() {
    let env = TestEnv::new();
    let origin = env.repo("origin");
    for i in 0..6 {
        write(
            &origin.join("src/args.c"),
            &format!("int args(void) {{ return {i}; }}\n"),
        );
        write(&origin.join("src/cmd.c"), &format!("int cmd(void) {{ return {i}; }}\n"));
        commit_all(&env, &origin, &format!("Change args and cmd, round {i}"));
    }
    let url = format!("file://{}", origin.display());
    env.git(env.root(), &["clone", "-q", "--depth", "3", &url, "shallow"]);
    let repo = env.root().join("shallow");
    assert_eq!(env.git(&repo, &["rev-parse", "--is-shallow-repository"]), "true\n");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("src/args.c"), "int args(void) { return 7; }\n");
    write(&repo.join("src/cmd.c"), "int cmd(void) { return 7; }\n");
    write(&repo.join("README"), "how to build\n");
    commit_all(&env, &repo, "Touch args, cmd and the readme");
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["historian", "plan", "--base", "origin/HEAD"])
        .expect_code(0);
    record_clean(&mut t, &repo, "feature", &[]);
    assert_transcript!(t, "a_shallow_clone_is_read_down_to_its_boundary");
}
