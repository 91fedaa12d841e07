//! The channels secrets still took (issue 36, items 6-8; issue 44, items 2
//! and 3): a plan a parallel run would commit or a distributed run push, a
//! session title in a merge commit, a file's name, git's own config copied
//! into the state, a commit writer's QUESTION as it wrote it — and the
//! corpus, through a whole run, on the remote after `sync` and in the export.

use std::path::Path;

use crate::both::redaction::corpus;
use crate::harness::historian::commit_all;
use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;

const LINEAR: &str = "lin_api_Q2x1ZV9mb3JfdGVzdHNfb25seV9hYmNkZWZnaGlq";

fn two_sessions(title: &str) -> String {
    let steps = [
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        StepSpec::new(2, "`b.txt`", "echo b > b.txt", "test -f b.txt"),
    ];
    let body: String = steps.iter().map(StepSpec::render).collect();
    format!(
        "# Two\n\n## Implementation Plan\n\n{body}## Execution Strategy\n\n\
         ### Session 1: {title}\n- **Steps:** 1\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `a.txt`\n\n\
         ### Session 2: B\n- **Steps:** 2\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `b.txt`\n\n"
    )
}

/// Every object of `repo`, reachable or not.
fn all_objects(env: &TestEnv, repo: &Path) -> String {
    env.git(repo, &["cat-file", "--batch-all-objects", "--batch"])
}

#[test]
fn a_plan_holding_a_secret_is_neither_committed_by_a_parallel_run_nor_pushed_by_a_distributed_one() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    let text = two_sessions(&format!("deploy with {LINEAR}"));
    let line = text.lines().position(|l| l.contains(LINEAR)).unwrap() + 1;
    write(&repo.join("plan.md"), &text);
    let out = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(128);
    assert_eq!(
        out.stderr,
        format!(
            "fatal: the plan 'plan.md' holds what looks like a linear-key on line {line}; a parallel run would commit it as it is to 'main'\n\
             hint: take the secret out of the plan (let the step read it from the environment),\n\
             hint: or commit the plan yourself if it must hold it: git add plan.md && git commit -m 'add the plan' plan.md\n"
        )
    );
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head, "nothing committed");
    assert!(!all_objects(&env, &repo).contains(LINEAR));
    assert!(env.git(&repo, &["for-each-ref", "refs/ultraplan/"]).is_empty());

    // Committed by the user, the plan runs; the session's title reaches the
    // merge commit on the user's branch redacted (44.3).
    commit_all(&env, &repo, "the plan");
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let merges = env.git(&repo, &["log", "--merges", "--format=%B"]);
    assert!(
        merges.contains("merge: ultraplan session 1 — deploy with [REDACTED:linear-key]"),
        "{merges}"
    );
    assert!(!merges.contains(LINEAR), "{merges}");

    // A distributed run would push the plan's commit: refused, nothing pushed.
    let remote = env.root().join("remote.git");
    env.git(env.root(), &["init", "-q", "--bare", remote.to_str().unwrap()]);
    env.git(&repo, &["remote", "add", "origin", remote.to_str().unwrap()]);
    let out = env
        .run(&repo, &["ultraplan", "run", "--distribute=origin", "plan.md"])
        .expect_code(128);
    assert!(
        out.stderr.contains(
            &format!("fatal: the plan 'plan.md' holds what looks like a linear-key on line {line}; --distribute would push it to 'origin' as it is")
        ),
        "{out}"
    );
    assert!(env.git(&remote, &["for-each-ref"]).is_empty());
}

#[test]
fn files_named_like_secrets_stay_out_of_the_state_and_come_back_on_a_restore() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let name = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB.txt";
    let key = "AKIAIOSFODNN7EXAMPLE";
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(
                1,
                &format!("`out/{name}`"),
                &format!("mkdir -p out && echo data > out/{name}"),
                &format!("test -f out/{name}"),
            ),
            StepSpec::new(2, "`x.txt`", &format!("rm {key}.pem\necho x > x.txt"), "false"),
        ]),
    );
    commit_all(&env, &repo, "plan");
    // The user's own untracked file, named like a key.
    write(&repo.join(format!("{key}.pem")), "mine\n");
    let out = env
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "plan.md"])
        .expect_code(1);
    assert!(
        out.stderr.contains(
            "warning: 'out/[REDACTED:github-token].txt' is named like a secret: the run state keeps it out of its snapshots"
        ),
        "{out}"
    );
    assert!(
        out.stderr
            .contains("'[REDACTED:aws-access-key].pem' is named like a secret"),
        "{out}"
    );
    // The checkpoint is the user's work, on the user's branch, named as made.
    let committed = env.git(&repo, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(committed.contains(&format!("out/{name}")), "{committed}");
    // No tree the state or the notes keep holds either name.
    let stored = env.git(
        &repo,
        &[
            "rev-list",
            "--objects",
            "refs/ultraplan/plan/run",
            "refs/notes/ultraplan",
        ],
    );
    assert!(!stored.contains("ghp_") && !stored.contains(key), "{stored}");
    // Step 2's revert put the user's file back, byte for byte.
    assert_eq!(read(&repo.join(format!("{key}.pem"))), "mine\n");
}

#[test]
fn git_config_credentials_are_redacted_in_the_state() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    for (key, value) in [
        ("sendemail.smtppass", "SmtpS3cret"),
        ("http.extraHeader", "PRIVATE-TOKEN: abcdefghijklmn"),
        ("credential.helper", "!f() { echo pass=Helper5ecret; }; f"),
        ("remote.origin.password", "RemotePw99"),
    ] {
        env.git(&repo, &["config", key, value]);
    }
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")]),
    );
    commit_all(&env, &repo, "plan");
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let config = env.git(
        &repo,
        &["show", "refs/ultraplan/plan/run:steps/0/0/0/1/own/files/config"],
    );
    for secret in ["SmtpS3cret", "abcdefghijklmn", "Helper5ecret", "RemotePw99"] {
        assert!(!config.contains(secret), "{secret} in\n{config}");
    }
    assert!(config.contains("smtppass = [REDACTED:password]"), "{config}");
    assert!(
        config.contains("extraHeader = PRIVATE-TOKEN: [REDACTED:http-header]"),
        "{config}"
    );
    assert!(config.contains("helper = \"[REDACTED:credential-helper]\""), "{config}");
    // The config itself is untouched.
    assert_eq!(env.git(&repo, &["config", "sendemail.smtppass"]), "SmtpS3cret\n");
}

#[test]
fn a_writers_question_is_stored_as_it_wrote_it_redacted() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(&repo.join("Cargo.toml"), "[package]\nname = \"demo\"\n");
    commit_all(&env, &repo, "Add the manifest");
    let writer = env.root().join("writer.sh");
    let question = "RESULT: QUESTION\nContext: cloning https://alice:s3cr3tP4ss@git.example.com/r\n\
        Resume State:\n  - https://bob:hunter22@mirror.example.com/r\n  - curl -u admin:AdminPw77 https://ci.example.com\n  - Commit: 1\n\n\
        Which remote?\n\nOption 1: the first\nOption 2: the mirror\n\nWhat approach should I take?\n";
    write(
        &writer,
        &format!("#!/bin/sh\ncat > /dev/null\ncat <<'EOF'\n{question}EOF\n"),
    );
    let cfg = format!("historian.commitWriter=sh {}", writer.display());
    let out = env.run(&repo, &["-c", &cfg, "historian", "clean"]).expect_code(3);
    let session = env.git(&repo, &["show", "refs/historian/feature:session.json"]);
    let stored = env.git(&repo, &["show", "refs/historian/feature:question.txt"]);
    for text in [&session, &stored, &out.stdout] {
        for secret in ["s3cr3tP4ss", "hunter22", "AdminPw77"] {
            assert!(!text.contains(secret), "{secret} in\n{text}");
        }
    }
    // As written, the secrets aside: no `https: //`, no `admin: pw`.
    let json: serde_json::Value = serde_json::from_str(&session).unwrap();
    let block = json["pending"]["block"].as_str().unwrap_or_else(|| panic!("{session}"));
    assert_eq!(
        block,
        question
            .replace("alice:s3cr3tP4ss", "[REDACTED:url-credentials]")
            .replace("bob:hunter22", "[REDACTED:url-credentials]")
            .replace("admin:AdminPw77", "admin:[REDACTED:password]")
    );
    assert!(
        stored.contains("      - https://[REDACTED:url-credentials]@mirror.example.com/r"),
        "{stored}"
    );
    assert!(!stored.contains("https: //"), "{stored}");
}

#[test]
fn no_secret_of_the_corpus_reaches_the_remote_after_sync_or_the_export() {
    let mut env = TestEnv::new();
    let (samples, secrets) = corpus();
    let corpus_file = env.root().join("corpus.txt");
    write(&corpus_file, &(samples.join("\n") + "\n"));
    env.set("CORPUS", corpus_file.display().to_string());
    for (i, sample) in samples.iter().enumerate() {
        env.set(&format!("DEPLOY_SECRET_{i}"), sample.clone());
    }
    let repo = env.repo("repo");
    let remote = env.root().join("remote.git");
    env.git(env.root(), &["init", "-q", "--bare", remote.to_str().unwrap()]);
    env.git(&repo, &["remote", "add", "origin", remote.to_str().unwrap()]);
    // Every sample printed by the executor and by Verify, in its environment.
    let agent = env.root().join("agent.sh");
    write(&agent, "#!/bin/sh\ncat \"$CORPUS\"\nenv\necho done > a.txt\n");
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "true", "cat \"$CORPUS\"; test -f a.txt")]),
    );
    commit_all(&env, &repo, "plan");
    env.git(&repo, &["push", "-q", "origin", "main"]);
    let executor = format!("sh {}", agent.display());
    let _ = env
        .run(&repo, &["ultraplan", "run", "--executor", &executor, "plan.md"])
        .expect_code(0);
    let log = env.git(&repo, &["show", "refs/ultraplan/plan/run:steps/0/0/0/1/attempt-1.log"]);
    assert!(
        log.contains("[REDACTED:vault-token]") && log.contains("[REDACTED:age-key]"),
        "{log}"
    );
    let _ = env.run(&repo, &["ultraplan", "sync"]).expect_code(0);
    let on_remote = all_objects(&env, &remote);
    assert!(
        on_remote.contains("[REDACTED:linear-key]"),
        "the corpus reached the remote redacted"
    );
    let export = env
        .run(&repo, &["ultraplan", "export", "--all", "--transcripts"])
        .expect_code(0)
        .stdout;
    let survivors: Vec<String> = secrets
        .iter()
        .flat_map(|s| {
            [("remote", &on_remote), ("export", &export)]
                .into_iter()
                .filter(|(_, text)| text.contains(s.as_str()))
                .map(move |(place, _)| format!("{place}: {s}"))
        })
        .collect();
    assert!(
        survivors.is_empty(),
        "{} of {} survived:\n{}",
        survivors.len(),
        secrets.len(),
        survivors.join("\n")
    );
}
