//! GSD task plans as people write them (issue 10): `<verify><automated>`,
//! prose Verify, checkpoint tasks with `--resume --answer`, TDD plans, plan
//! ids and titles, check's messages — through the real binaries and `git`.

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

pub(crate) fn setup(env: &TestEnv) -> std::path::PathBuf {
    let repo = env.repo("repo");
    write(&repo.join("README.md"), "readme\n");
    env.git(&repo, &["add", "README.md"]);
    env.git(&repo, &["commit", "-q", "-m", "readme"]);
    repo
}

/// A task plan with GSD front matter around `tasks`.
pub(crate) fn gsd_plan(tasks: &str) -> String {
    format!(
        "---\nphase: 04-ui\nplan: 02\ntype: execute\nautonomous: false\n---\n\n<objective>\nBuild the page.\n\nPurpose: a test.\n</objective>\n\n<output>\n# Not the title\n</output>\n\n<tasks>\n{tasks}\n</tasks>\n"
    )
}

pub(crate) fn shell_task(name: &str, file: &str, script: &str, verify: &str) -> String {
    format!(
        "<task type=\"auto\">\n  <name>{name}</name>\n  <files>{file}</files>\n  <action>Create {file}.\n\n```sh\n{script}\n```\n  </action>\n  <verify>{verify}</verify>\n  <done>done</done>\n</task>\n"
    )
}

#[test]
fn automated_verify_runs_only_its_command_and_a_fenced_verify_runs_its_block() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let tasks = shell_task(
        "Task 1: Greeting",
        "hello.txt",
        "echo hello > hello.txt",
        "\n    <automated>grep -q hello hello.txt</automated>\n    <fails_when>hello.txt is empty</fails_when>\n  ",
    ) + &shell_task(
        "Task 2: Farewell",
        "bye.txt",
        "echo bye > bye.txt",
        "\nThe file says bye:\n```bash\ngrep -q bye bye.txt\n```\n",
    );
    write(&repo.join("04-02-PLAN.md"), &gsd_plan(&tasks));
    let check = env
        .run(&repo, &["ultraplan", "check", "--json", "04-02-PLAN.md"])
        .expect_code(0);
    let j = check.json();
    assert_eq!(j["title"], "Build the page.");
    assert_eq!(j["steps"][0]["verify"]["command"], "grep -q hello hello.txt");
    assert_eq!(j["steps"][0]["fails_when"], "hello.txt is empty");
    assert_eq!(j["steps"][1]["verify"]["command"], "grep -q bye bye.txt");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "04-02-PLAN.md"]).expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD~1"])
        .expect_code(0);
    assert_transcript!(
        t,
        "automated_verify_runs_only_its_command_and_a_fenced_verify_runs_its_block"
    );
    assert_eq!(
        env.subjects(&repo)[..2],
        ["04-02 Task 2: Farewell", "04-02 Task 1: Greeting"]
    );
    env.assert_fsck(&repo);
}

#[test]
fn prose_verify_is_flagged_not_run_and_waits_for_a_person() {
    let env = TestEnv::new();
    let repo = setup(&env);
    // Run with `sh -c`, this prose would fail with exit 127; a marker shows
    // whether anything ran it.
    let tasks = shell_task(
        "Write the guide",
        "GUIDE.md",
        "echo '# Guide' > GUIDE.md",
        "README contains the section; user can follow it",
    );
    write(&repo.join("04-02-PLAN.md"), &gsd_plan(&tasks));
    // Numbered by position, warned once; its issues show in the table.
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "check", "04-02-PLAN.md"]).expect_code(0);
    let _ = t.run(&repo, &["ultraplan", "run", "04-02-PLAN.md"]).expect_code(3);
    // The change waits in the worktree for the person; nothing committed yet.
    assert_eq!(env.subjects(&repo), ["readme", "initial"]);
    assert_eq!(read(&repo.join("GUIDE.md")), "# Guide\n");
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--resume", "--answer", "approved", "04-02-PLAN.md"],
        )
        .expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    assert_transcript!(t, "prose_verify_is_flagged_not_run_and_waits_for_a_person");
    assert_eq!(env.subjects(&repo)[0], "04-02 Task 1: Write the guide");
    env.assert_fsck(&repo);
}

#[test]
fn prose_verify_passes_on_the_executors_word_with_allow_unverified() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let tasks = shell_task(
        "Task 1: Guide",
        "GUIDE.md",
        "echo g > GUIDE.md",
        "tsc build output is clean",
    );
    write(&repo.join("04-02-PLAN.md"), &gsd_plan(&tasks));
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--allow-unverified", "04-02-PLAN.md"])
        .expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    assert_transcript!(t, "prose_verify_passes_on_the_executors_word_with_allow_unverified");
}

#[test]
fn checkpoint_tasks_stop_show_the_options_and_record_the_answer() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let tasks = shell_task("Task 1: Page", "page.html", "echo '<h1>hi</h1>' > page.html", "grep -q hi page.html")
        + "<task type=\"checkpoint:human-verify\" gate=\"blocking\">\n  <what-built>The page at page.html</what-built>\n  <how-to-verify>Open page.html and look at the heading</how-to-verify>\n  <resume-signal>Type \"approved\" or describe issues</resume-signal>\n</task>\n\n"
        + "<task type=\"checkpoint:decision\" gate=\"blocking\">\n  <decision>Which chart library</decision>\n  <context>One chart is needed.</context>\n  <options>\n    <option id=\"recharts\"><name>Recharts</name><pros>React</pros></option>\n    <option id=\"uplot\"><name>uPlot</name><pros>Small</pros></option>\n  </options>\n  <resume-signal>Select: recharts or uplot</resume-signal>\n</task>\n\n"
        + &shell_task("Task 4: Chart", "chart.txt", "echo chart > chart.txt", "test -s chart.txt");
    write(&repo.join("04-02-PLAN.md"), &gsd_plan(&tasks));
    let check = env
        .run(&repo, &["ultraplan", "check", "--json", "04-02-PLAN.md"])
        .expect_code(0);
    let j = check.json();
    assert_eq!(j["steps"][1]["human"]["kind"], "verify");
    assert_eq!(j["steps"][2]["title"], "Decide: Which chart library");
    assert_eq!(j["steps"][2]["human"]["options"][1]["id"], "uplot");

    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "04-02-PLAN.md"]).expect_code(3);
    t.note("without an answer it keeps waiting");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--resume", "04-02-PLAN.md"])
        .expect_code(3);
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--resume", "--answer", "approved", "04-02-PLAN.md"],
        )
        .expect_code(3);
    t.note("an answer that names no option is refused, and the step still waits");
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--resume", "--answer", "d3", "04-02-PLAN.md"],
        )
        .expect_code(3);
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--resume", "--answer", "uPlot", "04-02-PLAN.md"],
        )
        .expect_code(0);
    for step in [2, 3] {
        let record = format!("refs/ultraplan/04-02-PLAN/run:steps/0/0/0/{step}/attempt-1.yaml");
        let _ = t.run(&repo, &["show", &record]).expect_code(0);
    }
    t.note("--answer needs --resume");
    let _ = t
        .run(&repo, &["ultraplan", "run", "--answer", "x", "04-02-PLAN.md"])
        .expect_code(129);
    assert_transcript!(t, "checkpoint_tasks_stop_show_the_options_and_record_the_answer");
    assert_eq!(env.subjects(&repo)[..2], ["04-02 Task 4: Chart", "04-02 Task 1: Page"]);
    env.assert_fsck(&repo);
}

const TDD_PLAN: &str = "---\nphase: 05-parse\nplan: 01\ntype: tdd\n---\n\n<objective>\nAnswer 42.\n</objective>\n\n<feature>\n  <name>answer</name>\n  <files>answer.txt, answer_test.sh</files>\n  <behavior>answer.txt holds 42</behavior>\n  <implementation>Write 42 into answer.txt</implementation>\n</feature>\n\n<verification>\nsh answer_test.sh\n</verification>\n";

#[test]
fn tdd_plan_runs_red_then_green() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(&repo.join("05-01-PLAN.md"), TDD_PLAN);
    // The agent writes the test in step 1 (RED) and the implementation in step 2.
    let agent = env.root().join("agent.sh");
    write(
        &agent,
        "case \"$ULTRAPLAN_STEP\" in\n1) echo 'grep -qx 42 answer.txt' > answer_test.sh ;;\n2) echo 42 > answer.txt ;;\nesac\n",
    );
    let executor = format!("sh {}", agent.display());
    let check = env
        .run(
            &repo,
            &["ultraplan", "check", "--executor", "claude", "--json", "05-01-PLAN.md"],
        )
        .expect_code(0);
    let j = check.json();
    assert_eq!(j["type"], "task-plan");
    assert_eq!(j["steps"][0]["title"], "RED: failing test for answer");
    assert_eq!(j["steps"][1]["title"], "GREEN: implement answer");
    assert_eq!(j["steps"][2]["title"], "REFACTOR: clean up answer");
    let out = env
        .run(&repo, &["ultraplan", "run", "--executor", &executor, "05-01-PLAN.md"])
        .expect_code(0);
    assert!(out.stdout.contains("Result: COMPLETED"), "{out}");
    assert_eq!(
        env.git(&repo, &["show", "--name-only", "--format=", "HEAD~1"]),
        "answer_test.sh\n"
    );
    assert_eq!(
        env.git(&repo, &["show", "--name-only", "--format=", "HEAD"]),
        "answer.txt\n"
    );

    // A RED step whose test already passes (the implementation came too early) fails.
    let env = TestEnv::new();
    let repo = setup(&env);
    write(&repo.join("05-01-PLAN.md"), TDD_PLAN);
    let agent = env.root().join("eager.sh");
    write(
        &agent,
        "echo 'grep -qx 42 answer.txt' > answer_test.sh\necho 42 > answer.txt\n",
    );
    let executor = format!("sh {}", agent.display());
    let out = env
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--max-attempts",
                "1",
                "--executor",
                &executor,
                "05-01-PLAN.md",
            ],
        )
        .expect_code(1);
    assert!(out.stdout.contains("at step 1"), "{out}");
    assert_eq!(env.subjects(&repo), ["readme", "initial"]);
}

#[test]
fn phase_and_plan_ids_keep_decimal_phases_and_titles_come_from_the_objective() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    for (name, id, title) in [
        ("12.5-05-PLAN.md", "12.5-05", "Export the blueprint as JSON."),
        ("22-06-PLAN.md", "22-06", "Remove the deprecated v1 routes."),
        ("02-01-PLAN.md", "02-01", "Add the health endpoint to the HTTP server."),
    ] {
        std::fs::copy(fixture(&format!("plans/gsd/tuned/{name}")), repo.join(name)).unwrap();
        let j = env.run(&repo, &["ultraplan", "check", "--json", name]).json();
        assert_eq!(j["plan_id"], id, "{name}");
        assert_eq!(j["title"], title, "{name}");
    }
    // `<success_criteria>` prose items are plain criteria; `Task N:` lines still sync.
    let out = env.run(&repo, &["ultraplan", "check", "22-06-PLAN.md"]);
    assert!(!out.stdout.contains("does not start with 'Task N:'"), "{out}");
}

/// What each task's Verify should become: a command, or a check for a person.
const LABELS: &[(&str, &[Option<&str>])] = &[
    ("tuned/01-02-PLAN.md", &[None, Some("grep -q '^dev:' Makefile")]),
    ("tuned/02-01-PLAN.md", &[Some("tsc --noEmit"), Some("npm test")]),
    (
        "tuned/03-02-PLAN.md",
        &[
            Some("npx vitest run src/lib/session.test.ts"),
            Some("npm run build && npx vitest run"),
        ],
    ),
    ("tuned/04-03-PLAN.md", &[Some("npm run build"), None, None]),
    (
        "tuned/05-01-PLAN.md",
        &[
            Some("! { npx vitest run src/duration.test.ts\n}"),
            Some("npx vitest run src/duration.test.ts"),
            Some("npx vitest run src/duration.test.ts"),
        ],
    ),
    (
        "tuned/06-02-PLAN.md",
        &[
            Some("node -e \"JSON.parse(require('fs').readFileSync('vercel.json','utf8'))\""),
            None,
            None,
        ],
    ),
    (
        "tuned/12.5-05-PLAN.md",
        &[
            Some("python3 -m pytest -q tests/test_export.py"),
            Some("python3 -m pytest -q"),
        ],
    ),
    (
        "tuned/22-06-PLAN.md",
        &[
            Some("go build ./... && go test ./..."),
            Some("grep -q 'Removed the v1 API' CHANGELOG.md"),
        ],
    ),
    (
        "held-out/07-01-PLAN.md",
        &[
            Some("cargo test -q search::"),
            Some("cargo test -q tokens && cargo clippy -q -- -D warnings"),
        ],
    ),
    (
        "held-out/08-02-PLAN.md",
        &[None, Some("pnpm vitest run app/api"), Some("pnpm lint")],
    ),
    (
        "held-out/09-01-PLAN.md",
        &[
            Some("sqlite3 :memory: < migrations/0007_orders.sql"),
            Some("bash -n scripts/seed.sh"),
            None,
        ],
    ),
    (
        "held-out/10-03-PLAN.md",
        &[Some("test -s docs/api.md"), None, Some("npx cspell \"docs/**/*.md\"")],
    ),
    (
        "held-out/11-01-PLAN.md",
        &[
            Some("! { node --test test/lru.test.js\n}"),
            Some("node --test test/lru.test.js"),
            Some("node --test test/lru.test.js"),
        ],
    ),
];

/// The prose-vs-command rule measured on the fixtures: no prose run as a
/// command and no command left to a person, on the tuned and the held-out set.
#[test]
fn the_command_or_prose_rule_on_the_gsd_fixtures() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let mut wrong = Vec::new();
    for (name, labels) in LABELS {
        let path = fixture(&format!("plans/gsd/{name}"));
        let out = env.run(&repo, &["ultraplan", "check", "--json", path.to_str().unwrap()]);
        let j = out.json();
        let steps = j["steps"].as_array().unwrap();
        assert_eq!(steps.len(), labels.len(), "{name}: {out}");
        for (step, label) in steps.iter().zip(labels.iter()) {
            let got = step["verify"]["command"].as_str();
            if got != *label {
                wrong.push(format!("{name} step {}: got {got:?}, want {label:?}", step["number"]));
            }
            if got.is_none() {
                assert!(
                    step["human"].is_object(),
                    "{name}: a step with no command waits for a person"
                );
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
