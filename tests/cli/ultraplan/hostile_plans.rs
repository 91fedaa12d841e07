//! Hostile plan paths, names and layouts (issue 36, items 13, 14 and 16;
//! issue 44, item 7): a plan that is a device or a named pipe is refused
//! with the reason, never read without end or waited on; odd names run;
//! `check` and `run` agree on every layout; a step cannot write through a
//! link an earlier step made without the fence seeing where it leads, and
//! what it writes outside the repository is named.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// Runs `git <args>` in `cwd`, killed if it has not ended in `limit`
/// (`None` then): a command that waits on a FIFO must fail the test, not
/// hang it.
fn run_bounded(env: &TestEnv, cwd: &Path, args: &[&str], limit: Duration) -> Option<Output> {
    let mut cmd = env.command("git", cwd);
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let started = Instant::now();
    while started.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            return Some(Output::from(out));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

fn mkfifo(env: &TestEnv, path: &Path) {
    let out = capture({
        let mut c = env.command("mkfifo", env.root());
        c.arg(path);
        c
    });
    assert_eq!(out.code, 0, "{out}");
}

#[test]
fn plans_that_are_devices_pipes_or_links_to_them_are_refused_with_the_reason() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let limit = Duration::from_secs(60);
    let out =
        run_bounded(&env, &repo, &["ultraplan", "check", "/dev/zero"], limit).expect("/dev/zero read without end");
    assert_eq!(
        out.stderr,
        "fatal: cannot read plan '/dev/zero': it is a character device, not a regular file; only regular files are read\n"
    );
    assert_eq!(out.code, 128);
    mkfifo(&env, &repo.join("pipe.md"));
    for command in ["check", "run"] {
        let out = run_bounded(&env, &repo, &["ultraplan", command, "pipe.md"], limit).expect("waited on the FIFO");
        assert_eq!(
            out.stderr,
            "fatal: cannot read plan 'pipe.md': it is a named pipe (FIFO), not a regular file; only regular files are read\n",
            "{command}"
        );
    }
    // A committed symbolic link to a device is followed to what it names.
    std::os::unix::fs::symlink("/dev/zero", repo.join("plan.md")).unwrap();
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "a plan"]);
    let out = run_bounded(&env, &repo, &["ultraplan", "run", "plan.md"], limit).expect("read without end");
    assert!(
        out.stderr.contains("it is a character device, not a regular file"),
        "{out}"
    );
    // The historian's plan files too.
    let out = run_bounded(&env, &repo, &["historian", "plan", "--plan", "pipe.md"], limit).expect("waited");
    assert!(
        out.stderr.contains("it is a named pipe (FIFO), not a regular file"),
        "{out}"
    );
    // A phase directory's plans must be files in it.
    let phase = repo.join("phase");
    std::fs::create_dir(&phase).unwrap();
    mkfifo(&env, &phase.join("01-01-PLAN.md"));
    let out = run_bounded(&env, &repo, &["ultraplan", "check", "phase"], limit).expect("waited");
    assert_eq!(
        out.stderr,
        "fatal: cannot read plan 'phase': '01-01-PLAN.md' is not a file; a phase directory's plans must be files in it\n"
    );
}

fn two_sessions() -> String {
    let steps = [
        crate::harness::plans::StepSpec::new(1, "`a.txt`", "echo a > a.txt", "test -f a.txt"),
        crate::harness::plans::StepSpec::new(2, "`README.md`", "echo b > README.md", "test -f README.md"),
    ];
    let body: String = steps.iter().map(crate::harness::plans::StepSpec::render).collect();
    format!(
        "# Two\n\n## Implementation Plan\n\n{body}## Execution Strategy\n\n\
         ### Session 1: A\n- **Steps:** 1\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `a.txt`\n\n\
         ### Session 2: B\n- **Steps:** 2\n- **Wave:** 1\n- **Depends on:** none\n- **Scope fence:** Touch: `README.md`\n\n"
    )
}

fn committed(env: &TestEnv, repo: &Path, name: &str, text: &str) {
    write(&repo.join(name), text);
    env.git(repo, &["add", "--", name]);
    env.git(repo, &["commit", "-q", "-m", "plan"]);
}

#[test]
fn plans_with_odd_names_run_and_hints_name_them_so_a_shell_reads_them() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut t = Transcript::new(&env);
    // `-x.md`: the sessions get it after `--`, and every hint says so too.
    committed(&env, &repo, "-x.md", &two_sessions());
    t.note("-x.md: the sessions get it after `--`, and every hint says so too");
    let _ = t.run(&repo, &["ultraplan", "check", "--", "-x.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "--", "-x.md"]).expect_code(0);
    let _ = t.run(&repo, &["log", "--oneline", "--first-parent"]).expect_code(0);
    // `*.md` fences itself, not every Markdown file: step 2 writes README.md.
    let repo = env.repo("star");
    committed(&env, &repo, "*.md", &two_sessions());
    t.note("*.md fences itself, not every Markdown file: step 2 writes README.md");
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "--fg", "*.md"]).expect_code(0);
    let _ = t.run(&repo, &["show", "HEAD:README.md"]).expect_code(0);
    // A backslash is part of a name, not a separator.
    let repo = env.repo("backslash");
    committed(&env, &repo, "x\\y.md", &two_sessions());
    t.note("a backslash is part of a name, not a separator");
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "x\\y.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "status"]).expect_code(0);
    assert_transcript!(t, "plans_with_odd_names_run_and_hints_name_them_so_a_shell_reads_them");
}

#[test]
fn check_and_run_agree_on_plans_sessions_cannot_read() {
    let env = TestEnv::new();
    let mut t = Transcript::new(&env);
    for dir in [".git", ".Git"] {
        let repo = env.repo(&format!("repo{dir}"));
        std::fs::create_dir_all(repo.join(dir)).unwrap();
        write(&repo.join(dir).join("plan.md"), &two_sessions());
        let plan = format!("{dir}/plan.md");
        let check = t.run(&repo, &["ultraplan", "check", &plan]);
        assert_ne!(check.code, 0, "{check}");
        let _ = t.run(&repo, &["ultraplan", "run", &plan]).expect_code(128);
    }
    // A phase directory holding a directory named like a plan.
    let repo = env.repo("phase-dir");
    let phase = repo.join("phase");
    std::fs::create_dir_all(phase.join("02-01-PLAN.md")).unwrap();
    std::fs::copy(
        fixture("plans/gsd/01-foundation/01-01-PLAN.md"),
        phase.join("01-01-PLAN.md"),
    )
    .unwrap();
    t.note("a phase directory holding a directory named like a plan");
    let _ = t.run(&repo, &["ultraplan", "check", "phase"]).expect_code(128);
    let _ = t.run(&repo, &["ultraplan", "run", "phase"]).expect_code(128);
    // A phase directory that is a link out of the repository.
    let repo = env.repo("linked");
    let outside = env.root().join("phase-outside");
    std::fs::create_dir_all(&outside).unwrap();
    for name in ["01-01-PLAN.md", "01-02-PLAN.md", "01-03-PLAN.md"] {
        std::fs::copy(fixture(&format!("plans/gsd/01-foundation/{name}")), outside.join(name)).unwrap();
    }
    std::os::unix::fs::symlink(&outside, repo.join("phase")).unwrap();
    t.note("a phase directory that is a link out of the repository");
    let _ = t.run(&repo, &["ultraplan", "check", "phase"]).expect_code(1);
    let _ = t.run(&repo, &["ultraplan", "run", "phase"]).expect_code(128);
    assert_transcript!(t, "check_and_run_agree_on_plans_sessions_cannot_read");
}

#[test]
fn two_plans_of_a_phase_with_one_id_are_a_problem_and_an_export_listing_a_plan_twice_is_refused() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let phase = repo.join("phase");
    std::fs::create_dir_all(&phase).unwrap();
    for name in ["01-01-PLAN.md", "01-02-PLAN.md", "01-03-PLAN.md"] {
        std::fs::copy(fixture(&format!("plans/gsd/01-foundation/{name}")), phase.join(name)).unwrap();
    }
    // The same front matter (`plan: 02`) under another file name.
    let copy = read(&phase.join("01-02-PLAN.md")).replace("api.txt", "api2.txt");
    write(&phase.join("01-02b-PLAN.md"), &copy);
    let mut t = Transcript::new(&env);
    t.note("01-02b-PLAN.md has the same front matter (plan: 02) as 01-02-PLAN.md");
    let _ = t.run(&repo, &["ultraplan", "check", "phase"]).expect_code(1);
    let _ = t.run(&repo, &["ultraplan", "run", "phase"]).expect_code(128);

    // An export whose plan is listed twice: said so, nothing imported.
    let single = crate::harness::plans::plan(&[crate::harness::plans::StepSpec::new(
        1,
        "`a.txt`",
        "echo a > a.txt",
        "test -f a.txt",
    )]);
    let repo = env.repo("exporter");
    committed(&env, &repo, "plan.md", &single);
    let _ = env.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(0);
    let export = env.run(&repo, &["ultraplan", "export", "--all"]).expect_code(0).stdout;
    let (head, rest) = export.split_once("plans:\n").unwrap();
    // Version 2 lists the plans, then the blobs they share.
    let (plans, tail) = match rest.split_once("\nblobs:") {
        Some((plans, tail)) => (format!("{plans}\n"), format!("blobs:{tail}")),
        None => (rest.to_owned(), String::new()),
    };
    let doubled = format!("{head}plans:\n{plans}{plans}{tail}");
    write(&env.root().join("doubled.yaml"), &doubled);
    let fresh = env.repo("fresh");
    t.note("an export whose plan is listed twice: said so, nothing imported");
    let _ = t
        .run(&fresh, &["ultraplan", "import", "../doubled.yaml"])
        .expect_code(128);
    let _ = t
        .run(&fresh, &["for-each-ref", "refs/ultraplan/", "refs/notes/"])
        .expect_code(0);
    assert_transcript!(
        t,
        "two_plans_of_a_phase_with_one_id_are_a_problem_and_an_export_listing_a_plan_twice_is_refused"
    );
}

#[test]
fn writes_through_a_link_an_earlier_step_made_are_fenced_and_writes_outside_are_named() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    std::fs::create_dir_all(env.root().join("elsewhere")).unwrap();
    let plan = "# Links\n\n## Implementation Plan\n\n\
        ### Step 1: Link out\n\n- **Files:** `out`\n- **Changes:** do it\n  ```sh\n  ln -s ../elsewhere out\n  ```\n\
        - **Verify:** `test -L out`\n- **On failure:** revert\n- **Checkpoint:** none\n\n\
        ### Step 2: Write through it\n\n- **Files:** `notes.txt`\n- **Changes:** do it\n  ```sh\n  echo report > out/report.txt\n  echo up > ../up.txt\n  echo n > notes.txt\n  ```\n\
        - **Verify:** `test -f notes.txt`\n- **On failure:** revert\n- **Checkpoint:** none\n\n\
        ### Step 3: Declare a path through it\n\n- **Files:** `out/declared.txt`\n- **Changes:** do it\n  ```sh\n  echo d > out/declared.txt\n  ```\n\
        - **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** none\n";
    committed(&env, &repo, "plan.md", plan);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(3);
    assert!(!env.root().join("elsewhere/declared.txt").exists());
    t.note("the warning is recorded with the step's result");
    let _ = t
        .run(&repo, &["show", "refs/ultraplan/plan/run:steps/0/0/0/2/attempt-1.yaml"])
        .expect_code(0);

    // Through a link inside the repository, the fence sees where it leads.
    let repo = env.repo("inside");
    let plan = "# Fence\n\n## Implementation Plan\n\n\
        ### Step 1: Link\n\n- **Files:** `keep`\n- **Changes:** do it\n  ```sh\n  mkdir -p locked && ln -s locked keep\n  ```\n\
        - **Verify:** `test -L keep`\n- **On failure:** revert\n- **Checkpoint:** none\n\n\
        ### Step 2: Write\n\n- **Files:** `keep/x.txt`\n- **Changes:** do it\n  ```sh\n  echo x > keep/x.txt\n  ```\n\
        - **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** none\n- **Manifest:**\n  ```yaml\n  manifest:\n    forbidden_paths: [\"locked/**\"]\n  ```\n";
    committed(&env, &repo, "plan.md", plan);
    t.note("through a link inside the repository, the fence sees where it leads");
    let _ = t.run(&repo, &["ultraplan", "-q", "run", "plan.md"]).expect_code(3);
    assert_transcript!(
        t,
        "writes_through_a_link_an_earlier_step_made_are_fenced_and_writes_outside_are_named"
    );
    assert!(!repo.join("locked/x.txt").exists());
}
