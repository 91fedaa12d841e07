//! Outcomes read (DESIGN §17): `outcome list`, `show`, `search` and `stats`
//! over what was logged, and outcomes read out of text by the configured rules
//! and by a checked extractor command.

use crate::harness::support::*;

use super::outcomes::{files, REF};

#[test]
fn list_show_search_and_stats_read_what_was_logged() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let log = |task: &str, agent: &str, ok: bool, steps: &[&str]| -> String {
        let mut args = vec!["ultraplan", "outcome", "log", "--task", task, "--agent", agent];
        args.push(if ok { "--success" } else { "--failure" });
        for s in steps {
            args.extend(["--step", s]);
        }
        env.run(&repo, &args).expect_code(0).stdout.trim().to_owned()
    };
    let auth = log(
        "Build JWT authentication endpoint",
        "builder",
        true,
        &["analyze", "code", "test"],
    );
    let docs = log("Write API documentation", "writer", true, &["outline", "draft"]);
    let deploy = log("Deploy the authentication service", "deploy", false, &["build", "push"]);

    let list = env
        .run(&repo, &["ultraplan", "outcome", "list", "--json"])
        .expect_code(0);
    assert_eq!(list.stdout.lines().count(), 3, "{list}");
    let only = env
        .run(&repo, &["ultraplan", "outcome", "list", "--failure", "--json"])
        .expect_code(0);
    assert!(
        only.stdout.contains(&deploy) && only.stdout.lines().count() == 1,
        "{only}"
    );
    let agent = env
        .run(&repo, &["ultraplan", "outcome", "list", "--agent", "writer"])
        .expect_code(0);
    assert!(
        agent.stdout.contains(&docs) && agent.stdout.lines().count() == 1,
        "{agent}"
    );
    let later = env
        .run(&repo, &["ultraplan", "outcome", "list", "--since", "2999-01-01"])
        .expect_code(0);
    assert!(later.stdout.is_empty(), "{later}");
    let recent = env
        .run(&repo, &["ultraplan", "outcome", "list", "--since", "yesterday"])
        .expect_code(0);
    assert_eq!(recent.stdout.lines().count(), 3, "{recent}");
    let out = env
        .run(&repo, &["ultraplan", "outcome", "list", "--since", "yesterday-ish"])
        .expect_code(129);
    assert!(out.stderr.contains("'yesterday-ish' is not a date"), "{out}");

    let hits = env
        .run(&repo, &["ultraplan", "outcome", "search", "authentication", "--json"])
        .expect_code(0);
    let ids: Vec<String> = hits
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["outcome"]["outcome_id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(ids.len(), 2, "{hits}");
    assert!(ids.contains(&auth) && ids.contains(&deploy));
    // The plan's words are searched too: key decisions name the steps.
    let hits = env
        .run(&repo, &["ultraplan", "outcome", "search", "outline", "--json"])
        .expect_code(0);
    assert!(
        hits.stdout.contains(&docs) && hits.stdout.lines().count() == 1,
        "{hits}"
    );
    let hits = env
        .run(
            &repo,
            &[
                "ultraplan",
                "outcome",
                "search",
                "authentication",
                "--success",
                "--json",
            ],
        )
        .expect_code(0);
    assert_eq!(hits.stdout.lines().count(), 1, "{hits}");

    let show = env
        .run(&repo, &["ultraplan", "outcome", "show", &auth, "--json"])
        .expect_code(0)
        .json();
    assert_eq!(
        show["outcome"]["execution_path"],
        serde_json::json!(["analyze", "code", "test"])
    );
    assert_eq!(show["plan"]["reasoning_pattern"], "iterative_refinement");

    let stats = env
        .run(&repo, &["ultraplan", "outcome", "stats", "--json"])
        .expect_code(0)
        .json();
    assert_eq!(stats["outcomes_logged"], 3);
    assert_eq!(stats["plans_extracted"], 2);
    assert_eq!(stats["training_examples_stored"], 2);
    assert_eq!(stats["agents"]["deploy"]["plans_extracted"], 0);
    assert_eq!(stats["agents"]["builder"]["outcomes_logged"], 1);
}

#[test]
fn extraction_follows_config_and_a_checked_extractor_command() {
    let mut env = TestEnv::new();
    let repo = env.repo("repo");
    let base = [
        "ultraplan",
        "outcome",
        "log",
        "--task",
        "t",
        "--agent",
        "a",
        "--success",
        "--step",
        "one",
        "--step",
        "two",
    ];
    // autoExtract=false: no plan.
    let out = env
        .run(
            &repo,
            &[&["-c", "ultraplan.outcomes.autoExtract=false"][..], &base[..]].concat(),
        )
        .expect_code(0);
    assert_eq!(files(&env, &repo).len(), 1, "{out}");
    // --no-extract beats config.
    let _ = env
        .run(&repo, &[&base[..], &["--no-extract"][..]].concat())
        .expect_code(0);
    assert_eq!(files(&env, &repo).len(), 2);

    let stub = env.root().join("extractor.sh");
    write(
        &stub,
        "#!/bin/sh\ncat > \"$(dirname \"$0\")/seen.json\"\necho '{\"strategy_description\":\"two after one\",\"reasoning_pattern\":\"learned\",\"tools_sequence\":[\"two\"],\"confidence\":0.3}'\n",
    );
    env.git(
        &repo,
        &[
            "config",
            "ultraplan.outcomes.extractor",
            &format!("sh {}", stub.display()),
        ],
    );
    let out = env.run(&repo, &[&base[..], &["--json"][..]].concat()).expect_code(0);
    let plan = &out.json()["plan"];
    assert_eq!(plan["extracted_by"], "command", "{out}");
    assert_eq!(plan["confidence"], 0.95);
    assert_eq!(plan["strategy_description"], "two after one");
    let seen = read(&env.root().join("seen.json"));
    assert!(seen.contains("\"execution_path\":[\"one\",\"two\"]"), "{seen}");

    // An answer the outcome does not support: rules decide, with a warning.
    write(&stub, "#!/bin/sh\ncat >/dev/null\necho '{\"strategy_description\":\"x\",\"reasoning_pattern\":\"y\",\"tools_sequence\":[\"rm -rf\"]}'\n");
    let out = env.run(&repo, &[&base[..], &["--json"][..]].concat()).expect_code(0);
    assert_eq!(out.json()["plan"]["extracted_by"], "rules", "{out}");
    assert!(
        out.stderr.contains("warning: the extractor") && out.stderr.contains("'rm -rf'"),
        "{out}"
    );
    // A hanging extractor is killed at its timeout.
    env.set("GIT_CONFIG_COUNT", "1");
    env.set("GIT_CONFIG_KEY_0", "ultraplan.outcomes.extractorTimeout");
    env.set("GIT_CONFIG_VALUE_0", "300ms");
    write(&stub, "#!/bin/sh\nsleep 30\n");
    let out = env.run(&repo, &[&base[..], &["--json"][..]].concat()).expect_code(0);
    assert_eq!(out.json()["plan"]["extracted_by"], "rules", "{out}");
    assert!(out.stderr.contains("timed out"), "{out}");

    // `outcome extract <id>` extracts again and replaces the stored plan.
    let id = out.json()["outcome"]["outcome_id"].as_str().unwrap().to_owned();
    write(&stub, "#!/bin/sh\ncat >/dev/null\necho '{\"strategy_description\":\"again\",\"reasoning_pattern\":\"y\",\"tools_sequence\":[\"one\",\"two\"]}'\n");
    let out = env
        .run(&repo, &["ultraplan", "outcome", "extract", &id, "--json"])
        .expect_code(0);
    assert_eq!(out.json()["strategy_description"], "again");
    let plan = env.git(&repo, &["show", &format!("{REF}:plans/a/plan_{id}.yaml")]);
    assert!(plan.contains("strategy_description: again"), "{plan}");
    let training = env.git(&repo, &["show", &format!("{REF}:training/a/training_plan_{id}.yaml")]);
    assert!(training.contains("strategy_description: again"), "{training}");
}
