//! Outcomes (DESIGN §17): `outcome log` from flags and stdin, the seed's
//! namespaces in `refs/ultraplan-outcomes`, redaction, concurrent logs, and
//! bad input that writes nothing (reading them and extraction:
//! `outcomes_reading`; a run's own outcome: `outcomes_of_runs`).

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

pub(super) const REF: &str = "refs/ultraplan-outcomes";

/// `git ultraplan outcome log <args>` with `input` on stdin.
fn log_stdin(env: &TestEnv, repo: &Path, input: &[u8], args: &[&str]) -> Output {
    let mut cmd = env.command("git", repo);
    cmd.args(["ultraplan", "outcome", "log"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    // The program may stop reading early (a refused size): ignore the broken pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    let _ = writer.join();
    Output::from(out)
}

pub(super) fn files(env: &TestEnv, repo: &Path) -> Vec<String> {
    env.git(repo, &["ls-tree", "-r", "--name-only", REF])
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn log_stores_the_outcome_plan_and_training_example_in_the_seeds_namespaces() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let out = env
        .run(
            &repo,
            &[
                "ultraplan",
                "outcome",
                "log",
                "--task",
                "Build FastAPI endpoint",
                "--agent",
                "builder",
                "--success",
                "--step",
                "analyze_requirements",
                "--step",
                "generate_endpoint_code",
                "--step",
                "write_tests",
                "--time",
                "4.2",
                "--result",
                r#"{"status":"success"}"#,
            ],
        )
        .expect_code(0);
    let id = out.stdout.trim().to_owned();
    assert!(
        id.starts_with("outcome_builder_") && id.len() == "outcome_builder_".len() + 8,
        "{out}"
    );
    assert_eq!(
        files(&env, &repo),
        vec![
            format!("outcomes/builder/{id}.yaml"),
            format!("plans/builder/plan_{id}.yaml"),
            format!("training/builder/training_plan_{id}.yaml"),
        ]
    );
    let plan = env.git(&repo, &["show", &format!("{REF}:plans/builder/plan_{id}.yaml")]);
    assert!(plan.contains("reasoning_pattern: iterative_refinement"), "{plan}");
    assert!(
        plan.contains("Sequential execution: analyze_requirements → generate_endpoint_code → write_tests"),
        "{plan}"
    );
    assert!(plan.contains("confidence: 0.8"), "{plan}");
    let training = env.git(
        &repo,
        &["show", &format!("{REF}:training/builder/training_plan_{id}.yaml")],
    );
    assert!(training.contains("- se_darwin") && training.contains("task_description: Build FastAPI endpoint"));

    // A failure from stdin: stored, no plan extracted (auto-extraction is for successes).
    let input =
        br#"{"task":"Deploy","agent_name":"deploy","success":false,"error_message":"timeout","execution_time":31}"#;
    let out = log_stdin(&env, &repo, input, &["--json"]).expect_code(0);
    let json = out.json();
    assert_eq!(json["outcome"]["success"], false);
    assert!(json["plan"].is_null());
    assert_eq!(files(&env, &repo).len(), 4);
    // One commit per record, a plain chain.
    assert_eq!(env.git(&repo, &["rev-list", "--count", REF]).trim(), "2");
    env.assert_fsck(&repo);
}

#[test]
fn secrets_are_redacted_before_they_are_stored() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let secrets = [
        "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB",
        "AKIAIOSFODNN7EXAMPLE",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "hunter2hunter2",
    ];
    let input = serde_json::json!({
        "task": format!("deploy with {}", secrets[0]),
        "agent_name": "deploy",
        "success": true,
        "execution_path": [format!("export AWS_ACCESS_KEY_ID={}", secrets[1]), "push"],
        "result": {"status": "success", "log": format!("used {}", secrets[2])},
        "context": {"slack": secrets[3], "nested": [{"password": "x", "note": format!("password={}", secrets[4])}]},
        "error_message": format!("token={}", secrets[4]),
    });
    let _ = log_stdin(&env, &repo, input.to_string().as_bytes(), &[]).expect_code(0);
    let objects = env.git(&repo, &["rev-list", "--objects", REF]);
    let mut blobs = 0;
    for line in objects.lines() {
        let id = line.split_whitespace().next().unwrap();
        let text = env.git(&repo, &["cat-file", "-p", id]);
        for secret in secrets {
            assert!(!text.contains(secret), "{secret} in {id}:\n{text}");
        }
        blobs += usize::from(line.contains(".yaml"));
    }
    assert_eq!(blobs, 3);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "outcome", "list"]).expect_code(0);
    assert_transcript!(t, "secrets_are_redacted_before_they_are_stored");
}

#[test]
fn bad_input_is_refused_with_a_clear_error_and_nothing_is_written() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let refs_before = env.git(&repo, &["for-each-ref"]);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"this is not json".to_vec(), "the outcome is not JSON"),
        (b"".to_vec(), "no outcome on stdin"),
        (br#"["a"]"#.to_vec(), "must be one JSON object"),
        (
            br#"{"task":"t","agent_name":"a","success":"yes"}"#.to_vec(),
            "invalid type: string \"yes\", expected a boolean",
        ),
        (
            br#"{"task":"t","agent_name":"a","success":true,"execution_path":"x"}"#.to_vec(),
            "invalid type",
        ),
        (
            br#"{"task":"t","agent_name":"a","success":true,"execution_time":-3}"#.to_vec(),
            "invalid execution_time",
        ),
        (
            br#"{"task":"t","agent_name":"a","success":true,"colour":1}"#.to_vec(),
            "unknown field `colour`",
        ),
        (
            br#"{"task":"t","agent_name":"../x","success":true}"#.to_vec(),
            "invalid agent_name: '../x'",
        ),
        (
            br#"{"task":"t","agent_name":"a/b","success":true}"#.to_vec(),
            "invalid agent_name: 'a/b'",
        ),
        (br#"{"agent_name":"a","success":true}"#.to_vec(), "missing field `task`"),
    ];
    let mut t = Transcript::new(&env);
    for (input, message) in &cases {
        let input = std::str::from_utf8(input).unwrap();
        let out = t
            .run_with(&repo, &["ultraplan", "outcome", "log"], &[], Some(input))
            .expect_code(128);
        assert!(out.stderr.contains(message), "{message}:\n{out}");
    }
    // A 100 MB task description is refused by its size, unread.
    let mut huge = br#"{"task":""#.to_vec();
    huge.resize(100 << 20, b'x');
    huge.extend_from_slice(br#"","agent_name":"a","success":true}"#);
    let start = std::time::Instant::now();
    let out = log_stdin(&env, &repo, &huge, &[]).expect_code(128);
    assert!(out.stderr.contains("larger than 1048576 bytes"), "{out}");
    eprintln!("100 MB input refused in {:?}", start.elapsed());
    // Flags: a task over the limit, a path in the agent name, bad JSON.
    let long_task = "x".repeat(20_000);
    t.replace(long_task.as_str(), "<20000 x>");
    for (args, message) in [
        (
            vec!["--task", long_task.as_str(), "--agent", "a", "--success"],
            "invalid task: 20000 bytes",
        ),
        (
            vec!["--task", "t", "--agent", "../x", "--success"],
            "invalid agent_name",
        ),
        (
            vec!["--task", "t", "--agent", "a"],
            "--task needs --success or --failure",
        ),
        (
            vec!["--task", "t", "--agent", "a", "--success", "--result", "[1]"],
            "invalid --result",
        ),
        (
            vec!["--task", "t", "--agent", "a", "--success", "--context", "{"],
            "invalid --context: not JSON",
        ),
    ] {
        let mut all = vec!["ultraplan", "outcome", "log"];
        all.extend(args);
        let out = t.run(&repo, &all).expect_code(128);
        assert!(out.stderr.contains(message), "{message}:\n{out}");
    }
    // Unknown or malformed ids.
    let _ = t
        .run(&repo, &["ultraplan", "outcome", "show", "outcome_builder_00000000"])
        .expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "outcome", "extract", "outcome_builder_00000000"])
        .expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "outcome", "show", "outcome_../../x_00000000"])
        .expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "outcome", "list", "--agent", "a/b"])
        .expect_code(128);
    assert_transcript!(t, "bad_input_is_refused_with_a_clear_error_and_nothing_is_written");
    assert_eq!(env.git(&repo, &["for-each-ref"]), refs_before);
    assert!(env.git(&repo, &["for-each-ref", REF]).is_empty());
}

#[test]
fn concurrent_logs_lose_no_record() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let children: Vec<_> = (0..24)
        .map(|i| {
            env.command(bin_dir().join("git-ultraplan"), &repo)
                .args([
                    "outcome",
                    "log",
                    "--task",
                    &format!("task {i}"),
                    "--agent",
                    "a",
                    "--success",
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ids = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        ids.push(String::from_utf8_lossy(&out.stdout).trim().to_owned());
    }
    let stored = files(&env, &repo);
    for id in &ids {
        assert!(stored.contains(&format!("outcomes/a/{id}.yaml")), "{id} lost");
    }
    assert_eq!(stored.iter().filter(|f| f.starts_with("outcomes/")).count(), 24);
    assert_eq!(env.git(&repo, &["rev-list", "--count", REF]).trim(), "24");
    env.assert_fsck(&repo);
}

#[test]
fn no_secret_of_the_redaction_corpus_survives_in_an_outcome() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let (samples, secrets) = crate::both::redaction::corpus();
    // Every sample in every field: alone as a step, a result value, a
    // context key and value; all together as the task and the error.
    let mut result = serde_json::Map::new();
    let mut context = serde_json::Map::new();
    for (i, sample) in samples.iter().enumerate() {
        result.insert(format!("s{i}"), sample.clone().into());
        context.insert(sample.clone(), serde_json::json!({ "nested": [sample] }));
    }
    let all = samples.join("\n");
    let input = serde_json::json!({
        "task": all,
        "agent_name": "corpus",
        "success": true,
        "execution_path": samples,
        "result": result,
        "context": context,
        "error_message": all,
    });
    let out = log_stdin(&env, &repo, input.to_string().as_bytes(), &[]).expect_code(0);
    let objects = env.git(&repo, &["rev-list", "--objects", REF]);
    let mut blobs = 0;
    for line in objects.lines() {
        let id = line.split_whitespace().next().unwrap();
        let text = env.git(&repo, &["cat-file", "-p", id]);
        for secret in &secrets {
            assert!(!text.contains(secret.as_str()), "{secret} in {line}:\n{text}");
        }
        blobs += usize::from(line.ends_with(".yaml"));
    }
    assert_eq!(blobs, 3, "{out}");
    let shown = env
        .run(&repo, &["ultraplan", "outcome", "show", out.stdout.trim()])
        .expect_code(0);
    assert!(shown.stdout.contains("[REDACTED:"), "{shown}");
}
