//! The pre-push gate through the real `git push` with the installed hook,
//! and `hook install` where git looks for hooks.

use std::path::Path;

use crate::harness::shared::{note_yaml, Shared};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

fn install(s: &Shared, repo: &Path) {
    let _ = s.env.run(repo, &["ultraplan", "hook", "install"]).expect_code(0);
}

#[test]
fn a_push_of_a_checkpoint_whose_result_failed_is_refused() {
    let s = Shared::new();
    install(&s, &s.a);
    s.run_plan(&s.a);
    let head = s.rev(&s.a, "HEAD");
    let remote_main = s.rev(&s.remote, "main");
    // The second checkpoint's result says it failed; the first is fine.
    s.env.git(
        &s.a,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-f",
            "-m",
            &note_yaml("2026-01-02T00:00:00Z", "VALID", "failure"),
            &head,
        ],
    );
    let mut t = Transcript::new(&s.env);
    t.note("the second checkpoint's result says it failed; the first is fine");
    let _ = t.run(&s.a, &["push", "origin", "main"]).expect_code(1);
    assert_eq!(s.rev(&s.remote, "main"), remote_main);

    // INVALID and unparsable notes are refused too, each named.
    s.env.git(
        &s.a,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-f",
            "-m",
            &note_yaml("2026-01-02T00:00:00Z", "INVALID", "success"),
            &head,
        ],
    );
    s.env.git(
        &s.a,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-f",
            "-m",
            "status: [broken",
            "HEAD~1",
        ],
    );
    t.note("INVALID and unparsable notes are refused too, each named");
    let _ = t.run(&s.a, &["push", "origin", "main"]).expect_code(1);
    t.note("warn lets it through, saying why; off says nothing");
    let _ = t
        .run(&s.a, &["-c", "ultraplan.prePush=warn", "push", "-q", "origin", "main"])
        .expect_code(0);
    assert_eq!(s.rev(&s.remote, "main"), head);
    s.env.git(&s.a, &["commit", "-q", "--allow-empty", "-m", "later"]);
    s.env.git(
        &s.a,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-m",
            &note_yaml("2026-01-02T00:00:00Z", "INVALID", "failure"),
            "HEAD",
        ],
    );
    let _ = t
        .run(&s.a, &["-c", "ultraplan.prePush=off", "push", "-q", "origin", "main"])
        .expect_code(0);
    let _ = t
        .run(
            &s.a,
            &[
                "-c",
                "ultraplan.prePush=sometimes",
                "push",
                "origin",
                "HEAD:refs/heads/x",
            ],
        )
        .expect_code(1);
    let _ = t.run(&s.remote, &["log", "--oneline", "main"]).expect_code(0);
    let _ = t.run(&s.remote, &["branch", "--list"]).expect_code(0);
    assert_transcript!(t, "a_push_of_a_checkpoint_whose_result_failed_is_refused");
}

#[test]
fn a_push_of_passed_checkpoints_goes_ahead_and_says_when_results_are_not_shared() {
    let s = Shared::new();
    install(&s, &s.a);
    s.run_plan(&s.a);
    let mut t = Transcript::new(&s.env);
    let _ = t.run(&s.a, &["push", "origin", "main"]).expect_code(0);
    t.note("after sync, the next push has nothing to say about them");
    let _ = t.run(&s.a, &["ultraplan", "sync"]).expect_code(0);
    s.env.git(&s.a, &["commit", "-q", "--allow-empty", "-m", "more"]);
    let _ = t.run(&s.a, &["push", "origin", "main"]).expect_code(0);
    t.note("a result with warnings is a warning");
    s.env.git(&s.a, &["commit", "-q", "--allow-empty", "-m", "warned"]);
    s.env.git(
        &s.a,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-m",
            &note_yaml("2026-01-02T00:00:00Z", "VALID_WITH_WARNINGS", "success"),
            "HEAD",
        ],
    );
    let _ = t.run(&s.a, &["push", "origin", "main"]).expect_code(0);
    let _ = t.run(&s.remote, &["log", "--oneline", "main"]).expect_code(0);
    assert_transcript!(
        t,
        "a_push_of_passed_checkpoints_goes_ahead_and_says_when_results_are_not_shared"
    );
}

#[test]
fn rebased_checkpoints_pushed_as_a_new_branch_keep_their_results() {
    let s = Shared::new();
    let _ = s.env.run(&s.a, &["ultraplan", "sync", "--setup"]).expect_code(0);
    install(&s, &s.a);
    s.env.git(&s.a, &["checkout", "-q", "-b", "feature"]);
    s.run_plan(&s.a);
    // main moves on the remote meanwhile.
    write(&s.b.join("upstream.txt"), "u\n");
    s.env.git(&s.b, &["add", "upstream.txt"]);
    s.env.git(&s.b, &["commit", "-q", "-m", "upstream work"]);
    s.env.git(&s.b, &["push", "-q", "origin", "main"]);
    s.env.git(&s.a, &["fetch", "-q"]);
    let mut t = Transcript::new(&s.env);
    t.note("main moved on the remote meanwhile; the feature's checkpoints are rebased onto it");
    let _ = t
        .run_with(
            &s.a,
            &["rebase", "-q", "-i", "origin/main"],
            &[("GIT_SEQUENCE_EDITOR", "true")],
            None,
        )
        .expect_code(0);
    let _ = t
        .run(&s.a, &["log", "--format=%h %s%n%N", "--notes=ultraplan", "-3"])
        .expect_code(0);
    assert!(s.note(&s.a, "HEAD").unwrap().contains("task_index: 2"));
    assert!(s.note(&s.a, "HEAD~1").unwrap().contains("task_index: 1"));
    t.note("the notes followed: the gate sees the rebased checkpoints' results");
    let _ = t.run(&s.a, &["push", "origin", "feature"]).expect_code(0);
    assert_eq!(s.rev(&s.remote, "feature"), s.rev(&s.a, "HEAD"));

    // A new branch with a failed checkpoint (no remote value) is refused...
    s.env.git(&s.a, &["checkout", "-q", "-b", "broken"]);
    s.env.git(&s.a, &["commit", "-q", "--allow-empty", "-m", "bad step"]);
    s.env.git(
        &s.a,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-m",
            &note_yaml("2026-01-02T00:00:00Z", "INVALID", "failure"),
            "HEAD",
        ],
    );
    t.note("a new branch with a failed checkpoint (no remote value) is refused, only for the commit it adds: pushing it as a tag, or deleting a branch, passes");
    let _ = t.run(&s.a, &["push", "origin", "broken"]).expect_code(1);
    let _ = t
        .run(&s.a, &["push", "-q", "origin", "HEAD:refs/tags/v1"])
        .expect_code(0);
    let _ = t.run(&s.a, &["push", "-q", "origin", ":feature"]).expect_code(0);
    let _ = t
        .run(
            &s.remote,
            &["for-each-ref", "--format=%(refname)", "refs/heads", "refs/tags"],
        )
        .expect_code(0);
    assert_transcript!(t, "rebased_checkpoints_pushed_as_a_new_branch_keep_their_results");
}

#[test]
fn a_branch_whose_plan_is_still_running_is_refused() {
    let s = Shared::new();
    install(&s, &s.a);
    let started = s.env.root().join("started");
    let release = s.env.root().join("release");
    let script = format!(
        "touch {}\nwhile [ ! -f {} ]; do sleep 0.05; done\necho b > b.txt",
        started.display(),
        release.display()
    );
    write(
        &s.a.join("plan.md"),
        &crate::harness::plans::plan(&[
            crate::harness::plans::StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
            crate::harness::plans::StepSpec::new(2, "`b.txt`", &script, "test -f b.txt"),
        ]),
    );
    s.env.git(&s.a, &["commit", "-q", "-am", "slow plan"]);
    let child = s.env.spawn_ultraplan(&s.a, &["run", "plan.md"]);
    let mut t = Transcript::new(&s.env);
    t.replace(format!("pid {} ", child.id()), "pid <RUNNING> ");
    wait_for(std::slice::from_ref(&started));
    t.note("while step 2 of the plan runs");
    let _ = t.run(&s.a, &["push", "origin", "main"]).expect_code(1);
    write(&release, "");
    let run = child.wait_with_output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    t.note("finished: the push goes ahead");
    let _ = t.run(&s.a, &["push", "origin", "main"]).expect_code(0);
    assert_transcript!(t, "a_branch_whose_plan_is_still_running_is_refused");
}

#[test]
fn malformed_hook_input_is_fatal_and_names_the_line() {
    let s = Shared::new();
    let head = s.rev(&s.a, "HEAD");
    let zero = "0".repeat(40);
    let mut t = Transcript::new(&s.env);
    let mut gate = |args: &[&str], input: &str| {
        let mut command = vec!["ultraplan", "hook", "pre-push"];
        command.extend_from_slice(args);
        t.run_with(&s.a, &command, &[], Some(input))
    };
    let _ = gate(
        &["origin", "url"],
        &format!("refs/heads/main {head} refs/heads/main {zero}\nrefs/heads/main {head}\n"),
    )
    .expect_code(128);
    let _ = gate(&["origin", "url"], "refs/heads/main zzz refs/heads/main zzz\n").expect_code(128);
    // A push to a URL rather than a named remote: no tracking references to consult.
    let url = s.remote.to_str().unwrap();
    let _ = gate(&[url, url], &format!("refs/heads/main {head} refs/heads/main {zero}\n")).expect_code(0);
    // Empty input (nothing pushed) and a deletion pass.
    let _ = gate(&["origin", "url"], "").expect_code(0);
    let _ = gate(&["origin", "url"], &format!("(delete) {zero} refs/heads/gone {head}\n")).expect_code(0);
    assert_transcript!(t, "malformed_hook_input_is_fatal_and_names_the_line");
}

#[test]
fn the_gate_works_in_a_shallow_clone() {
    let s = Shared::new();
    s.run_plan(&s.a);
    s.env.git(&s.a, &["push", "-q", "origin", "main"]);
    let _ = s.sync(&s.a).expect_code(0);
    let mut t = Transcript::new(&s.env);
    let url = format!("file://{}", s.remote.display());
    let _ = t
        .run(s.env.root(), &["clone", "-q", "--depth", "1", &url, "shallow"])
        .expect_code(0);
    let shallow = s.env.root().join("shallow");
    let _ = t.run(&shallow, &["ultraplan", "sync"]).expect_code(0);
    let _ = t.run(&shallow, &["ultraplan", "hook", "install"]).expect_code(0);
    s.env.git(&shallow, &["commit", "-q", "--allow-empty", "-m", "on top"]);
    let _ = t.run(&shallow, &["push", "origin", "main"]).expect_code(0);
    assert_transcript!(t, "the_gate_works_in_a_shallow_clone");
}

#[test]
fn install_honours_hooks_path_chains_a_users_hook_and_uninstall_restores_it() {
    let s = Shared::new();
    // A user's own hook, which logs and can refuse.
    let log = s.env.root().join("user-hook.log");
    let user_hook = format!("#!/bin/sh\ncat >> {}\nexit ${{USER_HOOK_EXIT:-0}}\n", log.display());
    let hooks = s.a.join(".git/hooks");
    write(&hooks.join("pre-push"), &user_hook);
    std::process::Command::new("chmod")
        .args(["+x", hooks.join("pre-push").to_str().unwrap()])
        .status()
        .unwrap();
    let out = s.env.run(&s.a, &["ultraplan", "hook", "install"]).expect_code(0);
    assert!(out.stdout.contains("your hook was kept as"), "{out}");
    assert_eq!(read(&hooks.join("pre-push.ultraplan-chained")), user_hook);
    assert!(read(&hooks.join("pre-push")).contains("git ultraplan hook pre-push"));
    // Installing again only updates ours; the user's hook is still the chained one.
    let out = s.env.run(&s.a, &["ultraplan", "hook", "install"]).expect_code(0);
    assert!(out.stdout.starts_with("updated "), "{out}");
    s.run_plan(&s.a);
    let out = s.env.run(&s.a, &["push", "origin", "main"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(
        read(&log).contains("refs/heads/main"),
        "the user's hook saw git's lines"
    );
    assert!(out.stderr.contains("not on 'origin' yet"), "the gate ran too: {out}");
    s.env.git(&s.a, &["commit", "-q", "--allow-empty", "-m", "x"]);
    let out = s
        .env
        .run_with(&s.a, &["push", "origin", "main"], &[("USER_HOOK_EXIT", "1")]);
    assert_ne!(out.code, 0, "the user's hook still refuses: {out}");
    let out = s
        .env
        .run(&s.a, &["ultraplan", "hook", "install", "--uninstall"])
        .expect_code(0);
    assert!(out.stdout.contains("restored your hook"), "{out}");
    assert_eq!(read(&hooks.join("pre-push")), user_hook);
    assert!(!hooks.join("pre-push.ultraplan-chained").exists());

    // core.hooksPath is where git looks, and so where it goes (a relative one
    // is relative to each worktree's top, as git resolves it).
    s.env.git(&s.b, &["config", "core.hooksPath", "githooks"]);
    let out = s.env.run(&s.b, &["ultraplan", "hook", "install"]).expect_code(0);
    assert_eq!(
        out.stdout,
        format!("installed {}\n", s.b.join("githooks/pre-push").display())
    );
    assert!(!s.b.join(".git/hooks/pre-push").exists());
    // A linked worktree shares the common hooks directory.
    let c = s.env.root().join("c");
    s.env.git(
        s.env.root(),
        &["clone", "-q", s.remote.to_str().unwrap(), c.to_str().unwrap()],
    );
    let wt = s.env.root().join("c-wt");
    s.env
        .git(&c, &["worktree", "add", "-q", wt.to_str().unwrap(), "-b", "side"]);
    let out = s.env.run(&wt, &["ultraplan", "hook", "install"]).expect_code(0);
    assert_eq!(
        out.stdout,
        format!("installed {}\n", c.join(".git/hooks/pre-push").display())
    );
    // A hook that is not ours is never removed.
    write(&s.b.join("githooks/pre-push"), "#!/bin/sh\nexit 0\n");
    let out = s
        .env
        .run(&s.b, &["ultraplan", "hook", "install", "--uninstall"])
        .expect_code(128);
    assert!(out.stderr.contains("is not git-ultraplan's hook; left alone"), "{out}");
}

#[test]
fn the_shipped_script_is_the_installed_one_and_pre_commit_can_find_it() {
    let shipped = read(&repo_root().join("hooks/pre-push"));
    let s = Shared::new();
    install(&s, &s.a);
    assert_eq!(read(&s.a.join(".git/hooks/pre-push")), shipped);
    let manifest = read(&repo_root().join(".pre-commit-hooks.yaml"));
    let hooks: serde_yaml::Value = serde_yaml::from_str(&manifest).unwrap();
    assert_eq!(hooks[0]["id"], "ultraplan-results");
    assert_eq!(hooks[0]["entry"], "hooks/pre-push");
    assert_eq!(hooks[0]["stages"][0], "pre-push");
    // As pre-commit runs it: no stdin, the push described in its variables.
    s.env.git(&s.a, &["commit", "-q", "--allow-empty", "-m", "bad"]);
    let head = s.rev(&s.a, "HEAD");
    s.env.git(
        &s.a,
        &[
            "notes",
            "--ref=ultraplan",
            "add",
            "-m",
            &note_yaml("2026-01-02T00:00:00Z", "INVALID", "failure"),
            "HEAD",
        ],
    );
    s.env.git(&s.a, &["commit", "-q", "--allow-empty", "-m", "after"]);
    let tip = s.rev(&s.a, "HEAD");
    let base = s.rev(&s.a, "origin/main");
    let out = capture({
        let mut cmd = s.env.command(repo_root().join("hooks/pre-push"), &s.a);
        cmd.envs([
            ("PRE_COMMIT_TO_REF", tip.as_str()),
            ("PRE_COMMIT_FROM_REF", base.as_str()),
            ("PRE_COMMIT_LOCAL_BRANCH", "refs/heads/main"),
            ("PRE_COMMIT_REMOTE_BRANCH", "refs/heads/main"),
            ("PRE_COMMIT_REMOTE_NAME", "origin"),
        ]);
        cmd
    });
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stderr.contains(&head[..7]), "{out}");
}
