//! The run state's layouts (issue 37): state an earlier version wrote
//! (layout 1, `tests/fixtures/state-v1/state-v1.bundle`, made by its
//! `make.sh` with that version) keeps working, the export round trip, and
//! imports checked before anything is written (issue 36 item 12, issue 44
//! item 7).

use std::path::{Path, PathBuf};

use crate::harness::support::{fixture, read, write, TestEnv};
use crate::harness::transcript::Transcript;

/// A clone of the layout-1 fixture: `main` checked out, the run states and
/// notes fetched.
fn layout_1(env: &TestEnv, name: &str) -> PathBuf {
    let repo = env.repo(name);
    let bundle = fixture("state-v1/state-v1.bundle");
    env.git(
        &repo,
        &[
            "fetch",
            "-q",
            bundle.to_str().unwrap(),
            "main:refs/remotes/fixture/main",
            "refs/ultraplan/*:refs/ultraplan/*",
            "refs/notes/*:refs/notes/*",
        ],
    );
    env.git(&repo, &["reset", "-q", "--hard", "refs/remotes/fixture/main"]);
    repo
}

/// The first line where two documents differ, for a readable failure.
fn first_difference(a: &str, b: &str) -> String {
    let (mut la, mut lb) = (a.lines(), b.lines());
    for n in 1.. {
        match (la.next(), lb.next()) {
            (None, None) => return "none".into(),
            (x, y) if x != y => return format!("line {n}: {x:?} / {y:?}"),
            _ => {}
        }
    }
    unreachable!()
}

fn export(env: &TestEnv, repo: &Path, file: &Path) -> String {
    let _ = env
        .run(
            repo,
            &[
                "ultraplan",
                "export",
                "--all",
                "--transcripts",
                "-o",
                file.to_str().unwrap(),
            ],
        )
        .expect_code(0);
    let text = read(file);
    // The one line that differs from one export to the next.
    text.lines()
        .filter(|l| !l.starts_with("exported_at:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn state_in_layout_1_is_read_as_it_is() {
    let env = TestEnv::new();
    let repo = layout_1(&env, "repo");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "status"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "log", "plan.md"]).expect_code(0);
    let _ = t
        .run(&repo, &["ultraplan", "show", "plan.md", "--step", "1"])
        .expect_code(0);
    t.note("reading wrote nothing: the state is still in layout 1");
    let _ = t
        .run(&repo, &["ls-tree", "--name-only", "refs/ultraplan/plan/run"])
        .expect_code(0);
    assert_transcript!(t, "state_in_layout_1_is_read_as_it_is");
}

#[test]
fn a_run_started_in_layout_1_resumes_in_layout_2() {
    let env = TestEnv::new();
    let repo = layout_1(&env, "repo");
    write(&repo.join("ok.txt"), "fixed\n");
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "-q", "--resume", "plan.md"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["log", "--format=%s", "refs/ultraplan/plan/run"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["show", "refs/ultraplan/plan/run:run.json"])
        .expect_code(0);
    t.note("step 1's files moved to its folder, its kept trees as they were");
    let _ = t
        .run(
            &repo,
            &["ls-tree", "--name-only", "refs/ultraplan/plan/run:steps/0/0/0/1"],
        )
        .expect_code(0);
    let _ = t
        .run(
            &repo,
            &[
                "ls-tree",
                "--name-only",
                "refs/ultraplan/plan/run:steps/0/0/0/1/snapshot",
            ],
        )
        .expect_code(0);
    t.note("the log lists the attempts made before the upgrade and after it");
    let _ = t.run(&repo, &["ultraplan", "log", "plan.md"]).expect_code(0);
    let _ = t.run(&repo, &["status", "--short"]).expect_code(0);
    let _ = t
        .run(&repo, &["fsck", "--strict", "--no-dangling", "--no-progress"])
        .expect_code(0);
    t.note("another state of the same repository is still in layout 1, and read");
    let _ = t.run(&repo, &["ultraplan", "status", "first.md"]).expect_code(0);
    assert_transcript!(t, "a_run_started_in_layout_1_resumes_in_layout_2");
    for f in ["c.txt", "e.txt"] {
        assert!(repo.join(f).exists(), "{f}");
    }
}

/// Layout 1 exports, imports and exports again to the same document; so does
/// a state in layout 2.
#[test]
fn exports_of_either_layout_round_trip() {
    let env = TestEnv::new();
    let repo = layout_1(&env, "repo");
    let first = export(&env, &repo, &env.root().join("a.yaml"));
    assert!(first.starts_with("version: 2\n"), "{first}");
    let other = layout_1(&env, "other");
    for r in [
        "refs/ultraplan/plan/run",
        "refs/ultraplan/first/run",
        "refs/notes/ultraplan",
    ] {
        env.git(&other, &["update-ref", "-d", r]);
    }
    let _ = env
        .run(
            &other,
            &["ultraplan", "import", env.root().join("a.yaml").to_str().unwrap()],
        )
        .expect_code(0);
    let again = export(&env, &other, &env.root().join("b.yaml"));
    assert!(again == first, "{}", first_difference(&first, &again));
    assert_eq!(
        env.git(&other, &["rev-parse", "refs/ultraplan/plan/run^{tree}"]),
        env.git(&repo, &["rev-parse", "refs/ultraplan/plan/run^{tree}"])
    );

    // Layout 2: the resumed run, whose chain holds both layouts.
    write(&repo.join("ok.txt"), "fixed\n");
    let _ = env
        .run(&repo, &["ultraplan", "run", "-q", "--resume", "plan.md"])
        .expect_code(0);
    let second = export(&env, &repo, &env.root().join("c.yaml"));
    let third = layout_1(&env, "third");
    for r in [
        "refs/ultraplan/plan/run",
        "refs/ultraplan/first/run",
        "refs/notes/ultraplan",
    ] {
        env.git(&third, &["update-ref", "-d", r]);
    }
    env.git(
        &third,
        &["fetch", "-q", repo.to_str().unwrap(), "main:refs/remotes/origin/main"],
    );
    let _ = env
        .run(
            &third,
            &["ultraplan", "import", env.root().join("c.yaml").to_str().unwrap()],
        )
        .expect_code(0);
    let again = export(&env, &third, &env.root().join("d.yaml"));
    assert!(again == second, "{}", first_difference(&second, &again));
    // The same commits: the audit log is the same history.
    assert_eq!(
        env.git(&third, &["rev-parse", "refs/ultraplan/plan/run"]),
        env.git(&repo, &["rev-parse", "refs/ultraplan/plan/run"])
    );
    let log = env.run(&third, &["ultraplan", "log", "plan.md"]).expect_code(0);
    assert_eq!(
        log.stdout.lines().filter(|l| l.starts_with("  step")).count(),
        4,
        "{log}"
    );
}

/// Import checks the whole document before it writes: signatures git would
/// refuse, a cut-short export, a byte-order mark, a version that is no number.
#[test]
fn imports_are_checked_whole_before_anything_is_written() {
    let env = TestEnv::new();
    let repo = layout_1(&env, "repo");
    let good = env.root().join("good.yaml");
    let _ = export(&env, &repo, &good);
    let text = read(&good);
    let other = env.repo("other");
    let refs_before = env.git(&other, &["for-each-ref"]);
    let offset = text.find("offset: 0").expect("an offset");
    // Inside a record (a note names it), among the files at the end.
    let blobs = text.find("\nblobs:\n").expect("files");
    let cut = blobs + text[blobs..].find("result:").unwrap() + 9;
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "offset",
            format!("{}offset: -1000000000{}", &text[..offset], &text[offset + 9..]),
            "time offset -1000000000 s is not one git can write",
        ),
        (
            "nul-author",
            text.replacen("name: Ada Author", "name: \"Ada\\0Author\"", 1),
            "holds a character git refuses",
        ),
        (
            "nul-message",
            text.replacen("- message: 'run ", "- message: \"run\\0\" # '", 1),
            "NUL",
        ),
        ("time", text.replacen("time: 17", "time: -17", 1), "before 1970"),
        (
            "cut-in-record",
            text[..cut].to_owned() + "\n",
            "which the export does not hold",
        ),
        ("cut-mid-line", text[..cut].to_owned(), "ends in the middle of a line"),
        (
            "version-text",
            text.replacen("version: 2", "version: \"1\"", 1),
            "'version' is '1', not a version number",
        ),
        (
            "version-negative",
            text.replacen("version: 2", "version: -1", 1),
            "'version' is -1, not a version number",
        ),
        (
            "version-fraction",
            text.replacen("version: 2", "version: 1.5", 1),
            "'version' is 1.5, not a version number",
        ),
    ];
    for (what, body, says) in cases {
        let path = env.root().join(format!("{what}.yaml"));
        std::fs::write(&path, &body).unwrap();
        let out = env
            .run(&other, &["ultraplan", "import", path.to_str().unwrap()])
            .expect_code(128);
        assert!(out.stderr.contains(says), "{what}: {out}");
        assert!(!out.stderr.contains("panicked"), "{what}: {out}");
        assert_eq!(
            env.git(&other, &["for-each-ref"]),
            refs_before,
            "{what} wrote a reference"
        );
    }
    // Version 1, as the previous release exported the fixture: read, and a
    // copy cut inside a note is refused.
    let v1 = read(&fixture("state-v1/export-v1.yaml"));
    let note = v1.find("    note: |").expect("a note");
    let cut = note + v1[note..].find("result:").unwrap() + 9;
    let path = env.root().join("v1-cut.yaml");
    std::fs::write(&path, format!("{}\n", &v1[..cut])).unwrap();
    let out = env
        .run(&other, &["ultraplan", "import", path.to_str().unwrap()])
        .expect_code(128);
    assert!(out.stderr.contains("is not a whole result record"), "{out}");
    assert_eq!(env.git(&other, &["for-each-ref"]), refs_before);
    let fresh = layout_1(&env, "fresh");
    for r in [
        "refs/ultraplan/plan/run",
        "refs/ultraplan/first/run",
        "refs/notes/ultraplan",
    ] {
        env.git(&fresh, &["update-ref", "-d", r]);
    }
    let v1_file = fixture("state-v1/export-v1.yaml");
    let _ = env
        .run(&fresh, &["ultraplan", "import", v1_file.to_str().unwrap()])
        .expect_code(0);
    let status = env.run(&fresh, &["ultraplan", "status"]).expect_code(0);
    assert!(status.stdout.contains("plan.md: stopped (1/3 steps done"), "{status}");
    // A byte-order mark is read past.
    let bom = env.root().join("bom.yaml");
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    let _ = env
        .run(&repo, &["ultraplan", "import", bom.to_str().unwrap()])
        .expect_code(0);
}
