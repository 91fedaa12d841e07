//! The store against a real repository: two clones' outcome histories merge
//! as the union of their records, checked with the real `git`.

use std::path::Path;

use super::*;
use crate::git::testing::git;
use crate::git::{Oid, Repo, Workspace};

/// Two tips merged the way `sync` merges them (a union of their files),
/// written.
fn merge_outcome_histories(repo: &Repo, ours: Oid, theirs: Oid) -> anyhow::Result<Oid> {
    let union = repo.chain_union(ours, theirs)?;
    repo.write_union(ours, theirs, &union, "outcomes: merge histories (union)")
}

fn init(path: &Path) {
    git(path, &["init", "-q", "-b", "main"]);
    git(path, &["config", "user.name", "A"]);
    git(path, &["config", "user.email", "a@example.com"]);
}

fn settings() -> Settings {
    Settings {
        recording: Recording::Runs,
        auto_extract: true,
        extractor: None,
    }
}

fn log_one(repo: &Repo, task: &str, agent: &str, cwd: &Path) -> String {
    let input = OutcomeInput {
        task: task.into(),
        agent_name: agent.into(),
        success: true,
        execution_path: vec!["a".into(), "b".into()],
        ..Default::default()
    };
    log(repo, &input, &settings(), cwd).unwrap().outcome.outcome_id
}

fn stored_files(dir: &Path, rev: &str) -> Vec<String> {
    git(dir, &["ls-tree", "-r", "--name-only", rev])
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn two_clones_histories_merge_as_a_union() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let ours_dir = root.join("ours");
    let theirs_dir = root.join("theirs");
    std::fs::create_dir_all(&ours_dir).unwrap();
    init(&ours_dir);
    let ours_ws = Workspace::discover_in(&ours_dir).unwrap();
    let ours = ours_ws.repo().unwrap();
    let shared = log_one(ours, "shared task", "builder", &ours_dir);

    git(
        &root,
        &["clone", "-q", "--no-checkout", ours_dir.to_str().unwrap(), "theirs"],
    );
    git(&theirs_dir, &["config", "user.name", "B"]);
    git(&theirs_dir, &["config", "user.email", "b@example.com"]);
    git(
        &theirs_dir,
        &["fetch", "-q", "origin", &format!("{OUTCOMES_REF}:{OUTCOMES_REF}")],
    );
    let theirs_ws = Workspace::discover_in(&theirs_dir).unwrap();
    let theirs = theirs_ws.repo().unwrap();

    let ours_only = log_one(ours, "ours only", "builder", &ours_dir);
    let theirs_only = log_one(theirs, "theirs only", "qa", &theirs_dir);
    git(
        &ours_dir,
        &[
            "fetch",
            "-q",
            theirs_dir.to_str().unwrap(),
            &format!("{OUTCOMES_REF}:refs/theirs"),
        ],
    );

    let our_tip = ours.read_ref(OUTCOMES_REF).unwrap().unwrap();
    let their_tip = ours.read_ref("refs/theirs").unwrap().unwrap();
    let merged = merge_outcome_histories(ours, our_tip, their_tip).unwrap();
    let files = stored_files(&ours_dir, &merged.to_string());
    for id in [&shared, &ours_only, &theirs_only] {
        let agent = model::agent_of(id).unwrap();
        assert!(
            files.contains(&format!("outcomes/{agent}/{id}.yaml")),
            "{id} missing: {files:?}"
        );
        assert!(
            files.contains(&format!("plans/{agent}/plan_{id}.yaml")),
            "{id}: {files:?}"
        );
    }
    assert_eq!(files.len(), 9, "{files:?}");
    let parents = git(&ours_dir, &["rev-list", "--parents", "-n", "1", &merged.to_string()]);
    assert_eq!(
        parents.split_whitespace().skip(1).collect::<Vec<_>>(),
        vec![our_tip.to_string(), their_tip.to_string()]
    );

    // Either side merged with a history it already contains is unchanged.
    assert_eq!(merge_outcome_histories(ours, merged, their_tip).unwrap(), merged);
    assert_eq!(merge_outcome_histories(ours, their_tip, merged).unwrap(), merged);

    // The merged tip is an ordinary state: reads, more records, fsck clean.
    ours.update_ref(OUTCOMES_REF, merged, crate::git::Expect::Value(our_tip), "merge")
        .unwrap();
    assert_eq!(store::load_all(ours).unwrap().len(), 3);
    assert_eq!(store::statistics(ours).unwrap().agents["qa"].outcomes_logged, 1);
    let _ = log_one(ours, "after the merge", "qa", &ours_dir);
    assert_eq!(store::statistics(ours).unwrap().total.outcomes_logged, 4);
    git(&ours_dir, &["fsck", "--strict", "--no-progress"]);
}

#[test]
fn a_path_both_sides_changed_keeps_ours() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    init(&dir);
    let ws = Workspace::discover_in(&dir).unwrap();
    let repo = ws.repo().unwrap();
    let id = log_one(repo, "task", "builder", &dir);
    let base = repo.read_ref(OUTCOMES_REF).unwrap().unwrap();
    let ours = extract_again(repo, &id, &settings(), &dir).unwrap();
    let our_tip = repo.read_ref(OUTCOMES_REF).unwrap().unwrap();
    // Their side: the same plan re-extracted later (another timestamp).
    repo.update_ref(OUTCOMES_REF, base, crate::git::Expect::Value(our_tip), "rewind")
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    let _ = extract_again(repo, &id, &settings(), &dir).unwrap();
    let their_tip = repo.read_ref(OUTCOMES_REF).unwrap().unwrap();
    let merged = merge_outcome_histories(repo, our_tip, their_tip).unwrap();
    let plan = git(&dir, &["show", &format!("{merged}:plans/builder/plan_{id}.yaml")]);
    assert!(plan.contains(&ours.0.timestamp), "{plan}");
}
