//! Git's conventions: exit statuses, `fatal:` messages, `-h`/`--version`,
//! repository discovery (GIT_DIR, GIT_WORK_TREE, subdirectories), `git -c`
//! configuration, color and `-q`.

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

const PLAN: &str = "# Demo\n\n## Implementation Plan\n\n### Step 1: Touch the readme\n\
- **Files:** `README.md`\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** none\n";

fn repo_with_plan(env: &TestEnv) -> std::path::PathBuf {
    let repo = env.repo("repo");
    std::fs::write(repo.join("plan.md"), PLAN).unwrap();
    repo
}

#[test]
fn version_and_short_help() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let out = env.run(&repo, &["ultraplan", "--version"]).expect_code(0);
    assert_eq!(out.stdout, format!("git-ultraplan {}\n", env!("CARGO_PKG_VERSION")));
    let out = env.run(&repo, &["historian", "--version"]).expect_code(0);
    assert_eq!(out.stdout, format!("git-historian {}\n", env!("CARGO_PKG_VERSION")));
    let out = env.run(&repo, &["ultraplan", "-h"]).expect_code(0);
    assert!(out.stdout.contains("Usage: git ultraplan [OPTIONS] <COMMAND>"), "{out}");
    // `check` listed as a command (not a word inside another line).
    assert!(
        out.stdout.lines().any(|l| l.trim_start().starts_with("check ")),
        "{out}"
    );
    let out = env.run(&repo, &["ultraplan", "check", "-h"]).expect_code(0);
    assert!(
        out.stdout.contains("Usage: git ultraplan check [OPTIONS] <PLAN>"),
        "{out}"
    );
}

#[test]
fn usage_errors_exit_129() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan"]).expect_code(129);
    let _ = t.run(&repo, &["ultraplan", "frobnicate"]).expect_code(129);
    let _ = t.run(&repo, &["ultraplan", "check"]).expect_code(129);
    let _ = t.run(&repo, &["ultraplan", "check", "--bogus", "x"]).expect_code(129);
    let _ = t
        .run(&repo, &["ultraplan", "--color=sometimes", "check", "x"])
        .expect_code(129);
    // The hint a multi-session run gives its sessions: a full commit id,
    // and only with --session.
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--session", "1", "--clean-at=HEAD", "plan.md"],
        )
        .expect_code(129);
    let _ = t
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--clean-at=0123456789abcdef0123456789abcdef01234567",
                "plan.md",
            ],
        )
        .expect_code(129);
    assert_transcript!(t, "usage_errors_exit_129");
}

#[test]
fn unreadable_plans_are_fatal() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let out = env.run(&repo, &["ultraplan", "check", "nope.md"]).expect_code(128);
    assert_eq!(
        out.stderr,
        "fatal: cannot read plan 'nope.md': No such file or directory\n"
    );
    assert!(out.stdout.is_empty());

    std::fs::create_dir(repo.join("dir.md")).unwrap();
    let out = env.run(&repo, &["ultraplan", "check", "dir.md"]).expect_code(128);
    assert_eq!(out.stderr, "fatal: cannot read plan 'dir.md': it is a directory without '*-PLAN.md' files (a GSD phase directory holds them)\n");

    std::fs::write(repo.join("bin.md"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let out = env.run(&repo, &["ultraplan", "check", "bin.md"]).expect_code(128);
    assert_eq!(out.stderr, "fatal: cannot read plan 'bin.md': it is UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8; convert it: iconv -f UTF-16 -t UTF-8\n");

    std::fs::write(repo.join("notes.md"), "# Notes\n\nJust thoughts.\n").unwrap();
    let out = env
        .run(&repo, &["ultraplan", "check", "--json", "notes.md"])
        .expect_code(128);
    // `--json` promises a JSON document on stdout, also here.
    assert!(
        out.json()["error"]
            .as_str()
            .unwrap()
            .starts_with("'notes.md' is not a plan"),
        "{out}"
    );
    assert_eq!(
        out.stderr,
        format!("fatal: {}\n", out.json()["error"].as_str().unwrap()),
        "one line, saying what the JSON says"
    );
}

#[test]
fn outside_a_repository_paths_resolve_against_the_current_directory() {
    let env = TestEnv::new();
    let dir = env.root().join("plain");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("plan.md"), PLAN).unwrap();
    std::fs::write(dir.join("README.md"), "x").unwrap();
    let mut t = Transcript::new(&env);
    let _ = t.run(&dir, &["ultraplan", "check", "plan.md"]).expect_code(0);
    t.note("-q silences notes and keeps the primary output");
    let _ = t.run(&dir, &["ultraplan", "-q", "check", "plan.md"]).expect_code(0);
    assert_transcript!(t, "outside_a_repository_paths_resolve_against_the_current_directory");
}

#[test]
fn discovery_from_a_subdirectory_and_through_git_dir() {
    let env = TestEnv::new();
    let repo = repo_with_plan(&env);
    std::fs::create_dir(repo.join("sub")).unwrap();
    let out = env
        .run(&repo.join("sub"), &["ultraplan", "check", "--json", "../plan.md"])
        .expect_code(0);
    assert_eq!(out.json()["file_references"][0]["status"], "exists", "{out}");

    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let plan = repo.join("plan.md").display().to_string();
    let git_dir = repo.join(".git").display().to_string();
    let work_tree = repo.display().to_string();
    let out = env
        .run_with(
            &elsewhere,
            &["ultraplan", "check", "--json", &plan],
            &[("GIT_DIR", &git_dir), ("GIT_WORK_TREE", &work_tree)],
        )
        .expect_code(0);
    assert_eq!(out.json()["file_references"][0]["status"], "exists", "{out}");
    assert!(out.stderr.is_empty(), "found the repository: {out}");
    // Without them the same directory is not a repository.
    let out = env
        .run(&elsewhere, &["ultraplan", "check", "--json", &plan])
        .expect_code(0);
    assert_eq!(out.json()["file_references"][0]["status"], "not-found", "{out}");
}

fn colored(out: &Output) -> bool {
    out.stdout.contains("\x1b[")
}

#[test]
fn color_follows_flag_config_and_environment() {
    let env = TestEnv::new();
    let repo = repo_with_plan(&env);
    let check = |args: &[&str], extra: &[(&str, &str)]| {
        let mut full: Vec<&str> = args.to_vec();
        full.extend(["check", "plan.md"]);
        env.run_with(&repo, &full, extra).expect_code(0)
    };
    assert!(!colored(&check(&["ultraplan"], &[])), "not a terminal: no color");
    assert!(colored(&check(&["ultraplan", "--color=always"], &[])));
    assert!(
        colored(&check(&["-c", "color.ui=always", "ultraplan"], &[])),
        "git -c reaches us"
    );
    assert!(!colored(&check(
        &["-c", "color.ui=always", "-c", "color.ultraplan=never", "ultraplan"],
        &[]
    )));
    assert!(
        !colored(&check(&["-c", "color.ui=always", "ultraplan", "--color=never"], &[])),
        "the flag wins"
    );
    assert!(
        colored(&check(&["ultraplan"], &[("GIT_PAGER_IN_USE", "true")])),
        "auto under git's pager"
    );
    assert!(!colored(&check(
        &["ultraplan"],
        &[("GIT_PAGER_IN_USE", "true"), ("NO_COLOR", "1")]
    )));
    assert!(!colored(&check(
        &["ultraplan"],
        &[("GIT_PAGER_IN_USE", "true"), ("TERM", "dumb")]
    )));
    assert!(
        colored(&check(&["ultraplan", "--color=always"], &[("NO_COLOR", "1")])),
        "the flag beats NO_COLOR"
    );
    env.git(&repo, &["config", "color.ultraplan", "always"]);
    assert!(colored(&check(&["ultraplan"], &[])), "repository config");
    assert!(
        !colored(&check(&["-c", "color.ultraplan=false", "ultraplan"], &[])),
        "-c beats the repository"
    );
}

/// git refuses a broken `GIT_CONFIG_PARAMETERS` before it runs a subcommand;
/// run directly, the binary refuses it the same way.
#[test]
fn bogus_config_parameters_are_fatal_like_git() {
    let env = TestEnv::new();
    let repo = repo_with_plan(&env);
    let mut cmd = env.command(bin_dir().join("git-ultraplan"), &repo);
    cmd.args(["check", "plan.md"])
        .env("GIT_CONFIG_PARAMETERS", "'unterminated");
    let out = capture(cmd).expect_code(128);
    assert_eq!(out.stderr, "fatal: bogus format in GIT_CONFIG_PARAMETERS\n");
    // Well-formed parameters set by hand work too (git's own format).
    let mut cmd = env.command(bin_dir().join("git-ultraplan"), &repo);
    cmd.args(["check", "plan.md"])
        .env("GIT_CONFIG_PARAMETERS", "'color.ui'='always'");
    assert!(capture(cmd).expect_code(0).stdout.contains("\x1b["));
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut plan = String::from("# Big\n\n## Implementation Plan\n\n");
    for n in 1..=3000 {
        plan.push_str(&format!(
            "### Step {n}: Step number {n}\n- **Files:** `f{n}.txt` (new)\n- **Verify:** `true`\n- **On failure:** skip\n- **Checkpoint:** none\n\n"
        ));
    }
    std::fs::write(repo.join("big.md"), plan).unwrap();
    let mut cmd = env.command("bash", &repo);
    cmd.args([
        "-c",
        "git ultraplan check --json big.md | head -c 10 >/dev/null; echo \"status=${PIPESTATUS[0]}\"",
    ]);
    let out = capture(cmd);
    assert_eq!(out.stdout, "status=0\n", "{out}");
    assert!(out.stderr.is_empty(), "no panic, no message: {out}");
}

/// One reader for every YAML the program reads (issues 36 and 42): the
/// parser's cost grows with the square of the nesting depth, and only
/// `src/yaml.rs` bounds it. Any other file of `src/` that hands text to
/// `serde_yaml` directly reopens the quadratic path (a note nested 100,000
/// levels deep took 36 s to check).
#[test]
fn every_yaml_text_is_parsed_by_the_one_bounded_reader() {
    let calls = [
        "serde_yaml::from_str",
        "serde_yaml::from_slice",
        "serde_yaml::from_reader",
        "Deserializer::from_str",
        "Deserializer::from_slice",
        "Deserializer::from_reader",
    ];
    let mut offenders = Vec::new();
    for (path, text) in tree_state(&repo_root().join("src")) {
        let shown = format!("src/{}", path.display());
        if shown == "src/yaml.rs" || !shown.ends_with(".rs") {
            continue;
        }
        let text = String::from_utf8_lossy(&text);
        for call in calls {
            for (n, line) in text.lines().enumerate() {
                if line.contains(call) {
                    offenders.push(format!("{shown}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "parse YAML with crate::yaml (parse, parse_as, documents_as):\n{}",
        offenders.join("\n")
    );
}

/// What marks a test that compares a whole transcript: the macro, or the
/// check it expands to (for a transcript built over several repositories).
/// Spelled in two pieces so that this file's own test is not counted.
const TRANSCRIPT_MARKS: [&str; 2] = [concat!("assert_", "transcript!"), concat!("transcript::", "check(")];

/// The share of CLI tests that compare a whole transcript (issue 42, item 9)
/// can only go up: a test fn counts when its body uses one of
/// [`TRANSCRIPT_MARKS`]. The floor is the share measured when it was set;
/// raise it as tests are converted, never lower it.
#[test]
fn the_share_of_tests_that_compare_a_whole_transcript_never_falls() {
    /// 266 of 390 tests when the floor was set, in thousandths.
    const FLOOR_PER_MILLE: usize = 680;
    let (mut tests, mut whole) = (0, 0);
    for (path, text) in tree_state(&repo_root().join("tests/cli")) {
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = String::from_utf8_lossy(&text);
        // `#[test]` alone on its line, as rustfmt writes it.
        for piece in text.split("\n#[test]\n").skip(1) {
            // The test's body: up to the first line that closes an item.
            let body = piece.split("\n}\n").next().unwrap_or(piece);
            tests += 1;
            if TRANSCRIPT_MARKS.iter().any(|m| body.contains(m)) {
                whole += 1;
            }
        }
    }
    let per_mille = whole * 1000 / tests.max(1);
    eprintln!(
        "CLI tests that compare a whole transcript: {whole} of {tests} ({}.{}%)",
        per_mille / 10,
        per_mille % 10
    );
    assert!(
        per_mille >= FLOOR_PER_MILLE,
        "{whole} of {tests} CLI tests compare a whole transcript ({per_mille}‰), below the floor of {FLOOR_PER_MILLE}‰: \
         a new test shows the commands a user runs and their whole output (assert_transcript!, tests/cli/harness/transcript.rs)"
    );
}
