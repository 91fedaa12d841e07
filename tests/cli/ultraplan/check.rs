//! `git ultraplan check`: the fixtures and hostile plans, in real repositories,
//! through `git`. The report, the JSON, the exit status, and nothing written.

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

fn repo_with(env: &TestEnv, files: &[(&str, &str)]) -> std::path::PathBuf {
    let repo = env.repo("repo");
    for (path, contents) in files {
        let full = repo.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, contents).unwrap();
    }
    repo
}

fn copy_fixture(repo: &std::path::Path, name: &str) -> String {
    let target = repo.join(name);
    std::fs::copy(fixture(&format!("plans/{name}")), &target).unwrap();
    name.to_owned()
}

#[test]
fn multi_session_fixture_report() {
    let env = TestEnv::new();
    let repo = repo_with(&env, &[("src/config.rs", "")]);
    let plan = copy_fixture(&repo, "ultraplan-multi-session.md");
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "check", "--executor", "claude", &plan])
        .expect_code(0);
    assert_transcript!(t, "multi_session_fixture_report");
}

#[test]
fn multi_session_fixture_json() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let plan = copy_fixture(&repo, "ultraplan-multi-session.md");
    let out = env
        .run(&repo, &["ultraplan", "check", "--executor", "claude", "--json", &plan])
        .expect_code(0);
    let j = out.json();
    assert_eq!(j["file"], plan);
    assert_eq!(j["type"], "plan");
    assert_eq!(j["plan_id"], "ultraplan-multi-session");
    assert_eq!(j["title"], "Status endpoint and CLI flags");
    assert_eq!(j["plan_version"], "1.7");
    assert_eq!(j["verdict"], "READY");
    assert_eq!(j["waves"], serde_json::json!([[1, 2], [3]]));
    assert_eq!(j["problems"], serde_json::json!([]));
    let step = &j["steps"][2];
    assert_eq!(step["number"], 3);
    assert_eq!(step["title"], "Add /status handler");
    assert_eq!(step["files"], serde_json::json!(["src/server/status.rs"]));
    assert_eq!(step["verify"]["command"], "cargo test server::status");
    assert_eq!(step["verify"]["expected"], "test result: ok");
    assert_eq!(step["on_failure"]["action"], "revert");
    assert_eq!(
        step["on_failure"]["instructions"],
        "delete `src/server/status.rs` and stop"
    );
    assert_eq!(
        step["checkpoint"],
        serde_json::json!({"message": "feat(server): add /status endpoint"})
    );
    assert_eq!(step["line"], 33);
    assert!(step["test_first"]["text"]
        .as_str()
        .unwrap()
        .contains("status_returns_version"));
    let session = &j["sessions"][2];
    assert_eq!(session["number"], 3);
    assert_eq!(session["title"], "Integration tests");
    assert_eq!(session["steps"], serde_json::json!([5, 6]));
    assert_eq!(session["wave"], 2);
    assert_eq!(session["depends_on"], serde_json::json!([1, 2]));
    assert_eq!(session["touch"], serde_json::json!(["tests/**"]));
    assert_eq!(session["never_touch"], serde_json::json!(["src/**"]));
    assert_eq!(
        j["verification"][0],
        serde_json::json!({"command": "cargo test", "expected": "test result: ok", "expected_kind": "literal", "line": 99})
    );
    for w in j["warnings"].as_array().unwrap() {
        assert!(w["line"].as_u64().unwrap() > 0, "{w}");
    }
}

#[test]
fn the_other_fixtures_are_ready() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    for (name, kind, steps) in [
        ("ultraplan-verbose-flag.md", "plan", 2),
        ("session-2-status-endpoint.md", "session-spec", 3),
        ("03-01-PLAN.md", "task-plan", 3),
    ] {
        let plan = copy_fixture(&repo, name);
        let j = env
            .run(&repo, &["ultraplan", "check", "--executor", "claude", "--json", &plan])
            .expect_code(0)
            .json();
        assert_eq!(j["type"], kind, "{name}");
        assert_eq!(j["steps"].as_array().unwrap().len(), steps, "{name}");
        assert_eq!(j["verdict"], "READY", "{name}: {}", j["problems"]);
    }
    let j = env
        .run(
            &repo,
            &["ultraplan", "check", "--executor", "claude", "--json", "03-01-PLAN.md"],
        )
        .expect_code(0)
        .json();
    assert_eq!(j["plan_id"], "03-01");
    assert_eq!(
        j["steps"][0]["checkpoint"]["message"],
        "03-01 Task 1: Create executor agent"
    );
    assert_eq!(j["steps"][0]["on_failure"]["action"], "retry");
    let mut t = Transcript::new(&env);
    for name in [
        "ultraplan-verbose-flag.md",
        "session-2-status-endpoint.md",
        "03-01-PLAN.md",
    ] {
        let _ = t
            .run(&repo, &["ultraplan", "check", "--executor", "claude", name])
            .expect_code(0);
    }
    assert_transcript!(t, "the_other_fixtures_are_ready");
}

#[test]
fn hostile_plan_needs_attention_and_writes_nothing() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    std::os::unix::fs::symlink("/etc", repo.join("etc-link")).unwrap();
    let plan = "# Hostile\n\n## Implementation Plan\n\n### Step 1: Escape\n\
        - **Files:** `/etc/passwd`, `../../outside.txt`, `.git/hooks/pre-commit`, `etc-link/passwd`\n\
        - **Verify:** `true`\n- **On failure:** skip\n- **Checkpoint:** none\n";
    std::fs::write(repo.join("hostile.md"), plan).unwrap();
    let before = tree_state(&repo);
    let out = env
        .run(&repo, &["ultraplan", "check", "--json", "hostile.md"])
        .expect_code(1);
    let j = out.json();
    assert_eq!(j["verdict"], "NEEDS ATTENTION");
    let problems: Vec<(u64, String)> = j["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["line"].as_u64().unwrap(), p["message"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(problems.len(), 4, "{problems:?}");
    assert!(problems.iter().all(|(line, _)| *line == 6), "{problems:?}");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "check", "hostile.md"]).expect_code(1);
    assert_transcript!(t, "hostile_plan_needs_attention_and_writes_nothing");
    assert_eq!(tree_state(&repo), before, "check wrote something");
    assert_eq!(
        env.git(&repo, &["for-each-ref", "--format=%(refname)"]),
        "refs/heads/main\n"
    );
}

#[test]
fn cycles_and_overlaps_are_named() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let plan = "# Tangle\n\n## Implementation Plan\n\n\
        ### Step 1: A\n- **Files:** `a.txt`\n- **Verify:** `true`\n- **On failure:** skip\n- **Checkpoint:** none\n\n\
        ### Step 2: B\n- **Files:** `b.txt`\n- **Verify:** `true`\n- **On failure:** skip\n- **Checkpoint:** none\n\n\
        ### Step 3: C\n- **Files:** `lib/c.txt`\n- **Verify:** `true`\n- **On failure:** skip\n- **Checkpoint:** none\n\n\
        ## Execution Strategy\n\n\
        ### Session 1: One\n- **Steps:** 1\n- **Depends on:** Session 2\n- **Scope fence:** Touch: `a.txt`\n\n\
        ### Session 2: Two\n- **Steps:** 2\n- **Depends on:** Session 1\n- **Scope fence:** Touch: `b.txt`\n\n\
        ### Session 3: Three\n- **Steps:** 3\n- **Wave:** 1\n- **Scope fence:** Touch: `lib/**`, `a.txt`\n\n\
        ### Session 4: Four\n- **Steps:** \n- **Wave:** 1\n- **Scope fence:** Touch: `lib/c.txt`\n";
    std::fs::write(repo.join("tangle.md"), plan).unwrap();
    let j = env
        .run(&repo, &["ultraplan", "check", "--json", "tangle.md"])
        .expect_code(1)
        .json();
    let messages: Vec<&str> = j["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.contains(&"dependency cycle: session 1 → session 2 → session 1"),
        "{messages:?}"
    );
    assert!(
        messages.contains(&"sessions 3 and 4 are both in wave 1 and both touch 'lib/**' and 'lib/c.txt'"),
        "{messages:?}"
    );
}

#[test]
fn waves_are_derived_when_missing() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let plan = "# Chain\n\n## Implementation Plan\n\n\
        ### Step 1: A\n- **Verify:** `true`\n\n### Step 2: B\n- **Verify:** `true`\n\n### Step 3: C\n- **Verify:** `true`\n\n\
        ## Execution Strategy\n\n\
        ### Session 1: One\n- **Steps:** 1\n\n\
        ### Session 2: Two\n- **Steps:** 2\n\n\
        ### Session 3: Three\n- **Steps:** 3\n- **Depends on:** Sessions 1, 2\n";
    std::fs::write(repo.join("chain.md"), plan).unwrap();
    let out = env
        .run(&repo, &["ultraplan", "check", "--json", "chain.md"])
        .expect_code(0);
    let j = out.json();
    assert_eq!(j["waves"], serde_json::json!([[1, 2], [3]]));
    assert_eq!(j["strategy"], "3 sessions (2 parallel, 1 sequential)");
}

/// A file several steps list is reported once, as the first of them finds
/// it, with the steps that list it; `--json` keeps each step's reference.
#[test]
fn a_file_several_steps_list_is_reported_once() {
    let env = TestEnv::new();
    let repo = repo_with(&env, &[("a.txt", "a\n")]);
    let step = |n: u32, files: &str| {
        format!(
            "### Step {n}: Step {n}\n\n- **Files:** {files}\n- **Changes:** append a line\n\
             - **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** none\n\n"
        )
    };
    let plan = format!(
        "# Twice\n\n## Implementation Plan\n\n{}{}{}",
        step(1, "`new.txt`, `a.txt`"),
        step(2, "`new.txt`"),
        step(3, "`a.txt`, `a.txt`")
    );
    std::fs::write(repo.join("twice.md"), plan).unwrap();
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "check", "--executor", "claude", "twice.md"])
        .expect_code(0);
    assert_transcript!(t, "a_file_several_steps_list_is_reported_once");
    let out = env
        .run(
            &repo,
            &["ultraplan", "check", "--executor", "claude", "--json", "twice.md"],
        )
        .expect_code(0);
    let steps: Vec<(u64, String)> = out.json()["file_references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["step"].as_u64().unwrap(), r["path"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(steps.len(), 5, "{steps:?}");
}

/// A file the step's shell block writes (a redirection, `tee`, `touch`,
/// the last argument of `cp`) is new, not "not found"; one the block only
/// reads is still reported.
#[test]
fn a_file_the_shell_block_writes_is_new() {
    let env = TestEnv::new();
    let repo = repo_with(&env, &[]);
    let step = |n: u32, file: &str, block: &str| {
        format!(
            "### Step {n}: Step {n}\n\n- **Files:** `{file}`\n- **Changes:** do it\n  ```sh\n  {block}\n  ```\n- **Verify:** `true`\n- **On failure:** retry\n- **Checkpoint:** `git commit -m \"step {n}\"`\n\n"
        )
    };
    let plan = format!(
        "# Writes\n\n## Implementation Plan\n\n{}{}{}{}{}{}",
        step(
            1,
            "src/cli.js",
            "mkdir -p src && cat > src/cli.js <<EOF\n  console.log(1)\n  EOF"
        ),
        step(2, "lib/a.txt", "printf x | tee -a lib/a.txt"),
        step(3, "b/c.txt", "cp /etc/hostname b/c.txt"),
        step(4, "out.log", "echo done>>out.log"),
        step(5, "d/e.txt", "touch ./d/e.txt"),
        step(6, "read.txt", "cat read.txt"),
    );
    write(&repo.join("plan.md"), &plan);
    let json = env
        .run(&repo, &["ultraplan", "check", "--json", "plan.md"])
        .expect_code(0)
        .json();
    let statuses: Vec<(String, String)> = json["file_references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("src/cli.js", "new"),
        ("lib/a.txt", "new"),
        ("b/c.txt", "new"),
        ("out.log", "new"),
        ("d/e.txt", "new"),
        ("read.txt", "not-found"),
    ]
    .iter()
    .map(|(p, s)| (p.to_string(), s.to_string()))
    .collect();
    assert_eq!(statuses, expected, "{json}");
}
