//! The search index kept beside the outcomes store: read instead of every
//! outcome, read afresh when the store moves, never trusted when damaged.

use crate::harness::support::*;

fn log(env: &TestEnv, repo: &std::path::Path, task: &str, agent: &str) -> String {
    env.run(
        repo,
        &[
            "ultraplan",
            "outcome",
            "log",
            "--task",
            task,
            "--agent",
            agent,
            "--success",
        ],
    )
    .expect_code(0)
    .stdout
    .trim()
    .to_owned()
}

fn hits(env: &TestEnv, repo: &std::path::Path, query: &str) -> Vec<String> {
    env.run(repo, &["ultraplan", "outcome", "search", query, "--json"])
        .expect_code(0)
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["outcome"]["outcome_id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn search_reads_the_index_refreshes_it_when_the_store_moves_and_rebuilds_a_damaged_one() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let auth = log(&env, &repo, "Build JWT authentication endpoint", "builder");
    let docs = log(&env, &repo, "Write API documentation", "writer");
    assert_eq!(hits(&env, &repo, "authentication"), std::slice::from_ref(&auth));
    let index = repo.join(".git/ultraplan/outcome-index.json");
    let text = std::fs::read_to_string(&index).expect("search keeps its index");

    // Read from the index: a document edited by hand is what search ranks.
    let edited = text.replace("Write API documentation", "Write API authentication documentation");
    assert_ne!(edited, text);
    std::fs::write(&index, &edited).unwrap();
    assert_eq!(hits(&env, &repo, "authentication").len(), 2);

    // A new record moves the store: the index is read afresh.
    let deploy = log(&env, &repo, "Deploy the authentication service", "deploy");
    let found = hits(&env, &repo, "authentication");
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.contains(&auth) && found.contains(&deploy) && !found.contains(&docs));

    // A damaged index is rebuilt, and nothing of it is in git.
    std::fs::write(&index, "{ not json").unwrap();
    assert_eq!(hits(&env, &repo, "documentation"), [docs]);
    assert!(std::fs::read_to_string(&index).unwrap().starts_with("{\"version\":1,"));
    let refs = env.git(&repo, &["for-each-ref", "--format=%(refname)"]);
    assert!(!refs.contains("index"), "{refs}");
}
