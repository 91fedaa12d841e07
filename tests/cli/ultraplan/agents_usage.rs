//! How an agent is called and what its runs cost: configured arguments beside
//! the adapter's own, cost and tokens per agent, run and plan in `stats` and
//! `export`, and the usage of an agent behind the command protocol, against
//! stand-ins that print what each agent prints (`agent_stubs`).

use crate::harness::agent_stubs;
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

use super::agents::{agent_plan, repo_with};

#[test]
fn configured_arguments_follow_the_adapters_own_and_a_permission_flag_replaces_its() {
    let mut env = TestEnv::new();
    let bin = agent_stubs::install(&mut env, "claude");
    let repo = repo_with(&env, "repo", &agent_plan(1, "retry"));
    let mut t = Transcript::new(&env);
    let _ = t
        .run(
            &repo,
            &[
                "-c",
                "ultraplan.claudeArgs=--model opus",
                "ultraplan",
                "-q",
                "run",
                "--executor",
                "claude",
                "--yes",
                "plan.md",
            ],
        )
        .expect_code(0);
    t.note("what claude was called with");
    t.file(&bin.join("claude.args.1"));
    let _ = t.run(&repo, &["reset", "-q", "--hard", "HEAD~1"]).expect_code(0);
    t.note("ultraplan.claude.args beats the older key; its permission mode replaces ours");
    let _ = t
        .run(
            &repo,
            &[
                "-c",
                "ultraplan.claudeArgs=--model opus",
                "-c",
                "ultraplan.claude.args=--permission-mode bypassPermissions",
                "ultraplan",
                "-q",
                "run",
                "--executor",
                "claude",
                "--yes",
                "--again",
                "plan.md",
            ],
        )
        .expect_code(0);
    t.file(&bin.join("claude.args.2"));
    assert_transcript!(
        t,
        "configured_arguments_follow_the_adapters_own_and_a_permission_flag_replaces_its"
    );
}

#[test]
fn stats_and_export_show_cost_and_tokens_per_agent_run_and_plan() {
    let mut env = TestEnv::new();
    agent_stubs::install(&mut env, "claude");
    agent_stubs::install(&mut env, "opencode");
    let repo = env.repo("repo");
    write(&repo.join("by-claude.md"), &agent_plan(2, "retry"));
    write(
        &repo.join("by-opencode.md"),
        &agent_plan(1, "retry").replace("step1", "other1"),
    );
    env.git(&repo, &["add", "."]);
    env.git(&repo, &["commit", "-q", "-m", "plans"]);
    let mut t = Transcript::new(&env);
    let out = t
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--executor",
                "claude",
                "--yes",
                "--summary-file",
                "../summary.json",
                "by-claude.md",
            ],
        )
        .expect_code(0);
    assert!(
        out.stdout
            .contains("  Cost: $0.0246 (as the agent reported it); tokens: 220 in, 60 out, 40 cached\n"),
        "{out}"
    );
    let summary = std::fs::read_to_string(repo.join("../summary.json")).unwrap();
    assert!(summary.contains("\"total_cost_usd\":0.0246"), "{summary}");
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--executor", "opencode", "--yes", "by-opencode.md"],
        )
        .expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "stats", "--by", "agent"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "stats", "--by", "plan"]).expect_code(0);
    assert_transcript!(t, "stats_and_export_show_cost_and_tokens_per_agent_run_and_plan");
    let stats = env.run(&repo, &["ultraplan", "stats", "--json"]).json();
    let agent = |name: &str| {
        stats["by_agent"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["key"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(agent("claude")["cost_usd"].as_f64(), Some(0.0246));
    assert_eq!(agent("opencode")["cost_usd"].as_f64(), Some(0.01));
    assert_eq!(agent("claude")["tokens"]["output"].as_u64(), Some(60));
    assert_eq!(stats["by_run"].as_array().unwrap().len(), 2);
    assert!((stats["cost_usd"].as_f64().unwrap() - 0.0346).abs() < 1e-9);
    let export = env.git(&repo, &["ultraplan", "export", "--all"]);
    let doc: serde_yaml::Value = serde_yaml::from_str(&export).unwrap();
    let runs: Vec<&serde_yaml::Value> = doc["plans"]
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|p| p["runs"].as_sequence().unwrap())
        .collect();
    let costs: Vec<f64> = runs.iter().filter_map(|r| r["cost_usd"].as_f64()).collect();
    assert_eq!(costs.len(), 2, "{export}");
    assert!(runs.iter().all(|r| r["attempts"][0]["tokens"].is_mapping()), "{export}");
}

#[test]
fn an_agent_behind_the_command_protocol_has_its_usage_recorded_too() {
    let env = TestEnv::new();
    let repo = repo_with(&env, "repo", &agent_plan(1, "retry"));
    let script = env.root().join("my-agent.sh");
    write(
        &script,
        "#!/bin/sh\ncat > /dev/null\necho done > step1.txt\ncat > \"$ULTRAPLAN_RESULT_FILE\" <<EOF\nstatus: success\n\
         task_name: \"$ULTRAPLAN_TASK_NAME\"\nfiles_modified: [step1.txt]\nverification: {command: null, exit_code: null, output_summary: none}\n\
         done_criteria_met: true\nevidence: wrote it\nerror: null\nmetadata:\n  cost_usd: 0.5\n  tokens: {input: 10, output: 5}\n  model: my-model\n  session_id: s-9\nEOF\n",
    );
    let mut t = Transcript::new(&env);
    let _ = t
        .run(
            &repo,
            &["ultraplan", "-q", "run", "--executor", "sh ../my-agent.sh", "plan.md"],
        )
        .expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "stats"]).expect_code(0);
    assert_transcript!(t, "an_agent_behind_the_command_protocol_has_its_usage_recorded_too");
}
