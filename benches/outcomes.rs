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
//! The concurrent writers have a plain-git side, the floor of this machine:
//! 100 concurrent `git hash-object -w` + `git update-ref` scripts. The two
//! run as alternating pairs, each in a fresh repository (common's module
//! docs), with CPU (user + system of every process) beside wall time.
//!
//! The rest has no plain-git counterpart — git has no rule-based
//! extraction, no record of an outcome, plan and training example, and no
//! ranked search — so each is reported as the median of its own samples with
//! their range, wall and CPU. Those run in this process (loading parses on
//! several threads of it, all counted, and nothing else runs beside them).
//!
//! Run with `cargo bench --bench outcomes`.

mod common;

use common::{env, git, machine, report_alone, sampled, Pairs, Sample};
use serde_json::Map;
use std::path::Path;
use std::process::{Command, Stdio};
use ultraplan::git::{Repo, TreeEdit, Workspace};
use ultraplan::ultraplan::outcomes::{self, extract, model, store, Outcome, OutcomeInput, Recording, Settings};

const CONCURRENT: usize = 100;
/// Pairs of the concurrent writers against the floor.
const ROUNDS: usize = 7;
/// Samples of each measure without a pair.
const SAMPLES: usize = 7;
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

fn concurrent_logs(repo: &Path) -> (Sample, usize) {
    init(repo);
    let (sample, ids) = sampled(|| {
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
                    .current_dir(repo)
                    .envs(env())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        children
            .into_iter()
            .map(|c| {
                let out = c.wait_with_output().unwrap();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                String::from_utf8_lossy(&out.stdout).trim().to_owned()
            })
            .collect::<Vec<String>>()
    });
    let ws = Workspace::discover_in(repo).unwrap();
    let stats = store::statistics(ws.repo().unwrap()).unwrap();
    for id in &ids {
        assert!(store::find(ws.repo().unwrap(), id).unwrap().is_some(), "{id} lost");
    }
    (sample, stats.total.outcomes_logged)
}

/// The floor on this machine: 100 concurrent processes of git itself, each
/// writing one object and moving one ref (`git hash-object -w` + `git update-ref`).
fn concurrent_git_floor(repo: &Path) -> Sample {
    init(repo);
    sampled(|| {
        let children: Vec<_> = (0..CONCURRENT)
            .map(|i| {
                Command::new("sh")
                    .args([
                        "-c",
                        &format!(
                            "id=$(echo task {i} | git hash-object -w --stdin) && git update-ref refs/floor/{i} $id"
                        ),
                    ])
                    .current_dir(repo)
                    .envs(env())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut c in children {
            assert!(c.wait().unwrap().success());
        }
    })
    .0
}

/// Samples of rule-based extraction, each of one outcome (the mean of 1,000).
fn extraction() -> Vec<Sample> {
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
    (0..SAMPLES)
        .map(|_| {
            let (sample, n) = sampled(|| {
                outcomes
                    .iter()
                    .map(|o| std::hint::black_box(extract::by_rules(o, "t")).key_decisions.len())
                    .sum::<usize>()
            });
            assert!(n > 0);
            sample.per(outcomes.len() as u32)
        })
        .collect()
}

/// One record per call through the library, as `outcome log` stores it.
fn storage(repo: &Repo, cwd: &Path, from: usize, count: usize) -> Vec<Sample> {
    (from..from + count)
        .map(|i| sampled(|| outcomes::log(repo, &input(i), &settings(), cwd).unwrap()).0)
        .collect()
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

    println!("outcomes: {}", machine());

    let mut writers = Pairs::default();
    for round in 0..ROUNDS {
        let ours = root.join(format!("concurrent-{round}"));
        let floor = root.join(format!("floor-{round}"));
        // Which side goes first alternates from round to round.
        let (ours, theirs) = if round % 2 == 0 {
            let ours = concurrent_logs(&ours);
            (ours, concurrent_git_floor(&floor))
        } else {
            let theirs = concurrent_git_floor(&floor);
            (concurrent_logs(&ours), theirs)
        };
        let (ours, stored) = ours;
        assert_eq!(stored, CONCURRENT, "every concurrent record stored");
        writers.push(ours, theirs);
    }
    println!(
        "outcomes: {CONCURRENT} concurrent `outcome log` processes, {CONCURRENT} of {CONCURRENT} stored every time (target < 1000 ms together), against the floor: {CONCURRENT} concurrent `git hash-object -w` + `git update-ref` scripts"
    );
    println!(
        "{}",
        writers.report("100 x outcome log", "100 x hash-object + update-ref")
    );

    println!("outcomes: rule-based extraction, per outcome (target < 100 ms)");
    println!("{}", report_alone("extract::by_rules", &extraction()));

    let empty = root.join("empty");
    init(&empty);
    let ws = Workspace::discover_in(&empty).unwrap();
    let small = storage(ws.repo().unwrap(), &empty, 0, 100);
    println!("outcomes: storage per example (target < 50 ms)");
    println!("{}", report_alone("into a small store", &small));

    let big = root.join("big");
    init(&big);
    let ws = Workspace::discover_in(&big).unwrap();
    let repo = ws.repo().unwrap();
    corpus(repo);
    git(&big, &["repack", "-adq"]);
    let ws = Workspace::discover_in(&big).unwrap();
    let repo = ws.repo().unwrap();
    let large = storage(repo, &big, CORPUS, 20);
    println!("{}", report_alone(&format!("into a store of {CORPUS}"), &large));

    let mut all = Vec::new();
    let loads: Vec<Sample> = (0..SAMPLES)
        .map(|_| {
            let (sample, loaded) = sampled(|| store::load_all(repo).unwrap());
            all = loaded;
            sample
        })
        .collect();
    let docs: Vec<String> = all.iter().map(outcomes::search::document).collect();
    let mut ranks = Vec::new();
    for _ in 0..SAMPLES.div_ceil(3) {
        for query in ["jwt auth", "deploy failed", "billing parser schema"] {
            let (sample, hits) = sampled(|| outcomes::search::rank(&docs, query));
            ranks.push(sample);
            assert!(!hits.is_empty());
        }
    }
    let search = || {
        common::timed(
            env!("CARGO_BIN_EXE_git-ultraplan"),
            &["outcome", "search", "jwt", "auth", "--limit", "5"],
            &big,
        )
    };
    // The first search builds the index beside the store; later ones read it.
    let index = big.join(".git/ultraplan/outcome-index.json");
    let first: Vec<Sample> = (0..SAMPLES)
        .map(|_| {
            let _ = std::fs::remove_file(&index);
            search()
        })
        .collect();
    let kept: Vec<Sample> = (0..SAMPLES).map(|_| search()).collect();
    println!("outcomes: search over {} outcomes (target < 100 ms)", all.len());
    println!("{}", report_alone("ranking (BM25)", &ranks));
    println!("{}", report_alone("loading them all from git", &loads));
    println!("{}", report_alone("search, index kept", &kept));
    println!("{}", report_alone("search, index rebuilt", &first));
}
