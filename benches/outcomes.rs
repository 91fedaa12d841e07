//! Outcomes against the seed's targets (DESIGN §17), measured, not asserted:
//!
//! * 100 concurrent `git-ultraplan outcome log` processes: all 100 records
//!   present, wall time for all of them (target < 1 s);
//! * rule-based extraction per outcome (target < 100 ms);
//! * storage per example — one record (outcome, plan, training example) as
//!   one commit on the ref — into an empty store and into one of 10,000
//!   outcomes (target < 50 ms);
//! * search over 10,000 outcomes: loading them from git, ranking, and the
//!   whole `outcome search` process (target < 100 ms).
//!
//! Run with `cargo bench --bench outcomes`.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{env, git, median};
use serde_json::Map;
use ultraplan::git::{Repo, TreeEdit, Workspace};
use ultraplan::ultraplan::outcomes::{self, extract, model, store, Outcome, OutcomeInput, Recording, Settings};

const CONCURRENT: usize = 100;
const CORPUS: usize = 10_000;
const AGENTS: [&str; 5] = ["builder", "qa", "deploy", "docs", "security"];
const WORDS: [&str; 16] = [
    "build", "auth", "endpoint", "jwt", "tests", "deploy", "docs", "cache", "schema", "migrate", "login", "api",
    "refactor", "parser", "billing", "search",
];

fn init(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Bench"]);
    git(dir, &["config", "user.email", "bench@example.com"]);
}

fn settings() -> Settings {
    Settings {
        recording: Recording::Runs,
        auto_extract: true,
        extractor: None,
    }
}

fn input(i: usize) -> OutcomeInput {
    let words: Vec<&str> = (0..6).map(|k| WORDS[(i * 7 + k * 3) % WORDS.len()]).collect();
    OutcomeInput {
        task: format!("task {i}: {}", words.join(" ")),
        agent_name: AGENTS[i % AGENTS.len()].into(),
        success: !i.is_multiple_of(4),
        execution_path: words.iter().take(1 + i % 7).map(|w| format!("{w}_step")).collect(),
        error_message: i.is_multiple_of(4).then(|| format!("{} failed", words[0])),
        execution_time: (i % 40) as f64,
        ..Default::default()
    }
}

fn concurrent_logs(root: &Path) -> (Duration, usize) {
    let repo = root.join("concurrent");
    init(&repo);
    let start = Instant::now();
    let children: Vec<_> = (0..CONCURRENT)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_git-ultraplan"))
                .args([
                    "outcome",
                    "log",
                    "--task",
                    &format!("task {i}"),
                    "--agent",
                    "bench",
                    "--success",
                ])
                .args(["--step", "analyze", "--step", "code", "--step", "test"])
                .current_dir(&repo)
                .envs(env())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let ids: Vec<String> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        })
        .collect();
    let elapsed = start.elapsed();
    let ws = Workspace::discover_in(&repo).unwrap();
    let stats = store::statistics(ws.repo().unwrap()).unwrap();
    for id in &ids {
        assert!(store::find(ws.repo().unwrap(), id).unwrap().is_some(), "{id} lost");
    }
    (elapsed, stats.total.outcomes_logged)
}

/// The floor on this machine: 100 concurrent processes of git itself, each
/// writing one object and moving one ref (`git hash-object -w` + `git update-ref`).
fn concurrent_git_floor(root: &Path) -> Duration {
    let repo = root.join("floor");
    init(&repo);
    let start = Instant::now();
    let children: Vec<_> = (0..CONCURRENT)
        .map(|i| {
            Command::new("sh")
                .args([
                    "-c",
                    &format!("id=$(echo task {i} | git hash-object -w --stdin) && git update-ref refs/floor/{i} $id"),
                ])
                .current_dir(&repo)
                .envs(env())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    start.elapsed()
}

fn extraction() -> Duration {
    let outcomes: Vec<Outcome> = (0..1000)
        .map(|i| {
            let input = input(i);
            Outcome {
                outcome_id: format!("outcome_{}_{:08x}", input.agent_name, i),
                task_description: input.task,
                agent_name: input.agent_name,
                execution_path: input.execution_path,
                result: Map::new(),
                success: input.success,
                error_message: input.error_message,
                execution_time: input.execution_time,
                timestamp: "2025-10-24T00:00:00Z".into(),
                context: Map::new(),
                tags: Vec::new(),
            }
        })
        .collect();
    let start = Instant::now();
    let mut n = 0;
    for o in &outcomes {
        n += extract::by_rules(o, "t").key_decisions.len();
    }
    assert!(n > 0);
    start.elapsed() / outcomes.len() as u32
}

/// One record per call through the library, as `outcome log` stores it.
fn storage(repo: &Repo, cwd: &Path, from: usize, count: usize) -> Duration {
    let mut times = Vec::new();
    for i in from..from + count {
        let start = Instant::now();
        outcomes::log(repo, &input(i), &settings(), cwd).unwrap();
        times.push(start.elapsed());
    }
    median(times)
}

/// 10,000 outcomes (with plans for the successes) written as one commit.
fn corpus(repo: &Repo) {
    let mut edits = Vec::new();
    for i in 0..CORPUS {
        let input = input(i);
        let outcome = Outcome {
            outcome_id: format!("outcome_{}_{:08x}", input.agent_name, i),
            task_description: input.task.clone(),
            agent_name: input.agent_name.clone(),
            execution_path: input.execution_path.clone(),
            result: Map::new(),
            success: input.success,
            error_message: input.error_message.clone(),
            execution_time: input.execution_time,
            timestamp: format!("2025-10-24T00:{:02}:{:02}Z", (i / 60) % 60, i % 60),
            context: Map::new(),
            tags: vec!["production".into(), "outcome".into()],
        };
        let mut put = |path: String, text: String| {
            let id = repo.write_blob(text.as_bytes()).unwrap();
            edits.push(TreeEdit::Blob {
                path,
                id,
                executable: false,
            });
        };
        put(
            format!("outcomes/{}/{}.yaml", outcome.agent_name, outcome.outcome_id),
            serde_yaml::to_string(&outcome).unwrap(),
        );
        if outcome.success {
            let plan = extract::by_rules(&outcome, "t");
            put(
                format!("plans/{}/{}.yaml", outcome.agent_name, plan.plan_id),
                serde_yaml::to_string(&plan).unwrap(),
            );
            put(
                format!("training/{}/training_{}.yaml", outcome.agent_name, plan.plan_id),
                serde_yaml::to_string(&model::TrainingExample::new(outcome, plan)).unwrap(),
            );
        }
    }
    let tree = repo.edit_tree(None, &edits).unwrap();
    let commit = repo.write_commit(tree, &[], "bench corpus").unwrap();
    repo.update_ref(store::OUTCOMES_REF, commit, ultraplan::git::Expect::Absent, "bench")
        .unwrap();
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for (k, v) in env() {
        std::env::set_var(k, v);
    }

    let (wall, stored) = concurrent_logs(&root);
    println!(
        "outcomes: {CONCURRENT} concurrent `outcome log` processes: {stored} of {CONCURRENT} stored, {:.0} ms together (target < 1000 ms)",
        wall.as_secs_f64() * 1000.0
    );

    let floor = concurrent_git_floor(&root);
    println!(
        "outcomes: the floor: {CONCURRENT} concurrent `git hash-object -w` + `git update-ref` scripts: {:.0} ms together (ratio {:.1}x)",
        floor.as_secs_f64() * 1000.0,
        wall.as_secs_f64() / floor.as_secs_f64()
    );

    let per = extraction();
    println!(
        "outcomes: rule-based extraction: {:.1} µs per outcome (target < 100 ms)",
        per.as_secs_f64() * 1e6
    );

    let empty = root.join("empty");
    init(&empty);
    let ws = Workspace::discover_in(&empty).unwrap();
    let per = storage(ws.repo().unwrap(), &empty, 0, 100);
    println!(
        "outcomes: storage into a small store: {:.1} ms per example, median of 100 (target < 50 ms)",
        per.as_secs_f64() * 1000.0
    );

    let big = root.join("big");
    init(&big);
    let ws = Workspace::discover_in(&big).unwrap();
    let repo = ws.repo().unwrap();
    corpus(repo);
    git(&big, &["repack", "-adq"]);
    let ws = Workspace::discover_in(&big).unwrap();
    let repo = ws.repo().unwrap();
    let per = storage(repo, &big, CORPUS, 20);
    println!(
        "outcomes: storage into a store of {CORPUS}: {:.1} ms per example, median of 20 (target < 50 ms)",
        per.as_secs_f64() * 1000.0
    );

    let start = Instant::now();
    let all = store::load_all(repo).unwrap();
    let load = start.elapsed();
    let docs: Vec<String> = all.iter().map(outcomes::search::document).collect();
    let mut ranks = Vec::new();
    for query in ["jwt auth", "deploy failed", "billing parser schema"] {
        let start = Instant::now();
        let hits = outcomes::search::rank(&docs, query);
        ranks.push(start.elapsed());
        assert!(!hits.is_empty());
    }
    let rank = median(ranks);
    let search = || {
        common::timed(
            env!("CARGO_BIN_EXE_git-ultraplan"),
            &["outcome", "search", "jwt", "auth", "--limit", "5"],
            &big,
        )
        .wall
    };
    // The first search builds the index beside the store; later ones read it.
    let _ = std::fs::remove_file(big.join(".git/ultraplan/outcome-index.json"));
    let first = search();
    let whole: Vec<Duration> = (0..5).map(|_| search()).collect();
    println!(
        "outcomes: search over {} outcomes: ranking {:.1} ms; loading them all from git {:.0} ms; the whole `outcome search` process (target < 100 ms): {:.0} ms with the index kept (median of 5), {:.0} ms the first time",
        all.len(),
        rank.as_secs_f64() * 1000.0,
        load.as_secs_f64() * 1000.0,
        median(whole).as_secs_f64() * 1000.0,
        first.as_secs_f64() * 1000.0
    );
}
