//! The agent executors against stand-ins that print what each agent prints
//! (`agent_stubs`): a three-step plan with cost and tokens in the notes, an
//! error with exit 0, a turn limit, a hang, a retry that continues the
//! agent's session, a secret the agent prints, the `agents` listing and the
//! refusals.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::harness::agent_stubs::{self, AGENTS};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// Steps in prose, as a plan for an agent reads: write `done` into a file.
pub(super) fn agent_plan(steps: u32, policy: &str) -> String {
    let mut p = String::from("# Agent plan\n\n## Implementation Plan\n\n");
    for n in 1..=steps {
        p.push_str(&format!(
            "### Step {n}: Write step{n}\n\n- **Files:** `step{n}.txt`\n- **Changes:** write the word done into step{n}.txt\n\
             - **Verify:** `grep -qx done step{n}.txt`\n- **On failure:** {policy}\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        ));
    }
    p
}

pub(super) fn repo_with(env: &TestEnv, name: &str, plan: &str) -> PathBuf {
    let repo = env.repo(name);
    write(&repo.join("plan.md"), plan);
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    repo
}

/// The note on `rev`, as YAML.
fn note(env: &TestEnv, repo: &Path, rev: &str) -> serde_yaml::Value {
    serde_yaml::from_str(&env.git(repo, &["notes", "--ref=ultraplan", "show", rev])).unwrap()
}

#[test]
fn every_agent_completes_a_three_step_plan_with_what_it_reports_in_the_notes() {
    let snapshots = [
        ("claude", "three_steps_claude"),
        ("codex", "three_steps_codex"),
        ("gemini", "three_steps_gemini"),
        ("opencode", "three_steps_opencode"),
        ("cursor", "three_steps_cursor"),
        ("aider", "three_steps_aider"),
        ("goose", "three_steps_goose"),
        ("qwen", "three_steps_qwen"),
        ("amp", "three_steps_amp"),
    ];
    assert_eq!(snapshots.map(|(a, _)| a), AGENTS);
    // goose and aider sessions are named by the run: unique each time.
    let named = regex::Regex::new(r"ultraplan-plan-step-(\d+)-[0-9a-f]+").unwrap();
    for (agent, snapshot) in snapshots {
        let mut env = TestEnv::new();
        let bin = agent_stubs::install(&mut env, agent);
        let repo = repo_with(&env, "repo", &agent_plan(3, "retry"));
        let mut t = Transcript::new(&env);
        let _ = t
            .run(&repo, &["ultraplan", "run", "--executor", agent, "--yes", "plan.md"])
            .expect_code(0);
        let _ = t
            .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
            .expect_code(0);
        t.note("what the stub was called with, first step");
        t.file(&bin.join(format!("{agent}.args.1")));
        let text = named
            .replace_all(&t.finish(), "ultraplan-plan-step-$1-<ID>")
            .into_owned();
        crate::harness::transcript::check(module_path!(), snapshot, &text);
        assert_eq!(agent_stubs::calls(&bin, agent), 3, "{agent}: one call a step");
        for (n, rev) in [(1, "HEAD~2"), (2, "HEAD~1"), (3, "HEAD")] {
            assert_eq!(env.git(&repo, &["show", &format!("{rev}:step{n}.txt")]), "done\n");
            let meta = &note(&env, &repo, rev)["result"]["metadata"];
            assert_eq!(meta["executor_id"].as_str(), Some(agent), "{agent} step {n}");
        }
        let meta = note(&env, &repo, "HEAD")["result"]["metadata"].clone();
        // What each agent reports, and nothing it does not.
        let reports_cost = ["claude", "opencode", "aider"].contains(&agent);
        assert_eq!(meta["cost_usd"].is_number(), reports_cost, "{agent}: {meta:?}");
        let reports_tokens = !["cursor", "amp"].contains(&agent);
        assert_eq!(meta["tokens"].is_mapping(), reports_tokens, "{agent}: {meta:?}");
        assert!(
            meta["session_id"].is_string(),
            "{agent}: the session to resume is recorded"
        );
    }
}

#[test]
fn an_error_reported_with_exit_0_fails_the_attempt_in_the_agents_words() {
    let mut env = TestEnv::new();
    let mut repos = Vec::new();
    for agent in AGENTS {
        agent_stubs::install(&mut env, agent);
        repos.push((agent, repo_with(&env, agent, &agent_plan(1, "retry"))));
    }
    let mut t2 = Transcript::new(&env);
    for (agent, repo) in &repos {
        let _ = t2
            .run_with(
                repo,
                &[
                    "ultraplan",
                    "run",
                    "--executor",
                    agent,
                    "--yes",
                    "--max-attempts",
                    "1",
                    "plan.md",
                ],
                &[("STUB_MODE", "error")],
                None,
            )
            .expect_code(1);
        let record = env.git(repo, &["rev-parse", "HEAD"]);
        assert_eq!(env.subjects(repo)[0], "plan", "{agent}: nothing committed ({record})");
    }
    crate::harness::transcript::check(module_path!(), "errors_with_exit_0", &t2.finish());
}

#[test]
fn a_turn_limit_the_agent_reports_is_named() {
    let mut env = TestEnv::new();
    let limited = ["claude", "gemini", "goose", "qwen"];
    let mut repos = Vec::new();
    for agent in limited {
        agent_stubs::install(&mut env, agent);
        repos.push((agent, repo_with(&env, agent, &agent_plan(1, "retry"))));
    }
    let mut t = Transcript::new(&env);
    for (agent, repo) in &repos {
        let _ = t
            .run_with(
                repo,
                &[
                    "ultraplan",
                    "run",
                    "--executor",
                    agent,
                    "--yes",
                    "--max-attempts",
                    "1",
                    "plan.md",
                ],
                &[("STUB_MODE", "turns")],
                None,
            )
            .expect_code(1);
    }
    crate::harness::transcript::check(module_path!(), "turn_limits", &t.finish());
}

#[test]
fn a_hanging_agent_is_ended_with_its_whole_process_group_at_the_timeout() {
    for agent in ["codex", "gemini"] {
        let mut env = TestEnv::new();
        let bin = agent_stubs::install(&mut env, agent);
        let repo = repo_with(&env, "repo", &agent_plan(1, "retry"));
        let start = Instant::now();
        let out = env
            .command("git", &repo)
            .args([
                "-c",
                "ultraplan.executorTimeout=2s",
                "ultraplan",
                "run",
                "--executor",
                agent,
                "--yes",
                "--max-attempts",
                "1",
                "plan.md",
            ])
            .env("STUB_MODE", "hang")
            .output()
            .unwrap();
        let took = start.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(took < Duration::from_secs(2 + 5), "{agent} ended after {took:?}");
        assert!(
            stdout.contains(&format!(
                "{agent} did not finish within 2s (ultraplan.executorTimeout); its whole process group was killed"
            )),
            "{stdout}"
        );
        let pid: i32 = read(&bin.join(format!("{agent}.hang.pid"))).trim().parse().unwrap();
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists()
                || read(&PathBuf::from(format!("/proc/{pid}/stat"))).contains(") Z "),
            "{agent}'s child {pid} is still running"
        );
    }
}

#[test]
fn a_retry_continues_the_agents_session_with_the_failed_verify_as_its_prompt() {
    // (agent, what its second call must carry to continue the session)
    let cases: [(&str, &[&str]); 9] = [
        ("claude", &["--resume", "5f1c2a9e-0d4b-4c1e-9a7b-3e2f1d0c9b8a"]),
        ("codex", &["resume", "0199a213-81c0-7800-8aa1-bbab2a035a53", "-"]),
        ("gemini", &["--resume", "c3f0e9a2-5b7d-4e1a-8c6f-2d9b0a1e4f7c"]),
        ("opencode", &["--session", "ses_6a1b2c3d4e5fAbCdEfGhIjKlMn"]),
        ("cursor", &["--resume", "2d7e9f10-3a4b-4c5d-8e6f-7a8b9c0d1e2f"]),
        ("aider", &["--restore-chat-history"]),
        ("goose", &["--resume", "--name"]),
        ("qwen", &["--resume", "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"]),
        (
            "amp",
            &["threads", "continue", "T-4b3c2d1e-0f9a-4b8c-9d7e-6f5a4b3c2d1e"],
        ),
    ];
    // goose and aider sessions are named by the run: unique each time.
    let named_session = regex::Regex::new(r"ultraplan-plan-step-(\d+)-[0-9a-f]+").unwrap();
    let mut all = String::new();
    for (agent, resume) in cases {
        let mut env = TestEnv::new();
        let bin = agent_stubs::install(&mut env, agent);
        // A Verify that says what is wrong, for the retry's prompt.
        let plan = agent_plan(1, "retry").replace(
            "`grep -qx done step1.txt`",
            "`grep -qx done step1.txt || { echo \"step1.txt holds: $(cat step1.txt)\"; exit 1; }`",
        );
        let repo = repo_with(&env, "repo", &plan);
        let mut t = Transcript::new(&env);
        let _ = t
            .run_with(
                &repo,
                &["ultraplan", "-q", "run", "--executor", agent, "--yes", "plan.md"],
                &[("STUB_MODE", "retry")],
                None,
            )
            .expect_code(0);
        t.note(&format!(
            "{agent}'s second call, which continues the session, and its prompt"
        ));
        t.file(&bin.join(format!("{agent}.args.2")));
        t.file(&bin.join(format!("{agent}.prompt.2")));
        all.push_str(&named_session.replace_all(&t.finish(), "ultraplan-plan-step-$1-<ID>"));
        assert_eq!(agent_stubs::calls(&bin, agent), 2, "{agent}");
        let first: Vec<String> = agent_stubs::args(&bin, agent, 1).lines().map(String::from).collect();
        let second: Vec<String> = agent_stubs::args(&bin, agent, 2).lines().map(String::from).collect();
        assert!(
            !first.iter().any(|a| a == resume[0]),
            "{agent}: a first attempt starts a session: {first:?}"
        );
        assert!(
            second.windows(resume.len()).any(|w| w == resume),
            "{agent}: the retry continues the session with {resume:?}: {second:?}"
        );
        if agent == "goose" {
            // The session goose resumes is the one the first call named.
            let named = |args: &[String]| args[args.iter().position(|a| a == "--name").unwrap() + 1].clone();
            assert_eq!(named(&first), named(&second));
        }
        let prompt = agent_stubs::prompt(&bin, agent, 2);
        assert!(
            prompt.contains("Your previous attempt at Task 1: Write step1 did not pass")
                && prompt.contains("printed:\nstep1.txt holds: wrong")
                && !prompt.contains("Files you may create or modify"),
            "{agent}: the retry's prompt is what failed, not the step again:\n{prompt}"
        );
        let meta = &note(&env, &repo, "HEAD")["result"]["metadata"];
        assert_eq!(meta["attempt"].as_u64(), Some(2), "{agent}");
        assert_eq!(meta["resumed"].as_bool(), Some(true), "{agent}: recorded per attempt");
    }
    crate::harness::transcript::check(module_path!(), "retries_continue_the_session", &all);
}

#[test]
fn a_secret_the_agent_prints_is_redacted_everywhere_it_is_kept() {
    const TOKEN: &str = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
    let mut env = TestEnv::new();
    agent_stubs::install(&mut env, "claude");
    let repo = repo_with(&env, "repo", &agent_plan(1, "retry"));
    let say = format!("the deploy token is {TOKEN}");
    let mut t = Transcript::new(&env);
    let _ = t
        .run_with(
            &repo,
            &["ultraplan", "-q", "run", "--executor", "claude", "--yes", "plan.md"],
            &[("STUB_SAY", &say)],
            None,
        )
        .expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    assert_transcript!(t, "a_secret_the_agent_prints_is_redacted_everywhere_it_is_kept");
    // Not in the note, the transcript, nor any other object.
    let all = env.git(&repo, &["cat-file", "--batch-all-objects", "--batch"]);
    assert!(!all.contains(TOKEN), "the token reached the object database");
    assert!(!all.contains("aBcDeFgHiJkLmNoPqRsTuVwXyZ"), "a piece of it did");
}

#[test]
fn agents_lists_what_is_installed_the_credentials_by_name_and_the_billing() {
    let mut env = TestEnv::new();
    agent_stubs::install(&mut env, "claude");
    let bin = agent_stubs::install(&mut env, "codex");
    env.set("OPENAI_API_KEY", "sk-proj-not-a-real-key-0000000000000000000000");
    env.set("GEMINI_API_KEY", "AIzaSy-not-a-real-key-000000000000000000");
    let repo = env.repo("repo");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "agents"]).expect_code(0);
    let _ = t
        .run(&repo, &["ultraplan", "agents", "gemini", "--json"])
        .expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "agents", "devin"]).expect_code(129);
    t.replace(bin.display().to_string(), "<STUBS>");
    assert_transcript!(
        t,
        "agents_lists_what_is_installed_the_credentials_by_name_and_the_billing"
    );
    let all = t.finish();
    assert!(!all.contains("not-a-real-key"), "no credential value is shown");
}

#[test]
fn agent_executors_refuse_before_anything_runs() {
    let mut env = TestEnv::new();
    agent_stubs::install(&mut env, "codex");
    let repo = repo_with(&env, "repo", &agent_plan(1, "retry"));
    let mut t = Transcript::new(&env);
    t.note("an agent that is not installed");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--executor", "gemini", "plan.md"])
        .expect_code(128);
    t.note("an API key that bills per token, in a run nobody can be asked in");
    let _ = t
        .run_with(
            &repo,
            &["ultraplan", "run", "--executor", "codex", "plan.md"],
            &[("OPENAI_API_KEY", "sk-proj-not-a-real-key-0000000000000000000000")],
            None,
        )
        .expect_code(3);
    t.note("arguments that cannot be split");
    let _ = t
        .run(
            &repo,
            &[
                "-c",
                "ultraplan.codex.args=--model 'o3",
                "ultraplan",
                "run",
                "--executor",
                "codex",
                "plan.md",
            ],
        )
        .expect_code(128);
    t.note("a path that names no program");
    let _ = t
        .run(
            &repo,
            &[
                "-c",
                "ultraplan.codex.path=/nowhere/codex",
                "ultraplan",
                "run",
                "--executor",
                "codex",
                "plan.md",
            ],
        )
        .expect_code(128);
    assert_transcript!(t, "agent_executors_refuse_before_anything_runs");
    assert_eq!(
        env.git(&repo, &["for-each-ref", "refs/ultraplan/"]),
        "",
        "nothing written"
    );
    assert_eq!(env.subjects(&repo)[0], "plan");
}
