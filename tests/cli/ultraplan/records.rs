//! The record (DESIGN §16): `stats` over recorded runs, and the STATE.md
//! Performance Metrics section written without touching the rest of the file.

use crate::harness::plans::{plan, StepSpec};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

fn recorded(env: &TestEnv) -> std::path::PathBuf {
    let repo = env.repo("repo");
    let counter = env.root().join("counter");
    let retried = format!(
        "n=$(cat {c} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {c}\necho $n > b.txt",
        c = counter.display()
    );
    let body = plan(&[
        StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        StepSpec::new(2, "`b.txt`", &retried, "grep -q 2 b.txt").policy("retry"),
        StepSpec::new(3, "`c.txt`", "echo c > c.txt", "false").policy("skip"),
    ]);
    write(&repo.join("03-01-PLAN.md"), &body);
    env.git(&repo, &["add", "03-01-PLAN.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    let _ = env.run(&repo, &["ultraplan", "run", "03-01-PLAN.md"]).expect_code(0);
    repo
}

#[test]
fn stats_count_tasks_retries_and_skips_once_each() {
    let env = TestEnv::new();
    let repo = recorded(&env);
    let json = env.run(&repo, &["ultraplan", "stats", "--json"]).expect_code(0).json();
    assert_eq!(json["tasks_executed"], 3, "{json}");
    assert_eq!(json["tasks_succeeded"], 2);
    assert_eq!(json["tasks_skipped"], 1);
    assert_eq!(json["tasks_failed"], 0);
    assert_eq!(json["total_retries"], 1);
    assert_eq!(json["success_rate"], 0.67);
    assert_eq!(json["velocity"]["plans_completed"], 1);
    assert_eq!(json["by_plan"][0]["key"], "03-01");
    assert_eq!(json["by_phase"][0]["key"], "03");
    assert_eq!(json["trend"], "unknown");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "stats"]).expect_code(0);
    // Nothing after the day given.
    let json = env
        .run(&repo, &["ultraplan", "stats", "--json", "--since", "2999-01-01"])
        .expect_code(0)
        .json();
    assert_eq!(json["tasks_executed"], 0);
    // A relative date, as git reads it: the last 24 hours hold every task.
    let _ = t
        .run(&repo, &["ultraplan", "stats", "--since", "yesterday"])
        .expect_code(0);
    assert_transcript!(t, "stats_count_tasks_retries_and_skips_once_each");
}

#[test]
fn state_md_changes_only_its_metrics_section() {
    let env = TestEnv::new();
    let repo = recorded(&env);
    let before = "# Project State\r\n\r\n## Current Position\r\n\r\nPhase: 3\r\n\r\n## Performance Metrics\r\n\r\nold numbers\r\n\r\n## Session Continuity\r\n\r\nLast session: yesterday";
    std::fs::write(repo.join("STATE.md"), before).unwrap();
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "stats", "--state-md"]).expect_code(0);
    t.file(&repo.join("STATE.md"));
    let after = std::fs::read_to_string(repo.join("STATE.md")).unwrap();
    let (head, rest) = after.split_once("## Performance Metrics\r\n").unwrap();
    assert_eq!(
        head,
        "# Project State\r\n\r\n## Current Position\r\n\r\nPhase: 3\r\n\r\n"
    );
    assert!(
        rest.ends_with("\r\n\r\n## Session Continuity\r\n\r\nLast session: yesterday"),
        "{after}"
    );
    // Without the section, it is added at the end; the file is never committed.
    std::fs::write(repo.join("OTHER.md"), "# Other\n").unwrap();
    let _ = t
        .run(&repo, &["ultraplan", "stats", "--state-md", "OTHER.md"])
        .expect_code(0);
    t.file(&repo.join("OTHER.md"));
    assert_transcript!(t, "state_md_changes_only_its_metrics_section");
    let other = std::fs::read_to_string(repo.join("OTHER.md")).unwrap();
    assert!(
        other.starts_with("# Other\n\n## Performance Metrics\n\n**Velocity:**\n"),
        "{other}"
    );
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), "?? OTHER.md\n?? STATE.md\n");
}

#[test]
fn export_logs_lays_out_the_seeds_directory_and_writes_nothing_in_git() {
    let env = TestEnv::new();
    let repo = recorded(&env);
    let refs_before = env.git(&repo, &["for-each-ref"]);
    let dir = env.root().join("logs");
    let _ = env
        .run(&repo, &["ultraplan", "export", "--logs", dir.to_str().unwrap()])
        .expect_code(0);
    let mut names: Vec<String> = walk(&dir);
    names.sort();
    let day = names[1].split('/').nth(1).unwrap().to_owned();
    assert_eq!(
        names,
        [
            "current-session.json".to_owned(),
            format!("executions/{day}/03-01-task-01-success.yaml"),
            format!("executions/{day}/03-01-task-02-failure.yaml"),
            format!("executions/{day}/03-01-task-02-success.yaml"),
            format!("executions/{day}/03-01-task-03-failure.yaml"),
            format!("summary/daily-{day}.json"),
        ]
        .into_iter()
        .map(|n| n.to_owned())
        .collect::<Vec<_>>()
        .tap_sort()
    );
    let first = read(&dir.join(format!("executions/{day}/03-01-task-01-success.yaml")));
    assert!(first.starts_with("logged_at: "), "{first}");
    assert!(first.contains("\nplan_id: 03-01\ntask_index: 1\n"), "{first}");
    assert!(first.contains("\nresult:\n  status: success\n"), "{first}");
    let daily: serde_json::Value = serde_json::from_str(&read(&dir.join(format!("summary/daily-{day}.json")))).unwrap();
    assert_eq!(daily["tasks_executed"], 3);
    assert_eq!(daily["by_plan"]["03-01"]["tasks"], 3);
    assert_eq!(env.git(&repo, &["for-each-ref"]), refs_before);
    // Not into a directory with something in it, unless forced.
    let again = env
        .run(&repo, &["ultraplan", "export", "--logs", dir.to_str().unwrap()])
        .expect_code(128);
    assert!(again.stderr.contains("exists and is not empty"), "{again}");
    let _ = env
        .run(
            &repo,
            &["ultraplan", "export", "--force", "--logs", dir.to_str().unwrap()],
        )
        .expect_code(0);
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out
}

trait TapSort {
    fn tap_sort(self) -> Self;
}

impl TapSort for Vec<String> {
    fn tap_sort(mut self) -> Self {
        self.sort();
        self
    }
}

#[test]
fn a_configured_state_file_is_committed_alone_at_the_end_of_a_run() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let body = plan(&[StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt")]);
    write(&repo.join("plan.md"), &body);
    write(&repo.join("STATE.md"), "# State\n\n## Decisions\n\n- keep it small\n");
    env.git(&repo, &["add", "plan.md", "STATE.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan and state"]);
    env.git(&repo, &["config", "ultraplan.stateFile", "STATE.md"]);
    // The user's own edit, not committed, must stay out of the commit.
    write(
        &repo.join("STATE.md"),
        "# State\n\n## Decisions\n\n- keep it small\n- my draft\n",
    );
    let out = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    assert!(out.stderr.contains("chore: update STATE.md metrics ("), "{out}");
    assert_eq!(env.subjects(&repo)[..2], ["chore: update STATE.md metrics", "step 1"]);
    assert_eq!(
        env.git(&repo, &["show", "--format=", "--name-only", "HEAD"]),
        "STATE.md\n"
    );
    let committed = env.git(&repo, &["show", "HEAD:STATE.md"]);
    assert!(
        committed.starts_with("# State\n\n## Decisions\n\n- keep it small\n\n## Performance Metrics\n"),
        "{committed}"
    );
    assert!(!committed.contains("my draft"));
    let on_disk = read(&repo.join("STATE.md"));
    assert!(on_disk.contains("- my draft\n\n## Performance Metrics\n"), "{on_disk}");
    assert_eq!(env.git(&repo, &["status", "--porcelain"]), " M STATE.md\n");
    env.assert_fsck(&repo);
    // A path outside the repository is refused with a warning; the run still passes.
    env.git(&repo, &["config", "ultraplan.stateFile", "../STATE.md"]);
    let out = env
        .run(&repo, &["ultraplan", "run", "--step", "1", "plan.md"])
        .expect_code(0);
    assert!(
        out.stderr
            .contains("warning: cannot update ultraplan.stateFile '../STATE.md'"),
        "{out}"
    );
}

/// A bare remote, a clone with a recorded run (a retry, a skip, a note per
/// checkpoint) pushed to it, and a second, fresh clone.
fn two_clones(env: &TestEnv) -> (std::path::PathBuf, std::path::PathBuf) {
    let a = recorded(env);
    let bare = env.root().join("remote.git");
    env.git(env.root(), &["init", "-q", "--bare", bare.to_str().unwrap()]);
    env.git(&a, &["push", "-q", bare.to_str().unwrap(), "main"]);
    let b = env.root().join("b");
    env.git(
        env.root(),
        &["clone", "-q", "-b", "main", bare.to_str().unwrap(), b.to_str().unwrap()],
    );
    (a, b)
}

fn without_exported_at(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("exported_at:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn export_then_import_into_a_fresh_clone_then_export_gives_the_same_document() {
    let env = TestEnv::new();
    let (a, b) = two_clones(&env);
    let first = env.root().join("first.yaml");
    let _ = env
        .run(
            &a,
            &[
                "ultraplan",
                "export",
                "--all",
                "--transcripts",
                "-o",
                first.to_str().unwrap(),
            ],
        )
        .expect_code(0);
    let doc = read(&first);
    assert!(doc.starts_with("version: 2\nexported_at: "), "{doc}");
    assert!(
        doc.contains("\n  slug: 03-01-PLAN\n") || doc.contains("- slug: 03-01-PLAN\n"),
        "{doc}"
    );
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&b, &["ultraplan", "import", first.to_str().unwrap()])
        .expect_code(0);
    let second = env.root().join("second.yaml");
    let _ = env
        .run(
            &b,
            &[
                "ultraplan",
                "export",
                "--all",
                "--transcripts",
                "-o",
                second.to_str().unwrap(),
            ],
        )
        .expect_code(0);
    let (one, two) = (without_exported_at(&doc), without_exported_at(&read(&second)));
    if let Some((n, (x, y))) = one.lines().zip(two.lines()).enumerate().find(|(_, (x, y))| x != y) {
        panic!("the documents differ at line {}: {x:?} / {y:?}", n + 1);
    }
    assert_eq!(one, two);
    // The audit log reads the same, and the results travel as notes.
    let log = |repo: &std::path::Path| {
        env.git(
            repo,
            &["log", "--first-parent", "--format=%s", "refs/ultraplan/03-01-PLAN/run"],
        )
    };
    assert_eq!(log(&b), log(&a));
    assert_eq!(
        env.git(&b, &["notes", "--ref=ultraplan", "show", "HEAD"]),
        env.git(&a, &["notes", "--ref=ultraplan", "show", "HEAD"])
    );
    let _ = t.run(&b, &["ultraplan", "log", "03-01-PLAN.md"]).expect_code(0);
    t.note("importing again changes nothing");
    let _ = t
        .run(&b, &["ultraplan", "import", first.to_str().unwrap()])
        .expect_code(0);
    assert_transcript!(
        t,
        "export_then_import_into_a_fresh_clone_then_export_gives_the_same_document"
    );
    env.assert_fsck(&b);
}

#[test]
fn an_import_keeps_a_different_state_beside_and_skips_notes_of_missing_commits() {
    let env = TestEnv::new();
    let (a, _) = two_clones(&env);
    let export = env.root().join("x.yaml");
    let _ = env
        .run(&a, &["ultraplan", "export", "--all", "-o", export.to_str().unwrap()])
        .expect_code(0);
    // Another repository with its own run of the same plan and none of a's commits.
    let other = TestEnv::new();
    let c = recorded(&other);
    let before = other.git(&c, &["rev-parse", "refs/ultraplan/03-01-PLAN/run"]);
    let mut t = Transcript::new(&other);
    t.replace(env.root().display().to_string(), "<TMP-OF-A>");
    let _ = t
        .run(&c, &["ultraplan", "import", export.to_str().unwrap()])
        .expect_code(0);
    assert_transcript!(
        t,
        "an_import_keeps_a_different_state_beside_and_skips_notes_of_missing_commits"
    );
    assert_eq!(other.git(&c, &["rev-parse", "refs/ultraplan/03-01-PLAN/run"]), before);
    let _ = other
        .run(&c, &["ultraplan", "import", "--force", export.to_str().unwrap()])
        .expect_code(0);
    assert_ne!(other.git(&c, &["rev-parse", "refs/ultraplan/03-01-PLAN/run"]), before);
}

#[test]
fn bad_exports_are_refused_naming_the_problem_and_write_nothing() {
    let env = TestEnv::new();
    let (a, b) = two_clones(&env);
    let good = env.root().join("good.yaml");
    let _ = env
        .run(&a, &["ultraplan", "export", "--all", "-o", good.to_str().unwrap()])
        .expect_code(0);
    let text = read(&good);
    let refs_before = env.git(&b, &["for-each-ref"]);
    let cases: Vec<(&str, String, &str)> = vec![
        ("version", text.replacen("version: 2", "version: 7", 1), "export version 7 is not one this git-ultraplan reads"),
        ("truncated", text[..text.len() / 2].to_owned(), "'"),
        ("type", text.replacen("version: 2", "version: 2\nplans: 3\nextra: x", 1), "'"),
        ("escape", text.replacen("run.json:", "../../escape.json:", 1), "is not a path inside a state"),
        ("slug", text.replacen("slug: 03-01-PLAN", "slug: con", 1), "plan slug 'con'"),
        ("bomb", "version: 1\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n".into(), "'"),
        ("nested", format!("version: 1\nplans: {}{}", "[".repeat(5000), "]".repeat(5000)), "nest"),
    ];
    let mut t = Transcript::new(&env);
    for (what, body, says) in cases {
        let path = env.root().join(format!("{what}.yaml"));
        std::fs::write(&path, &body).unwrap();
        let started = std::time::Instant::now();
        // Half a document ends where the run id's length puts it: not a transcript.
        let out = if what == "truncated" {
            env.run(&b, &["ultraplan", "import", path.to_str().unwrap()])
        } else {
            t.run(&b, &["ultraplan", "import", path.to_str().unwrap()])
        }
        .expect_code(128);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{what} took {:?}",
            started.elapsed()
        );
        assert!(out.stderr.starts_with("fatal: '"), "{what}: {out}");
        assert!(out.stderr.contains(says), "{what}: {out}");
        assert_eq!(env.git(&b, &["for-each-ref"]), refs_before, "{what} wrote a reference");
    }
    assert_transcript!(t, "bad_exports_are_refused_naming_the_problem_and_write_nothing");
}

/// The digests of runs already read are a cache: `stats` reads them instead
/// of walking a run's commits again, reads a run afresh once it has a new
/// newest commit, and reads everything again when the cache is damaged.
#[test]
fn stats_read_the_digests_of_runs_read_before_and_never_trust_a_damaged_one() {
    let env = TestEnv::new();
    let repo = recorded(&env);
    let first = env.run(&repo, &["ultraplan", "stats", "--json"]).expect_code(0).json();
    let cache = repo.join(".git/ultraplan/digests.json");
    let text = std::fs::read_to_string(&cache).expect("stats keeps the digests");
    // Read from the cache: a digest edited by hand shows in the figures.
    let edited = text.replacen("\"status\":\"success\"", "\"status\":\"failure\"", 1);
    assert_ne!(edited, text);
    std::fs::write(&cache, &edited).unwrap();
    let json = env.run(&repo, &["ultraplan", "stats", "--json"]).expect_code(0).json();
    assert_eq!(json["tasks_failed"], 1, "the digest was read: {json}");
    // A damaged file is read as empty and written again.
    std::fs::write(&cache, "{ not json").unwrap();
    let again = env.run(&repo, &["ultraplan", "stats", "--json"]).expect_code(0).json();
    assert_eq!(again, first);
    assert!(std::fs::read_to_string(&cache).unwrap().starts_with("{\"version\":2,"));
    // A new run is read; the old one still comes from its digest.
    env.git(&repo, &["commit", "-q", "--allow-empty", "-m", "again"]);
    // (Step 2's counter has passed 2 now: this run fails there.)
    let _ = env
        .run(&repo, &["ultraplan", "run", "--again", "03-01-PLAN.md"])
        .expect_code(1);
    let json = env.run(&repo, &["ultraplan", "stats", "--json"]).expect_code(0).json();
    assert!(
        json["tasks_executed"].as_u64() > first["tasks_executed"].as_u64(),
        "{json}"
    );
    assert_eq!(json["velocity"]["plans_completed"], 1, "{json}");
    // Nothing of it is in git.
    let refs = env.git(&repo, &["for-each-ref", "--format=%(refname)"]);
    assert!(!refs.contains("digest"), "{refs}");
}

/// Imported into a repository that lacks the record's commits, the states
/// come in whole (layout 2 stores what its trees change, not copies of the
/// commits they change) and what is left out, the notes of those commits, is
/// named.
#[test]
fn an_import_into_a_repository_without_the_commits_keeps_the_states_whole() {
    let env = TestEnv::new();
    let repo = recorded(&env);
    env.git(&repo, &["commit", "-q", "--allow-empty", "-m", "again"]);
    let mut t = Transcript::new(&env);
    t.note("a second run; step 2's counter has passed 2 now, so it fails there");
    let _ = t
        .run(&repo, &["ultraplan", "run", "-q", "--again", "03-01-PLAN.md"])
        .expect_code(1);
    let _ = t
        .run(&repo, &["ultraplan", "export", "--all", "-o", "../record.yaml"])
        .expect_code(0);
    let empty = env.repo("empty");
    t.note("the state stores what its trees change, never your commits: a repository without them gets every state whole; only the notes of commits it lacks are left out, each named");
    let _ = t.run(&empty, &["ultraplan", "import", "../record.yaml"]).expect_code(0);
    let _ = t
        .run(&empty, &["for-each-ref", "--format=%(refname)", "refs/ultraplan/"])
        .expect_code(0);
    let _ = t.run(&empty, &["notes", "--ref=ultraplan", "list"]).expect_code(0);
    let _ = t.run(&empty, &["ultraplan", "stats"]).expect_code(0);
    assert_transcript!(
        t,
        "an_import_into_a_repository_without_the_commits_keeps_the_states_whole"
    );
    env.assert_fsck(&empty);
}
