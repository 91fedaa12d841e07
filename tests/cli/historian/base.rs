//! git-historian's base: the merge base with the default branch when
//! there is no remote, `--base` over `historian.base` over detection.

use crate::harness::historian::*;
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

#[test]
fn the_base_is_found_without_a_remote_and_can_be_named() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("w.txt"), "w\n");
    commit_all(&env, &repo, "second on main");
    write(&repo.join("x.txt"), "x\n");
    commit_all(&env, &repo, "main moves on");
    env.git(&repo, &["checkout", "-q", "-b", "topic", "main~1"]);
    write(&repo.join("y.txt"), "y\n");
    commit_all(&env, &repo, "Add y");
    // main moved on after topic forked: the base is the fork point.
    let out = env.run(&repo, &["historian", "plan"]).expect_code(0);
    let fork = env.git(&repo, &["rev-parse", "--short", "main~1"]);
    assert!(
        out.stdout
            .contains(&format!("Base: {} (merge base with main)", fork.trim())),
        "{out}"
    );
    let mut t = Transcript::new(&env);
    t.note("a local main ahead of origin/main, whose unpushed commit topic forked from, beats origin/main");
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main~2"]);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    t.note("otherwise origin/main beats a local main");
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main"]);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    env.git(&repo, &["update-ref", "refs/remotes/origin/main", "main~2"]);
    // --base beats historian.base, which beats detection.
    let out = env
        .run(&repo, &["-c", "historian.base=main~2", "historian", "plan", "--json"])
        .expect_code(0);
    assert_eq!(
        out.json()["base"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "main~2"]).trim()
    );
    let out = env
        .run(
            &repo,
            &[
                "-c",
                "historian.base=main~2",
                "historian",
                "plan",
                "--base",
                "main",
                "--json",
            ],
        )
        .expect_code(0);
    assert_eq!(
        out.json()["base"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "main~1"]).trim()
    );
    // No candidate at all: an ERROR naming what was tried, exit 1.
    env.git(&repo, &["update-ref", "-d", "refs/remotes/origin/main"]);
    env.git(&repo, &["branch", "-m", "main", "trunk"]);
    t.note("no candidate at all: an ERROR naming what was tried");
    let _ = t.run(&repo, &["historian", "clean"]).expect_code(1);
    let out = env.run(&repo, &["historian", "clean", "--json"]).expect_code(1);
    let json = out.json();
    assert_eq!(json["result"], "ERROR");
    assert_eq!(json["step"], 2);
    // A bad --base is an ERROR of step 2 naming it.
    let _ = t
        .run(&repo, &["historian", "clean", "--base", "no-such-rev"])
        .expect_code(1);
    assert_transcript!(t, "the_base_is_found_without_a_remote_and_can_be_named");
    let out = env
        .run(&repo, &["historian", "clean", "--base", "trunk"])
        .expect_code(0);
    assert_same_tree(&env, &repo, "topic", &field(&out, "Clean branch"));
}
