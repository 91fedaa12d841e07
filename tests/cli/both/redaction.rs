//! No secret reaches git: every secret of the redaction corpus
//! (`tests/fixtures/redact/corpus.txt`), written through every channel a run
//! and a historian session store — executor output, its environment, its
//! command line, its result YAML, Verify output and the retry feedback made
//! of it, the lock, the commit writer's messages and QUESTION, the
//! verify-each command — is found in no object of the repository.

use std::path::Path;

use crate::harness::historian::commit_all;
use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;

/// The corpus's secret samples (markers removed) and their marked secrets.
pub(crate) fn corpus() -> (Vec<String>, Vec<String>) {
    let text = read(&repo_root().join("tests/fixtures/redact/corpus.txt"));
    let mut samples: Vec<(String, String)> = Vec::new();
    let mut secrets = Vec::new();
    for line in text.lines() {
        if let Some(kind) = line.strip_prefix("== ") {
            samples.push((kind.trim().to_owned(), String::new()));
            continue;
        }
        let Some((_, sample)) = samples.last_mut() else {
            continue;
        };
        if !sample.is_empty() {
            sample.push('\n');
        }
        let mut rest = line;
        while let Some(open) = rest.find('«') {
            let close = open + rest[open..].find('»').unwrap();
            let secret = &rest[open + '«'.len_utf8()..close];
            sample.push_str(&rest[..open]);
            sample.push_str(secret);
            secrets.push(secret.to_owned());
            rest = &rest[close + '»'.len_utf8()..];
        }
        sample.push_str(rest);
    }
    let samples = samples
        .into_iter()
        .filter(|(kind, _)| kind != "keep")
        .map(|(_, s)| s)
        .collect();
    (samples, secrets)
}

/// `text` as one single-quoted shell word.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `text` indented as a YAML block scalar's lines.
fn indented(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}

/// Every object reachable from the run state, the notes and the historian
/// sessions, as `git cat-file --batch` prints them.
fn stored_objects(env: &TestEnv, repo: &Path) -> String {
    let refs = env.git(
        repo,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/ultraplan/",
            "refs/notes/ultraplan",
            "refs/historian/",
        ],
    );
    let refs: Vec<&str> = refs.lines().collect();
    assert!(!refs.is_empty(), "nothing stored");
    let mut args = vec!["rev-list", "--objects"];
    args.extend(refs.iter().copied());
    let listed = env.git(repo, &args);
    let ids: String = listed
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(|id| format!("{id}\n"))
        .collect();
    let mut cmd = env.command("git", repo);
    cmd.args(["cat-file", "--batch"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(ids.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every object in the repository, reachable or not (`--batch-all-objects`).
fn all_objects(env: &TestEnv, repo: &Path) -> String {
    env.git(repo, &["cat-file", "--batch-all-objects", "--batch"])
}

fn survivors<'a>(haystack: &str, secrets: &'a [String]) -> Vec<&'a str> {
    secrets
        .iter()
        .filter(|s| haystack.contains(s.as_str()))
        .map(String::as_str)
        .collect()
}

#[test]
fn no_secret_of_the_corpus_survives_in_any_stored_object() {
    let mut env = TestEnv::new();
    let (samples, secrets) = corpus();
    let all = samples.join("\n");
    let corpus_file = env.root().join("corpus.txt");
    write(&corpus_file, &(all.clone() + "\n"));
    // Environment dumps: each sample as a variable, as an executor sees them.
    for (i, sample) in samples.iter().enumerate() {
        env.set(&format!("DEPLOY_SECRET_{i}"), sample.clone());
    }
    env.set("CORPUS", corpus_file.display().to_string());
    let lock_copy = env.root().join("lock-as-stored");
    env.set("LOCK_COPY", lock_copy.display().to_string());

    // Step output, environment, command line and the result YAML's fields.
    let agent = env.root().join("agent.sh");
    let one_line: Vec<&String> = samples.iter().filter(|s| !s.contains('\n')).collect();
    let yaml_line =
        serde_json::to_string(&one_line.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" | ")).unwrap();
    write(
        &agent,
        &format!(
            "#!/bin/sh\ncat \"$CORPUS\"\nenv\nprintf '%s\\n' \"$@\"\n\
             git cat-file -p refs/ultraplan/plan/lock > \"$LOCK_COPY\"\necho done > a.txt\n\
             cat > \"$ULTRAPLAN_RESULT_FILE\" <<'EOF'\nstatus: success\ntask_name: \"Task 1: Step 1\"\nfiles_modified: [a.txt]\n\
             verification:\n  command: {yaml_line}\n  exit_code: 0\n  output_summary: {yaml_line}\ndone_criteria_met: true\n\
             evidence: |\n{evidence}error: {yaml_line}\nmetadata:\n  executor_id: {yaml_line}\n  notes: |\n{notes}\
             extra_field: {yaml_line}\nEOF\n",
            evidence = indented(&all, "  "),
            notes = indented(&all, "    "),
        ),
    );
    let args: Vec<String> = samples.iter().map(|s| quoted(s)).collect();
    let executor = format!("sh {} {}", agent.display(), args.join(" "));
    // Verify output, failing once so its output comes back as feedback.
    let verify = env.root().join("verify.sh");
    let tried = env.root().join("tried");
    write(
        &verify,
        &format!(
            "cat \"$CORPUS\"\nenv\nif [ ! -f {t} ]; then touch {t}; exit 1; fi\ntest -f a.txt\n",
            t = tried.display()
        ),
    );
    let repo = env.repo("repo");
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(1, "`a.txt`", "echo unused > a.txt", &format!("sh {}", verify.display()))
                .policy("retry — look again"),
        ]),
    );
    let out = env.run(&repo, &["ultraplan", "run", "--executor", &executor, "plan.md"]);
    let out = out.expect_code(0);
    assert!(read(&lock_copy).contains("command:"), "{out}");
    let attempts = env.git(
        &repo,
        &["ls-tree", "--name-only", "refs/ultraplan/plan/run:steps/0/0/0/1"],
    );
    assert!(attempts.contains("attempt-2.feedback"), "{attempts}");

    // The commit writer: a message for commit 1, a QUESTION for commit 2,
    // and a verify-each command, all full of secrets.
    let writer = env.root().join("writer.sh");
    let question: String = samples.iter().map(|s| format!("{s}\n")).collect();
    write(
        &writer,
        &format!(
            "#!/bin/sh\ncat > /dev/null\nif [ \"$HISTORIAN_COMMIT\" = 1 ]; then\n  echo 'RESULT: SUCCESS'\n  echo 'Message: feat: the manifest'\n  \
             sed 's/^/  /' \"$CORPUS\"\n  exit 0\nfi\ncat <<'EOF'\nRESULT: QUESTION\nContext: {first}\nResume State:\n  - Commit: 2\n  - Token: {first}\n\n\
             {question}\nOption 1: {first}\nOption 2: Detailed\n\nWhat approach should I take?\nEOF\n",
            first = one_line[0],
        ),
    );
    let hist = env.repo("hist");
    env.git(&hist, &["checkout", "-q", "-b", "feature"]);
    write(&hist.join("Cargo.toml"), "[package]\nname = \"demo\"\n");
    commit_all(&env, &hist, "Add the manifest");
    write(&hist.join("src/lib.rs"), "pub fn answer() -> u32 {\n    42\n}\n");
    commit_all(&env, &hist, "Add the answer");
    let writer_cfg = format!("historian.commitWriter=sh {}", writer.display());
    let verify_each = format!("true {}", args.join(" "));
    let out = env
        .run(
            &hist,
            &["-c", &writer_cfg, "historian", "clean", "--verify-each", &verify_each],
        )
        .expect_code(3);
    assert!(out.stdout.contains("RESULT: QUESTION"), "{out}");

    // Each channel did carry the corpus, and carries it redacted.
    let show = |repo: &Path, what: &str| env.git(repo, &["show", what]);
    for (channel, text) in [
        (
            "step output and environment",
            show(&repo, "refs/ultraplan/plan/run:steps/0/0/0/1/attempt-2.log"),
        ),
        (
            "verify output",
            show(&repo, "refs/ultraplan/plan/run:steps/0/0/0/1/attempt-1.log")
                .split("--- verify:")
                .nth(1)
                .unwrap_or_default()
                .to_owned(),
        ),
        ("executor command line", show(&repo, "refs/ultraplan/plan/run:run.json")),
        (
            "result YAML",
            show(&repo, "refs/ultraplan/plan/run:steps/0/0/0/1/attempt-2.yaml"),
        ),
        ("note", env.git(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])),
        ("lock", read(&lock_copy)),
        (
            "writer question and verify-each",
            show(&hist, "refs/historian/feature:session.json"),
        ),
        ("question", show(&hist, "refs/historian/feature:question.txt")),
        (
            "writer message",
            env.git(&hist, &["log", "--format=%B", "refs/historian/feature"]),
        ),
    ] {
        assert!(text.contains("[REDACTED:stripe-key]"), "{channel}:\n{text}");
    }

    let mut failures = Vec::new();
    for (name, repo) in [("ultraplan", &repo), ("historian", &hist)] {
        let stored = stored_objects(&env, repo);
        for s in survivors(&stored, &secrets) {
            failures.push(format!("{name}: reachable from the state: {s}"));
        }
        let everything = all_objects(&env, repo);
        for s in survivors(&everything, &secrets) {
            failures.push(format!("{name}: in the object database: {s}"));
        }
    }
    for s in survivors(&read(&lock_copy), &secrets) {
        failures.push(format!("the lock blob: {s}"));
    }
    assert!(
        failures.is_empty(),
        "{} of {} secrets stored:\n{}",
        failures.len(),
        secrets.len(),
        failures.join("\n")
    );
}

#[test]
fn a_verify_each_command_stored_redacted_is_not_run_on_resume() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    for n in 1..=3 {
        // One helper called by all three: one commit, over the limit of two.
        write(
            &repo.join(format!("src/f{n}.rs")),
            &format!("pub fn f{n}() {{\n    setup();\n}}\n"),
        );
    }
    commit_all(&env, &repo, "Add three functions");
    let verify_each = "make test STRIPE_KEY=sk_live_u8jzPde0IgxLd6GncfBAepfJ";
    let _ = env
        .run(
            &repo,
            &["historian", "clean", "--max-files", "2", "--verify-each", verify_each],
        )
        .expect_code(3);
    let session = env.git(&repo, &["show", "refs/historian/feature:session.json"]);
    assert!(!session.contains("sk_live_u8jz"), "{session}");
    assert!(session.contains("STRIPE_KEY=[REDACTED:"), "{session}");
    let out = env
        .run(&repo, &["historian", "resume", "--answer", "1"])
        .expect_code(128);
    assert!(
        out.stderr
            .contains("the recorded --verify-each command 'make test STRIPE_KEY=[REDACTED:"),
        "{out}"
    );
    assert!(out.stderr.contains("git historian abort"), "{out}");
}

#[test]
fn a_failed_steps_own_commits_are_kept_redacted() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let key = "sk_live_u8jzPde0IgxLd6GncfBAepfJ";
    let script = format!(
        "echo 'STRIPE_SECRET={key}' > a.txt\ngit add a.txt\ngit commit -q -m 'add the key {key}'\n\
         echo 'DB_PASSWORD=p&ss word' > b.txt\ngit add b.txt\ngit commit -q -m 'and the password'"
    );
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`, `b.txt`", &script, "false")]),
    );
    let before = env.git(&repo, &["rev-parse", "HEAD"]);
    let out = env
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "plan.md"])
        .expect_code(1);
    assert!(out.stderr.contains("undid what the step did to git"), "{out}");
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), before, "{out}");
    let stored = stored_objects(&env, &repo);
    for secret in [key, "p&ss word"] {
        assert!(!stored.contains(secret), "{secret} is reachable from the state");
    }
    // What the step committed is still there to see, redacted.
    let kept = env.git(&repo, &["log", "--format=%s", "refs/ultraplan/plan/run"]);
    assert!(kept.contains("add the key [REDACTED:stripe-key]"), "{kept}");
    assert!(kept.contains("and the password"), "{kept}");
    let copy = env.git(
        &repo,
        &[
            "log",
            "-n1",
            "--format=%H",
            "--grep=^and the password$",
            "refs/ultraplan/plan/run",
        ],
    );
    let file = env.git(&repo, &["show", &format!("{}:b.txt", copy.trim())]);
    assert_eq!(file, "DB_PASSWORD=[REDACTED:password]\n");
}
