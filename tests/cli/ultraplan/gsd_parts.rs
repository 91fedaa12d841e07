//! GSD plans' other parts (issue 10): check's JSON for what is no plan, fences
//! hiding a tag, scope fences, read-first and context files, must-haves and
//! acceptance criteria, prose Verify in an ultraplan step and the session spec
//! template — through the real binaries and `git`.

use crate::harness::support::*;
use crate::harness::transcript::Transcript;

use super::gsd::{gsd_plan, setup};

#[test]
fn check_json_for_a_file_that_is_not_a_plan_is_a_json_error() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    write(&repo.join("notes.md"), "# Just notes\n");
    let out = env
        .run(&repo, &["ultraplan", "check", "--json", "notes.md"])
        .expect_code(128);
    let j = out.json();
    assert!(j["error"].as_str().unwrap().contains("is not a plan"), "{out}");
    assert_eq!(j["file"], "notes.md");
}

#[test]
fn nested_fences_that_hide_a_tag_are_named() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    // A four-backtick fence opened inside the action and closed with three:
    // the fence stays open and swallows </action> and <verify>.
    let plan = gsd_plan(
        "<task type=\"auto\">\n  <name>Task 1: A</name>\n  <files>a.txt</files>\n  <action>Write it:\n````md\n```sh\necho a > a.txt\n```\n  </action>\n  <verify>test -f a.txt</verify>\n</task>\n",
    );
    write(&repo.join("04-02-PLAN.md"), &plan);
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "check", "04-02-PLAN.md"]).expect_code(1);
    assert_transcript!(t, "nested_fences_that_hide_a_tag_are_named");
}

#[test]
fn scope_fence_items_with_spaces_are_kept_or_warned_never_dropped() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let text = read(&fixture("plans/ultraplan-multi-session.md")).replace(
        "- **Scope fence:** Touch: `tests/**` — Never touch: `src/**`",
        "- **Scope fence:** Touch: tests/my dir/**, docs — Never touch: src/**, anything the other sessions own",
    );
    write(&repo.join("plan.md"), &text);
    let out = env.run(&repo, &["ultraplan", "check", "--json", "plan.md"]);
    let j = out.json();
    let session = &j["sessions"][2];
    assert_eq!(
        session["touch"],
        serde_json::json!(["tests/my dir/**", "docs"]),
        "{out}"
    );
    assert_eq!(session["never_touch"], serde_json::json!(["src/**"]), "{out}");
    assert!(
        j["warnings"].as_array().unwrap().iter().any(|w| w["message"]
            .as_str()
            .unwrap()
            .contains("scope fence item 'anything the other sessions own' is not read as a path")),
        "{out}"
    );
}

#[test]
fn read_first_and_context_files_reach_the_executor_and_are_checked() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let tasks = "<task type=\"auto\">\n  <name>Task 1: Note</name>\n  <files>note.txt</files>\n  <read_first>README.md, docs/missing.md</read_first>\n  <action>Write note.txt</action>\n  <verify>test -f note.txt</verify>\n</task>\n";
    let plan = gsd_plan(tasks).replace("</objective>", "</objective>\n\n<context>\n@.planning/STATE.md\n@~/.claude/get-shit-done/workflows/execute-plan.md\n</context>");
    write(&repo.join("04-02-PLAN.md"), &plan);
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "check", "--executor", "claude", "04-02-PLAN.md"])
        .expect_code(0);
    assert_transcript!(t, "read_first_and_context_files_reach_the_executor_and_are_checked");
    let agent = env.root().join("agent.sh");
    let stdin_copy = env.root().join("request.json");
    write(&agent, &format!("cat > {}\necho n > note.txt\n", stdin_copy.display()));
    let _ = env
        .run(
            &repo,
            &[
                "ultraplan",
                "run",
                "--executor",
                &format!("sh {}", agent.display()),
                "04-02-PLAN.md",
            ],
        )
        .expect_code(0);
    let request: serde_json::Value = serde_json::from_str(&read(&stdin_copy)).unwrap();
    assert_eq!(
        request["step"]["context"],
        serde_json::json!(["README.md", "docs/missing.md", ".planning/STATE.md"])
    );
}

#[test]
fn must_haves_and_acceptance_criteria_are_audited_after_the_task() {
    let plan = |script: &str| {
        format!(
            "---\nphase: 03-auth\nplan: 02\ntype: execute\nmust_haves:\n  truths:\n    - \"A user stays signed in\"\n  artifacts:\n    - path: \"src/session.ts\"\n      provides: \"Session helpers\"\n      exports: [\"createSession\"]\n---\n\n<objective>\nSessions.\n</objective>\n\n<tasks>\n<task type=\"auto\">\n  <name>Task 1: Session helpers</name>\n  <files>src/session.ts</files>\n  <action>Create src/session.ts.\n\n```sh\nmkdir -p src\n{script}\n```\n  </action>\n  <verify>test -f src/session.ts</verify>\n  <acceptance_criteria>\n    - src/session.ts uses 'sid', NOT 'session_id'\n    - Sessions are signed\n  </acceptance_criteria>\n</task>\n</tasks>\n"
        )
    };
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("03-02-PLAN.md"),
        &plan("echo \"export function createSession() { return 'session_id' }\" > src/session.ts"),
    );
    let mut t = Transcript::new(&env);
    let _ = t
        .run(&repo, &["ultraplan", "run", "--max-attempts", "1", "03-02-PLAN.md"])
        .expect_code(1);
    assert_transcript!(t, "must_haves_and_acceptance_criteria_are_audited_after_the_task");
    assert_eq!(env.subjects(&repo), ["readme", "initial"]);

    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("03-02-PLAN.md"),
        &plan("echo \"export function createSession() { return 'sid' }\" > src/session.ts"),
    );
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "03-02-PLAN.md"]).expect_code(0);
    let _ = t
        .run(&repo, &["notes", "--ref=ultraplan", "show", "HEAD"])
        .expect_code(0);
    assert_transcript!(t, "must_haves_pass_and_what_ultraplan_cannot_check_is_noted");
}

#[test]
fn prose_verify_in_an_ultraplan_step_is_not_run_either() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write(
        &repo.join("plan.md"),
        "# P\n\n## Implementation Plan\n\n### Step 1: Guide\n- **Files:** `GUIDE.md` (new)\n- **Changes:**\n  ```sh\n  echo g > GUIDE.md\n  ```\n- **Verify:** The guide reads well\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"docs: guide\"`\n\n### Step 2: Check\n- **Files:** `GUIDE.md`\n- **Verify:** test -s GUIDE.md passes\n- **On failure:** revert\n- **Checkpoint:** none\n",
    );
    let check = env
        .run(&repo, &["ultraplan", "check", "--json", "plan.md"])
        .expect_code(0);
    let j = check.json();
    assert_eq!(j["steps"][0]["verify"], serde_json::Value::Null, "{check}");
    assert_eq!(j["steps"][0]["human"]["text"], "The guide reads well");
    assert_eq!(j["steps"][1]["verify"]["command"], "test -s GUIDE.md");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "run", "plan.md"]).expect_code(3);
    let _ = t
        .run(
            &repo,
            &["ultraplan", "run", "--resume", "--answer", "reads well", "plan.md"],
        )
        .expect_code(0);
    assert_transcript!(t, "prose_verify_in_an_ultraplan_step_is_not_run_either");
    assert_eq!(env.subjects(&repo)[0], "docs: guide");
}

/// Issue 10, item 10: ultraplan-local's own templates keep parsing under the
/// command-or-prose rule: Step 0's fenced Verify is run, its prose
/// "non-77 exit code" is an expectation, not a check for a person.
#[test]
fn the_session_spec_template_step_0_is_still_a_command() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    std::fs::copy(fixture("plans/session-2-status-endpoint.md"), repo.join("spec.md")).unwrap();
    let j = env
        .run(
            &repo,
            &["ultraplan", "check", "--executor", "claude", "--json", "spec.md"],
        )
        .expect_code(0)
        .json();
    let step0 = &j["steps"][0];
    assert_eq!(step0["number"], 0);
    assert!(
        step0["verify"]["command"].as_str().unwrap().contains("exit 77"),
        "{step0}"
    );
    assert_eq!(step0["verify"]["expected_kind"], "prose");
    assert_eq!(step0["on_failure"]["action"], "escalate");
    assert!(step0["human"].is_null(), "{step0}");
    assert!(j["steps"].as_array().unwrap().iter().all(|s| s["human"].is_null()));
}
