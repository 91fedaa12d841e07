//! The fixture corpus of the other planners' formats (issue 40), measured:
//! for each format, the share of its plans that `check` reads as READY and
//! the share of those that run to the end (with the stub agent, stub test
//! runners, `--allow-unverified` where the format has no command, and a
//! person's answers where a plan stops for one). Two parts per format:
//! `tuned/`, which the readers were written against, and `held-out/`,
//! written before the readers ran on it and never tuned on. The expected
//! counts below are what the readers give today: a change that moves one
//! fails here and must be looked at.

use std::path::Path;

use crate::harness::support::*;
use crate::ultraplan::formats::repo_with_fixture;

/// One plan of the corpus: where it goes in the repository, where it comes
/// from, and the path `check`/`run` take.
struct Case {
    dest: String,
    src: String,
    plan: String,
}

fn cases(format: &str, part: &str) -> Vec<Case> {
    let dir = fixture(&format!("plans/{format}/{part}"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let src = format!("{format}/{part}/{name}");
            match format {
                "speckit" => Case {
                    dest: format!("specs/{name}"),
                    src,
                    plan: format!("specs/{name}/tasks.md"),
                },
                "kiro" => Case {
                    dest: format!(".kiro/specs/{name}"),
                    src,
                    plan: format!(".kiro/specs/{name}/tasks.md"),
                },
                "taskmaster" => Case {
                    dest: ".taskmaster".into(),
                    src,
                    plan: ".taskmaster/tasks/tasks.json".into(),
                },
                "bmad" => Case {
                    dest: format!("docs/stories/{name}"),
                    src,
                    plan: format!("docs/stories/{name}"),
                },
                _ => Case {
                    dest: format!(".planning/phases/{name}"),
                    src,
                    plan: format!(".planning/phases/{name}"),
                },
            }
        })
        .collect()
}

/// Plans written to break their format's rules (a dangling reference, a
/// line without its ID or checkbox, a circle of dependencies): `check` must
/// not call them READY.
const MALFORMED: [&str; 8] = [
    "004-broken-lines",
    "012-bad-deps",
    "broken-numbering",
    "note-export",
    "billing-invoices",
    "circular",
    "string-ids",
    "3.1.broken-refs.md",
];

/// What a part of the corpus gave: (plans, well-formed plans READY of
/// well-formed plans, of them ran to the end, malformed plans flagged of
/// malformed plans).
#[derive(Debug, PartialEq, Eq)]
struct Measured {
    plans: usize,
    ready: (usize, usize),
    ran: usize,
    flagged: (usize, usize),
}

fn measure(format: &str, part: &str) -> Measured {
    let cases = cases(format, part);
    let mut m = Measured {
        plans: cases.len(),
        ready: (0, 0),
        ran: 0,
        flagged: (0, 0),
    };
    for case in &cases {
        let malformed = MALFORMED.iter().any(|name| case.src.ends_with(name));
        let mut env = TestEnv::new();
        let repo = repo_with_fixture(&mut env, &[(case.dest.as_str(), case.src.as_str())]);
        // The verdict for the agent the plan is run with (the shell executor
        // cannot carry out a task written in prose), and as it is run: taking
        // the agent's word for a task without a test command.
        let agent = format!("sh {}", repo.join("stubs/agent.sh").display());
        let ready = env
            .run(
                &repo,
                &[
                    "ultraplan",
                    "check",
                    "--allow-unverified",
                    "--executor",
                    &agent,
                    &case.plan,
                ],
            )
            .code
            == 0;
        if malformed {
            m.flagged.1 += 1;
            m.flagged.0 += usize::from(!ready);
            continue;
        }
        m.ready.1 += 1;
        if ready {
            m.ready.0 += 1;
            m.ran += usize::from(runs(&env, &repo, &case.plan));
        }
    }
    m
}

/// Runs the plan, answering a person's stops (an option by position, else
/// "approved") at most four times; whether it ends COMPLETED.
fn runs(env: &TestEnv, repo: &Path, plan: &str) -> bool {
    let agent = format!("sh {}", repo.join("stubs/agent.sh").display());
    let mut out = env.run(
        repo,
        &["ultraplan", "run", "--allow-unverified", "--executor", &agent, plan],
    );
    for _ in 0..4 {
        if out.code != 3 {
            break;
        }
        let answer = if out.stdout.contains("Waiting for you\n  Decide:") {
            "1"
        } else {
            "approved"
        };
        out = env.run(
            repo,
            &[
                "ultraplan",
                "run",
                "--resume",
                "--allow-unverified",
                "--answer",
                answer,
                plan,
            ],
        );
    }
    if out.code != 0 && std::env::var_os("ULTRAPLAN_CORPUS_DEBUG").is_some() {
        eprintln!("{plan}: exit {}\n{}\n{}", out.code, out.stdout, out.stderr);
    }
    out.code == 0
}

fn m(plans: usize, ready: (usize, usize), ran: usize, flagged: (usize, usize)) -> Measured {
    Measured {
        plans,
        ready,
        ran,
        flagged,
    }
}

#[test]
fn the_corpus_reads_ready_and_runs() {
    let expected = [
        ("speckit", "tuned", m(4, (3, 3), 3, (1, 1))),
        ("speckit", "held-out", m(3, (2, 2), 2, (1, 1))),
        ("kiro", "tuned", m(3, (1, 1), 1, (2, 2))),
        ("kiro", "held-out", m(2, (1, 1), 1, (1, 1))),
        ("taskmaster", "tuned", m(3, (2, 2), 2, (1, 1))),
        ("taskmaster", "held-out", m(2, (1, 1), 1, (1, 1))),
        ("bmad", "tuned", m(3, (2, 2), 2, (1, 1))),
        ("bmad", "held-out", m(2, (2, 2), 2, (0, 0))),
        ("gsd-core", "tuned", m(1, (1, 1), 1, (0, 0))),
        ("gsd-core", "held-out", m(1, (1, 1), 1, (0, 0))),
    ];
    let mut failed = Vec::new();
    for (format, part, want) in expected {
        let got = measure(format, part);
        eprintln!(
            "{format:<11} {part:<9} plans {}  READY {}/{}  ran {}/{}  malformed flagged {}/{}",
            got.plans, got.ready.0, got.ready.1, got.ran, got.ready.0, got.flagged.0, got.flagged.1
        );
        if got != want {
            failed.push(format!("{format} {part}: {got:?}, expected {want:?}"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
