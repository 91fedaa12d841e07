//! `git historian clean --agent`: the grouping an agent proposes (a stub
//! printing Claude Code's stream) is built when it holds, and set aside for
//! the deterministic plan, with a warning naming why, when it does not.

use std::path::{Path, PathBuf};

use crate::harness::agent_stubs;
use crate::harness::historian::{commit_all, field, show_outcome};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// A feature branch of three commits: a helper defined in one file, used in
/// another, and a README line.
fn branch(env: &TestEnv) -> PathBuf {
    let repo = env.repo("repo");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("src/lib.rs"),
        "pub fn compute_total(items: &[u32]) -> u32 {\n    items.iter().sum()\n}\n",
    );
    commit_all(env, &repo, "add compute_total");
    write(
        &repo.join("src/main.rs"),
        "fn main() {\n    println!(\"{}\", lib::compute_total(&[1, 2]));\n}\n",
    );
    commit_all(env, &repo, "print the total");
    write(&repo.join("README.md"), "# demo\n\nPrints a total.\n");
    commit_all(env, &repo, "docs: say what it does");
    repo
}

/// `answer` as the agent's final text, escaped for its JSON result.
fn answer(commits: serde_json::Value) -> String {
    let text = format!(
        "Here is the grouping:\n```json\n{}\n```",
        serde_json::json!({ "commits": commits })
    );
    let quoted = serde_json::to_string(&text).unwrap();
    quoted[1..quoted.len() - 1].to_owned()
}

/// `git historian clean --agent claude` with the stub told `stub` (its
/// answer, or how to fail), ending 0 whatever the agent said.
fn clean_with(t: &mut Transcript, repo: &Path, stub: (&str, &str)) -> Output {
    t.run_with(repo, &["historian", "clean", "--agent", "claude"], &[stub], None)
        .expect_code(0)
}

#[test]
fn a_grouping_the_agent_proposes_is_built_when_it_holds() {
    let mut env = TestEnv::new();
    let bin = agent_stubs::install(&mut env, "claude");
    let repo = branch(&env);
    let said = answer(serde_json::json!([
        {"message": "feat(total): add compute_total and print it\n\nThe library sums the items; main prints the sum.", "items": ["src/lib.rs", "src/main.rs"]},
        {"message": "docs: say what the program prints", "items": ["README.md"]},
    ]));
    let mut t = Transcript::new(&env);
    let out = clean_with(&mut t, &repo, ("STUB_ANSWER", &said));
    show_outcome(&mut t, &repo, "feature", &field(&out, "Clean branch"));
    assert_transcript!(t, "a_grouping_the_agent_proposes_is_built_when_it_holds");
    // What it was sent: the items by id, the branch's messages, the proposal; read-only.
    let prompt = agent_stubs::prompt(&bin, "claude", 1);
    for expected in [
        "\"id\": \"src/lib.rs\"",
        "\"message\": \"print the total\"",
        "\"proposal\"",
    ] {
        assert!(prompt.contains(expected), "{expected} not in:\n{prompt}");
    }
    let args = agent_stubs::args(&bin, "claude", 1);
    assert!(args.contains("--permission-mode\nplan\n"), "{args}");
}

#[test]
fn a_grouping_that_does_not_hold_is_set_aside_for_the_deterministic_plan() {
    let mut env = TestEnv::new();
    agent_stubs::install(&mut env, "claude");
    let repo = branch(&env);
    let deterministic = env.run(&repo, &["historian", "plan", "--json"]).json();
    let subjects: Vec<String> = deterministic["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["message"].as_str().unwrap().lines().next().unwrap().to_owned())
        .collect();
    let mut t = Transcript::new(&env);
    t.note("an item left out, another placed twice, one invented");
    let said = answer(serde_json::json!([
        {"message": "feat: everything", "items": ["src/lib.rs", "src/lib.rs", "nope.txt"]},
        {"message": "docs: readme", "items": ["README.md"]},
    ]));
    let _ = clean_with(&mut t, &repo, ("STUB_ANSWER", &said));
    t.note("a use before its definition");
    let said = answer(serde_json::json!([
        {"message": "feat: print the total", "items": ["src/main.rs"]},
        {"message": "feat: add compute_total", "items": ["src/lib.rs"]},
        {"message": "docs: readme", "items": ["README.md"]},
    ]));
    let _ = clean_with(&mut t, &repo, ("STUB_ANSWER", &said));
    t.note("no JSON at all, and an agent that fails");
    let _ = clean_with(&mut t, &repo, ("STUB_ANSWER", "I could not decide."));
    let _ = clean_with(&mut t, &repo, ("STUB_MODE", "error"));
    assert_transcript!(
        t,
        "a_grouping_that_does_not_hold_is_set_aside_for_the_deterministic_plan"
    );
    // Each time, the deterministic plan was built.
    let clean = env.git(
        &repo,
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/feature-*-clean",
        ],
    );
    assert_eq!(clean.lines().count(), 4, "{clean}");
    for branch in clean.lines() {
        let built: Vec<String> = env
            .git(&repo, &["log", "--reverse", "--format=%s", &format!("main..{branch}")])
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(built, subjects, "{branch}");
    }
    env.assert_fsck(&repo);
}

#[test]
fn clean_agent_refuses_an_agent_that_is_not_installed_or_unknown() {
    let env = TestEnv::new();
    let repo = branch(&env);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["historian", "clean", "--agent", "codex"])
        .expect_code(128);
    let _ = t
        .run(&repo, &["historian", "clean", "--agent", "devin"])
        .expect_code(129);
    assert_transcript!(t, "clean_agent_refuses_an_agent_that_is_not_installed_or_unknown");
    assert_eq!(
        env.git(&repo, &["for-each-ref", "refs/heads/feature-*-clean"]),
        "",
        "nothing written"
    );
}

#[test]
fn a_grouping_removing_a_definition_before_its_last_use_is_set_aside() {
    let mut env = TestEnv::new();
    agent_stubs::install(&mut env, "claude");
    let repo = env.repo("repo");
    write(
        &repo.join("src/lib.rs"),
        "pub fn old_total(items: &[u32]) -> u32 {\n    items.iter().sum()\n}\n\npub fn sum_all(items: &[u32]) -> u32 {\n    items.iter().sum()\n}\n",
    );
    write(
        &repo.join("src/main.rs"),
        "fn main() {\n    println!(\"{}\", lib::old_total(&[1, 2]));\n}\n",
    );
    commit_all(&env, &repo, "add the totals");
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("src/main.rs"),
        "fn main() {\n    println!(\"{}\", lib::sum_all(&[1, 2]));\n}\n",
    );
    commit_all(&env, &repo, "print with sum_all");
    write(
        &repo.join("src/lib.rs"),
        "pub fn sum_all(items: &[u32]) -> u32 {\n    items.iter().sum()\n}\n",
    );
    commit_all(&env, &repo, "remove old_total");
    let mut t = Transcript::new(&env);
    t.note("the definition removed before the commit that stops using it");
    let said = answer(serde_json::json!([
        {"message": "refactor: remove old_total", "items": ["src/lib.rs"]},
        {"message": "refactor: print with sum_all", "items": ["src/main.rs"]},
    ]));
    let _ = clean_with(&mut t, &repo, ("STUB_ANSWER", &said));
    assert_transcript!(t, "a_grouping_removing_a_definition_before_its_last_use_is_set_aside");
    env.assert_fsck(&repo);
}
