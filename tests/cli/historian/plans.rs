//! git-historian's plans: `plan` writes nothing and says the same each time, a
//! plan file is built exactly as it says, one missing or doubling items is
//! refused naming them, and `--json` carries what the text says.

use crate::harness::historian::*;
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

#[test]
fn plan_writes_nothing_and_is_deterministic() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    make_dirty(&repo);
    let before = user_state(&env, &repo, "feature");
    let refs_before = refs(&env, &repo);
    let objects = tree_state(&repo.join(".git/objects")).len();
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["historian", "plan"]).expect_code(0);
    let _ = t.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    assert_transcript!(t, "plan_writes_nothing_and_is_deterministic");
    let first = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    let second = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    assert_eq!(first.stdout, second.stdout);
    let json = first.json();
    assert_eq!(
        json["tip"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "feature"]).trim()
    );
    assert_eq!(
        json["base"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "main"]).trim()
    );
    for commit in json["commits"].as_array().unwrap() {
        assert!(commit["message"].as_str().unwrap().contains("\n\nHolds:\n"));
        assert!(commit["files"].is_array() && commit["hunks"].is_array());
    }
    assert_eq!(before, user_state(&env, &repo, "feature"));
    assert_eq!(refs_before, refs(&env, &repo));
    assert_eq!(
        objects,
        tree_state(&repo.join(".git/objects")).len(),
        "plan wrote objects"
    );
}

#[test]
fn a_plan_file_is_built_exactly() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let out = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    let mut plan = out.json();
    // Merge the first two commits and retitle them.
    let commits = plan["commits"].as_array_mut().unwrap();
    let second = commits.remove(1);
    for key in ["files", "hunks"] {
        let extra = second[key].as_array().unwrap().clone();
        commits[0][key].as_array_mut().unwrap().extend(extra);
    }
    commits[0]["message"] = "chore: the first two together\n\nBy hand.".into();
    let count = commits.len();
    let file = env.root().join("plan.json");
    std::fs::write(&file, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let mut t = Transcript::new(&env);
    t.note("the plan of `plan --json`, its first two commits merged and retitled");
    let clean = record_clean(&mut t, &repo, "feature", &["--plan", file.to_str().unwrap()]);
    let first = format!("{clean}~{}", count - 1);
    let _ = t.run(&repo, &["log", "-1", "--format=%B", &first]).expect_code(0);

    // YAML written by a person works too.
    t.note("YAML written by a person works too");
    let yaml = "commits:\n  - message: \"feat: everything\"\n    files: [Cargo.toml, docs/guide.md, src/helpers.rs, src/legacy.rs, src/lexer.rs, src/main.rs, src/parser.rs, tests/parser.rs]\n";
    let file = env.root().join("plan.yaml");
    std::fs::write(&file, yaml).unwrap();
    t.file(&file);
    let args = ["--plan", file.to_str().unwrap(), "--max-files", "50"];
    record_clean(&mut t, &repo, "feature", &args);
    assert_transcript!(t, "a_plan_file_is_built_exactly");
}

#[test]
fn a_plan_missing_or_doubling_items_is_refused_with_the_items() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let out = env.run(&repo, &["historian", "plan", "--json"]).expect_code(0);
    let plan = out.json();
    let refs_before = refs(&env, &repo);
    let first_file = plan["commits"][0]["files"][0].as_str().unwrap().to_owned();

    let mut missing = plan.clone();
    missing["commits"].as_array_mut().unwrap().remove(0);
    let mut doubled = plan.clone();
    let again = doubled["commits"][0]["files"][0].clone();
    doubled["commits"][1]["files"].as_array_mut().unwrap().push(again);
    let mut unknown = plan.clone();
    unknown["commits"][0]["files"]
        .as_array_mut()
        .unwrap()
        .push("no/such/file.rs".into());
    // A NUL makes a commit `git fsck` rejects; an escape recolours a log.
    let mut control = plan.clone();
    control["commits"][0]["message"] = "\u{0}nul in message\n".into();
    let mut escape = plan.clone();
    escape["commits"][1]["message"] = "a \u{1b}[31mred\u{1b}[0m subject\n".into();

    let mut t = Transcript::new(&env);
    for (name, bad, expected) in [
        ("missing", missing, format!("missing: {first_file}")),
        ("doubled", doubled, format!("doubled: {first_file}")),
        ("unknown", unknown, "unknown: no/such/file.rs (commit 1)".to_owned()),
        (
            "control",
            control,
            "commit 1's message holds the control character U+0000".to_owned(),
        ),
        (
            "escape",
            escape,
            "commit 2's message holds the control character U+001B".to_owned(),
        ),
    ] {
        let file = env.root().join(format!("{name}.json"));
        std::fs::write(&file, serde_json::to_string(&bad).unwrap()).unwrap();
        let out = t
            .run(&repo, &["historian", "clean", "--plan", file.to_str().unwrap()])
            .expect_code(128);
        assert!(out.stderr.contains(&expected), "{name}: {out}");
        assert_eq!(refs_before, refs(&env, &repo), "{name} wrote a ref");
    }
    // A plan for another tip, unreadable files, bad YAML.
    let mut moved = plan.clone();
    moved["tip"] = env.git(&repo, &["rev-parse", "main"]).trim().into();
    let file = env.root().join("moved.json");
    std::fs::write(&file, serde_json::to_string(&moved).unwrap()).unwrap();
    let _ = t
        .run(&repo, &["historian", "clean", "--plan", file.to_str().unwrap()])
        .expect_code(128);
    let _ = t
        .run(&repo, &["historian", "clean", "--plan", "nope.yaml"])
        .expect_code(128);
    let file = env.root().join("bad.yaml");
    std::fs::write(&file, "commits:\n  - message: x\n    files: [a\n").unwrap();
    let _ = t
        .run(&repo, &["historian", "plan", "--plan", file.to_str().unwrap()])
        .expect_code(128);
    assert_transcript!(t, "a_plan_missing_or_doubling_items_is_refused_with_the_items");
    assert_eq!(refs_before, refs(&env, &repo));
}

#[test]
fn json_results_carry_the_same_as_data() {
    let env = TestEnv::new();
    let repo = messy_repo(&env);
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "clean", "--json"]).expect_code(0);
    assert_transcript!(t, "json_results_carry_the_same_as_data");
    // The transcript hides ids: these are the ones git has.
    let json = out.json();
    let clean = json["clean_branch"].as_str().unwrap();
    assert_eq!(
        json["base_commit"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "main"]).trim()
    );
    let commits = json["commits"].as_array().unwrap();
    assert_eq!(json["commits_created"].as_u64().unwrap() as usize, commits.len());
    assert_eq!(
        commits.last().unwrap()["id"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", clean]).trim()
    );
    assert_eq!(
        json["tree"].as_str().unwrap(),
        env.git(&repo, &["rev-parse", "feature^{tree}"]).trim()
    );
}
