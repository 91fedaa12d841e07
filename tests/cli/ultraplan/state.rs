//! What a run leaves in git: no secrets anywhere, readable state and notes,
//! the stats line, and the status/log/show views of it.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

const GITHUB_TOKEN: &str = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB";
const AWS_KEY: &str = "AKIAIOSFODNN7EXAMPLE";

#[test]
fn secrets_never_reach_git() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let script = format!("echo 'password=hunter2'\necho 'token {GITHUB_TOKEN}'\necho ok > a.txt");
    let verify = format!("echo {AWS_KEY} && test -f a.txt");
    let body = plan(&[StepSpec::new(1, "`a.txt`", &script, &verify)]).replace(
        "# Test plan",
        "# Deploy with sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    );
    write(&repo.join("plan.md"), &body);
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    // Every blob reachable from the run state and the notes.
    let objects = env.git(
        &repo,
        &[
            "rev-list",
            "--objects",
            "refs/ultraplan/plan/run",
            "refs/notes/ultraplan",
        ],
    );
    let mut seen = 0;
    for line in objects.lines() {
        let id = line.split_whitespace().next().unwrap();
        if env.git(&repo, &["cat-file", "-t", id]).trim() == "blob" {
            let text = env.git(&repo, &["cat-file", "-p", id]);
            for secret in ["hunter2", GITHUB_TOKEN, AWS_KEY, "sk-ant-api03-AbCdEf"] {
                assert!(!text.contains(secret), "{secret} in blob {id}:\n{text}");
            }
            seen += 1;
        }
    }
    assert!(seen > 5, "looked at {seen} blobs");
    let mut t = Transcript::new(&env);
    for object in ["steps/0/0/0/1/attempt-1.log", "plan.md"] {
        let object = format!("refs/ultraplan/plan/run:{object}");
        let _ = t.run(&repo, &["show", &object]).expect_code(0);
    }
    assert_transcript!(t, "secrets_never_reach_git");
}

#[test]
fn the_stats_line_is_appended() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(
        &repo.join("plan.md"),
        &plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "true")]),
    );
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let _ = env
        .run(&repo, &["ultraplan", "run", "--step", "1", "plan.md"])
        .expect_code(0);
    let stats = read(&env.root().join("home/.local/share/git-ultraplan/stats.jsonl"));
    let lines: Vec<serde_json::Value> = stats.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["plan"], "plan.md");
    assert_eq!(lines[0]["result"], "completed");
    assert_eq!(lines[0]["mode"], "execute");
    assert_eq!(lines[1]["mode"], "step 1");
    assert_eq!(lines[0]["steps_passed"], 1);
}

#[test]
fn status_log_and_show_read_the_state() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let counter = env.root().join("n");
    let script = format!(
        "n=$(cat {c} 2>/dev/null || echo 0); echo $((n+1)) > {c}; echo x > a.txt",
        c = counter.display()
    );
    let verify = format!("test $(cat {}) -ge 2", counter.display());
    write(
        &repo.join("plan.md"),
        &plan(&[
            StepSpec::new(1, "`a.txt`", &script, &verify).policy("retry"),
            StepSpec::new(2, "`b.txt`", "echo b > b.txt", "false").policy("escalate"),
        ]),
    );
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(3);

    let status = env
        .run(&repo, &["ultraplan", "status", "--json", "plan.md"])
        .expect_code(0)
        .json();
    let progress = &status["plans"][0]["states"][0]["progress"];
    assert_eq!(status["plans"][0]["states"][0]["ref"], "refs/ultraplan/plan/run");
    assert_eq!(progress["status"], "stopped");
    assert_eq!(progress["steps"]["2"]["status"], "escalated");
    assert_eq!(status["plans"][0]["locks"], serde_json::json!([]));
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "status"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "log"]).expect_code(0);

    let log = env.run(&repo, &["ultraplan", "log", "--json"]).expect_code(0).json();
    let attempts = &log["runs"][0]["attempts"];
    assert_eq!(attempts.as_array().unwrap().len(), 3, "{log}");
    assert_eq!(attempts[0]["status"], "failure");
    assert_eq!(attempts[1]["status"], "success");
    assert_eq!(
        attempts[1]["commit"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "HEAD"]).trim()
    );
    assert_eq!(attempts[2]["step"], 2);

    let _ = t
        .run(&repo, &["ultraplan", "show", "plan.md", "--step", "1"])
        .expect_code(0);
    let first = env
        .run(
            &repo,
            &[
                "ultraplan",
                "show",
                "plan.md",
                "--step",
                "1",
                "--attempt",
                "1",
                "--json",
            ],
        )
        .expect_code(0)
        .json();
    assert_eq!(first["result"]["status"], "failure");
    let by_commit = env.run(&repo, &["ultraplan", "show", "HEAD"]).expect_code(0);
    assert_eq!(
        by_commit.stdout,
        env.git(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
    );
    let _ = t.run(&repo, &["ultraplan", "show", "HEAD~1"]).expect_code(128);
    let _ = t.run(&repo, &["ultraplan", "show", "plan.md"]).expect_code(128);
    let _ = t
        .run(&repo, &["ultraplan", "show", "nothing.md", "--step", "1"])
        .expect_code(128);
    assert_transcript!(t, "status_log_and_show_read_the_state");

    // Running a step again continues its attempt numbers; every attempt stays in the log.
    let _ = env
        .run(&repo, &["ultraplan", "run", "--step", "1", "plan.md"])
        .expect_code(0);
    let log = env
        .run(&repo, &["ultraplan", "log", "--json", "plan.md"])
        .expect_code(0)
        .json();
    let attempts = log["runs"][0]["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 4, "{log}");
    assert_eq!(
        (attempts[3]["step"].as_u64(), attempts[3]["attempt"].as_u64()),
        (Some(1), Some(3))
    );
    assert_eq!(
        attempts[1]["commit"].as_str(),
        Some(env.git(&repo, &["rev-parse", "HEAD"]).trim()),
        "{log}"
    );
    assert_eq!(
        attempts[3]["commit"],
        serde_json::Value::Null,
        "nothing changed the second time: {log}"
    );
    // A fresh run starts a new run in the same chain.
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(3);
    let log = env
        .run(&repo, &["ultraplan", "log", "--json", "plan.md"])
        .expect_code(0)
        .json();
    assert_eq!(log["runs"].as_array().unwrap().len(), 2, "{log}");
}

#[test]
fn status_outside_any_state_and_outside_a_repository() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let out = env.run(&repo, &["ultraplan", "status"]).expect_code(0);
    assert_eq!(out.stdout, "no plan has run in this repository\n");
    let plain = env.root().join("plain");
    std::fs::create_dir(&plain).unwrap();
    let out = env.run(&plain, &["ultraplan", "status"]).expect_code(128);
    assert_eq!(
        out.stderr,
        "fatal: not a git repository (or any of the parent directories): .git\n"
    );
}

#[test]
fn a_plan_sharing_a_name_is_not_shown_anothers_state() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let body = plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "true")]);
    write(&repo.join("plan.md"), &body);
    write(&repo.join("other/plan.md"), &body);
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "status", "other/plan.md"]).expect_code(0);
    let out = env
        .run(&repo, &["ultraplan", "log", "--json", "other/plan.md"])
        .expect_code(0);
    assert_eq!(out.json()["runs"], serde_json::json!([]));
    let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    // Plans named in other scripts get states of their own.
    for name in ["计划.md", "план.md"] {
        write(
            &repo.join(name),
            &body
                .replace("echo a > a.txt", &format!("echo a > {name}.out"))
                .replace("`a.txt`", &format!("`{name}.out`")),
        );
        let _ = env.run(&repo, &["ultraplan", "run", name]).expect_code(0);
    }
    let refs = env.git(&repo, &["for-each-ref", "--format=%(refname)", "refs/ultraplan/"]);
    assert_eq!(
        refs,
        "refs/ultraplan/plan/run\nrefs/ultraplan/план/run\nrefs/ultraplan/计划/run\n"
    );
    // From a subdirectory, the same plan is still itself.
    t.note("from a subdirectory, the same plan is still itself");
    let _ = t
        .run(&repo.join("other"), &["ultraplan", "status", "../plan.md"])
        .expect_code(0);
    assert_transcript!(t, "a_plan_sharing_a_name_is_not_shown_anothers_state");
}

/// A run ends as `git commit` does, with `git maintenance run --auto`: git
/// packs what the run wrote once its own limits say so (here: more packs
/// than `gc.autoPackLimit`), and `gc.auto=0` keeps it from doing anything.
/// Either way the state, the notes and the history read back whole.
#[test]
fn a_run_asks_git_to_pack_what_it_wrote_as_git_commit_does() {
    let env = TestEnv::new();
    let mut t = Transcript::new(&env);
    for (name, auto) in [("on", "6700"), ("off", "0")] {
        let repo = env.repo(name);
        for (key, value) in [
            ("gc.auto", auto),
            ("gc.autoPackLimit", "1"),
            ("gc.autoDetach", "false"),
            ("maintenance.autoDetach", "false"),
        ] {
            env.git(&repo, &["config", key, value]);
        }
        // Two packs, one more than the limit allows.
        for file in ["plan.md", "README"] {
            let body = plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")]);
            write(&repo.join(file), &body);
            env.git(&repo, &["add", file]);
            env.git(&repo, &["commit", "-q", "-m", file]);
            env.git(&repo, &["repack", "-q"]);
        }
        t.note(&format!("gc.auto={auto}"));
        let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(0);
        let counts = env.git(&repo, &["count-objects", "-v"]);
        let count = |key: &str| {
            counts
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|n| n.trim().parse::<u32>().unwrap())
                .unwrap()
        };
        // Packed (no loose object left), or left as the run wrote it.
        assert_eq!(count("count:") == 0, auto != "0", "gc.auto={auto}: {counts}");
        env.assert_fsck(&repo);
        let _ = t.run(&repo, &["ultraplan", "status", "plan.md"]).expect_code(0);
    }
    assert_transcript!(t, "a_run_asks_git_to_pack_what_it_wrote_as_git_commit_does");
}
